/**
 * Set-based bulk creation of recordings and products: a request of N items costs a handful
 * of statements, not N round trips. Every item is checked in JS first (identifier, split
 * sum and members, duplicates inside the request and in the workspace); bad items are
 * reported, good ones are inserted together (ids made here, so nothing has to be mapped
 * back). A concurrent insert of the same ISRC/UPC is caught by ON CONFLICT DO NOTHING and
 * reported as a duplicate. The database still checks every split sums to 100 at commit.
 */
import crypto from 'node:crypto';
import Decimal from 'decimal.js';
import type { Trx } from '../../db';
import { parseIsrc, parseUpc } from './identifiers';
import { UUID_RE } from './common';
import type { AssetInput, ProductInput } from './service';
import { walkShares, type ShareInput } from './splits';
import { fillNewItems } from '../defaultsettings/fill';
import { emitEvents } from '../webhooks/events';
import { memberIdsAmong } from '../../repositories/members';

const CHUNK = 1000;

async function insertChunks(trx: Trx, table: string, rows: Record<string, unknown>[], conflict?: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < rows.length; i += CHUNK) {
    const q = trx(table).insert(rows.slice(i, i + CHUNK));
    if (conflict) {
      const r = await q.onConflict(trx.raw(conflict)).ignore().returning('id');
      ids.push(...r.map((x: { id: string }) => x.id));
    } else await q;
  }
  return ids;
}

function shareErrors(split: ShareInput[], members: Set<string>): string[] {
  const errors: string[] = [];
  const { total } = walkShares(
    split,
    errors,
    (i, d) => (d.lte(0) || d.gt(100) || d.decimalPlaces() > 6 ? [`split[${i}].share must be above 0, at most 100, with at most 6 decimals`] : []),
    (s) => (members.has(s.user) ? [] : [`user ${s.user} is not a member of this workspace`]),
  );
  if (!total.eq(100)) errors.unshift(`Split shares must sum to 100, got ${total.toString()}`);
  return errors;
}

async function memberSet(trx: Trx, splits: (ShareInput[] | undefined)[]): Promise<Set<string>> {
  const users = [...new Set(splits.flatMap((s) => (s ?? []).map((x) => x.user)).filter((u) => UUID_RE.test(u)))];
  const set = new Set<string>();
  for (let i = 0; i < users.length; i += CHUNK) for (const r of await memberIdsAmong(trx, users.slice(i, i + CHUNK))) set.add(r);
  return set;
}

/** Artist refs (uuid or name) of many items → artist ids, creating missing names once. Unknown uuids → null. */
async function artistMap(trx: Trx, tenantId: number, refs: string[]): Promise<Map<string, string | null>> {
  const out = new Map<string, string | null>();
  const uuids = [...new Set(refs.filter((r) => UUID_RE.test(r)))];
  const names = [...new Set(refs.filter((r) => !UUID_RE.test(r)).map((r) => r.trim()).filter(Boolean))];
  for (const u of uuids) out.set(u, null);
  for (let i = 0; i < uuids.length; i += CHUNK) for (const id of await trx('artists').whereIn('id', uuids.slice(i, i + CHUNK)).pluck('id')) out.set(id, id);
  const lower = new Map<string, string>();
  for (let i = 0; i < names.length; i += CHUNK) {
    const rows = await trx('artists').whereRaw('lower(name) = ANY(?::text[])', [names.slice(i, i + CHUNK).map((n) => n.toLowerCase())]).orderBy('created_at').select('id', 'name');
    for (const r of rows) if (!lower.has(r.name.toLowerCase())) lower.set(r.name.toLowerCase(), r.id);
  }
  const missing = names.filter((n) => !lower.has(n.toLowerCase()));
  const fresh = [...new Map(missing.map((n) => [n.toLowerCase(), n])).values()].map((name) => ({ tenant_id: tenantId, id: crypto.randomUUID(), name }));
  await insertChunks(trx, 'artists', fresh);
  await emitEvents(trx, tenantId, 'artist.created', fresh.map((f) => ({ artistId: f.id, name: f.name, externalId: null, country: null })));
  for (const f of fresh) lower.set(f.name.toLowerCase(), f.id);
  for (const n of names) out.set(n, lower.get(n.toLowerCase())!);
  return out;
}

type Kind = 'asset' | 'product';

async function bulkCreate(trx: Trx, tenantId: number, actor: string | null, kind: Kind, items: (AssetInput | ProductInput)[]) {
  const errors: string[] = [];
  const label = kind === 'asset' ? 'assets' : 'products';
  const codeCol = kind === 'asset' ? 'isrc' : 'upc';
  const members = await memberSet(trx, items.map((it) => (kind === 'asset' ? (it as AssetInput).splits : (it as ProductInput).split)));
  const artists = await artistMap(trx, tenantId, items.flatMap((it) => it.artists ?? []));
  // product tracks must be recordings of this workspace
  const assetRefs = kind === 'product' ? [...new Set(items.flatMap((it) => (it as ProductInput).assets ?? []))] : [];
  const knownAssets = new Set<string>();
  for (let i = 0; i < assetRefs.length; i += CHUNK) for (const id of await trx('assets').whereIn('id', assetRefs.slice(i, i + CHUNK)).pluck('id')) knownAssets.add(id);

  type Ok = { i: number; id: string; code: string | null; row: Record<string, unknown>; artistIds: string[]; split?: ShareInput[]; assets?: string[]; title: string };
  const ok: Ok[] = [];
  const seenCodes = new Map<string, number>();
  for (const [i, it] of items.entries()) {
    const name = `${label}[${i}] (${it.title ?? ''}${(it as unknown as Record<string, unknown>)[codeCol] ? `, ${codeCol.toUpperCase()} ${(it as unknown as Record<string, unknown>)[codeCol]}` : ''})`;
    const problems: string[] = [];
    let code: string | null = null;
    const raw = (it as unknown as Record<string, unknown>)[codeCol] as string | null | undefined;
    if (raw) {
      const p = kind === 'asset' ? parseIsrc(raw) : parseUpc(raw);
      if ('error' in p) problems.push(p.error);
      else code = 'isrc' in p ? p.isrc : p.upc;
    } else if (!it.isDraft) problems.push(`${codeCol} is required unless isDraft is true`);
    if (code && seenCodes.has(code)) problems.push(`${codeCol.toUpperCase()} ${code} already exists in this request (${label}[${seenCodes.get(code)}])`);
    const split = kind === 'asset' ? (it as AssetInput).splits : (it as ProductInput).split;
    if (split?.length) problems.push(...shareErrors(split, members));
    const artistIds = (it.artists ?? []).map((r) => artists.get(UUID_RE.test(r) ? r : r.trim()) ?? null);
    if (artistIds.some((a) => a === null)) problems.push('unknown artist id');
    const tracks = kind === 'product' ? ((it as ProductInput).assets ?? []) : [];
    for (const t of tracks) if (!knownAssets.has(t)) problems.push(`asset ${t} does not exist`);
    if (problems.length) {
      errors.push(`${name}: ${problems.join('; ')}`);
      continue;
    }
    if (code) seenCodes.set(code, i);
    const id = crypto.randomUUID();
    const row: Record<string, unknown> =
      kind === 'asset'
        ? (() => {
            const a = it as AssetInput;
            return {
              tenant_id: tenantId, id, title: a.title, type: a.type ?? 'Audio', isrc: code, iswc: a.iswc ?? null, display_artist: a.displayArtist ?? null,
              main_artist: a.mainArtist ?? [], version: a.version ?? null, main_genre: a.mainGenre ?? [], sub_genre: a.subGenre ?? [], external_id: a.externalId ?? null,
              contributors: JSON.stringify({ producers: a.contributors?.producers ?? [], mixers: a.contributors?.mixers ?? [] }), is_draft: !!a.isDraft,
            };
          })()
        : (() => {
            const p = it as ProductInput;
            return {
              tenant_id: tenantId, id, upc: code, title: p.title, display_artist: p.displayArtist ?? null, main_artist: p.mainArtist ?? [], type: p.type ?? null,
              format: p.format ?? null, release_date: p.releaseDate ?? null, main_genre: p.mainGenre ?? [], label: p.label ?? null, catalog_number: p.catalogNumber ?? null,
              external_id: p.externalId ?? null, is_draft: !!p.isDraft,
            };
          })();
    ok.push({ i, id, code, row, artistIds: [...new Set(artistIds as string[])], split, assets: tracks, title: it.title });
  }
  // duplicates already in the workspace
  const codes = ok.map((o) => o.code).filter((c): c is string => !!c);
  const taken = new Set<string>();
  for (let i = 0; i < codes.length; i += CHUNK) for (const c of await trx(label).whereIn(codeCol, codes.slice(i, i + CHUNK)).pluck(codeCol)) taken.add(c);
  let good = ok.filter((o) => {
    if (o.code && taken.has(o.code)) {
      errors.push(`${label}[${o.i}] (${o.title}, ${codeCol.toUpperCase()} ${o.code}): ${codeCol.toUpperCase()} ${o.code} already exists in this workspace`);
      return false;
    }
    return true;
  });
  const inserted = new Set(await insertChunks(trx, label, good.map((o) => o.row), `(tenant_id, ${codeCol})`));
  good = good.filter((o) => {
    if (inserted.has(o.id)) return true;
    errors.push(`${label}[${o.i}] (${o.title}, ${codeCol.toUpperCase()} ${o.code}): ${codeCol.toUpperCase()} ${o.code} already exists in this workspace`);
    return false;
  });
  const fk = kind === 'asset' ? 'asset_id' : 'product_id';
  await insertChunks(trx, kind === 'asset' ? 'asset_artists' : 'product_artists', good.flatMap((o) => o.artistIds.map((artist_id, position) => ({ tenant_id: tenantId, [fk]: o.id, artist_id, position }))));
  if (kind === 'product') {
    await insertChunks(trx, 'product_assets', good.flatMap((o) => [...new Set(o.assets ?? [])].map((asset_id, k) => ({ tenant_id: tenantId, product_id: o.id, asset_id, track_number: k + 1 }))));
  }
  // content defaults fill what an item did not give, as a single create does
  await fillNewItems(trx, tenantId, actor, kind, good.map((o) => ({ id: o.id, artistIds: o.artistIds, given: items[o.i] as { mainGenre?: string[]; subGenre?: string[]; label?: string | null } })));
  const withSplit = good.filter((o) => o.split?.length).map((o) => ({ o, splitId: crypto.randomUUID() }));
  await insertChunks(trx, 'splits', withSplit.map(({ o, splitId }) => ({ tenant_id: tenantId, id: splitId, target: kind, [fk]: o.id, type: 'all', created_by: actor })));
  await insertChunks(trx, 'split_shares', withSplit.flatMap(({ o, splitId }) => o.split!.map((s) => ({ tenant_id: tenantId, split_id: splitId, tenant_user_id: s.user, share: new Decimal(String(s.share)).toFixed(6) }))));
  await emitEvents(trx, tenantId, 'split.user.added', withSplit.flatMap(({ o, splitId }) => o.split!.map((s) => ({ splitId, userId: s.user, share: new Decimal(String(s.share)).toFixed() }))));
  errors.sort((a, b) => Number(/\[(\d+)\]/.exec(a)?.[1]) - Number(/\[(\d+)\]/.exec(b)?.[1]));
  // one event per recording or product created, as a single create emits
  if (kind === 'asset') await emitEvents(trx, tenantId, 'asset.created', good.map((o) => ({ assetId: o.id, isrc: o.code ?? null, title: o.title ?? null, isDraft: !!o.row.is_draft })));
  else await emitEvents(trx, tenantId, 'product.created', good.map((o) => ({ productId: o.id, upc: o.code ?? null, title: o.title ?? null, isDraft: !!o.row.is_draft })));
  return { created: good.map((o) => o.title), ids: good.map((o) => o.id), errors };
}

export const bulkInsertAssets = (trx: Trx, tenantId: number, actor: string | null, items: AssetInput[]) => bulkCreate(trx, tenantId, actor, 'asset', items);
export const bulkInsertProducts = (trx: Trx, tenantId: number, actor: string | null, items: ProductInput[]) => bulkCreate(trx, tenantId, actor, 'product', items);
