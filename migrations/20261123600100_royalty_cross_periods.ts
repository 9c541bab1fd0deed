import type { Knex } from 'knex';
import { enableTenantRls } from './helpers';

/**
 * Catalogue × ONE statement dimension value by ACCOUNTING PERIOD, for the workspace and its
 * members:
 *
 *   royalty_agg_file_member_cross  per file (the source of truth for the compact table): a
 *                                  member's current earnings by artist × product × recording
 *                                  × ONE dimension value (dim 1 DSP, 2 country, 3 sale type,
 *                                  4 aggregator), without the sale month. Members' rows in
 *                                  royalty_agg_file_cross are at artist grain.
 *   royalty_agg_cross_period       compact (no file, no sale month): the workspace cross rows
 *                                  and the members' rows above, by accounting period.
 *
 * A catalogue breakdown under one dimension filter, accounting-dated or undated
 * (/royalty/asset?periodFilterType=accounting&start=2023-07&end=2023-12&country=DE) summed the
 * per-file cross rows: 16,800 rows at 10M lines (24 files × 700 recordings sold in DE); undated,
 * 67,000. A member's (/royalty/asset?country=DE as a member) went through the line lists:
 * every DE line of every file (500,000) and the member's earnings of each, 5–10 s. Here the
 * files of a period are one row. Dropping the sale month bounds a file's upkeep by its
 * catalogue × dimension values (a dense 1M-line file spanning many sale months has 1.3M cross
 * rows but one accounting period). Sale-dated and file-filtered requests and catalogue
 * FILTERS (the per-file cross table's item indexes) keep reading the per-file rows.
 *
 * No tenant FK on the per-file table (a per-row RI trigger on every aggregateFile insert):
 * a workspace's deletion removes its rows by trigger, like the other per-file rollups.
 */
const ZERO = '00000000-0000-0000-0000-000000000000';
const CAT = 'artist_id, product_id, asset_id';
const KEY = `tenant_id, payee, dim, value, accounting_period, ap_end, ${CAT}`;
const DIM_NO = `CASE WHEN GROUPING(e.dsp) = 0 THEN 1 WHEN GROUPING(e.country) = 0 THEN 2 WHEN GROUPING(e.sale_type) = 0 THEN 3 ELSE 4 END`;
const DIM_VALUE = `CASE WHEN GROUPING(e.dsp) = 0 THEN e.dsp WHEN GROUPING(e.country) = 0 THEN e.country WHEN GROUPING(e.sale_type) = 0 THEN e.sale_type ELSE e.aggregator END`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE royalty_agg_file_member_cross (
      tenant_id integer NOT NULL,
      file_id uuid NOT NULL,
      payee uuid NOT NULL,
      accounting_period date,
      ap_end date,
      artist_id uuid,
      product_id uuid,
      asset_id uuid,
      dim smallint NOT NULL,
      value text,
      revenue numeric NOT NULL,
      quantity numeric NOT NULL,
      lines bigint NOT NULL
    )`);
  await enableTenantRls(knex, 'royalty_agg_file_member_cross');
  await knex.raw(`CREATE INDEX royalty_agg_file_member_cross_file ON royalty_agg_file_member_cross (tenant_id, file_id)`);
  await knex.raw(`
    CREATE OR REPLACE FUNCTION royalty_agg_file_member_cross_tenant_gone() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      DELETE FROM royalty_agg_file_member_cross WHERE tenant_id = OLD.id;
      RETURN OLD;
    END $$`);
  await knex.raw(
    `CREATE TRIGGER royalty_agg_file_member_cross_tenant_gone AFTER DELETE ON tenants FOR EACH ROW EXECUTE FUNCTION royalty_agg_file_member_cross_tenant_gone()`,
  );
  // Backfill: every aggregated file's current earnings, at the accounting period its rollup
  // rows hold (what aggregateFile wrote then, not recomputed from today's cadence).
  await knex.raw(`
    WITH fp AS (
      SELECT tenant_id, file_id, min(accounting_period) AS accounting_period, min(ap_end) AS ap_end
        FROM royalty_agg_file_cross WHERE payee = '${ZERO}' GROUP BY tenant_id, file_id
    )
    INSERT INTO royalty_agg_file_member_cross (tenant_id, file_id, payee, accounting_period, ap_end, ${CAT}, dim, value, revenue, quantity, lines)
    SELECT e.tenant_id, e.file_id, e.tenant_user_id, fp.accounting_period, fp.ap_end, e.artist_id, e.product_id, e.asset_id, ${DIM_NO}, ${DIM_VALUE},
           sum(e.amount), sum(e.quantity), count(*)
      FROM royalty_earnings e JOIN fp ON fp.tenant_id = e.tenant_id AND fp.file_id = e.file_id
     WHERE e.superseded_at IS NULL
     GROUP BY e.tenant_id, e.file_id, e.tenant_user_id, fp.accounting_period, fp.ap_end, e.artist_id, e.product_id, e.asset_id,
              GROUPING SETS ((e.dsp), (e.country), (e.sale_type), (e.aggregator))`);

  await knex.raw(`
    CREATE TABLE royalty_agg_cross_period (
      tenant_id integer NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      payee uuid NOT NULL,
      dim smallint NOT NULL,
      value text,
      accounting_period date,
      ap_end date,
      artist_id uuid,
      product_id uuid,
      asset_id uuid,
      revenue numeric NOT NULL,
      quantity numeric NOT NULL,
      lines bigint NOT NULL
    ) WITH (fillfactor = 70)`);
  await enableTenantRls(knex, 'royalty_agg_cross_period');
  // The upsert key, and the index a request range-scans (one dimension value, a period range).
  await knex.raw(`CREATE UNIQUE INDEX royalty_agg_cross_period_key ON royalty_agg_cross_period (${KEY}) NULLS NOT DISTINCT`);
  await knex.raw(
    `INSERT INTO royalty_agg_cross_period (${KEY}, revenue, quantity, lines)
     SELECT ${KEY}, sum(revenue), sum(quantity), sum(lines)
       FROM (SELECT ${KEY}, revenue, quantity, lines FROM royalty_agg_file_cross WHERE payee = '${ZERO}'
             UNION ALL
             SELECT ${KEY}, revenue, quantity, lines FROM royalty_agg_file_member_cross) x
      GROUP BY ${KEY}
      ORDER BY ${KEY}`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('royalty_agg_cross_period');
  await knex.raw(`DROP TRIGGER IF EXISTS royalty_agg_file_member_cross_tenant_gone ON tenants`);
  await knex.raw(`DROP FUNCTION IF EXISTS royalty_agg_file_member_cross_tenant_gone()`);
  await knex.schema.dropTableIfExists('royalty_agg_file_member_cross');
}
