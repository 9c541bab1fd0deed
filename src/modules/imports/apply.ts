/**
 * One staged item against the catalogue: what it would change (diff) and writing it
 * (apply) through the catalogue services, matched by identifier: a recording by ISRC, a
 * release by UPC. Existing ones are updated with the staged fields; others are created.
 */
import type { Trx } from '../../db';
import type { AuthContext } from '../auth/tokens';
import { createAsset, createProduct, updateAsset, updateProduct } from '../catalogue/operations';
import type { AssetInput, ProductInput } from '../catalogue/service';
import { ASSET_FIELDS, PRODUCT_FIELDS, type ItemKind, type StagedData } from './providers';
import { assetByIsrc, assetIdsByIsrc, idsByCodes, linkedArtistNames, productByUpc, productTracks } from '../../repositories/catalogue';

type Current = Record<string, unknown> & { id: string };

async function artistNames(trx: Trx, kind: 'asset' | 'product', id: string): Promise<string[]> {
  return (await linkedArtistNames(trx, kind, [id])).map((r) => r.name);
}

/** The catalogue's current record for a staged item (by ISRC or UPC), in staged-field terms; null when new. */
export async function currentOf(trx: Trx, kind: ItemKind, d: StagedData): Promise<Current | null> {
  if (kind === 'asset') {
    const r = d.isrc ? await assetByIsrc(trx, d.isrc) : null;
    if (!r) return null;
    return {
      id: r.id, title: r.title, isrc: r.isrc, displayArtist: r.display_artist ?? null, artists: await artistNames(trx, 'asset', r.id),
      version: r.version ?? null, type: r.type, mainGenre: r.main_genre ?? [],
    };
  }
  const r = d.upc ? await productByUpc(trx, d.upc) : null;
  if (!r) return null;
  const tracks = await productTracks(trx, r.id);
  return {
    id: r.id, title: r.title, upc: r.upc, displayArtist: r.display_artist ?? null, artists: await artistNames(trx, 'product', r.id),
    type: r.type ?? null, format: r.format ?? null, label: r.label ?? null,
    releaseDate: r.release_date ? (r.release_date instanceof Date ? r.release_date.toISOString().slice(0, 10) : String(r.release_date).slice(0, 10)) : null,
    catalogNumber: r.catalog_number ?? null, mainGenre: r.main_genre ?? [], tracks: tracks.map((t) => t.isrc as string),
  };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** Field by field: every staged field with the current value; `changed` where they differ. */
export function diffOf(kind: ItemKind, d: StagedData, cur: Current | null) {
  const rec = d as unknown as Record<string, unknown>;
  const fields = (kind === 'asset' ? ASSET_FIELDS : PRODUCT_FIELDS).filter((f) => rec[f] !== undefined);
  const changes = fields.map((f) => {
    const staged = rec[f] ?? null;
    const current = cur ? (cur[f] ?? null) : null;
    return { field: f, current, staged, changed: !same(current, staged) };
  });
  return { match: cur ? ('existing' as const) : ('new' as const), targetId: cur?.id ?? null, changes, changed: changes.filter((c) => c.changed).length };
}

/** Write one item (inside a savepoint of its own transaction); the asset or product id. */
export async function applyItem(trx: Trx, tenantId: number, auth: AuthContext, kind: ItemKind, d: StagedData): Promise<string> {
  if (kind === 'asset') {
    const a: AssetInput = { title: d.title, isrc: d.isrc ?? null };
    if (d.displayArtist !== undefined) a.displayArtist = d.displayArtist;
    if (d.version !== undefined) a.version = d.version;
    if (d.type) a.type = d.type as AssetInput['type'];
    if (d.mainGenre) a.mainGenre = d.mainGenre;
    if (d.artists?.length) a.artists = d.artists;
    const cur = (await idsByCodes(trx, d.isrc ?? null, null)).assetId;
    return cur ? (await updateAsset(trx, tenantId, auth, cur, a)).id : (await createAsset(trx, tenantId, auth, a)).id;
  }
  const p: ProductInput = { title: d.title, upc: d.upc ?? null };
  for (const f of ['displayArtist', 'type', 'format', 'label', 'releaseDate', 'catalogNumber'] as const) if (d[f] !== undefined) p[f] = d[f];
  if (d.mainGenre) p.mainGenre = d.mainGenre;
  if (d.artists?.length) p.artists = d.artists;
  if (d.tracks?.length) {
    // tracks the catalogue has (imported first in the same apply, or there already), in staged order
    const byIsrc = await assetIdsByIsrc(trx, d.tracks);
    const ids = d.tracks.map((i) => byIsrc.get(i)).filter((x): x is string => !!x);
    if (ids.length) p.assets = ids;
  }
  const cur = (await idsByCodes(trx, null, d.upc ?? null)).productId;
  return cur ? (await updateProduct(trx, tenantId, auth, cur, p)).id : (await createProduct(trx, tenantId, auth, p)).id;
}
