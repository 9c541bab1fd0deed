import type { Knex } from 'knex';
import { enableTenantRls, timestamps } from './helpers';

/** In-app notifications (docs/notifications.md) and the outbound event log (webhook families, docs/webhooks.md). */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('notifications', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.uuid('id').notNullable().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('tenant_user_id');
    t.text('type').notNullable();
    t.text('title').notNullable();
    t.text('content').notNullable().defaultTo('');
    t.text('resource_type');
    t.uuid('resource_id');
    t.text('action_url');
    t.boolean('is_read').notNullable().defaultTo(false);
    t.boolean('is_important').notNullable().defaultTo(false);
    t.boolean('is_archived').notNullable().defaultTo(false);
    t.jsonb('metadata').notNullable().defaultTo('{}');
    t.timestamp('expires_at', { useTz: true });
    timestamps(t, knex);
    t.primary(['tenant_id', 'id']);
  });
  await knex.raw(`CREATE INDEX notifications_user_idx ON notifications (tenant_id, tenant_user_id, created_at DESC)`);
  await enableTenantRls(knex, 'notifications');

  await knex.schema.createTable('outbound_events', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.uuid('id').notNullable().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('family').notNullable();
    t.text('type').notNullable();
    t.jsonb('payload').notNullable();
    t.text('status').notNullable().defaultTo('pending');
    timestamps(t, knex);
    t.primary(['tenant_id', 'id']);
  });
  await enableTenantRls(knex, 'outbound_events');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('outbound_events');
  await knex.schema.dropTableIfExists('notifications');
}
