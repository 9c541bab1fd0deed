import type { Knex } from 'knex';

/**
 * The analytics replicas hear of a workspace's new version at once (docs/engine.md, "The
 * analytics engine"): analytics_note_change() also sends NOTIFY rondo_analytics_changed with
 * the workspace's id, delivered when the transaction commits. A replica listens and applies
 * the change then, instead of at its next poll of analytics_versions (which stays, for a
 * notification missed while its connection was down).
 */
const noteChange = (notify: boolean) => `
  CREATE OR REPLACE FUNCTION analytics_note_change() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
  DECLARE r record; v bigint;
  BEGIN
    FOR r IN SELECT c.tenant_id, array_agg(DISTINCT c.file_id) AS files FROM changed c GROUP BY c.tenant_id ORDER BY c.tenant_id LOOP
      INSERT INTO analytics_versions AS a (tenant_id, version) VALUES (r.tenant_id, 1)
        ON CONFLICT (tenant_id) DO UPDATE SET version = a.version + 1
        RETURNING a.version INTO v;
      INSERT INTO analytics_changes (tenant_id, version, file_id) SELECT r.tenant_id, v, f FROM unnest(r.files) f;${notify ? `
      PERFORM pg_notify('rondo_analytics_changed', r.tenant_id::text);` : ''}
    END LOOP;
    RETURN NULL;
  END $$`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(noteChange(true));
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(noteChange(false));
}
