import type { Knex } from 'knex';
import { enableTenantRls } from './helpers';

/**
 * royalty_agg_item_all: all-time sums per artist (kind 1), per product (2) and per recording
 * (3), workspace and member rows; `item` is the artist / product / recording id (NULL: lines
 * without one). Kept like the other compact tables (a file's rows added / subtracted; source:
 * the file's royalty_agg_file_catalogue rows, one row per item kind).
 *
 * The undated breakdowns by recording, product or artist (a dashboard's first view) grouped
 * royalty_agg_catalogue_all (artist × product × recording) by the item: at 10M lines, 1,961
 * rows hashed into 1,961 recordings, 1.1 ms of the request's 3.4 ms of Postgres. Here each row
 * is a group already: the request reads its item kind's rows as they are (no GROUP BY).
 *
 * Like the other all-time tables: written in key order, fillfactor 50 (every file updates
 * its items' rows in place: HOT updates).
 */
const KEY = 'tenant_id, payee, kind, item';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE royalty_agg_item_all (
      tenant_id integer NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      payee uuid NOT NULL,
      kind smallint NOT NULL CHECK (kind IN (1, 2, 3)),
      item uuid,
      revenue numeric NOT NULL,
      quantity numeric NOT NULL,
      lines bigint NOT NULL
    ) WITH (fillfactor = 50)`);
  await enableTenantRls(knex, 'royalty_agg_item_all');
  await knex.raw(`CREATE UNIQUE INDEX royalty_agg_item_all_key ON royalty_agg_item_all (${KEY}) NULLS NOT DISTINCT`);
  await knex.raw(
    `INSERT INTO royalty_agg_item_all (${KEY}, revenue, quantity, lines)
     SELECT c.tenant_id, c.payee, k.kind, k.item, sum(c.revenue), sum(c.quantity), sum(c.lines)
       FROM royalty_agg_catalogue_all c
       CROSS JOIN LATERAL (VALUES (1::smallint, c.artist_id), (2::smallint, c.product_id), (3::smallint, c.asset_id)) k(kind, item)
      GROUP BY c.tenant_id, c.payee, k.kind, k.item
      ORDER BY 1, 2, 3, 4`,
  );
  await knex.raw(`ANALYZE royalty_agg_item_all`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('royalty_agg_item_all');
}
