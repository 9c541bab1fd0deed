import type { Knex } from 'knex';
import { enableTenantRls } from './helpers';

/**
 * What a file's allocation may trust from its ingest (docs/engine.md, "Decided while stored").
 *
 * allocation_changes: one row per (workspace, transaction) that changed anything an allocation
 * decision reads — recordings, products, artists (names), their links, splits and shares,
 * matching rules, currency rates, and the workspace's base currency, cadence and settings —
 * written by statement-level triggers in that transaction (one insert per statement, no
 * shared row to lock: concurrent writers never wait for each other). A file's ingest stores
 * the snapshot it decided under (files.ingest_snapshot); a row whose transaction that
 * snapshot does not see is a change the ingest may have missed.
 *
 * allocation_change_floor: rows of transactions older than `below` may have been deleted;
 * a snapshot whose xmin is below it cannot be checked (the allocation then checks the lines).
 *
 * files.decided_in_flight: the ingest's counts when every line was stored with its match,
 * base amount and share set decided; files.allocation_path: how the allocation went
 * ('in_flight': the ingest's decisions taken as they are; 'checked': every key re-checked).
 */
const TABLES = ['assets', 'products', 'artists', 'asset_artists', 'product_artists', 'splits', 'split_shares', 'matching_rules', 'fx_rates'];
/** Tables whose updates matter only when these columns change (others: any update). */
const COLUMNS: Record<string, string[]> = {
  assets: ['tenant_id', 'isrc', 'title', 'display_artist', 'main_artist'],
  products: ['tenant_id', 'upc', 'title', 'display_artist', 'main_artist'],
  artists: ['tenant_id', 'name'],
};

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE TABLE allocation_changes (
    tenant_id integer NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    xid xid8 NOT NULL,
    PRIMARY KEY (tenant_id, xid))`);
  await enableTenantRls(knex, 'allocation_changes');
  await knex.raw(`CREATE TABLE allocation_change_floor (
    tenant_id integer PRIMARY KEY REFERENCES tenants(id) ON DELETE CASCADE,
    below xid8 NOT NULL)`);
  await enableTenantRls(knex, 'allocation_change_floor');
  await knex.raw(`ALTER TABLE files ADD COLUMN ingest_snapshot pg_snapshot, ADD COLUMN decided_in_flight jsonb, ADD COLUMN allocation_path text`);

  // A workspace being erased (cascading deletes) records nothing.
  const live = (alias: string) => `EXISTS (SELECT 1 FROM tenants t WHERE t.id = ${alias}.tenant_id)`;
  await knex.raw(`
    CREATE OR REPLACE FUNCTION allocation_change_rows() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        INSERT INTO allocation_changes (tenant_id, xid)
        SELECT DISTINCT n.tenant_id, pg_current_xact_id() FROM new_rows n WHERE ${live('n')} ON CONFLICT DO NOTHING;
      ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO allocation_changes (tenant_id, xid)
        SELECT DISTINCT o.tenant_id, pg_current_xact_id() FROM old_rows o WHERE ${live('o')} ON CONFLICT DO NOTHING;
      ELSE
        INSERT INTO allocation_changes (tenant_id, xid)
        SELECT DISTINCT x.tenant_id, pg_current_xact_id() FROM (SELECT tenant_id FROM new_rows UNION SELECT tenant_id FROM old_rows) x
         WHERE ${live('x')} ON CONFLICT DO NOTHING;
      END IF;
      RETURN NULL;
    END $$`);
  // Updates of tables read only through some columns: rows whose columns changed.
  const changed = (cols: string[]) => `(${cols.map((c) => `o.${c}`).join(', ')}) IS DISTINCT FROM (${cols.map((c) => `n.${c}`).join(', ')})`;
  await knex.raw(`
    CREATE OR REPLACE FUNCTION allocation_change_columns() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      ${Object.entries(COLUMNS).map(([table, cols], i) => `${i ? 'ELSIF' : 'IF'} TG_TABLE_NAME = '${table}' THEN
        INSERT INTO allocation_changes (tenant_id, xid)
        SELECT DISTINCT x.tenant_id, pg_current_xact_id()
          FROM new_rows n JOIN old_rows o ON o.id = n.id, LATERAL (VALUES (n.tenant_id), (o.tenant_id)) x(tenant_id)
         WHERE ${changed(cols)} AND ${live('x')} ON CONFLICT DO NOTHING;`).join('\n      ')}
      END IF;
      RETURN NULL;
    END $$`);
  for (const t of TABLES) {
    await knex.raw(`CREATE TRIGGER ${t}_change_ins AFTER INSERT ON ${t} REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION allocation_change_rows()`);
    await knex.raw(`CREATE TRIGGER ${t}_change_del AFTER DELETE ON ${t} REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION allocation_change_rows()`);
    await knex.raw(
      `CREATE TRIGGER ${t}_change_upd AFTER UPDATE ON ${t} REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT
       EXECUTE FUNCTION ${COLUMNS[t] ? 'allocation_change_columns' : 'allocation_change_rows'}()`,
    );
  }
  // The workspace's own settings (one row, rarely written): a row trigger.
  await knex.raw(`
    CREATE OR REPLACE FUNCTION allocation_change_workspace() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO allocation_changes (tenant_id, xid) VALUES (NEW.id, pg_current_xact_id()) ON CONFLICT DO NOTHING;
      RETURN NULL;
    END $$`);
  await knex.raw(
    `CREATE TRIGGER tenants_allocation_change AFTER UPDATE OF base_currency, accounting_cadence, settings ON tenants FOR EACH ROW
     WHEN ((OLD.base_currency, OLD.accounting_cadence, OLD.settings) IS DISTINCT FROM (NEW.base_currency, NEW.accounting_cadence, NEW.settings))
     EXECUTE FUNCTION allocation_change_workspace()`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP TRIGGER IF EXISTS tenants_allocation_change ON tenants`);
  for (const t of TABLES) for (const e of ['ins', 'del', 'upd']) await knex.raw(`DROP TRIGGER IF EXISTS ${t}_change_${e} ON ${t}`);
  await knex.raw(`DROP FUNCTION IF EXISTS allocation_change_workspace(), allocation_change_columns(), allocation_change_rows()`);
  await knex.raw(`ALTER TABLE files DROP COLUMN IF EXISTS ingest_snapshot, DROP COLUMN IF EXISTS decided_in_flight, DROP COLUMN IF EXISTS allocation_path`);
  await knex.raw(`DROP TABLE IF EXISTS allocation_change_floor, allocation_changes`);
}
