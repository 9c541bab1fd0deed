import type { Knex } from 'knex';
import { enableTenantRls, timestamps } from './helpers';

/**
 * Data shares: read access to one resource of a workspace (the granting tenant owns the
 * row), granted to another workspace or to whoever holds a signed link (only the token's
 * SHA-256 is stored). Catalogue import: batches fetched from a provider and their staged
 * items (pending → imported | failed | rejected); only apply writes the catalogue.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('data_shares', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.uuid('id').notNullable().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('resource').notNullable();
    t.jsonb('scope').notNullable().defaultTo('{}');
    t.integer('grantee_tenant_id').references('tenants.id').onDelete('CASCADE');
    t.text('token_hash').unique();
    t.timestamp('expires_at', { useTz: true });
    t.uuid('created_by');
    timestamps(t, knex);
    t.primary(['tenant_id', 'id']);
    t.unique(['id']);
    t.check(`resource IN ('payee-analytics','catalogue-export')`, [], 'data_shares_resource_check');
    t.check(`(grantee_tenant_id IS NULL) <> (token_hash IS NULL)`, [], 'data_shares_grantee_check');
  });
  await knex.raw(`CREATE INDEX data_shares_grantee_idx ON data_shares (grantee_tenant_id) WHERE grantee_tenant_id IS NOT NULL`);
  await enableTenantRls(knex, 'data_shares');

  await knex.schema.createTable('catalogue_import_batches', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.uuid('id').notNullable().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('provider').notNullable();
    t.jsonb('query').notNullable().defaultTo('{}');
    t.text('status').notNullable().defaultTo('queued');
    t.text('job_id');
    t.text('error');
    t.integer('item_count').notNullable().defaultTo(0);
    t.uuid('created_by');
    timestamps(t, knex);
    t.primary(['tenant_id', 'id']);
    t.check(`status IN ('queued','fetching','staged','failed')`, [], 'catalogue_import_batches_status_check');
  });
  await knex.raw(`CREATE UNIQUE INDEX catalogue_import_batches_job_idx ON catalogue_import_batches (tenant_id, job_id)`);
  await enableTenantRls(knex, 'catalogue_import_batches');

  await knex.schema.createTable('catalogue_import_items', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.uuid('id').notNullable().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('batch_id').notNullable();
    t.integer('position').notNullable();
    t.text('kind').notNullable();
    t.text('external_ref');
    t.jsonb('data').notNullable();
    t.text('status').notNullable().defaultTo('pending');
    t.uuid('target_id');
    t.text('error');
    timestamps(t, knex);
    t.primary(['tenant_id', 'id']);
    t.unique(['tenant_id', 'batch_id', 'position']);
    t.foreign(['tenant_id', 'batch_id']).references(['tenant_id', 'id']).inTable('catalogue_import_batches').onDelete('CASCADE');
    t.check(`kind IN ('asset','product')`, [], 'catalogue_import_items_kind_check');
    t.check(`status IN ('pending','imported','failed','rejected')`, [], 'catalogue_import_items_status_check');
  });
  await enableTenantRls(knex, 'catalogue_import_items');
}

export async function down(knex: Knex): Promise<void> {
  for (const t of ['catalogue_import_items', 'catalogue_import_batches', 'data_shares']) await knex.schema.dropTableIfExists(t);
}
