import type { Knex } from 'knex';
import { enableTenantRls, timestamps } from './helpers';

/**
 * Partner integrations of a workspace: the FX payout partner (sealed API key, beneficiary ↔
 * member links, payout requests with their idempotency keys, processed callbacks), the
 * invoicing partner (sealed OAuth tokens, pending authorization states, imported invoices)
 * and the distributor's credentials (sealed token and webhook secret).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('fx_integrations', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.text('api_key_sealed').notNullable();
    t.text('label');
    t.boolean('is_enabled').notNullable().defaultTo(true);
    t.timestamp('key_updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    timestamps(t, knex);
    t.primary(['tenant_id']);
  });
  await enableTenantRls(knex, 'fx_integrations');

  await knex.schema.createTable('fx_beneficiary_links', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.text('beneficiary_id').notNullable();
    t.uuid('tenant_user_id').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['tenant_id', 'beneficiary_id']);
    t.foreign(['tenant_id', 'tenant_user_id']).references(['tenant_id', 'id']).inTable('tenant_users').onDelete('CASCADE');
  });
  await enableTenantRls(knex, 'fx_beneficiary_links');

  await knex.schema.createTable('fx_payment_requests', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.uuid('id').notNullable().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('idempotency_key').notNullable();
    t.smallint('version').notNullable();
    t.text('beneficiary_id').notNullable();
    t.text('wallet_id').notNullable();
    t.decimal('amount', 28, 12).notNullable();
    t.specificType('currency', 'char(3)').notNullable();
    t.text('reference').notNullable();
    t.text('memo');
    t.text('purpose_code');
    t.uuid('tenant_user_id');
    t.text('partner_payment_id');
    t.text('status').notNullable().defaultTo('pending');
    t.boolean('submitted').notNullable().defaultTo(false);
    t.integer('attempts').notNullable().defaultTo(0);
    t.text('last_error');
    t.decimal('conversion_rate', 28, 12);
    t.uuid('payment_id');
    t.uuid('created_by');
    t.timestamp('status_updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    timestamps(t, knex);
    t.primary(['tenant_id', 'id']);
    t.unique(['tenant_id', 'idempotency_key']);
    t.check(`amount > 0`, [], 'fx_payment_requests_amount_check');
    t.check(`status IN ('pending','processing','completed','failed','cancelled')`, [], 'fx_payment_requests_status_check');
  });
  await knex.raw(`CREATE INDEX fx_payment_requests_open_idx ON fx_payment_requests (tenant_id) WHERE status IN ('pending','processing')`);
  await enableTenantRls(knex, 'fx_payment_requests');

  await knex.schema.createTable('fx_events', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.text('event_id').notNullable();
    t.uuid('payment_request_id');
    t.jsonb('payload').notNullable();
    t.timestamp('received_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['tenant_id', 'event_id']);
  });
  await enableTenantRls(knex, 'fx_events');

  await knex.schema.createTable('invoicer_connections', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.text('access_token_sealed').notNullable();
    t.text('refresh_token_sealed');
    t.timestamp('expires_at', { useTz: true });
    t.text('scope');
    timestamps(t, knex);
    t.primary(['tenant_id']);
  });
  await enableTenantRls(knex, 'invoicer_connections');

  await knex.schema.createTable('invoicer_oauth_states', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.text('state').notNullable();
    t.uuid('created_by');
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.primary(['tenant_id', 'state']);
  });
  await enableTenantRls(knex, 'invoicer_oauth_states');

  await knex.schema.createTable('invoicer_imports', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.text('invoice_uuid').notNullable();
    t.text('target_type').notNullable();
    t.uuid('target_id').notNullable();
    t.timestamp('imported_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['tenant_id', 'invoice_uuid']);
    t.check(`target_type IN ('expense','revenue')`, [], 'invoicer_imports_target_check');
  });
  await enableTenantRls(knex, 'invoicer_imports');

  await knex.schema.createTable('distributor_credentials', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.text('token_sealed').notNullable();
    t.text('webhook_secret_sealed');
    t.boolean('is_enabled').notNullable().defaultTo(true);
    t.text('credential_state').notNullable().defaultTo('unverified');
    t.timestamp('token_updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('webhook_secret_updated_at', { useTz: true });
    timestamps(t, knex);
    t.primary(['tenant_id']);
  });
  await enableTenantRls(knex, 'distributor_credentials');
}

export async function down(knex: Knex): Promise<void> {
  for (const t of ['distributor_credentials', 'invoicer_imports', 'invoicer_oauth_states', 'invoicer_connections', 'fx_events', 'fx_payment_requests', 'fx_beneficiary_links', 'fx_integrations']) {
    await knex.schema.dropTableIfExists(t);
  }
}
