import type { Knex } from 'knex';
import { enableTenantRls } from './helpers';

/**
 * royalty_agg_item_h: royalty_agg_item_all (sums per artist, product, recording: `kind` 1, 2,
 * 3) by sale half-year (`grain` 6) and sale year (12), `period_start` the period's first day;
 * workspace and member rows, kept like the other compact tables (source: the file's
 * royalty_agg_file_catalogue rows, one row per item kind and period grain).
 *
 * A breakdown by recording, product or artist of exactly one calendar half or year (H1, H2,
 * the year: the reports a finance team runs most) with no other filter reads its groups here as
 * rows, without a GROUP BY; royalty_agg_catalogue_h (artist × product × recording) hashed
 * 1,961 rows into 1,961 recordings for the half-year at 10M lines. Other ranges keep reading
 * royalty_agg_catalogue_h / _q and the month rollup.
 *
 * Written in key order, fillfactor 50 (a period's later files update its rows in place).
 */
const KEY = 'tenant_id, payee, kind, grain, period_start, item';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE royalty_agg_item_h (
      tenant_id integer NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      payee uuid NOT NULL,
      kind smallint NOT NULL CHECK (kind IN (1, 2, 3)),
      grain smallint NOT NULL CHECK (grain IN (6, 12)),
      period_start date,
      item uuid,
      revenue numeric NOT NULL,
      quantity numeric NOT NULL,
      lines bigint NOT NULL
    ) WITH (fillfactor = 50)`);
  await enableTenantRls(knex, 'royalty_agg_item_h');
  await knex.raw(`CREATE UNIQUE INDEX royalty_agg_item_h_key ON royalty_agg_item_h (${KEY}) NULLS NOT DISTINCT`);
  await knex.raw(
    `INSERT INTO royalty_agg_item_h (${KEY}, revenue, quantity, lines)
     SELECT c.tenant_id, c.payee, k.kind, c.grain, c.period_start, k.item, sum(c.revenue), sum(c.quantity), sum(c.lines)
       FROM royalty_agg_catalogue_h c
       CROSS JOIN LATERAL (VALUES (1::smallint, c.artist_id), (2::smallint, c.product_id), (3::smallint, c.asset_id)) k(kind, item)
      GROUP BY c.tenant_id, c.payee, k.kind, c.grain, c.period_start, k.item
      ORDER BY 1, 2, 3, 4, 5, 6`,
  );
  await knex.raw(`ANALYZE royalty_agg_item_h`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('royalty_agg_item_h');
}
