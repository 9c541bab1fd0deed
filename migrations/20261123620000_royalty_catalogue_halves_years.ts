import type { Knex } from 'knex';
import { enableTenantRls } from './helpers';

/**
 * royalty_agg_catalogue_h: the catalogue rollup (artist × product × recording, workspace and
 * member rows) by sale HALF-YEAR (grain 6: Jan–Jun, Jul–Dec) and by sale YEAR (grain 12),
 * `period_start` the period's first day. Kept like royalty_agg_catalogue_q (a file's rows added
 * / subtracted; source: the file's royalty_agg_file_catalogue rows, their sale month truncated
 * to its half-year and to its year).
 *
 * A sale-dated catalogue breakdown read the whole quarters of its range from the quarter
 * rollup: a half-year by recording summed 2 rows per recording into one (3,900 rows into 1,961
 * groups at 10M lines: 3.8 ms of Postgres), a year 4. It now reads the range's whole years,
 * then whole halves, from here (the half-year: 1,961 rows, 2.9 ms), the quarters left from the
 * quarter rollup and the months left from the month rollup (analytics.ts, saleCover).
 * Rows without a sale month keep period_start NULL (no dated request selects them).
 *
 * Like the quarter rollup: written in key order (the backfill here, aggregateFile's upserts),
 * fillfactor 50 (a period's later files update its rows in place: HOT updates).
 */
const KEY = 'tenant_id, payee, grain, period_start, artist_id, product_id, asset_id';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE royalty_agg_catalogue_h (
      tenant_id integer NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      payee uuid NOT NULL,
      grain smallint NOT NULL CHECK (grain IN (6, 12)),
      period_start date,
      artist_id uuid,
      product_id uuid,
      asset_id uuid,
      revenue numeric NOT NULL,
      quantity numeric NOT NULL,
      lines bigint NOT NULL
    ) WITH (fillfactor = 50)`);
  await enableTenantRls(knex, 'royalty_agg_catalogue_h');
  // The upsert key, and the index a dated request reads (tenant, payee, grain, period).
  await knex.raw(`CREATE UNIQUE INDEX royalty_agg_catalogue_h_key ON royalty_agg_catalogue_h (${KEY}) NULLS NOT DISTINCT`);
  await knex.raw(
    `INSERT INTO royalty_agg_catalogue_h (${KEY}, revenue, quantity, lines)
     SELECT c.tenant_id, c.payee, g.grain, g.period_start, c.artist_id, c.product_id, c.asset_id, sum(c.revenue), sum(c.quantity), sum(c.lines)
       FROM royalty_agg_file_catalogue c
       CROSS JOIN LATERAL (VALUES (6::smallint, (date_trunc('year', c.sale_month::timestamp) + make_interval(months => CASE WHEN extract(month FROM c.sale_month) > 6 THEN 6 ELSE 0 END))::date),
                                  (12::smallint, date_trunc('year', c.sale_month::timestamp)::date)) g(grain, period_start)
      GROUP BY c.tenant_id, c.payee, g.grain, g.period_start, c.artist_id, c.product_id, c.asset_id
      ORDER BY 1, 2, 3, 4, 5, 6, 7`,
  );
  await knex.raw(`ANALYZE royalty_agg_catalogue_h`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('royalty_agg_catalogue_h');
}
