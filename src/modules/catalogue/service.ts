/**
 * Artists, assets (recordings) and products: create, read, update, delete, links, bulk,
 * merge. Rules live here; routes only shape. Every function takes a tenant transaction.
 */
import type { Knex } from 'knex';
import type { Trx } from '../../db';
import { NotFoundError, ValidationError, pgCode, PG } from '../../lib/errors';
import { clock } from '../../lib/clock';
import { applySearch, dateOnly, iso, pageList, resolveArtists, setLinks, type ListQuery } from './common';
import { normaliseIsrc, parseIsrc, parseUpc } from './identifiers';
import { removeShares, upsertSplit, type ShareInput } from './splits';
import { ARTIST_SORT, ASSET_SORT, PRODUCT_SORT } from './sorts';
export { ASSET_SORT, PRODUCT_SORT };
import { fillNewAsset, fillNewProduct } from '../defaultsettings/fill';
import { mergeArtistLevel } from '../defaultsettings/labels';
import { changesOf, emitEvent } from '../webhooks/events';
import { memberIdsAmong } from '../../repositories/members';

// ---------------------------------------------------------------------------------------
// Artists
// ---------------------------------------------------------------------------------------
export interface ArtistInput {
  name: string;
  externalId?: string | null;
  country?: string | null;
  users?: string[];
  metadata?: Record<string, unknown>;
}

export async function artistViews(trx: Trx, rows: Record<string, unknown>[]) {
  const ids = rows.map((r) => r.id as string);
  const links = ids.length ? await trx('artist_users').whereIn('artist_id', ids).orderBy('created_at') : [];
  return rows.map((r) => ({
    id: r.id as string,
    name: r.name as string,
    externalId: (r.external_id as string) ?? null,
    country: (r.country as string) ?? null,
    metadata: r.metadata ?? {},
    users: links.filter((l) => l.artist_id === r.id).map((l) => l.tenant_user_id as string),
    createdAt: iso(r.created_at)!,
    updatedAt: iso(r.updated_at)!,
  }));
}

export async function getArtist(trx: Trx, id: string) {
  const r = await trx('artists').where({ id }).first();
  if (!r) throw new NotFoundError('Artist', 'ARTIST_NOT_FOUND');
  return (await artistViews(trx, [r]))[0]!;
}

async function setArtistUsers(trx: Trx, tenantId: number, artistId: string, users: string[]) {
  const uniq = [...new Set(users)];
  const known = await memberIdsAmong(trx, uniq);
  const unknown = uniq.filter((u) => !known.includes(u));
  if (unknown.length) throw new ValidationError('Unknown users', unknown.map((u) => `user ${u} is not a member of this workspace`), 'UNKNOWN_USER');
  await trx('artist_users').where({ artist_id: artistId }).delete();
  if (uniq.length) await trx('artist_users').insert(uniq.map((u) => ({ tenant_id: tenantId, artist_id: artistId, tenant_user_id: u })));
}

export async function createArtist(trx: Trx, tenantId: number, a: ArtistInput) {
  const [row] = await trx('artists')
    .insert({ tenant_id: tenantId, name: a.name.trim(), external_id: a.externalId ?? null, country: a.country ?? null, metadata: a.metadata ?? {} })
    .returning('id');
  if (a.users) await setArtistUsers(trx, tenantId, row.id, a.users);
  const created = await getArtist(trx, row.id);
  await emitEvent(trx, tenantId, 'artist.created', { artistId: created.id, name: created.name, externalId: created.externalId, country: created.country });
  return created;
}

export async function updateArtist(trx: Trx, tenantId: number, id: string, a: Partial<ArtistInput>) {
  const before = await getArtist(trx, id);
  const upd: Record<string, unknown> = { updated_at: clock.now() };
  if (a.name !== undefined) upd.name = a.name.trim();
  if (a.externalId !== undefined) upd.external_id = a.externalId;
  if (a.country !== undefined) upd.country = a.country;
  if (a.metadata !== undefined) upd.metadata = a.metadata;
  await trx('artists').where({ id }).update(upd);
  if (a.users) await setArtistUsers(trx, tenantId, id, a.users);
  const after = await getArtist(trx, id);
  await emitEvent(trx, tenantId, 'artist.updated', { artistId: id, name: after.name, ...changesOf(before, after) });
  return after;
}

export async function listArtists(trx: Trx, q: ListQuery & { user?: string; visible?: Knex.Raw | null }) {
  const base = trx('artists as ar').modify((b) => {
    if (q.visible) b.whereRaw(q.visible);
    applySearch(b, q.search, { text: 'ar.name' });
    if (q.user) b.whereExists((e) => e.select(trx.raw('1')).from('artist_users as au').whereRaw('au.artist_id = ar.id').where('au.tenant_user_id', q.user!));
  });
  const page = await pageList(base, q, ARTIST_SORT, 'name', (b) => b.select('ar.*'), 'ar.id', (r) => r);
  return { ...page, data: await artistViews(trx, page.data) };
}

/**
 * Merge `sources` into `targetId`: every recording and product link, member link, release
 * and default split moves to the target; then the sources are deleted. A source default
 * split whose type and conditions the target already has is dropped (the target's stays)
 * and reported.
 */
export async function mergeArtists(trx: Trx, tenantId: number, targetId: string, sources: string[]) {
  await getArtist(trx, targetId);
  const src = [...new Set(sources)].filter((s) => s !== targetId);
  if (!src.length) throw new ValidationError('Nothing to merge', ['name at least one other artist'], 'NOTHING_TO_MERGE');
  const found = (await trx('artists').whereIn('id', src).select('id')).map((r) => r.id);
  const missing = src.filter((s) => !found.includes(s));
  if (missing.length) throw new NotFoundError(`Artist ${missing.join(', ')}`, 'ARTIST_NOT_FOUND');
  const moved = { assets: 0, products: 0, users: 0, releases: 0, splits: 0, droppedSplits: [] as string[] };
  for (const [table, fk, key] of [
    ['asset_artists', 'asset_id', 'assets'],
    ['product_artists', 'product_id', 'products'],
    ['artist_users', 'tenant_user_id', 'users'],
  ] as const) {
    const r = await trx.raw(
      `INSERT INTO ${table} (tenant_id, ${fk}, artist_id${table === 'artist_users' ? '' : ', position, role'})
       SELECT tenant_id, ${fk}, ?${table === 'artist_users' ? '' : ', position, role'} FROM ${table} WHERE artist_id = ANY(?::uuid[])
       ON CONFLICT DO NOTHING`,
      [targetId, src],
    );
    moved[key] = r.rowCount ?? 0;
    await trx(table).whereIn('artist_id', src).delete();
  }
  moved.releases = await trx('releases').whereIn('artist_id', src).update({ artist_id: targetId });
  const srcSplits = await trx('splits').whereIn('artist_id', src).select('*');
  for (const s of srcSplits) {
    const clash = await trx('splits')
      .where({ artist_id: targetId, type: s.type })
      .whereRaw(`COALESCE(valid_from, '-infinity'::date) = COALESCE(?::date, '-infinity'::date)`, [s.valid_from])
      .whereRaw(`COALESCE(valid_to, 'infinity'::date) = COALESCE(?::date, 'infinity'::date)`, [s.valid_to])
      .whereRaw(`COALESCE(territories, '{}'::text[]) = COALESCE(?::text[], '{}'::text[])`, [s.territories])
      .first('id');
    if (clash) {
      await removeShares(trx, trx('split_shares').where({ split_id: s.id }));
      await trx('splits').where({ id: s.id }).delete();
      moved.droppedSplits.push(s.id);
    } else {
      await trx('splits').where({ id: s.id }).update({ artist_id: targetId, updated_at: clock.now() });
      await trx('split_history').insert({
        tenant_id: tenantId, split_id: s.id, target: 'artist', artist_id: targetId, type: s.type, action: 'move',
        changed_by: trx.raw(`NULLIF(current_setting('app.tenant_user_id', true), '')::uuid`), note: `merged from artist ${s.artist_id}`,
      });
      moved.splits++;
    }
  }
  await mergeArtistLevel(trx, tenantId, targetId, src); // default settings and label follow the merge
  await trx('artists').whereIn('id', src).delete();
  for (const artistId of src) await emitEvent(trx, tenantId, 'artist.deleted', { artistId, mergedInto: targetId });
  return { artist: await getArtist(trx, targetId), merged: src, moved };
}

// ---------------------------------------------------------------------------------------
// Assets
// ---------------------------------------------------------------------------------------
export interface AssetInput {
  title: string;
  type?: 'Audio' | 'Video' | 'Other';
  isrc?: string | null;
  iswc?: string | null;
  displayArtist?: string | null;
  mainArtist?: string[];
  version?: string | null;
  mainGenre?: string[];
  subGenre?: string[];
  externalId?: string | null;
  contributors?: { producers?: string[]; mixers?: string[] };
  artists?: string[];
  splits?: ShareInput[];
  isDraft?: boolean;
}

function assetRow(a: Partial<AssetInput>): Record<string, unknown> {
  const r: Record<string, unknown> = {};
  if (a.title !== undefined) r.title = a.title;
  if (a.type !== undefined) r.type = a.type;
  if (a.isrc !== undefined) {
    if (a.isrc === null || a.isrc === '') r.isrc = null;
    else {
      const p = parseIsrc(a.isrc);
      if ('error' in p) throw new ValidationError('Invalid ISRC', [p.error], 'INVALID_ISRC');
      r.isrc = p.isrc;
    }
  }
  if (a.iswc !== undefined) r.iswc = a.iswc;
  if (a.displayArtist !== undefined) r.display_artist = a.displayArtist;
  if (a.mainArtist !== undefined) r.main_artist = a.mainArtist;
  if (a.version !== undefined) r.version = a.version;
  if (a.mainGenre !== undefined) r.main_genre = a.mainGenre;
  if (a.subGenre !== undefined) r.sub_genre = a.subGenre;
  if (a.externalId !== undefined) r.external_id = a.externalId;
  if (a.contributors !== undefined) r.contributors = JSON.stringify({ producers: a.contributors.producers ?? [], mixers: a.contributors.mixers ?? [] });
  if (a.isDraft !== undefined) r.is_draft = a.isDraft;
  return r;
}

/** The tail every recording and product view ends with. */
function draftAndStamps(r: Record<string, unknown>) {
  return { isDraft: !!r.is_draft, createdAt: iso(r.created_at)!, updatedAt: iso(r.updated_at)! };
}

/** One row by id through its list view, or 404 `code`. */
async function viewOne<V>(trx: Trx, table: string, id: string, views: (trx: Trx, rows: Record<string, unknown>[]) => Promise<V[]>, what: string, code: string): Promise<V> {
  const r = await trx(table).where({ id }).first();
  if (!r) throw new NotFoundError(what, code);
  return (await views(trx, [r]))[0]!;
}

/** The shares of each item's own unconditional `all` split (largest first), by item id. */
async function ownSplitShares(trx: Trx, col: 'asset_id' | 'product_id', ids: string[]): Promise<Map<string, { user: string; share: number }[]>> {
  const out = new Map<string, { user: string; share: number }[]>();
  if (!ids.length) return out;
  const rows = await trx('splits as s')
    .join('split_shares as sh', (j) => j.on('sh.tenant_id', 's.tenant_id').andOn('sh.split_id', 's.id'))
    .whereIn(`s.${col}`, ids)
    .where({ 's.type': 'all' })
    .whereNull('s.valid_from')
    .whereNull('s.valid_to')
    .whereNull('s.territories')
    .orderBy([{ column: 'sh.share', order: 'desc' }, 'sh.tenant_user_id'])
    .select(`s.${col} as item_id`, 'sh.tenant_user_id', 'sh.share');
  for (const s of rows) {
    if (!out.has(s.item_id)) out.set(s.item_id, []);
    out.get(s.item_id)!.push({ user: s.tenant_user_id as string, share: Number(s.share) });
  }
  return out;
}

/** A recording as answered (docs/catalogue.md, "Assets (recordings) and products"). `artists` are artist ids; `splits` the asset's own unconditional `all` split. */
export async function assetViews(trx: Trx, rows: Record<string, unknown>[]) {
  const ids = rows.map((r) => r.id as string);
  const links = ids.length ? await trx('asset_artists').whereIn('asset_id', ids).orderBy(['position', 'artist_id']) : [];
  const shares = await ownSplitShares(trx, 'asset_id', ids);
  return rows.map((r) => ({
    id: r.id as string,
    title: r.title as string,
    type: r.type as string,
    isrc: (r.isrc as string) ?? null,
    iswc: (r.iswc as string) ?? null,
    displayArtist: (r.display_artist as string) ?? null,
    mainArtist: (r.main_artist as string[]) ?? [],
    version: (r.version as string) ?? null,
    mainGenre: (r.main_genre as string[]) ?? [],
    subGenre: (r.sub_genre as string[]) ?? [],
    externalId: (r.external_id as string) ?? null,
    contributors: r.contributors as { producers: string[]; mixers: string[] },
    artists: links.filter((l) => l.asset_id === r.id).map((l) => l.artist_id as string),
    splits: shares.get(r.id as string) ?? [],
    ...draftAndStamps(r),
  }));
}

export function getAsset(trx: Trx, id: string) {
  return viewOne(trx, 'assets', id, assetViews, 'Asset', 'ASSET_NOT_FOUND');
}

async function uniqueGuard<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (pgCode(err) === PG.UNIQUE_VIOLATION) throw new ValidationError(`${what} already exists in this workspace`, [String((err as { detail?: string }).detail ?? '')], 'DUPLICATE');
    throw err;
  }
}

export async function createAsset(trx: Trx, tenantId: number, actor: string | null, a: AssetInput) {
  if (!a.isDraft && !a.isrc) throw new ValidationError('Invalid asset', ['isrc is required unless isDraft is true'], 'ISRC_REQUIRED');
  const row = assetRow(a);
  const [{ id }] = await uniqueGuard(`ISRC ${row.isrc}`, () => trx.transaction((sp) => sp('assets').insert({ tenant_id: tenantId, ...row }).returning('id')));
  if (a.artists) await setLinks(trx, tenantId, 'asset_artists', 'asset_id', id, await resolveArtists(trx, tenantId, a.artists));
  if (a.splits?.length) await upsertSplit(trx, tenantId, actor, { target: 'asset', targetId: id, split: a.splits });
  await fillNewAsset(trx, tenantId, actor, id, a); // content defaults fill what was not given
  await emitEvent(trx, tenantId, 'asset.created', { assetId: id, isrc: row.isrc ?? null, title: a.title ?? null, isDraft: !!a.isDraft });
  return getAsset(trx, id);
}

export async function updateAsset(trx: Trx, tenantId: number, actor: string | null, id: string, a: Partial<AssetInput>) {
  const cur = await getAsset(trx, id);
  const row = assetRow(a);
  const draft = a.isDraft ?? cur.isDraft;
  const isrc = 'isrc' in row ? row.isrc : cur.isrc;
  if (!draft && !isrc) throw new ValidationError('Invalid asset', ['isrc is required unless isDraft is true'], 'ISRC_REQUIRED');
  await uniqueGuard(`ISRC ${row.isrc}`, () => trx.transaction((sp) => sp('assets').where({ id }).update({ ...row, updated_at: clock.now() })));
  if (a.artists) await setLinks(trx, tenantId, 'asset_artists', 'asset_id', id, await resolveArtists(trx, tenantId, a.artists));
  if (a.splits?.length) await upsertSplit(trx, tenantId, actor, { target: 'asset', targetId: id, split: a.splits });
  const changed = Object.keys(a).sort();
  const before = cur as unknown as Record<string, unknown>;
  const after = await getAsset(trx, id);
  await emitEvent(trx, tenantId, 'asset.updated', { assetId: id, title: after.title ?? null, changed, previous: Object.fromEntries(changed.filter((k) => k in before).map((k) => [k, before[k] ?? null])) });
  return after;
}

/** Keep the rows that the link table `link` ties (`f.<ownLink>`) to the row `id` in its column `other`. */
function whereLinked(b: Knex.QueryBuilder, trx: Trx, link: string, ownLink: string, other: string, id: string) {
  b.whereExists((e) => e.select(trx.raw('1')).from(`${link} as f`).whereRaw(`f.${ownLink}`).where(`f.${other}`, id));
}

export interface AssetFilters extends ListQuery {
  artist?: string;
  isrc?: string;
  title?: string;
  type?: string;
  isDraft?: boolean;
  product?: string;
  /** ownScope(…, 'asset', 'a'): what the caller sees (null: everything). */
  visible?: Knex.Raw | null;
}

export function assetListBase(trx: Trx, q: AssetFilters) {
  return trx('assets as a').modify((b) => {
    if (q.visible) b.whereRaw(q.visible);
    applySearch(b, q.search, { text: 'a.title', isrc: 'a.isrc', artistLink: { table: 'asset_artists', fk: 'asset_id', id: 'a.id' } });
    if (q.artist) whereLinked(b, trx, 'asset_artists', 'asset_id = a.id', 'artist_id', q.artist);
    if (q.product) whereLinked(b, trx, 'product_assets', 'asset_id = a.id', 'product_id', q.product);
    if (q.isrc) b.where('a.isrc', normaliseIsrc(q.isrc) ?? q.isrc);
    if (q.title) b.whereILike('a.title', `%${q.title}%`);
    if (q.type) b.where('a.type', q.type);
    if (q.isDraft !== undefined) b.where('a.is_draft', q.isDraft);
  });
}


export async function listAssets(trx: Trx, q: AssetFilters) {
  const page = await pageList(assetListBase(trx, q), q, ASSET_SORT, 'createdAt', (b) => b.select('a.*'), 'a.id', (r) => r);
  return { ...page, data: await assetViews(trx, page.data) };
}

export function describe(err: unknown): string {
  if (err instanceof ValidationError || err instanceof NotFoundError) return [err.message, ...err.details].filter(Boolean).join('; ');
  if (pgCode(err) === PG.CHECK_VIOLATION) return String((err as Error).message);
  throw err;
}

// ---------------------------------------------------------------------------------------
// Products
// ---------------------------------------------------------------------------------------
export interface ProductInput {
  upc?: string | null;
  title: string;
  displayArtist?: string | null;
  mainArtist?: string[];
  type?: string | null;
  format?: string | null;
  releaseDate?: string | null;
  mainGenre?: string[];
  label?: string | null;
  catalogNumber?: string | null;
  externalId?: string | null;
  artists?: string[];
  assets?: string[];
  split?: ShareInput[];
  isDraft?: boolean;
}

function productRow(p: Partial<ProductInput>): Record<string, unknown> {
  const r: Record<string, unknown> = {};
  if (p.upc !== undefined) {
    if (p.upc === null || p.upc === '') r.upc = null;
    else {
      const u = parseUpc(p.upc);
      if ('error' in u) throw new ValidationError('Invalid UPC', [u.error], 'INVALID_UPC');
      r.upc = u.upc;
    }
  }
  const map: Record<string, string> = { title: 'title', displayArtist: 'display_artist', mainArtist: 'main_artist', type: 'type', format: 'format', releaseDate: 'release_date', mainGenre: 'main_genre', label: 'label', catalogNumber: 'catalog_number', externalId: 'external_id', isDraft: 'is_draft' };
  for (const [k, c] of Object.entries(map)) if ((p as Record<string, unknown>)[k] !== undefined) r[c] = (p as Record<string, unknown>)[k];
  return r;
}

export async function productViews(trx: Trx, rows: Record<string, unknown>[]) {
  const ids = rows.map((r) => r.id as string);
  const links = ids.length ? await trx('product_artists').whereIn('product_id', ids).orderBy(['position', 'artist_id']) : [];
  const tracks = ids.length ? await trx('product_assets').whereIn('product_id', ids).orderBy(['disc_number', 'track_number']) : [];
  const shares = await ownSplitShares(trx, 'product_id', ids);
  return rows.map((r) => ({
    id: r.id as string,
    upc: (r.upc as string) ?? null,
    title: r.title as string,
    displayArtist: (r.display_artist as string) ?? null,
    mainArtist: (r.main_artist as string[]) ?? [],
    type: (r.type as string) ?? null,
    format: (r.format as string) ?? null,
    releaseDate: dateOnly(r.release_date),
    mainGenre: (r.main_genre as string[]) ?? [],
    label: (r.label as string) ?? null,
    catalogNumber: (r.catalog_number as string) ?? null,
    externalId: (r.external_id as string) ?? null,
    artists: links.filter((l) => l.product_id === r.id).map((l) => l.artist_id as string),
    assets: tracks.filter((t) => t.product_id === r.id).map((t) => ({ id: t.asset_id as string, discNumber: t.disc_number as number, trackNumber: t.track_number as number })),
    split: shares.get(r.id as string) ?? [],
    ...draftAndStamps(r),
  }));
}

export function getProduct(trx: Trx, id: string) {
  return viewOne(trx, 'products', id, productViews, 'Product', 'PRODUCT_NOT_FOUND');
}

export async function setProductAssets(trx: Trx, tenantId: number, productId: string, assets: { id: string; trackNumber?: number; discNumber?: number }[]) {
  const ids = [...new Set(assets.map((a) => a.id))];
  const known = ids.length ? (await trx('assets').whereIn('id', ids).select('id')).map((r) => r.id) : [];
  const unknown = ids.filter((i) => !known.includes(i));
  if (unknown.length) throw new ValidationError('Unknown assets', unknown.map((u) => `asset ${u} does not exist`), 'UNKNOWN_ASSET');
  await trx('product_assets').where({ product_id: productId }).delete();
  const seen = new Set<string>();
  const rows = [];
  for (const [i, a] of assets.entries()) {
    if (seen.has(a.id)) continue;
    seen.add(a.id);
    rows.push({ tenant_id: tenantId, product_id: productId, asset_id: a.id, disc_number: a.discNumber ?? 1, track_number: a.trackNumber ?? i + 1 });
  }
  if (rows.length) await trx('product_assets').insert(rows);
}

export async function createProduct(trx: Trx, tenantId: number, actor: string | null, p: ProductInput) {
  if (!p.isDraft && !p.upc) throw new ValidationError('Invalid product', ['upc is required unless isDraft is true'], 'UPC_REQUIRED');
  const row = productRow(p);
  const [{ id }] = await uniqueGuard(`UPC ${row.upc}`, () => trx.transaction((sp) => sp('products').insert({ tenant_id: tenantId, ...row }).returning('id')));
  if (p.artists) await setLinks(trx, tenantId, 'product_artists', 'product_id', id, await resolveArtists(trx, tenantId, p.artists));
  if (p.assets) await setProductAssets(trx, tenantId, id, p.assets.map((a) => ({ id: a })));
  if (p.split?.length) await upsertSplit(trx, tenantId, actor, { target: 'product', targetId: id, split: p.split });
  await fillNewProduct(trx, tenantId, actor, id, p); // content defaults fill what was not given
  await emitEvent(trx, tenantId, 'product.created', { productId: id, upc: row.upc ?? null, title: p.title ?? null, isDraft: !!p.isDraft });
  return getProduct(trx, id);
}

export async function updateProduct(trx: Trx, tenantId: number, actor: string | null, id: string, p: Partial<ProductInput>) {
  const cur = await getProduct(trx, id);
  const row = productRow(p);
  if (!(p.isDraft ?? cur.isDraft) && !('upc' in row ? row.upc : cur.upc)) throw new ValidationError('Invalid product', ['upc is required unless isDraft is true'], 'UPC_REQUIRED');
  await uniqueGuard(`UPC ${row.upc}`, () => trx.transaction((sp) => sp('products').where({ id }).update({ ...row, updated_at: clock.now() })));
  if (p.artists) await setLinks(trx, tenantId, 'product_artists', 'product_id', id, await resolveArtists(trx, tenantId, p.artists));
  if (p.assets) await setProductAssets(trx, tenantId, id, p.assets.map((a) => ({ id: a })));
  if (p.split?.length) await upsertSplit(trx, tenantId, actor, { target: 'product', targetId: id, split: p.split });
  const after = await getProduct(trx, id);
  await emitEvent(trx, tenantId, 'product.updated', { productId: id, title: after.title ?? null, ...changesOf(cur, after) });
  return after;
}

export interface ProductFilters extends ListQuery {
  artist?: string;
  upc?: string;
  title?: string;
  type?: string;
  format?: string;
  isDraft?: boolean;
  asset?: string;
  /** ownScope(…, 'product', 'p'): what the caller sees (null: everything). */
  visible?: Knex.Raw | null;
}

export function productListBase(trx: Trx, q: ProductFilters) {
  return trx('products as p').modify((b) => {
    if (q.visible) b.whereRaw(q.visible);
    applySearch(b, q.search, { text: 'p.title', upc: 'p.upc', artistLink: { table: 'product_artists', fk: 'product_id', id: 'p.id' } });
    if (q.artist) whereLinked(b, trx, 'product_artists', 'product_id = p.id', 'artist_id', q.artist);
    if (q.asset) whereLinked(b, trx, 'product_assets', 'product_id = p.id', 'asset_id', q.asset);
    if (q.upc) {
      const u = parseUpc(q.upc);
      b.where('p.upc', 'upc' in u ? u.upc : q.upc);
    }
    if (q.title) b.whereILike('p.title', `%${q.title}%`);
    if (q.type) b.where('p.type', q.type);
    if (q.format) b.where('p.format', q.format);
    if (q.isDraft !== undefined) b.where('p.is_draft', q.isDraft);
  });
}


export async function listProducts(trx: Trx, q: ProductFilters) {
  const page = await pageList(productListBase(trx, q), q, PRODUCT_SORT, 'createdAt', (b) => b.select('p.*'), 'p.id', (r) => r);
  return { ...page, data: await productViews(trx, page.data) };
}

/** Bulk delete by id: each missing id is reported in failedDeletions. */
export async function bulkDelete(trx: Trx, table: 'assets' | 'products' | 'artists' | 'splits', ids: string[], what: string) {
  const uniq = [...new Set(ids)];
  const found = new Set((await trx(table).whereIn('id', uniq).select('id')).map((r) => r.id as string));
  const failedDeletions = uniq.filter((i) => !found.has(i)).map((id) => ({ id, error: `${what} not found` }));
  const del = [...found];
  if (del.length) {
    const col = { assets: 'asset_id', products: 'product_id', artists: 'artist_id', splits: 'id' }[table];
    // shares first, so split history records the removal with its split still visible
    await removeShares(trx, trx('split_shares').whereIn('split_id', trx('splits').whereIn(col, del).select('id')));
    if (table !== 'splits') await trx('splits').whereIn(col, del).delete();
    await trx(table).whereIn('id', del).delete();
    if (table === 'assets') for (const assetId of del) await emitEvent(trx, null, 'asset.deleted', { assetId });
    if (table === 'products') for (const productId of del) await emitEvent(trx, null, 'product.deleted', { productId });
    if (table === 'artists') for (const artistId of del) await emitEvent(trx, null, 'artist.deleted', { artistId, mergedInto: null });
  }
  return { processedCount: del.length, failedDeletions };
}
