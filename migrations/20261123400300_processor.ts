import type { Knex } from 'knex';
import { enableTenantRls } from './helpers';

/**
 * The workspace's payment-processor secret (sealed; it signs inbound events and
 * authenticates outbound transfers) and the processed inbound events (redelivery guard).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('processor_integrations', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.text('secret_sealed').notNullable();
    t.boolean('is_enabled').notNullable().defaultTo(true);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('secret_updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['tenant_id']);
  });
  await enableTenantRls(knex, 'processor_integrations');

  await knex.schema.createTable('processor_events', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.text('event_key').notNullable();
    t.text('event').notNullable();
    t.uuid('payment_id');
    t.jsonb('payload').notNullable();
    t.timestamp('received_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['tenant_id', 'event_key']);
  });
  await enableTenantRls(knex, 'processor_events');
}

export async function down(knex: Knex): Promise<void> {
  for (const t of ['processor_events', 'processor_integrations']) await knex.schema.dropTableIfExists(t);
}
