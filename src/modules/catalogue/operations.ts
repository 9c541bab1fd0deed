/**
 * Catalogue operations the routes call: bulk creates and deletes, bulk split changes,
 * per-entity counts and single deletes. Each takes the tenant transaction and the caller's
 * identity (for the change history) and returns plain data; the route shapes the answer.
 */
import { fromReferenceNames } from '../../http/reference-names';
import { ARTIST_NAMES, ASSET_NAMES, PRODUCT_NAMES } from './reference-names';
import type { TSchema } from '@sinclair/typebox';
import { itemProblems as checkItem } from '../../http/schema';
import type { Trx } from '../../db';
import type { AuthContext } from '../../lib/identity';
import { NotFoundError } from '../../lib/errors';
import * as C from './service';
import { setActor } from './common';
import { bulkInsertAssets, bulkInsertProducts } from './bulk';
import { ArtistBody, AssetBody, ProductBody } from './schemas';
import { applyArtistDefault, deleteSplits, splitsOf, upsertSplit, type Conditions, type ShareInput } from './splits';

type Target = 'asset' | 'product';
type Table = 'assets' | 'products' | 'artists' | 'splits';

/** Validate one bulk item against its schema: a list of problems, empty when fine. */
function itemProblems(schema: TSchema, item: unknown): string[] {
  return checkItem(schema, item, 'item');
}

/** Create many artists, each in its own savepoint; bad items are reported, the rest saved. */
export async function bulkCreateArtists(trx: Trx, tenantId: number, items: unknown[]) {
  const createdArtists: string[] = [];
  const errors: string[] = [];
  for (const [i, sent] of items.entries()) {
    const { body: item, problems: named } = fromReferenceNames(sent, ARTIST_NAMES, '');
    const problems = [...named, ...itemProblems(ArtistBody, item)];
    if (problems.length) { errors.push(`artists[${i}]: ${problems.join('; ')}`); continue; }
    try {
      const a = await trx.transaction((sp) => C.createArtist(sp, tenantId, item as never));
      createdArtists.push(a.name);
    } catch (err) { errors.push(`artists[${i}]: ${C.describe(err)}`); }
  }
  return { createdArtists, errors };
}

/** Validate each item, insert the good ones in one pass; errors keep the caller's item index. */
export async function bulkCreateItems(trx: Trx, tenantId: number, auth: AuthContext, target: Target, items: unknown[]) {
  const key = target === 'asset' ? 'assets' : 'products';
  await setActor(trx, auth, `bulk ${target} import`);
  const good: unknown[] = [];
  const pre: string[] = [];
  const idx: number[] = [];
  items.forEach((sent, i) => {
    const { body: item, problems: named } = fromReferenceNames(sent, target === 'asset' ? ASSET_NAMES : PRODUCT_NAMES, '');
    const p = [...named, ...itemProblems(target === 'asset' ? AssetBody : ProductBody, item)];
    if (p.length) pre.push(`${key}[${i}]: ${p.join('; ')}`);
    else { good.push(item); idx.push(i); }
  });
  const r = target === 'asset'
    ? await bulkInsertAssets(trx, tenantId, auth.tenantUserId, good as unknown as C.AssetInput[])
    : await bulkInsertProducts(trx, tenantId, auth.tenantUserId, good as unknown as C.ProductInput[]);
  const re = new RegExp(`^${key}\\[(\\d+)\\]`);
  const errors = [...pre, ...r.errors.map((e) => e.replace(re, (_, n) => `${key}[${idx[Number(n)]}]`))];
  return { created: r.created, ids: r.ids, errors };
}


/** Delete rows by id with their links and splits; each missing id lands in failedDeletions. */
export async function deleteMany(trx: Trx, auth: AuthContext, table: Table, ids: string[], what: string, note: string) {
  await setActor(trx, auth, note);
  return C.bulkDelete(trx, table, ids, what);
}

/** Delete one row with its links and splits; 404 with `code` when it does not exist. */
export async function deleteOne(trx: Trx, auth: AuthContext, table: Exclude<Table, 'splits'>, id: string, what: string, code: string) {
  const r = await deleteMany(trx, auth, table, [id], what, `${what.toLowerCase()} deleted`);
  if (!r.processedCount) throw new NotFoundError(what, code);
}

/** One split (shares, type, conditions) set on every listed target, each in its own savepoint. */
export async function bulkSetSplits(
  trx: Trx, tenantId: number, auth: AuthContext, target: Target | 'artist',
  items: { id: string; type?: string; split: ShareInput[]; conditions?: unknown }[], note: string,
) {
  await setActor(trx, auth, note);
  let processed = 0;
  const errors: string[] = [];
  for (const it of items) {
    try {
      await trx.transaction((sp) => upsertSplit(sp, tenantId, auth.tenantUserId, { target, targetId: it.id, type: it.type, split: it.split, conditions: it.conditions as Conditions | undefined }));
      processed++;
    } catch (err) {
      errors.push(`${it.id}: ${C.describe(err)}`);
    }
  }
  return { processed, errors };
}

/** Each target gets the default split of its primary artist, each in its own savepoint. */
export async function bulkDefaultSplit(trx: Trx, tenantId: number, auth: AuthContext, target: Target, ids: string[]) {
  await setActor(trx, auth, `default split applied to ${target}`);
  let processed = 0;
  const errors: string[] = [];
  for (const id of ids) {
    try {
      await trx.transaction((sp) => applyArtistDefault(sp, tenantId, auth.tenantUserId, target, id));
      processed++;
    } catch (err) {
      const msg = C.describe(err);
      errors.push(msg.startsWith(id) ? msg : `${id}: ${msg}`);
    }
  }
  return { processed, errors };
}

/** Remove the splits (optionally of one type) of many targets; missing ones are reported. */
export async function bulkDeleteSplits(trx: Trx, auth: AuthContext, target: Target, ids: string[], type?: string) {
  await setActor(trx, auth, `bulk delete ${target} splits`);
  const table = target === 'asset' ? 'assets' : 'products';
  const col = target === 'asset' ? 'asset_id' : 'product_id';
  const found = new Set((await trx(table).whereIn('id', ids).select('id')).map((r) => r.id as string));
  const failedDeletions: { id: string; error: string }[] = [];
  let processedCount = 0;
  for (const id of [...new Set(ids)]) {
    if (!found.has(id)) {
      failedDeletions.push({ id, error: `${target} not found` });
      continue;
    }
    const splitIds = (await trx('splits').where({ [col]: id }).modify((b) => (type ? b.where({ type }) : b)).select('id')).map((r: { id: string }) => r.id);
    if (!splitIds.length) {
      failedDeletions.push({ id, error: `${target} has no split${type ? ` of type ${type}` : ''}` });
      continue;
    }
    await deleteSplits(trx, splitIds);
    processedCount++;
  }
  return { processedCount, failedDeletions };
}

/** Delete the default splits of an artist for one type; 404 when there are none. */
export async function deleteArtistSplitsOfType(trx: Trx, auth: AuthContext, artistId: string, type: string): Promise<number> {
  await setActor(trx, auth);
  await C.getArtist(trx, artistId);
  const ids = (await trx('splits').where({ artist_id: artistId, type }).select('id')).map((r) => r.id as string);
  if (!ids.length) throw new NotFoundError(`Default split of type ${type}`, 'SPLIT_NOT_FOUND');
  await deleteSplits(trx, ids);
  return ids.length;
}

/** What each entity's stats count: answer key → [table, column holding the entity's id]. */
const STATS = {
  artist: { get: C.getArtist, counts: { assets: ['asset_artists', 'artist_id'], products: ['product_artists', 'artist_id'], defaultSplits: ['splits', 'artist_id'], releases: ['releases', 'artist_id'], users: ['artist_users', 'artist_id'] } },
  asset: { get: C.getAsset, counts: { products: ['product_assets', 'asset_id'], splits: ['splits', 'asset_id'], media: ['catalogue_media', 'asset_id'], splitChanges: ['split_history', 'asset_id'] } },
  product: { get: C.getProduct, counts: { tracks: ['product_assets', 'product_id'], splits: ['splits', 'product_id'], media: ['catalogue_media', 'product_id'], splitChanges: ['split_history', 'product_id'] } },
} as const;

/**
 * Counts of an artist (recordings, products, default splits, releases, members), a recording
 * (products, splits, media, split changes) or a product (tracks, splits, media, split changes);
 * 404 when it does not exist.
 */
export async function entityStats(trx: Trx, entity: keyof typeof STATS, id: string): Promise<Record<string, number>> {
  const spec = STATS[entity];
  await spec.get(trx, id);
  const out: Record<string, number> = {};
  for (const [key, [table, col]] of Object.entries(spec.counts)) {
    out[key] = Number((await trx(table).where({ [col]: id }).count<{ c: string }[]>({ c: '*' }))[0]!.c);
  }
  return out;
}

/** Replace the tracks of a product, in order; returns the product as it now stands. */
export async function replaceProductTracks(trx: Trx, tenantId: number, id: string, assets: (string | { id: string; trackNumber?: number; discNumber?: number })[]) {
  await C.getProduct(trx, id);
  await C.setProductAssets(trx, tenantId, id, assets.map((a) => (typeof a === 'string' ? { id: a } : a)));
  return C.getProduct(trx, id);
}

/** Copy the primary artist's default splits onto a recording or product. */
export async function setDefaultSplit(trx: Trx, tenantId: number, auth: AuthContext, target: Target, id: string) {
  await setActor(trx, auth, 'default split applied');
  return applyArtistDefault(trx, tenantId, auth.tenantUserId, target, id);
}

/** Default splits of an artist (every type, or one type: 404 when it has none of that type). */
export async function artistSplits(trx: Trx, id: string, type?: string) {
  await C.getArtist(trx, id);
  const data = await splitsOf(trx, 'artist', id, type);
  if (type && !data.length) throw new NotFoundError(`Default split of type ${type}`, 'SPLIT_NOT_FOUND');
  return data;
}

/** Recordings of an artist (404 when the artist does not exist). */
export async function artistAssets(trx: Trx, id: string, q: C.AssetFilters) {
  await C.getArtist(trx, id);
  return C.listAssets(trx, { ...q, artist: id });
}

/** Products of an artist (404 when the artist does not exist). */
export async function artistProducts(trx: Trx, id: string, q: C.ProductFilters) {
  await C.getArtist(trx, id);
  return C.listProducts(trx, { ...q, artist: id });
}

/** Merge the listed artists into one, recording the caller in the history. */
export async function mergeArtists(trx: Trx, tenantId: number, auth: AuthContext, targetId: string, sources: string[]) {
  await setActor(trx, auth, 'artist merge');
  return C.mergeArtists(trx, tenantId, targetId, sources);
}

/** A catalogue write that records the caller in the history (actor = the caller's membership). */
function acting<A extends unknown[], R>(write: (trx: Trx, tenantId: number, actor: string | null, ...args: A) => Promise<R>) {
  return async (trx: Trx, tenantId: number, auth: AuthContext, ...args: A): Promise<R> => {
    await setActor(trx, auth);
    return write(trx, tenantId, auth.tenantUserId, ...args);
  };
}

export const createAsset = acting(C.createAsset);
export const updateAsset = acting(C.updateAsset);
export const createProduct = acting(C.createProduct);
export const updateProduct = acting(C.updateProduct);
