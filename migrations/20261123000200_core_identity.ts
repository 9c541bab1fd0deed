import type { Knex } from 'knex';
import { enableTenantRls, timestamps } from './helpers';

/** Tenants, global users, workspace memberships, sessions, API keys, one-time tokens. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('tenants', (t) => {
    t.increments('id').primary();
    t.uuid('uuid').notNullable().unique().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('name').notNullable();
    t.text('status').notNullable().defaultTo('active');
    t.text('custom_domain').unique();
    t.specificType('base_currency', 'char(3)').notNullable().defaultTo('USD');
    t.text('accounting_cadence').notNullable().defaultTo('monthly');
    t.text('plan').notNullable().defaultTo('free');
    t.jsonb('settings').notNullable().defaultTo('{}');
    timestamps(t, knex);
    t.check(`status IN ('active','inactive')`, [], 'tenants_status_check');
    t.check(`accounting_cadence IN ('monthly','quarterly','half-yearly')`, [], 'tenants_cadence_check');
  });
  // A tenant sees only its own tenants row.
  await knex.raw(`ALTER TABLE tenants ENABLE ROW LEVEL SECURITY`);
  await knex.raw(`CREATE POLICY tenant_isolation ON tenants USING (id = app_tenant_id()) WITH CHECK (id = app_tenant_id())`);

  await knex.schema.createTable('users', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('email').notNullable();
    t.text('password_hash');
    t.text('first_name');
    t.text('last_name');
    t.boolean('is_super_admin').notNullable().defaultTo(false);
    t.jsonb('social_ids').notNullable().defaultTo('{}');
    t.timestamp('password_changed_at', { useTz: true });
    timestamps(t, knex);
  });
  await knex.raw(`CREATE UNIQUE INDEX users_email_lower_key ON users (lower(email))`);

  await knex.schema.createTable('tenant_users', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.uuid('id').notNullable().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('role').notNullable();
    t.text('status').notNullable().defaultTo('active');
    timestamps(t, knex);
    t.primary(['tenant_id', 'id']);
    t.unique(['tenant_id', 'user_id']);
    t.check(`role IN ('guest','user','admin','owner')`, [], 'tenant_users_role_check');
    t.check(`status IN ('active','invited','disabled')`, [], 'tenant_users_status_check');
  });
  await knex.raw(`CREATE INDEX tenant_users_user_idx ON tenant_users (user_id)`);
  await enableTenantRls(knex, 'tenant_users');
  // Users are global, but inside a tenant transaction only members of that tenant are visible.
  await knex.raw(`ALTER TABLE users ENABLE ROW LEVEL SECURITY`);
  await knex.raw(`CREATE POLICY tenant_members ON users USING (EXISTS (SELECT 1 FROM tenant_users tu WHERE tu.user_id = users.id))`);

  await knex.schema.createTable('sessions', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('refresh_hash').notNullable().unique();
    t.text('via').notNullable().defaultTo('password');
    t.text('ip');
    t.text('user_agent');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('revoked_at', { useTz: true });
  });
  await knex.raw(`CREATE INDEX sessions_user_idx ON sessions (user_id)`);

  await knex.schema.createTable('api_keys', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('kind').notNullable();
    t.text('key_id').notNullable().unique();
    t.text('secret_hash').notNullable();
    t.integer('tenant_id').references('tenants.id').onDelete('CASCADE');
    t.uuid('tenant_user_id');
    t.uuid('user_id').references('users.id').onDelete('CASCADE');
    t.text('name');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('last_used_at', { useTz: true });
    t.timestamp('revoked_at', { useTz: true });
    t.check(`kind IN ('workspace','user','god')`, [], 'api_keys_kind_check');
    t.check(`(kind = 'god') = (tenant_id IS NULL)`, [], 'api_keys_tenant_check');
  });

  await knex.schema.createTable('one_time_tokens', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('purpose').notNullable();
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.integer('tenant_id').references('tenants.id').onDelete('CASCADE');
    t.text('token_hash').notNullable().unique();
    t.text('code_hash');
    t.integer('attempts').notNullable().defaultTo(0);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('used_at', { useTz: true });
    t.check(`purpose IN ('reset','invite','login_link')`, [], 'one_time_tokens_purpose_check');
  });

  await knex.schema.createTable('rate_limit_hits', (t) => {
    t.text('key').notNullable();
    t.timestamp('window_start', { useTz: true }).notNullable();
    t.integer('count').notNullable().defaultTo(0);
    t.primary(['key', 'window_start']);
  });

  // Process-wide secrets (JWT signing key, encryption key) generated once per database, so
  // every API and worker process sharing the database agrees without extra configuration.
  await knex.schema.createTable('system_secrets', (t) => {
    t.text('name').primary();
    t.text('value').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  // Credentials never reach the application role: only the owner pool touches them.
  await knex.raw(`REVOKE ALL ON sessions, api_keys, one_time_tokens, rate_limit_hits, system_secrets FROM rondo_app`);
}

export async function down(knex: Knex): Promise<void> {
  for (const t of ['system_secrets', 'rate_limit_hits', 'one_time_tokens', 'api_keys', 'sessions', 'tenant_users', 'users', 'tenants']) {
    await knex.schema.dropTableIfExists(t);
  }
}
