import type { Knex } from 'knex';
import { enableTenantRls, timestamps } from './helpers';

/**
 * Outbound webhooks (docs/webhooks.md): endpoints per workspace (signing secret, custom headers and
 * authentication sealed), one delivery per event and endpoint, every attempt of a delivery.
 * `outbound_events` becomes the transactional outbox: `status` pending → dispatched.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhook_endpoints', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.uuid('id').notNullable().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('url').notNullable();
    t.jsonb('events').notNullable();
    t.text('description');
    t.text('secret_sealed').notNullable();
    t.text('previous_secret_sealed');
    t.timestamp('previous_secret_expires_at', { useTz: true });
    t.text('headers_sealed');
    t.text('auth_sealed');
    t.text('auth_type');
    t.boolean('is_enabled').notNullable().defaultTo(true);
    t.timestamp('failing_since', { useTz: true });
    t.timestamp('disabled_at', { useTz: true });
    t.text('disabled_reason');
    t.uuid('created_by');
    timestamps(t, knex);
    t.primary(['tenant_id', 'id']);
  });
  await enableTenantRls(knex, 'webhook_endpoints');

  await knex.schema.createTable('webhook_deliveries', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.uuid('id').notNullable().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('endpoint_id').notNullable();
    t.uuid('event_id').notNullable();
    t.text('event_type').notNullable();
    /** The exact bytes that are signed and sent (every attempt sends the same body). */
    t.text('body').notNullable();
    t.text('status').notNullable().defaultTo('pending');
    t.integer('attempt_count').notNullable().defaultTo(0);
    t.timestamp('next_attempt_at', { useTz: true });
    t.integer('last_status_code');
    t.text('last_error');
    t.timestamp('delivered_at', { useTz: true });
    timestamps(t, knex);
    t.primary(['tenant_id', 'id']);
    t.foreign(['tenant_id', 'endpoint_id']).references(['tenant_id', 'id']).inTable('webhook_endpoints').onDelete('CASCADE');
  });
  await knex.raw(`CREATE UNIQUE INDEX webhook_deliveries_event_uq ON webhook_deliveries (tenant_id, endpoint_id, event_id)`);
  await knex.raw(`CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (tenant_id, endpoint_id, created_at DESC)`);
  await knex.raw(`ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_status_ck CHECK (status IN ('pending', 'succeeded', 'failed'))`);
  await enableTenantRls(knex, 'webhook_deliveries');

  await knex.schema.createTable('webhook_attempts', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.uuid('id').notNullable().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('delivery_id').notNullable();
    t.uuid('endpoint_id').notNullable();
    t.integer('attempt').notNullable();
    t.timestamp('attempted_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.integer('status_code');
    t.integer('latency_ms').notNullable();
    t.text('response_body');
    t.text('error');
    t.boolean('success').notNullable();
    t.primary(['tenant_id', 'id']);
    t.foreign(['tenant_id', 'delivery_id']).references(['tenant_id', 'id']).inTable('webhook_deliveries').onDelete('CASCADE');
  });
  await knex.raw(`CREATE INDEX webhook_attempts_delivery_idx ON webhook_attempts (tenant_id, delivery_id, attempted_at)`);
  await knex.raw(`CREATE INDEX webhook_attempts_endpoint_idx ON webhook_attempts (tenant_id, endpoint_id, attempted_at DESC)`);
  await enableTenantRls(knex, 'webhook_attempts');

  await knex.raw(`CREATE INDEX outbound_events_pending_idx ON outbound_events (tenant_id, created_at) WHERE status = 'pending'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP INDEX IF EXISTS outbound_events_pending_idx`);
  await knex.schema.dropTableIfExists('webhook_attempts');
  await knex.schema.dropTableIfExists('webhook_deliveries');
  await knex.schema.dropTableIfExists('webhook_endpoints');
}
