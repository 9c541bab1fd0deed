import type { Knex } from 'knex';
import { enableTenantRls } from './helpers';

/**
 * royalty_agg_cross_all: the all-time twin of royalty_agg_cross_period (catalogue × ONE
 * statement dimension value, workspace and member rows), without the accounting period, kept
 * like the other compact tables from the same per-file rows (the workspace cross rows and
 * royalty_agg_file_member_cross).
 *
 * An undated catalogue breakdown under one dimension filter (/royalty/asset?country=DE)
 * summed every accounting period's rows: 16,800 rows at 10M lines (700 recordings sold in DE
 * × 24 monthly periods), 9.7 ms of Postgres time, about 50 ms p95 under 8 clients. Here it is
 * 700 rows. Undated requests that filter by catalogue item and group by one dimension
 * (/royalty/dsp?product=…) read it too, through the item indexes: a member's used to go
 * through the line lists (every line of the product, then the member's earnings of each),
 * an admin's summed the item's per-file cross rows (96 files × its recordings × the values).
 *
 * Upkeep: one more upsert per file, of the rows the period table's upsert already groups (a
 * file has one accounting period, so its rows for the two tables are the same). Every file
 * updates rows here: fillfactor 50 (as the other all-time tables, migration 20261123610100),
 * and the amounts are in no index, so an existing row's new version is a HOT update on its
 * own page (the page's dead versions are pruned when the next file updates it); only new
 * keys touch the indexes.
 */
const KEY = 'tenant_id, payee, dim, value, artist_id, product_id, asset_id';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE royalty_agg_cross_all (
      tenant_id integer NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      payee uuid NOT NULL,
      dim smallint NOT NULL,
      value text,
      artist_id uuid,
      product_id uuid,
      asset_id uuid,
      revenue numeric NOT NULL,
      quantity numeric NOT NULL,
      lines bigint NOT NULL
    ) WITH (fillfactor = 50)`);
  await enableTenantRls(knex, 'royalty_agg_cross_all');
  // The upsert key, and the index a request by dimension value (and artist) range-scans.
  await knex.raw(`CREATE UNIQUE INDEX royalty_agg_cross_all_key ON royalty_agg_cross_all (${KEY}) NULLS NOT DISTINCT`);
  // A product or recording filter (release analytics: both, OR-ed into a bitmap).
  await knex.raw(`CREATE INDEX royalty_agg_cross_all_product ON royalty_agg_cross_all (tenant_id, payee, product_id, dim)`);
  await knex.raw(`CREATE INDEX royalty_agg_cross_all_asset ON royalty_agg_cross_all (tenant_id, payee, asset_id, dim)`);
  await knex.raw(
    `INSERT INTO royalty_agg_cross_all (${KEY}, revenue, quantity, lines)
     SELECT ${KEY}, sum(revenue), sum(quantity), sum(lines)
       FROM royalty_agg_cross_period
      GROUP BY ${KEY}
      ORDER BY ${KEY}`,
  );
  // Statistics now: without them a request's plan guesses one row and may pick an item index.
  await knex.raw(`ANALYZE royalty_agg_cross_all`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('royalty_agg_cross_all');
}
