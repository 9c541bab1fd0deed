/**
 * The catalogue tables (artists, recordings = `assets`, products) and their typed rows. The
 * tables belong to the catalogue area (src/modules/catalogue); every other area writes them
 * through the functions below (docs/architecture.md, "Tables and their owners";
 * test/ownership.test.ts). Read-only joins inside set-based SQL are listed in that test.
 */
import type { Knex } from 'knex';
import type { Trx } from '../db';

export interface ArtistRow {
  tenant_id: number;
  id: string;
  name: string;
  external_id: string | null;
  country: string | null;
  metadata: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

/** The columns a recording or a product share (each has more of its own). */
interface CatalogueItemRow {
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
}

/** A recording (`assets`). */
export interface AssetRow extends CatalogueItemRow {
  type: string;
  isrc: string | null;
  iswc: string | null;
  version: string | null;
  sub_genre: string[];
  contributors: unknown[];
}

/** A product (release format). */
export interface ProductRow extends CatalogueItemRow {
  upc: string | null;
  type: string | null;
  format: string | null;
  release_date: Date | null;
  label: string | null;
  catalog_number: string | null;
}

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
