/**
 * Helpers for migrations, frozen like the migrations themselves: a migration never imports
 * from src/ (whose meaning changes later; test/db/migrations.test.ts checks), and what these
 * write never changes once a migration uses them. knex loads only the files directly in
 * migrations/, so this folder is not taken for a migration.
 */
import type { Knex } from 'knex';

/**
 * Make `table` a tenant table: row-level security on, one policy that lets a row be seen
 * and written only when its tenant_id equals the transaction's app.tenant_id.
 */
export async function enableTenantRls(knex: Knex, table: string): Promise<void> {
  await knex.raw(`ALTER TABLE ?? ENABLE ROW LEVEL SECURITY`, [table]);
  await knex.raw(
    `CREATE POLICY tenant_isolation ON ?? USING (tenant_id = app_tenant_id()) WITH CHECK (tenant_id = app_tenant_id())`,
    [table],
  );
}

/** created_at / updated_at as timestamptz, defaulting to now(). */
export function timestamps(t: Knex.CreateTableBuilder, knex: Knex): void {
  t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
}
