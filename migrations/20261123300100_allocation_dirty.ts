import type { Knex } from 'knex';
import { enableTenantRls } from './helpers';

/**
 * What changed since the last re-allocation. Triggers on the catalogue and the splits
 * record marks here (whoever makes the change: API, bulk, merge, SQL) and NOTIFY
 * `rondo_allocation_dirty` with the tenant id; the worker turns that into one
 * `royalty.reallocate` job per tenant, which re-matches and re-allocates only the lines
 * the change can affect (src/modules/royalty/reallocate.ts). A scheduled sweep picks up
 * marks when no worker was listening.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('allocation_dirty', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.bigIncrements('id', { primaryKey: false });
    t.text('kind').notNullable(); // split | catalogue | rules
    t.uuid('split_id');
    t.uuid('asset_id');
    t.uuid('product_id');
    t.uuid('artist_id');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['tenant_id', 'id']);
  });
  await enableTenantRls(knex, 'allocation_dirty');

  await knex.raw(`
    CREATE OR REPLACE FUNCTION allocation_mark() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE r record; k text;
    BEGIN
      IF TG_OP = 'DELETE' THEN r := OLD; ELSE r := NEW; END IF;
      -- A workspace being erased (cascading deletes) needs no re-allocation.
      IF NOT EXISTS (SELECT 1 FROM tenants WHERE id = r.tenant_id) THEN RETURN NULL; END IF;
      IF TG_TABLE_NAME = 'splits' THEN
        INSERT INTO allocation_dirty (tenant_id, kind, split_id, asset_id, product_id, artist_id)
        VALUES (r.tenant_id, 'split', r.id, r.asset_id, r.product_id, r.artist_id);
        IF TG_OP = 'UPDATE' THEN
          INSERT INTO allocation_dirty (tenant_id, kind, split_id, asset_id, product_id, artist_id)
          VALUES (OLD.tenant_id, 'split', OLD.id, OLD.asset_id, OLD.product_id, OLD.artist_id);
        END IF;
      ELSIF TG_TABLE_NAME = 'split_shares' THEN
        INSERT INTO allocation_dirty (tenant_id, kind, split_id, asset_id, product_id, artist_id)
        SELECT r.tenant_id, 'split', r.split_id, s.asset_id, s.product_id, s.artist_id
          FROM (SELECT 1) one LEFT JOIN splits s ON s.tenant_id = r.tenant_id AND s.id = r.split_id;
      ELSIF TG_TABLE_NAME = 'assets' THEN
        INSERT INTO allocation_dirty (tenant_id, kind, asset_id) VALUES (r.tenant_id, 'catalogue', r.id);
      ELSIF TG_TABLE_NAME = 'products' THEN
        INSERT INTO allocation_dirty (tenant_id, kind, product_id) VALUES (r.tenant_id, 'catalogue', r.id);
      ELSIF TG_TABLE_NAME = 'asset_artists' THEN
        INSERT INTO allocation_dirty (tenant_id, kind, asset_id, artist_id) VALUES (r.tenant_id, 'catalogue', r.asset_id, r.artist_id);
      ELSIF TG_TABLE_NAME = 'product_artists' THEN
        INSERT INTO allocation_dirty (tenant_id, kind, product_id, artist_id) VALUES (r.tenant_id, 'catalogue', r.product_id, r.artist_id);
      ELSIF TG_TABLE_NAME = 'matching_rules' THEN
        INSERT INTO allocation_dirty (tenant_id, kind, asset_id, product_id) VALUES (r.tenant_id, 'rules', r.asset_id, r.product_id);
      END IF;
      -- Identical notifications within one transaction are delivered once.
      PERFORM pg_notify('rondo_allocation_dirty', r.tenant_id::text);
      RETURN NULL;
    END $$`);
  await knex.raw(`CREATE TRIGGER splits_allocation_mark AFTER INSERT OR UPDATE OR DELETE ON splits FOR EACH ROW EXECUTE FUNCTION allocation_mark()`);
  await knex.raw(`CREATE TRIGGER split_shares_allocation_mark AFTER INSERT OR UPDATE OR DELETE ON split_shares FOR EACH ROW EXECUTE FUNCTION allocation_mark()`);
  await knex.raw(`CREATE TRIGGER assets_allocation_mark AFTER INSERT OR DELETE OR UPDATE OF isrc, title, display_artist, main_artist ON assets FOR EACH ROW EXECUTE FUNCTION allocation_mark()`);
  await knex.raw(`CREATE TRIGGER products_allocation_mark AFTER INSERT OR DELETE OR UPDATE OF upc, title, display_artist, main_artist ON products FOR EACH ROW EXECUTE FUNCTION allocation_mark()`);
  await knex.raw(`CREATE TRIGGER asset_artists_allocation_mark AFTER INSERT OR UPDATE OR DELETE ON asset_artists FOR EACH ROW EXECUTE FUNCTION allocation_mark()`);
  await knex.raw(`CREATE TRIGGER product_artists_allocation_mark AFTER INSERT OR UPDATE OR DELETE ON product_artists FOR EACH ROW EXECUTE FUNCTION allocation_mark()`);
  await knex.raw(`CREATE TRIGGER matching_rules_allocation_mark AFTER INSERT OR UPDATE OR DELETE ON matching_rules FOR EACH ROW EXECUTE FUNCTION allocation_mark()`);
}

export async function down(knex: Knex): Promise<void> {
  for (const t of ['splits', 'split_shares', 'assets', 'products', 'asset_artists', 'product_artists', 'matching_rules']) {
    await knex.raw(`DROP TRIGGER IF EXISTS ${t}_allocation_mark ON ${t}`);
  }
  await knex.raw(`DROP FUNCTION IF EXISTS allocation_mark()`);
  await knex.schema.dropTableIfExists('allocation_dirty');
}
