import type { Knex } from 'knex';
import { enableTenantRls } from './helpers';

/**
 * A compact rollup at ARTIST × ONE statement dimension (dim 1 DSP, 2 country, 3 sale type,
 * 4 aggregator, its `value`) × sale month × accounting period, workspace and member rows,
 * kept like the other compact tables (a file's rows added / subtracted; source: the file's
 * royalty_agg_file_artist rows, one row per dimension):
 *
 *   royalty_agg_artist_dim
 *
 * It answers an artist (filter or breakdown) crossed with one dimension (filter or
 * breakdown), the commonest crossed question (/royalty/dsp?artist=…, /royalty/?artist=…&
 * country=DE, /royalty/artist?country=DE&periodFilterType=accounting&…), dated or not (an
 * undated request sums the months: 24 × 8 rows for one artist's DSPs). These read the per-file
 * artist rollup (every file's rows of the artist: 30,000 rows at 10M lines) or the cross
 * rollup at catalogue grain (30,800 rows for an accounting half-year × one country); here
 * they are a few hundred rows at most. No all-time twin: its upsert cost as much as the
 * dated table's (~60 ms a file in bench:analytics) for requests the dated one answers in a
 * few hundred rows.
 *
 * The unique key doubles as the read index: dimension, then artist (an artist's rows are one
 * range), then value (a value's rows of every artist: a skip scan over the artists).
 */
const COLS: Record<string, string> = {
  royalty_agg_artist_dim: 'sale_month date, accounting_period date, ap_end date,',
};
const KEYS: Record<string, string> = {
  royalty_agg_artist_dim: 'tenant_id, payee, dim, artist_id, value, sale_month, accounting_period, ap_end',
};
/** A file's artist rows, one per dimension (as aggregate.ts reads them). */
const ARTIST_DIM_SOURCE = `(SELECT a.tenant_id, a.file_id, a.payee, a.sale_month, a.accounting_period, a.ap_end, a.artist_id, d.dim, d.value, a.revenue, a.quantity, a.lines
    FROM royalty_agg_file_artist a
    CROSS JOIN LATERAL (VALUES (1::smallint, a.dsp), (2::smallint, a.country), (3::smallint, a.sale_type), (4::smallint, a.aggregator)) d(dim, value)) x`;

export async function up(knex: Knex): Promise<void> {
  // The per-file artist rollup's file index also holds payee and artist: a request with a
  // file and an artist filter (/royalty/dsp?file=…&artist=…) is one index range, not every
  // row of the file (or every file's rows of the artist). Same number of indexes.
  await knex.raw(`DROP INDEX IF EXISTS royalty_agg_file_artist_file`);
  await knex.raw(`CREATE INDEX royalty_agg_file_artist_file ON royalty_agg_file_artist (tenant_id, file_id, payee, artist_id)`);
  // Its artist index holds the dimensions after the artist: what still reads it (an artist
  // under two or more dimensions, /royalty/dsp?artist=…&country=DE) finds the artist's rows
  // of one DSP / country / sale type in the index (a skip scan over the few DSPs) instead of
  // reading every row of the artist (30,000 at 10M lines) and filtering them.
  await knex.raw(`DROP INDEX IF EXISTS royalty_agg_file_artist_artist`);
  await knex.raw(`CREATE INDEX royalty_agg_file_artist_artist ON royalty_agg_file_artist (tenant_id, payee, artist_id, dsp, country, sale_type, sale_month)`);
  for (const [table, cols] of Object.entries(COLS)) {
    await knex.raw(`
      CREATE TABLE ${table} (
        tenant_id integer NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        payee uuid NOT NULL,
        ${cols}
        artist_id uuid,
        dim smallint NOT NULL,
        value text,
        revenue numeric NOT NULL,
        quantity numeric NOT NULL,
        lines bigint NOT NULL
      )`);
    await enableTenantRls(knex, table);
    await knex.raw(`CREATE UNIQUE INDEX ${table}_key ON ${table} (${KEYS[table]}) NULLS NOT DISTINCT`);
    // Backfill from every file's artist rows.
    const key = KEYS[table]!;
    await knex.raw(`
      INSERT INTO ${table} (${key}, revenue, quantity, lines)
      SELECT ${key}, sum(revenue), sum(quantity), sum(lines) FROM ${ARTIST_DIM_SOURCE}
       GROUP BY ${key}`);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of Object.keys(COLS)) await knex.schema.dropTableIfExists(table);
  await knex.raw(`DROP INDEX IF EXISTS royalty_agg_file_artist_file`);
  await knex.raw(`CREATE INDEX royalty_agg_file_artist_file ON royalty_agg_file_artist (tenant_id, file_id)`);
  await knex.raw(`DROP INDEX IF EXISTS royalty_agg_file_artist_artist`);
  await knex.raw(`CREATE INDEX royalty_agg_file_artist_artist ON royalty_agg_file_artist (tenant_id, payee, artist_id, sale_month)`);
}
