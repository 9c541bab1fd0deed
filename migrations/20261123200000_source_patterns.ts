import type { Knex } from 'knex';
import { enableTenantRls, timestamps } from './helpers';

/**
 * Source patterns are data. One `source_patterns` row per source (global: tenant_id NULL,
 * built-in or posted by a super-admin; or owned by one tenant), and one immutable
 * `source_pattern_versions` row per change: a file records the version that read it.
 * `tenant_sources` is a workspace's configured sources (activated / deactivated).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('source_patterns', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    // NULL: global (built-in or super-admin); else owned by that tenant.
    t.integer('tenant_id').nullable().references('id').inTable('tenants').onDelete('CASCADE');
    t.text('key').notNullable();
    t.text('name').notNullable();
    t.text('aggregator');
    t.boolean('builtin').notNullable().defaultTo(false);
    t.boolean('active').notNullable().defaultTo(true);
    t.integer('current_version').notNullable().defaultTo(1);
    timestamps(t, knex);
  });
  // key unique among globals, and per tenant among a tenant's own.
  await knex.raw(`CREATE UNIQUE INDEX source_patterns_global_key ON source_patterns (key) WHERE tenant_id IS NULL`);
  await knex.raw(`CREATE UNIQUE INDEX source_patterns_tenant_key ON source_patterns (tenant_id, key) WHERE tenant_id IS NOT NULL`);

  await knex.schema.createTable('source_pattern_versions', (t) => {
    t.uuid('pattern_id').notNullable().references('id').inTable('source_patterns').onDelete('CASCADE');
    t.integer('version').notNullable();
    t.integer('tenant_id').nullable().references('id').inTable('tenants').onDelete('CASCADE');
    t.jsonb('definition').notNullable();
    // sha256 of the canonical JSON: built-ins get a new version only when they change.
    t.text('content_hash').notNullable();
    t.uuid('created_by');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['pattern_id', 'version']);
  });

  // Built-ins / global patterns (tenant_id NULL) are readable by every tenant; a tenant
  // reads and writes only its own rows. Global writes go through the owner pool.
  for (const table of ['source_patterns', 'source_pattern_versions']) {
    await knex.raw(`ALTER TABLE ?? ENABLE ROW LEVEL SECURITY`, [table]);
    await knex.raw(`CREATE POLICY read_global_or_own ON ?? FOR SELECT USING (tenant_id IS NULL OR tenant_id = app_tenant_id())`, [table]);
    await knex.raw(`CREATE POLICY write_own_insert ON ?? FOR INSERT WITH CHECK (tenant_id = app_tenant_id())`, [table]);
    await knex.raw(`CREATE POLICY write_own_update ON ?? FOR UPDATE USING (tenant_id = app_tenant_id()) WITH CHECK (tenant_id = app_tenant_id())`, [table]);
    await knex.raw(`CREATE POLICY write_own_delete ON ?? FOR DELETE USING (tenant_id = app_tenant_id())`, [table]);
  }

  await knex.schema.createTable('tenant_sources', (t) => {
    t.integer('tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    t.uuid('id').notNullable().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('source_pattern_id').notNullable().references('id').inTable('source_patterns').onDelete('CASCADE');
    t.text('name').notNullable();
    t.boolean('active').notNullable().defaultTo(true);
    t.jsonb('settings').notNullable().defaultTo('{}');
    t.uuid('created_by');
    timestamps(t, knex);
    t.primary(['tenant_id', 'id']);
    t.unique(['tenant_id', 'source_pattern_id']);
  });
  await enableTenantRls(knex, 'tenant_sources');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('tenant_sources');
  await knex.schema.dropTableIfExists('source_pattern_versions');
  await knex.schema.dropTableIfExists('source_patterns');
}
