import type { Knex } from 'knex';
import { enableTenantRls } from './helpers';

/**
 * Change tracking for the analytics replicas (docs/engine.md, "The analytics engine").
 *
 * - analytics_versions: per workspace, a counter bumped in the same transaction as every change
 *   of a file's analytics rows. The bump updates the workspace's row, so a second transaction
 *   changing the same workspace waits for the first to commit: versions are assigned in commit
 *   order per workspace.
 * - analytics_changes: the files each version changed (a replica re-reads exactly those).
 * - analytics_identity: one random id of this database; a replica built from another database
 *   (a restore, another install) sees a different id and builds again from scratch.
 *
 * The hook: statement-level triggers (transition tables) on royalty_roll_period, the rollup every
 * file rebuild, re-allocation, reprocess and delete writes (its rows are deleted and inserted,
 * never updated). SECURITY DEFINER: the counter is written whatever role changed the rollups.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE TABLE analytics_versions (tenant_id integer PRIMARY KEY, version bigint NOT NULL)`);
  await knex.raw(`CREATE TABLE analytics_changes (tenant_id integer NOT NULL, version bigint NOT NULL, file_id uuid NOT NULL, PRIMARY KEY (tenant_id, version, file_id))`);
  await enableTenantRls(knex, 'analytics_versions');
  await enableTenantRls(knex, 'analytics_changes');
  await knex.raw(`CREATE TABLE analytics_identity (id uuid NOT NULL DEFAULT gen_random_uuid())`);
  await knex.raw(`INSERT INTO analytics_identity DEFAULT VALUES`);
  await knex.raw(`
    CREATE FUNCTION analytics_note_change() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
    DECLARE r record; v bigint;
    BEGIN
      FOR r IN SELECT c.tenant_id, array_agg(DISTINCT c.file_id) AS files FROM changed c GROUP BY c.tenant_id ORDER BY c.tenant_id LOOP
        INSERT INTO analytics_versions AS a (tenant_id, version) VALUES (r.tenant_id, 1)
          ON CONFLICT (tenant_id) DO UPDATE SET version = a.version + 1
          RETURNING a.version INTO v;
        INSERT INTO analytics_changes (tenant_id, version, file_id) SELECT r.tenant_id, v, f FROM unnest(r.files) f;
      END LOOP;
      RETURN NULL;
    END $$`);
  await knex.raw(`CREATE TRIGGER analytics_insert AFTER INSERT ON royalty_roll_period REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION analytics_note_change()`);
  await knex.raw(`CREATE TRIGGER analytics_delete AFTER DELETE ON royalty_roll_period REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION analytics_note_change()`);
  await knex.raw(`CREATE TRIGGER analytics_update AFTER UPDATE ON royalty_roll_period REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION analytics_note_change()`);
  // Workspaces with statements already: version 1, their files as its changes.
  await knex.raw(`INSERT INTO analytics_versions (tenant_id, version) SELECT DISTINCT tenant_id, 1 FROM royalty_roll_period`);
  await knex.raw(`INSERT INTO analytics_changes (tenant_id, version, file_id) SELECT DISTINCT tenant_id, 1, file_id FROM royalty_roll_period`);
}

export async function down(knex: Knex): Promise<void> {
  for (const t of ['analytics_insert', 'analytics_delete', 'analytics_update']) await knex.raw(`DROP TRIGGER IF EXISTS ${t} ON royalty_roll_period`);
  await knex.raw(`DROP FUNCTION IF EXISTS analytics_note_change()`);
  await knex.raw(`DROP TABLE IF EXISTS analytics_identity, analytics_changes, analytics_versions`);
}
