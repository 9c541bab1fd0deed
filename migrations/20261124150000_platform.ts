import type { Knex } from 'knex';
import { enableTenantRls, timestamps } from './helpers';

/**
 * The platform: the plan catalogue (seeded), a tenant's subscription state, the super-admin
 * audit log, custom domains.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('plans', (t) => {
    t.text('code').primary();
    t.text('name').notNullable();
    t.specificType('features', 'text[]').notNullable().defaultTo('{}');
    // { statementLinesPerMonth, members, storageBytes }: a number, or null for unlimited
    t.jsonb('limits').notNullable().defaultTo('{}');
    t.integer('sort').notNullable().defaultTo(0);
  });
  await knex('plans').insert([
    { code: 'free', name: 'Free', sort: 1, features: knex.raw(`'{}'::text[]`), limits: JSON.stringify({ statementLinesPerMonth: 1000000, members: 5, storageBytes: 1073741824 }) },
    {
      code: 'pro',
      name: 'Pro',
      sort: 2,
      features: knex.raw(`'{webhooks,fxpartner,custom_domains,email_domains,branding}'::text[]`),
      limits: JSON.stringify({ statementLinesPerMonth: 5000000, members: 50, storageBytes: 53687091200 }),
    },
    {
      code: 'enterprise',
      name: 'Enterprise',
      sort: 3,
      features: knex.raw(`'{webhooks,fxpartner,custom_domains,email_domains,branding,publishing}'::text[]`),
      limits: JSON.stringify({ statementLinesPerMonth: null, members: null, storageBytes: null }),
    },
  ]);
  await knex.raw(`UPDATE tenants SET plan = 'free' WHERE plan NOT IN (SELECT code FROM plans)`);
  await knex.schema.alterTable('tenants', (t) => {
    t.foreign('plan').references('plans.code');
    t.text('subscription_state').notNullable().defaultTo('active');
    t.timestamp('subscription_since', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.check(`subscription_state IN ('trialing','active','past_due','canceled')`, [], 'tenants_subscription_state_check');
  });

  // Super-admin actions: tenant-agnostic, written in the transaction of the action itself.
  await knex.schema.createTable('platform_audit', (t) => {
    t.bigIncrements('id').primary();
    t.timestamp('at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.text('actor_kind').notNullable();
    t.text('actor_id');
    t.text('action').notNullable();
    t.integer('workspace_id'); // no tenant_id: the log is not a tenant table (no RLS), it survives the tenant
    t.text('target_type');
    t.text('target_id');
    t.jsonb('details').notNullable().defaultTo('{}');
  });
  await knex.raw(`CREATE INDEX platform_audit_at_idx ON platform_audit (at DESC)`);

  await knex.schema.createTable('custom_domains', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.uuid('id').notNullable().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('domain').notNullable();
    t.text('verification_token').notNullable();
    t.text('status').notNullable().defaultTo('pending');
    t.timestamp('verified_at', { useTz: true });
    t.timestamp('checked_at', { useTz: true });
    t.text('last_error');
    timestamps(t, knex);
    t.primary(['tenant_id', 'id']);
    t.check(`status IN ('pending','active')`, [], 'custom_domains_status_check');
  });
  await knex.raw(`CREATE UNIQUE INDEX custom_domains_tenant_domain_key ON custom_domains (tenant_id, lower(domain))`);
  // One active custom domain per tenant; and a domain is active for one tenant only.
  await knex.raw(`CREATE UNIQUE INDEX custom_domains_one_active_key ON custom_domains (tenant_id) WHERE status = 'active'`);
  await knex.raw(`CREATE UNIQUE INDEX custom_domains_active_domain_key ON custom_domains (lower(domain)) WHERE status = 'active'`);
  await enableTenantRls(knex, 'custom_domains');

  // The audit log and the plan catalogue are read and written through the owner pool only.
  await knex.raw(`REVOKE ALL ON platform_audit FROM rondo_app`);
  await knex.raw(`REVOKE INSERT, UPDATE, DELETE ON plans FROM rondo_app`);
}

export async function down(knex: Knex): Promise<void> {
  for (const t of ['custom_domains', 'platform_audit']) await knex.schema.dropTableIfExists(t);
  await knex.schema.alterTable('tenants', (t) => {
    t.dropForeign('plan');
    t.dropChecks(['tenants_subscription_state_check']);
    t.dropColumn('subscription_state');
    t.dropColumn('subscription_since');
  });
  await knex.schema.dropTableIfExists('plans');
}
