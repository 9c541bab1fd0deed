import type { Knex } from 'knex';
import { enableTenantRls } from './helpers';

/**
 * royalty_agg_file_lines (the line numbers per file × month × catalogue item, 20261123530000)
 * is redundant since the cross rollup's workspace rows carry line numbers (20261123540000):
 * an item's aggregator rows, every value, list exactly its lines (each line has one
 * aggregator). Dropped: aggregateFile no longer writes it (a hash of the file's lines and an
 * insert with four indexes less). The workspace-deletion trigger keeps removing the artist
 * rollup's rows.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE OR REPLACE FUNCTION royalty_agg_artist_lines_tenant_gone() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      DELETE FROM royalty_agg_file_artist WHERE tenant_id = OLD.id;
      RETURN OLD;
    END $$`);
  await knex.schema.dropTableIfExists('royalty_agg_file_lines');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE royalty_agg_file_lines (
      tenant_id integer NOT NULL,
      file_id uuid NOT NULL,
      sale_month date,
      artist_id uuid,
      product_id uuid,
      asset_id uuid,
      line_nos integer[] NOT NULL
    )`);
  await enableTenantRls(knex, 'royalty_agg_file_lines');
  await knex.raw(`CREATE INDEX royalty_agg_file_lines_file ON royalty_agg_file_lines (tenant_id, file_id)`);
  for (const c of ['artist_id', 'product_id', 'asset_id']) {
    await knex.raw(`CREATE INDEX royalty_agg_file_lines_${c.replace('_id', '')} ON royalty_agg_file_lines (tenant_id, ${c}, sale_month)`);
  }
  await knex.raw(`
    INSERT INTO royalty_agg_file_lines (tenant_id, file_id, sale_month, artist_id, product_id, asset_id, line_nos)
    SELECT l.tenant_id, l.file_id, l.sale_month, l.artist_id, l.product_id, l.asset_id, array_agg(l.line_no ORDER BY l.line_no)
      FROM royalty_lines l
     WHERE l.base_amount IS NOT NULL
       AND EXISTS (SELECT 1 FROM royalty_agg_file_catalogue c WHERE c.tenant_id = l.tenant_id AND c.file_id = l.file_id)
     GROUP BY l.tenant_id, l.file_id, l.sale_month, l.artist_id, l.product_id, l.asset_id`);
  await knex.raw(`
    CREATE OR REPLACE FUNCTION royalty_agg_artist_lines_tenant_gone() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      DELETE FROM royalty_agg_file_artist WHERE tenant_id = OLD.id;
      DELETE FROM royalty_agg_file_lines WHERE tenant_id = OLD.id;
      RETURN OLD;
    END $$`);
}
