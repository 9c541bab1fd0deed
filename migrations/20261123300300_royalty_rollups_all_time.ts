import type { Knex } from 'knex';
import { enableTenantRls } from './helpers';

/**
 * All-time rollups (no sale month / accounting period in the grain): what the default,
 * undated breakdowns read (/royalty/dsp, /country, /artist, /product, /asset … without
 * start/end). Same upkeep as the dated compact tables (add/subtract a file's rows).
 */
const TABLES: Record<string, [string, string][]> = {
  royalty_agg_dims_all: [['dsp', 'text'], ['country', 'text'], ['sale_type', 'text'], ['aggregator', 'text']],
  royalty_agg_catalogue_all: [['artist_id', 'uuid'], ['product_id', 'uuid'], ['asset_id', 'uuid']],
};

export async function up(knex: Knex): Promise<void> {
  for (const [table, cols] of Object.entries(TABLES)) {
    await knex.raw(`
      CREATE TABLE ${table} (
        tenant_id integer NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        payee uuid NOT NULL,
        ${cols.map(([c, t]) => `${c} ${t},`).join('\n        ')}
        revenue numeric NOT NULL,
        quantity numeric NOT NULL,
        lines bigint NOT NULL
      )`);
    await enableTenantRls(knex, table);
    await knex.raw(`CREATE UNIQUE INDEX ${table}_key ON ${table} (tenant_id, payee, ${cols.map(([c]) => c).join(', ')}) NULLS NOT DISTINCT`);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of Object.keys(TABLES)) await knex.schema.dropTableIfExists(table);
}
