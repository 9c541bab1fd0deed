import type { Knex } from 'knex';
import { enableTenantRls, timestamps } from './helpers';

/**
 * Notification delivery over e-mail, SMS and Web Push (one row per recipient and channel),
 * push subscriptions, a member's SMS number, and the workspace's e-mail: templates,
 * settings (sender, reply-to, SMTP override) and sender domains with DKIM keys.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('notification_deliveries', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.uuid('id').notNullable().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('notification_id').notNullable();
    t.uuid('tenant_user_id').notNullable();
    t.text('channel').notNullable();
    t.text('status').notNullable().defaultTo('pending');
    t.integer('attempts').notNullable().defaultTo(0);
    // [{at, ok, error}] per attempt, oldest first
    t.jsonb('history').notNullable().defaultTo('[]');
    t.text('last_error');
    t.text('job_id');
    t.timestamp('sent_at', { useTz: true });
    timestamps(t, knex);
    t.primary(['tenant_id', 'id']);
    t.unique(['tenant_id', 'notification_id', 'tenant_user_id', 'channel']);
    t.foreign(['tenant_id', 'notification_id']).references(['tenant_id', 'id']).inTable('notifications').onDelete('CASCADE');
    t.foreign(['tenant_id', 'tenant_user_id']).references(['tenant_id', 'id']).inTable('tenant_users').onDelete('CASCADE');
    t.check(`channel IN ('email','sms','push')`, [], 'notification_deliveries_channel_check');
    t.check(`status IN ('pending','retrying','sent','failed','skipped')`, [], 'notification_deliveries_status_check');
  });
  await knex.raw(`CREATE INDEX notification_deliveries_pending_idx ON notification_deliveries (created_at) WHERE status = 'pending' AND job_id IS NULL`);
  await enableTenantRls(knex, 'notification_deliveries');

  await knex.schema.createTable('push_subscriptions', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.uuid('id').notNullable().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('tenant_user_id').notNullable();
    t.text('endpoint').notNullable();
    t.text('p256dh').notNullable();
    t.text('auth').notNullable();
    t.text('user_agent');
    timestamps(t, knex);
    t.primary(['tenant_id', 'id']);
    t.unique(['tenant_id', 'tenant_user_id', 'endpoint']);
    t.foreign(['tenant_id', 'tenant_user_id']).references(['tenant_id', 'id']).inTable('tenant_users').onDelete('CASCADE');
  });
  await enableTenantRls(knex, 'push_subscriptions');

  await knex.schema.alterTable('notification_preferences', (t) => {
    t.text('sms_number'); // E.164, where SMS notifications go
  });

  await knex.schema.createTable('email_templates', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.text('type').notNullable();
    t.text('subject').notNullable();
    t.text('text').notNullable();
    t.text('html');
    timestamps(t, knex);
    t.primary(['tenant_id', 'type']);
  });
  await enableTenantRls(knex, 'email_templates');

  await knex.schema.createTable('email_settings', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE').primary();
    t.text('from_name');
    t.text('from_email');
    t.text('reply_to');
    t.text('smtp_host');
    t.integer('smtp_port');
    t.boolean('smtp_secure');
    t.text('smtp_username');
    t.text('smtp_password_sealed');
    timestamps(t, knex);
  });
  await enableTenantRls(knex, 'email_settings');

  await knex.schema.createTable('email_domains', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.uuid('id').notNullable().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('domain').notNullable();
    t.text('selector').notNullable();
    t.text('dkim_public_key').notNullable(); // base64 DER (SubjectPublicKeyInfo), the DKIM record's p=
    t.text('dkim_private_key_sealed').notNullable();
    t.text('verification_token').notNullable();
    t.text('status').notNullable().defaultTo('pending');
    t.jsonb('checks');
    t.timestamp('verified_at', { useTz: true });
    t.timestamp('checked_at', { useTz: true });
    t.text('last_error');
    timestamps(t, knex);
    t.primary(['tenant_id', 'id']);
    t.check(`status IN ('pending','verified')`, [], 'email_domains_status_check');
  });
  await knex.raw(`CREATE UNIQUE INDEX email_domains_tenant_domain_key ON email_domains (tenant_id, lower(domain))`);
  await enableTenantRls(knex, 'email_domains');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('email_domains');
  await knex.schema.dropTableIfExists('email_settings');
  await knex.schema.dropTableIfExists('email_templates');
  await knex.schema.alterTable('notification_preferences', (t) => t.dropColumn('sms_number'));
  await knex.schema.dropTableIfExists('push_subscriptions');
  await knex.schema.dropTableIfExists('notification_deliveries');
}
