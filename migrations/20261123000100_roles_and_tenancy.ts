import type { Knex } from 'knex';

/**
 * The application role (no BYPASSRLS, owns nothing) and app_tenant_id(), the one function
 * every RLS policy compares tenant_id with.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    DO $$ BEGIN
      IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'rondo_app') THEN
        CREATE ROLE rondo_app NOLOGIN NOBYPASSRLS;
      END IF;
    END $$;
  `);
  // Lets a non-superuser owner `SET ROLE rondo_app` on its pooled connections.
  await knex.raw(`GRANT rondo_app TO CURRENT_USER`);
  await knex.raw(`GRANT USAGE ON SCHEMA public TO rondo_app`);
  await knex.raw(`ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO rondo_app`);
  await knex.raw(`ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO rondo_app`);
  // NULL (no row visible) when no tenant is set; '' appears after a local setting ends.
  await knex.raw(`
    CREATE OR REPLACE FUNCTION app_tenant_id() RETURNS integer
    LANGUAGE sql STABLE AS $$ SELECT NULLIF(current_setting('app.tenant_id', true), '')::integer $$;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP FUNCTION IF EXISTS app_tenant_id()`);
}
