import type { Knex } from 'knex';
import { enableTenantRls } from './helpers';

/**
 * Cross rollup, per file: sale month × the catalogue (artist, product, recording) × ONE
 * statement dimension (`dim`: 1 DSP, 2 country, 3 sale type, 4 aggregator; its value in
 * `value`). It answers what neither royalty_agg_*dims (no catalogue) nor
 * royalty_agg_*catalogue (no statement dimension) can: a DSP / country / sale-type /
 * aggregator breakdown filtered by artist, product or recording (/royalty/dsp?artist=…), a
 * catalogue breakdown filtered by one statement dimension (/royalty/asset?country=DE), with
 * or without dates and the `file` filter. Workspace rows only (`payee` = the all-zero uuid:
 * what admins and owners read); a member's crossed request reads their own earnings.
 * Rebuilt with the file's other rollups; no compact twin (a recording's rows per month and
 * dimension value are nearly as many as its lines, so one across files would save little
 * and cost an upsert per row on every file).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE royalty_agg_file_cross (
      tenant_id integer NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      payee uuid NOT NULL,
      file_id uuid NOT NULL,
      sale_month date,
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
  await enableTenantRls(knex, 'royalty_agg_file_cross');
  // A file's rows (delete, compact upkeep, the file filter).
  await knex.raw(`CREATE INDEX royalty_agg_file_cross_file ON royalty_agg_file_cross (tenant_id, file_id, payee, dim)`);
  // A catalogue filter (the row ranges of one artist / product / recording), or a statement-dimension filter.
  for (const c of ['artist_id', 'product_id', 'asset_id', 'value']) {
    await knex.raw(`CREATE INDEX royalty_agg_file_cross_${c.replace('_id', '')} ON royalty_agg_file_cross (tenant_id, payee, dim, ${c}, sale_month)`);
  }

}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('royalty_agg_file_cross');
}
