import type { Knex } from 'knex';

/**
 * effective_split_for(tenant, asset_id, product_id, sale_date, territory, sale_type)
 *   RETURNS TABLE (split_id uuid, level text)   -- zero or one row
 * effective_split_shares(same arguments)
 *   RETURNS TABLE (split_id uuid, level text, tenant_user_id uuid, share numeric)
 *
 * The one definition of "which split pays this sale" (documented in
 * src/modules/catalogue/effective-split.ts and docs/catalogue.md, "The effective-split rule"). POST /split/match calls it, and the
 * allocation job joins against it, so both always agree.
 *
 * Levels, first that has a matching split wins:
 *   1 asset          a split of the recording
 *   2 product        a split of the product
 *   3 asset_artist   the default split of the recording's primary artist
 *   4 product_artist the default split of the product's primary artist
 * A split matches when its type is the sale type or `all`, sale_date (today when null)
 * lies within [valid_from, valid_to] (open ends when null), and territories is null
 * (worldwide) or contains the territory. Within a level: exact type before `all`,
 * territory-specific before worldwide, latest valid_from, newest.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE OR REPLACE FUNCTION effective_split_for(
      p_tenant integer, p_asset uuid, p_product uuid, p_sale_date date, p_territory text, p_type text)
    RETURNS TABLE (split_id uuid, level text)
    LANGUAGE sql STABLE PARALLEL SAFE AS $$
      WITH cand AS (
        SELECT s.*, 1 AS lvl, 'asset'::text AS lvl_name FROM splits s
          WHERE p_asset IS NOT NULL AND s.tenant_id = p_tenant AND s.asset_id = p_asset
        UNION ALL
        SELECT s.*, 2, 'product' FROM splits s
          WHERE p_product IS NOT NULL AND s.tenant_id = p_tenant AND s.product_id = p_product
        UNION ALL
        SELECT s.*, 3, 'asset_artist' FROM splits s
          WHERE p_asset IS NOT NULL AND s.tenant_id = p_tenant AND s.artist_id = (
            SELECT aa.artist_id FROM asset_artists aa
             WHERE aa.tenant_id = p_tenant AND aa.asset_id = p_asset ORDER BY aa.position, aa.artist_id LIMIT 1)
        UNION ALL
        SELECT s.*, 4, 'product_artist' FROM splits s
          WHERE p_product IS NOT NULL AND s.tenant_id = p_tenant AND s.artist_id = (
            SELECT pa.artist_id FROM product_artists pa
             WHERE pa.tenant_id = p_tenant AND pa.product_id = p_product ORDER BY pa.position, pa.artist_id LIMIT 1)
      )
      SELECT c.id, c.lvl_name FROM cand c
       WHERE (c.type = 'all' OR c.type = COALESCE(p_type, 'all'))
         AND (c.valid_from IS NULL OR c.valid_from <= COALESCE(p_sale_date, current_date))
         AND (c.valid_to IS NULL OR c.valid_to >= COALESCE(p_sale_date, current_date))
         AND (c.territories IS NULL OR upper(p_territory) = ANY (c.territories))
       ORDER BY c.lvl, (c.type = COALESCE(p_type, 'all')) DESC, (c.territories IS NOT NULL) DESC,
                c.valid_from DESC NULLS LAST, c.created_at DESC, c.id
       LIMIT 1
    $$`);
  await knex.raw(`
    CREATE OR REPLACE FUNCTION effective_split_shares(
      p_tenant integer, p_asset uuid, p_product uuid, p_sale_date date, p_territory text, p_type text)
    RETURNS TABLE (split_id uuid, level text, tenant_user_id uuid, share numeric)
    LANGUAGE sql STABLE PARALLEL SAFE AS $$
      SELECT e.split_id, e.level, sh.tenant_user_id, sh.share
        FROM effective_split_for(p_tenant, p_asset, p_product, p_sale_date, p_territory, p_type) e
        JOIN split_shares sh ON sh.tenant_id = p_tenant AND sh.split_id = e.split_id
       ORDER BY sh.share DESC, sh.tenant_user_id
    $$`);
  await knex.raw(`GRANT EXECUTE ON FUNCTION effective_split_for(integer, uuid, uuid, date, text, text), effective_split_shares(integer, uuid, uuid, date, text, text) TO rondo_app`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP FUNCTION IF EXISTS effective_split_shares(integer, uuid, uuid, date, text, text)`);
  await knex.raw(`DROP FUNCTION IF EXISTS effective_split_for(integer, uuid, uuid, date, text, text)`);
}
