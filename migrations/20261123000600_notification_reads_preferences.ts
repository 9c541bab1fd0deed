import type { Knex } from 'knex';
import { enableTenantRls, timestamps } from './helpers';

/**
 * Notifications addressed to the whole workspace (tenant_user_id NULL) are read per
 * person: notification_reads records who has read which. Preferences per member.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('notification_reads', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.uuid('notification_id').notNullable();
    t.uuid('tenant_user_id').notNullable();
    t.timestamp('read_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['tenant_id', 'notification_id', 'tenant_user_id']);
    t.foreign(['tenant_id', 'notification_id']).references(['tenant_id', 'id']).inTable('notifications').onDelete('CASCADE');
    t.foreign(['tenant_id', 'tenant_user_id']).references(['tenant_id', 'id']).inTable('tenant_users').onDelete('CASCADE');
  });
  await enableTenantRls(knex, 'notification_reads');

  await knex.schema.createTable('notification_preferences', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.uuid('tenant_user_id').notNullable();
    t.jsonb('channels').notNullable().defaultTo('{}');
    t.jsonb('types').notNullable().defaultTo('{}');
    timestamps(t, knex);
    t.primary(['tenant_id', 'tenant_user_id']);
    t.foreign(['tenant_id', 'tenant_user_id']).references(['tenant_id', 'id']).inTable('tenant_users').onDelete('CASCADE');
  });
  await enableTenantRls(knex, 'notification_preferences');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('notification_preferences');
  await knex.schema.dropTableIfExists('notification_reads');
}
