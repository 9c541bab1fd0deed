/**
 * The catalogue tables (artists, recordings = `assets`, products) and their typed rows. The
 * tables belong to the catalogue area (src/modules/catalogue); every other area writes them
 * through the functions below (docs/architecture.md, "Tables and their owners";
 * test/ownership.test.ts). Read-only joins inside set-based SQL are listed in that test.
 */
import type { Knex } from 'knex';
import type { Trx } from '../db';

// Rows are type aliases, not interfaces: a row is then also a Record<string, unknown> (the catalogue's views take those).
export type ArtistRow = {
  tenant_id: number;
  id: string;
  name: string;
  external_id: string | null;
  country: string | null;
  metadata: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
};

/** The columns a recording or a product share (each has more of its own). */
type CatalogueItemRow = {
  tenant_id: number;
  id: string;
  title: string;
  display_artist: string | null;
  main_artist: string[];
  main_genre: string[];
  external_id: string | null;
  is_draft: boolean;
  created_at: Date;
  updated_at: Date;
};

/** A recording (`assets`). */
export type AssetRow = CatalogueItemRow & {
  type: string;
  isrc: string | null;
  iswc: string | null;
  version: string | null;
  sub_genre: string[];
  contributors: unknown[];
};

/** A product (release format). */
export type ProductRow = CatalogueItemRow & {
  upc: string | null;
  type: string | null;
  format: string | null;
  release_date: Date | null;
  label: string | null;
  catalog_number: string | null;
};

/** What a content default fills on a new item (defaultsettings/fill.ts). */
export type AssetFill = Partial<Pick<AssetRow, 'main_genre' | 'sub_genre'>>;
export type ProductFill = Partial<Pick<ProductRow, 'main_genre' | 'label'>>;

export async function fillAsset(trx: Knex.Transaction, id: string, fill: AssetFill): Promise<void> {
  await trx('assets').where({ id }).update(fill);
}

export async function fillProduct(trx: Knex.Transaction, id: string, fill: ProductFill): Promise<void> {
  await trx('products').where({ id }).update(fill);
}

/**
 * autoCreateCatalogue: artists, recordings and products the statements name but the catalogue
 * lacks, created from the match keys of an allocation (the temp table `rm_keys` that
 * royalty/match.ts builds: one row per distinct key with its normalised columns), set-based.
 */
export async function createFromMatchKeys(trx: Trx, tenantId: number): Promise<void> {
  // Artists named by keys that will create something.
  await trx.raw(
    `INSERT INTO artists (tenant_id, name, metadata)
     SELECT DISTINCT ON (k.artist_n) ?, k.artist, '{"createdFrom":"statement"}'::jsonb
       FROM rm_keys k
      WHERE k.artist_n IS NOT NULL
        AND ((k.asset_id IS NULL AND (k.isrc_n ~ '^[A-Z]{2}[A-Z0-9]{3}[0-9]{7}$' OR k.title_n IS NOT NULL)) OR (k.product_id IS NULL AND k.upc_n <> ''))
        AND NOT EXISTS (SELECT 1 FROM artists a WHERE a.tenant_id = ? AND rondo_norm(a.name) = k.artist_n)
      ORDER BY k.artist_n, k.artist`,
    [tenantId, tenantId],
  );
  const artistOf = `(SELECT a.id FROM artists a WHERE a.tenant_id = ? AND rondo_norm(a.name) = n.artist_n ORDER BY a.created_at, a.id LIMIT 1)`;
  // Recordings with an ISRC.
  await createByCode(trx, tenantId, artistOf, {
    table: 'assets', links: 'asset_artists', link: 'asset_id', code: 'isrc', keyCode: 'isrc_n', id: 'asset_id',
    known: `k.isrc_n ~ '^[A-Z]{2}[A-Z0-9]{3}[0-9]{7}$'`, title: `NULLIF(k.track_title, ''), k.isrc_n`, order: 'k.track_title DESC',
  });
  // Recordings without an ISRC: drafts, found again by title + artist.
  await trx.raw(
    `WITH n AS (
       SELECT DISTINCT ON (k.title_n, k.artist_n) k.title_n, k.artist_n, k.track_title AS title, k.artist
         FROM rm_keys k WHERE k.asset_id IS NULL AND k.isrc_n = '' AND k.title_n IS NOT NULL AND k.artist_n IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM assets x WHERE x.tenant_id = ? AND rondo_norm(x.title) = k.title_n)
        ORDER BY k.title_n, k.artist_n, k.track_title
     ), ins AS (
       INSERT INTO assets (tenant_id, title, display_artist, main_artist, is_draft)
       SELECT ?, n.title, n.artist, ARRAY[n.artist], true FROM n RETURNING id, title, display_artist
     )
     INSERT INTO asset_artists (tenant_id, asset_id, artist_id, position)
     SELECT ?, ins.id, ${artistOf}, 0 FROM ins JOIN n ON n.title = ins.title AND n.artist = ins.display_artist`,
    [tenantId, tenantId, tenantId, tenantId],
  );
  // Products with a UPC.
  await createByCode(trx, tenantId, artistOf, {
    table: 'products', links: 'product_artists', link: 'product_id', code: 'upc', keyCode: 'upc_n', id: 'product_id',
    known: `k.upc_n <> ''`, title: `NULLIF(k.release_title, ''), NULLIF(k.track_title, ''), k.upc_n`, order: 'k.release_title DESC',
  });
}

/**
 * Catalogue items the keys name by code (recordings by ISRC, products by UPC) and the
 * catalogue lacks: one per code (its title from the key that has one), linked to its artist
 * (`artistOf`: the artist id by the key's normalised artist name `n.artist_n`).
 */
async function createByCode(
  trx: Trx,
  tenantId: number,
  artistOf: string,
  p: { table: string; links: string; link: string; code: string; keyCode: string; id: string; known: string; title: string; order: string },
): Promise<void> {
  await trx.raw(
    `WITH n AS (
       SELECT DISTINCT ON (k.${p.keyCode}) k.${p.keyCode} AS code, COALESCE(${p.title}) AS title, NULLIF(k.artist, '') AS artist, k.artist_n
         FROM rm_keys k WHERE k.${p.id} IS NULL AND ${p.known}
        ORDER BY k.${p.keyCode}, ${p.order}
     ), ins AS (
       INSERT INTO ${p.table} (tenant_id, title, ${p.code}, display_artist, main_artist)
       SELECT ?, n.title, n.code, n.artist, CASE WHEN n.artist IS NULL THEN '{}'::text[] ELSE ARRAY[n.artist] END FROM n
       ON CONFLICT DO NOTHING RETURNING id, ${p.code}
     )
     INSERT INTO ${p.links} (tenant_id, ${p.link}, artist_id, position)
     SELECT ?, ins.id, ${artistOf}, 0 FROM ins JOIN n ON n.code = ins.${p.code} WHERE n.artist_n IS NOT NULL`,
    [tenantId, tenantId, tenantId],
  );
}

export type CatalogueTable = 'artists' | 'assets' | 'products';

/** Which of `ids` are rows of `table` (of the transaction's workspace, under row-level security). */
export async function existingIds(trx: Knex.Transaction, table: CatalogueTable, ids: readonly string[]): Promise<string[]> {
  if (!ids.length) return [];
  return trx(table).whereIn('id', ids).pluck('id');
}

/** The recording with this ISRC and the product with this UPC/EAN (13 digits), under row-level security; null where none. */
export async function idsByCodes(trx: Knex.Transaction, isrc: string | null, upc13: string | null): Promise<{ assetId: string | null; productId: string | null }> {
  const asset = isrc ? await trx('assets').where({ isrc }).first('id') : null;
  const product = upc13 ? await trx('products').where({ upc: upc13 }).first('id') : null;
  return { assetId: asset?.id ?? null, productId: product?.id ?? null };
}

/** The row type of each catalogue table. */
export interface CatalogueRows {
  artists: ArtistRow;
  assets: AssetRow;
  products: ProductRow;
}

/** One row of `table` by id (the columns asked for), under row-level security; undefined when none. */
export async function catalogueRow<T extends CatalogueTable, K extends keyof CatalogueRows[T] & string>(
  trx: Knex.Transaction, table: T, id: string, columns: K[],
): Promise<Pick<CatalogueRows[T], K> | undefined> {
  return trx(table).where({ id }).first(columns) as Promise<Pick<CatalogueRows[T], K> | undefined>;
}

/** The rows of `table` among `ids` (the columns asked for), in no particular order. */
export async function catalogueRows<T extends CatalogueTable, K extends keyof CatalogueRows[T] & string>(
  trx: Knex.Transaction, table: T, ids: readonly string[], columns: K[],
): Promise<Pick<CatalogueRows[T], K>[]> {
  if (!ids.length) return [];
  return trx(table).whereIn('id', ids).select(columns) as Promise<Pick<CatalogueRows[T], K>[]>;
}

/** Whether the workspace has any artist (RLS: on a tenant transaction). */
export async function hasAnyArtist(trx: Knex.Transaction): Promise<boolean> {
  return !!(await trx('artists').first('id'));
}

/** Every artist's id, by name. */
export async function artistIdsByName(trx: Knex.Transaction): Promise<string[]> {
  return trx('artists').orderBy('name').pluck('id');
}

/** The artists whose name is one of `lowerNames` without case (`lowerNames` in lower case). */
export async function artistsNamedAnyCase(trx: Knex.Transaction, lowerNames: readonly string[]): Promise<Pick<ArtistRow, 'id' | 'name'>[]> {
  if (!lowerNames.length) return [];
  return trx('artists').whereRaw('lower(name) = ANY(?::text[])', [[...lowerNames]]).select('id', 'name');
}

/** The names of the artists linked to each of the recordings or products `ids`, in their order (position, then artist id, as the catalogue lists them): one row per link. */
export async function linkedArtistNames(trx: Knex.Transaction, kind: 'asset' | 'product', ids: readonly string[]): Promise<{ item_id: string; name: string }[]> {
  if (!ids.length) return [];
  const [link, fk] = kind === 'asset' ? ['asset_artists', 'asset_id'] : ['product_artists', 'product_id'];
  return trx(`${link} as l`)
    .join('artists as a', (j) => j.on('a.tenant_id', 'l.tenant_id').andOn('a.id', 'l.artist_id'))
    .whereIn(`l.${fk}`, ids)
    .orderBy([`l.${fk}`, 'l.position', 'l.artist_id'])
    .select({ item_id: `l.${fk}`, name: 'a.name' });
}

/** The recording with this ISRC, whole; undefined when none. */
export async function assetByIsrc(trx: Knex.Transaction, isrc: string): Promise<AssetRow | undefined> {
  return trx('assets').where({ isrc }).first();
}

/** The product with this UPC, whole; undefined when none. */
export async function productByUpc(trx: Knex.Transaction, upc: string): Promise<ProductRow | undefined> {
  return trx('products').where({ upc }).first();
}

/** The recordings with these ISRCs: their ids by ISRC. */
export async function assetIdsByIsrc(trx: Knex.Transaction, isrcs: readonly string[]): Promise<Map<string, string>> {
  if (!isrcs.length) return new Map();
  const rows: Pick<AssetRow, 'id' | 'isrc'>[] = await trx('assets').whereIn('isrc', isrcs).select('id', 'isrc');
  return new Map(rows.map((r) => [r.isrc!, r.id]));
}

/** A product's recordings in track order (disc, track). */
export async function productTracks(trx: Knex.Transaction, productId: string): Promise<Pick<AssetRow, 'id' | 'title' | 'isrc'>[]> {
  return trx('product_assets as pa')
    .join('assets as a', (j) => j.on('a.tenant_id', 'pa.tenant_id').andOn('a.id', 'pa.asset_id'))
    .where('pa.product_id', productId)
    .orderBy(['pa.disc_number', 'pa.track_number'])
    .select('a.id', 'a.title', 'a.isrc');
}

/** The product released first (by release date, then title); undefined when there is none. */
export async function firstReleasedProduct(trx: Knex.Transaction): Promise<Pick<ProductRow, 'id' | 'title' | 'upc' | 'release_date'> | undefined> {
  return trx('products').orderBy(['release_date', 'title']).first('id', 'title', 'upc', 'release_date');
}

/** Every recording on a product, once per product it is on, with that product's UPC, by ISRC. */
export async function recordingsOnProducts(trx: Knex.Transaction): Promise<(Pick<AssetRow, 'title' | 'display_artist' | 'isrc'> & Pick<ProductRow, 'upc'>)[]> {
  return trx('assets as a')
    .join('product_assets as pa', (j) => j.on('pa.tenant_id', 'a.tenant_id').andOn('pa.asset_id', 'a.id'))
    .join('products as p', (j) => j.on('p.tenant_id', 'pa.tenant_id').andOn('p.id', 'pa.product_id'))
    .orderBy('a.isrc')
    .select('a.title', 'a.display_artist', 'a.isrc', 'p.upc');
}

/**
 * The workspace's recordings or products that are not drafts, by title, at most `limit`: of
 * the artists `artists` only (linked to one of them), or all.
 */
export async function publishedItems(trx: Knex.Transaction, table: 'assets', artists: readonly string[] | 'all', limit: number): Promise<AssetRow[]>;
export async function publishedItems(trx: Knex.Transaction, table: 'products', artists: readonly string[] | 'all', limit: number): Promise<ProductRow[]>;
export async function publishedItems(trx: Knex.Transaction, table: 'assets' | 'products', artists: readonly string[] | 'all', limit: number): Promise<(AssetRow | ProductRow)[]> {
  const [link, fk] = table === 'assets' ? ['asset_artists', 'asset_id'] : ['product_artists', 'product_id'];
  return trx(`${table} as x`)
    .modify((b) => {
      if (artists !== 'all') b.whereExists((e) => e.select(trx.raw('1')).from(`${link} as l`).whereRaw(`l.${fk} = x.id`).whereIn('l.artist_id', [...artists]));
    })
    .where('x.is_draft', false)
    .orderBy(['x.title', 'x.id'])
    .limit(limit)
    .select('x.*');
}
