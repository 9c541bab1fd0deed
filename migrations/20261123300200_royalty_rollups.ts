import type { Knex } from 'knex';
import { enableTenantRls } from './helpers';

/**
 * Analytics rollups (the aggregate step; coarse grains chosen per view, docs/engine.md). Every table
 * carries `payee`: the all-zero uuid for the whole workspace (sums of line base amounts,
 * matched or not: what admins see) or a tenant user id (sums of that member's current
 * earnings: what other members see). Shared columns: sale_month, accounting_period (first
 * day) and ap_end (its last day), revenue, quantity, lines.
 *
 * Per file (the source of truth, rebuilt whole when a file is (re)allocated or deleted;
 * also answer queries filtered by file):
 *   royalty_agg_file_dims       + file_id, dsp, country, sale_type, aggregator
 *   royalty_agg_file_catalogue  + file_id, artist_id, product_id, asset_id
 * Compact (no file, kept by adding/subtracting a file's rows; what /royalty/* reads):
 *   royalty_agg_period          (nothing more: totals, month, accounting period)
 *   royalty_agg_dims            dsp, country, sale_type, aggregator
 *   royalty_agg_catalogue       artist_id, product_id, asset_id
 */
const BASE = ['tenant_id', 'payee', 'sale_month', 'accounting_period', 'ap_end'];
const TABLES: Record<string, string[]> = {
  royalty_agg_file_dims: ['file_id', 'dsp', 'country', 'sale_type', 'aggregator'],
  royalty_agg_file_catalogue: ['file_id', 'artist_id', 'product_id', 'asset_id'],
  royalty_agg_period: [],
  royalty_agg_dims: ['dsp', 'country', 'sale_type', 'aggregator'],
  royalty_agg_catalogue: ['artist_id', 'product_id', 'asset_id'],
};
const TYPES: Record<string, string> = {
  file_id: 'uuid', artist_id: 'uuid', product_id: 'uuid', asset_id: 'uuid',
  dsp: 'text', country: 'text', sale_type: 'text', aggregator: 'text',
};

export async function up(knex: Knex): Promise<void> {
  for (const [table, extra] of Object.entries(TABLES)) {
    await knex.raw(`
      CREATE TABLE ${table} (
        tenant_id integer NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        payee uuid NOT NULL,
        sale_month date,
        accounting_period date,
        ap_end date,
        ${extra.map((c) => `${c} ${TYPES[c]}${c === 'file_id' ? ' NOT NULL' : ''},`).join('\n        ')}
        revenue numeric NOT NULL,
        quantity numeric NOT NULL,
        lines bigint NOT NULL
      )`);
    await enableTenantRls(knex, table);
    const key = [...BASE, ...extra];
    if (table.startsWith('royalty_agg_file_')) {
      await knex.raw(`CREATE INDEX ${table}_file_idx ON ${table} (tenant_id, file_id)`);
      await knex.raw(`CREATE INDEX ${table}_payee_idx ON ${table} (tenant_id, payee, file_id)`);
    } else {
      // The upsert key (NULLS NOT DISTINCT: unmatched lines group under null artist/asset/…).
      await knex.raw(`CREATE UNIQUE INDEX ${table}_key ON ${table} (${key.join(', ')}) NULLS NOT DISTINCT`);
    }
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of Object.keys(TABLES)) await knex.schema.dropTableIfExists(table);
}
