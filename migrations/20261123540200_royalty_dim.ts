import type { Knex } from 'knex';
import { enableTenantRls } from './helpers';

/**
 * Compact rollups at ONE statement dimension (dim 1 DSP, 2 country, 3 sale type,
 * 4 aggregator, its `value`), workspace and member rows, kept like the other compact tables
 * (a file's rows added / subtracted; source: the file's royalty_agg_file_dims rows, one row
 * per dimension):
 *
 *   royalty_agg_dim      + sale month × accounting period (dated requests)
 *   royalty_agg_dim_all  all time (undated requests)
 *
 * A breakdown or filter by one dimension (/royalty/dsp?start=…&end=…, /royalty/month?country=
 * DE) read royalty_agg_dims, whose grain is all four dimensions at once (DSP × country × sale
 * type × aggregator: 1,920 rows a month in the bench, 11,500 for a half-year); here it is the
 * dimension's values (8 DSPs a month). A few dozen rows per file.
 */
const COLS: Record<string, string> = {
  royalty_agg_dim: 'sale_month date, accounting_period date, ap_end date,',
  royalty_agg_dim_all: '',
};
const KEYS: Record<string, string> = {
  royalty_agg_dim: 'tenant_id, payee, dim, value, sale_month, accounting_period, ap_end',
  royalty_agg_dim_all: 'tenant_id, payee, dim, value',
};
const SOURCE = `(SELECT a.tenant_id, a.file_id, a.payee, a.sale_month, a.accounting_period, a.ap_end, d.dim, d.value, a.revenue, a.quantity, a.lines
    FROM royalty_agg_file_dims a
    CROSS JOIN LATERAL (VALUES (1::smallint, a.dsp), (2::smallint, a.country), (3::smallint, a.sale_type), (4::smallint, a.aggregator)) d(dim, value)) x`;

export async function up(knex: Knex): Promise<void> {
  for (const [table, cols] of Object.entries(COLS)) {
    await knex.raw(`
      CREATE TABLE ${table} (
        tenant_id integer NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        payee uuid NOT NULL,
        ${cols}
        dim smallint NOT NULL,
        value text,
        revenue numeric NOT NULL,
        quantity numeric NOT NULL,
        lines bigint NOT NULL
      )`);
    await enableTenantRls(knex, table);
    const key = KEYS[table]!;
    await knex.raw(`CREATE UNIQUE INDEX ${table}_key ON ${table} (${key}) NULLS NOT DISTINCT`);
    await knex.raw(`INSERT INTO ${table} (${key}, revenue, quantity, lines) SELECT ${key}, sum(revenue), sum(quantity), sum(lines) FROM ${SOURCE} GROUP BY ${key}`);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of Object.keys(COLS)) await knex.schema.dropTableIfExists(table);
}
