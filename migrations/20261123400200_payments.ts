import type { Knex } from 'knex';
import { enableTenantRls, timestamps } from './helpers';

/**
 * Payments (recorded by admins, or created when a payment request is approved and sent to
 * the processor), payment requests (a payee asks for a payout of what is due) and payment
 * settings (payout method; `details_sealed` is AES-256-GCM ciphertext, never plaintext).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('payment_settings', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.uuid('id').notNullable().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('tenant_user_id').notNullable();
    t.text('method').notNullable();
    t.text('label');
    t.specificType('currency', 'char(3)');
    t.text('details_sealed').notNullable();
    t.boolean('is_default').notNullable().defaultTo(false);
    timestamps(t, knex);
    t.primary(['tenant_id', 'id']);
    t.foreign(['tenant_id', 'tenant_user_id']).references(['tenant_id', 'id']).inTable('tenant_users').onDelete('CASCADE');
    t.check(`method IN ('processor','bank_transfer','paypal','other')`, [], 'payment_settings_method_check');
  });
  await knex.raw(`CREATE UNIQUE INDEX payment_settings_default_key ON payment_settings (tenant_id, tenant_user_id) WHERE is_default`);
  await enableTenantRls(knex, 'payment_settings');

  await knex.schema.createTable('payment_requests', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.uuid('id').notNullable().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('tenant_user_id').notNullable();
    t.decimal('amount', 28, 12).notNullable();
    t.specificType('currency', 'char(3)').notNullable();
    t.text('memo');
    t.uuid('payment_setting_id');
    t.text('status').notNullable().defaultTo('pending');
    t.uuid('payment_id');
    t.uuid('decided_by');
    t.timestamp('decided_at', { useTz: true });
    t.text('decline_reason');
    timestamps(t, knex);
    t.primary(['tenant_id', 'id']);
    t.foreign(['tenant_id', 'tenant_user_id']).references(['tenant_id', 'id']).inTable('tenant_users');
    t.check(`amount > 0`, [], 'payment_requests_amount_check');
    t.check(`status IN ('pending','approved','declined','paid')`, [], 'payment_requests_status_check');
  });
  await knex.raw(`CREATE INDEX payment_requests_payee_idx ON payment_requests (tenant_id, tenant_user_id, status)`);
  await enableTenantRls(knex, 'payment_requests');

  await knex.schema.createTable('payments', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.uuid('id').notNullable().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('tenant_user_id').notNullable();
    t.text('first_name');
    t.text('last_name');
    t.text('title');
    t.text('memo');
    t.timestamp('transaction_date', { useTz: true }).notNullable();
    t.specificType('currency', 'char(3)').notNullable();
    t.decimal('amount', 28, 12).notNullable();
    t.decimal('amount_usd', 28, 12);
    t.decimal('conversion_rate', 28, 12);
    t.decimal('base_amount', 28, 12).notNullable();
    t.text('status').notNullable().defaultTo('completed');
    t.uuid('payment_request_id');
    t.text('reference');
    t.text('processor_transfer_id');
    t.text('processor_reason');
    t.timestamp('completed_at', { useTz: true });
    t.uuid('created_by');
    timestamps(t, knex);
    t.primary(['tenant_id', 'id']);
    t.foreign(['tenant_id', 'tenant_user_id']).references(['tenant_id', 'id']).inTable('tenant_users');
    t.check(`amount > 0 AND base_amount > 0`, [], 'payments_amount_check');
    t.check(`status IN ('pending','processing','completed','failed','reversed')`, [], 'payments_status_check');
  });
  // The reference carries the workspace uuid, so it is unique across tenants too.
  await knex.raw(`CREATE UNIQUE INDEX payments_reference_key ON payments (reference) WHERE reference IS NOT NULL`);
  await knex.raw(`CREATE INDEX payments_payee_idx ON payments (tenant_id, tenant_user_id)`);
  await knex.raw(`CREATE INDEX payments_created_idx ON payments (tenant_id, created_at, id)`);
  await enableTenantRls(knex, 'payments');
}

export async function down(knex: Knex): Promise<void> {
  for (const t of ['payments', 'payment_requests', 'payment_settings']) await knex.schema.dropTableIfExists(t);
}
