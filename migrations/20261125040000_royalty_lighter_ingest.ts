import type { Knex } from 'knex';

/**
 * A lighter load per statement (figures: bench/RESULTS.md, "Ingest"):
 *
 *  - the statement lines keep ONE catalogue read index, by recording. A product's or an
 *    artist's lines are found through it: the catalogue shape names every recording a
 *    product's or artist's lines carry (docs/engine.md, "Reading the lines of a product or
 *    an artist"), and the few lines with a product or artist but no recording have their own
 *    partial indexes. Each full index cost the ingest about 1.5 s a million lines;
 *  - the rollup shapes lose their foreign key to tenants: a per-row trigger on every insert
 *    (0.67 s for the 236,367 catalogue rows of a 1M-line file). A deleted workspace's rows
 *    go as its earnings' do: one trigger on tenants, which empties every rollup shape
 *    (`royalty_roll_*`, found by name, so a shape declared later is covered too);
 *  - files.rollups_built: the allocation built the file's rollup shapes alongside its ledger
 *    postings (pipeline.ts), so the aggregate step has nothing left to do.
 */
/** The rollup shapes' tables when this migration landed (frozen). */
const SHAPE_TABLES = ['royalty_roll_period', 'royalty_roll_dims', 'royalty_roll_share_set_artist', 'royalty_roll_catalogue', 'royalty_roll_artist_dims'];

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`DROP INDEX IF EXISTS royalty_lines_product`);
  await knex.raw(`DROP INDEX IF EXISTS royalty_lines_artist`);
  await knex.raw(`CREATE INDEX royalty_lines_product_only ON royalty_lines (tenant_id, product_id) WHERE asset_id IS NULL AND product_id IS NOT NULL`);
  await knex.raw(`CREATE INDEX royalty_lines_artist_only ON royalty_lines (tenant_id, artist_id) WHERE asset_id IS NULL AND artist_id IS NOT NULL`);
  for (const t of SHAPE_TABLES) await knex.raw(`ALTER TABLE ${t} DROP CONSTRAINT IF EXISTS ${t}_tenant_id_fkey`);
  await knex.raw(`
    CREATE OR REPLACE FUNCTION royalty_rollups_tenant_gone() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE t regclass;
    BEGIN
      FOR t IN SELECT c.oid::regclass FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE c.relkind = 'r' AND c.relname LIKE 'royalty\\_roll\\_%' AND n.nspname = current_schema() LOOP
        EXECUTE format('DELETE FROM %s WHERE tenant_id = $1', t) USING OLD.id;
      END LOOP;
      RETURN OLD;
    END $$`);
  await knex.raw(`CREATE TRIGGER royalty_rollups_tenant_gone AFTER DELETE ON tenants FOR EACH ROW EXECUTE FUNCTION royalty_rollups_tenant_gone()`);
  await knex.raw(`ALTER TABLE files ADD COLUMN rollups_built boolean NOT NULL DEFAULT false`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE files DROP COLUMN IF EXISTS rollups_built`);
  await knex.raw(`DROP TRIGGER IF EXISTS royalty_rollups_tenant_gone ON tenants`);
  await knex.raw(`DROP FUNCTION IF EXISTS royalty_rollups_tenant_gone()`);
  for (const t of SHAPE_TABLES) {
    await knex.raw(`DELETE FROM ${t} r WHERE NOT EXISTS (SELECT 1 FROM tenants t WHERE t.id = r.tenant_id)`);
    await knex.raw(`ALTER TABLE ${t} ADD CONSTRAINT ${t}_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE`);
  }
  await knex.raw(`DROP INDEX IF EXISTS royalty_lines_artist_only`);
  await knex.raw(`DROP INDEX IF EXISTS royalty_lines_product_only`);
  await knex.raw(`CREATE INDEX royalty_lines_product ON royalty_lines (tenant_id, product_id)`);
  await knex.raw(`CREATE INDEX royalty_lines_artist ON royalty_lines (tenant_id, artist_id)`);
}
