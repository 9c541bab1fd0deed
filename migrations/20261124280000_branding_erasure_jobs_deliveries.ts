import type { Knex } from 'knex';
import { enableTenantRls } from './helpers';

/**
 * Plan seats sized for payees; workspace branding (logo in the object store, colours, sender name); account erasures run
 * as jobs (their status, owner pool only); inbound distributor deliveries (one row per event
 * id: the idempotency record) and the delivery state of a release.
 */
export async function up(knex: Knex): Promise<void> {
  // Members are enforced now, and payees are members (artists read their statements): seats
  // sized for a label's roster rather than a team's.
  await knex.raw(`UPDATE plans SET limits = jsonb_set(limits, '{members}', '25') WHERE code = 'free'`);
  await knex.raw(`UPDATE plans SET limits = jsonb_set(limits, '{members}', '500') WHERE code = 'pro'`);

  await knex.schema.createTable('workspace_branding', (t) => {
    t.integer('tenant_id').primary().references('tenants.id').onDelete('CASCADE');
    t.text('primary_color');
    t.text('accent_color');
    t.text('sender_name');
    t.text('logo_key');
    t.text('logo_type');
    t.bigInteger('logo_size');
    t.text('logo_sha256');
    t.timestamp('logo_updated_at', { useTz: true });
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.check(`primary_color IS NULL OR primary_color ~ '^#[0-9a-f]{6}$'`, [], 'workspace_branding_primary_check');
    t.check(`accent_color IS NULL OR accent_color ~ '^#[0-9a-f]{6}$'`, [], 'workspace_branding_accent_check');
    t.check(`logo_type IS NULL OR logo_type IN ('image/png','image/jpeg')`, [], 'workspace_branding_logo_type_check');
  });
  await enableTenantRls(knex, 'workspace_branding');

  // Not a tenant table: an erasure names a person across workspaces; the owner pool only.
  await knex.schema.createTable('account_erasures', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('user_id').notNullable();
    t.text('plan_hash').notNullable();
    t.text('job_id');
    t.text('status').notNullable().defaultTo('queued');
    t.text('actor_kind').notNullable();
    t.text('actor_id');
    t.jsonb('result');
    t.text('error');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('finished_at', { useTz: true });
    t.check(`status IN ('queued','running','completed','failed')`, [], 'account_erasures_status_check');
  });
  await knex.raw(`CREATE INDEX account_erasures_user_idx ON account_erasures (user_id, created_at DESC)`);
  await knex.raw(`REVOKE ALL ON account_erasures FROM rondo_app`);

  await knex.schema.createTable('distributor_events', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.text('event_id').notNullable();
    t.text('type').notNullable();
    t.uuid('release_id');
    t.timestamp('occurred_at', { useTz: true }).notNullable();
    t.boolean('applied').notNullable();
    t.timestamp('received_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['tenant_id', 'event_id']);
  });
  await enableTenantRls(knex, 'distributor_events');

  await knex.schema.alterTable('releases', (t) => {
    t.text('delivery_status');
    t.text('delivery_message');
    t.timestamp('delivery_at', { useTz: true });
    t.check(`delivery_status IS NULL OR delivery_status IN ('delivered','live','failed','taken_down')`, [], 'releases_delivery_status_check');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`UPDATE plans SET limits = jsonb_set(limits, '{members}', '5') WHERE code = 'free'`);
  await knex.raw(`UPDATE plans SET limits = jsonb_set(limits, '{members}', '50') WHERE code = 'pro'`);
  await knex.schema.alterTable('releases', (t) => {
    t.dropChecks(['releases_delivery_status_check']);
    t.dropColumn('delivery_status');
    t.dropColumn('delivery_message');
    t.dropColumn('delivery_at');
  });
  for (const t of ['distributor_events', 'account_erasures', 'workspace_branding']) await knex.schema.dropTableIfExists(t);
}
