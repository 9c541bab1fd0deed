import type { Knex } from 'knex';
import { enableTenantRls, timestamps } from './helpers';

/**
 * Expenses (optionally recoupable from a payee's earnings on an artist, product or asset)
 * and revenues (income that is not from statements, split between members).
 * target_id names a catalogue row by uuid without a foreign key: the catalogue may be
 * cleaned up independently; existence is checked when the expense is written.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('expenses', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.uuid('id').notNullable().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('tenant_user_id').notNullable();
    t.text('title').notNullable();
    t.text('description');
    t.text('category');
    t.decimal('amount', 28, 12).notNullable();
    t.specificType('currency', 'char(3)').notNullable();
    t.decimal('conversion_rate', 28, 12).notNullable().defaultTo(1);
    t.decimal('base_amount', 28, 12).notNullable();
    t.date('expense_date').notNullable();
    t.boolean('recoupable').notNullable().defaultTo(false);
    t.text('target_type');
    t.uuid('target_id');
    t.uuid('created_by');
    timestamps(t, knex);
    t.primary(['tenant_id', 'id']);
    t.foreign(['tenant_id', 'tenant_user_id']).references(['tenant_id', 'id']).inTable('tenant_users');
    t.check(`amount > 0 AND conversion_rate > 0 AND base_amount > 0`, [], 'expenses_amount_check');
    t.check(`target_type IS NULL OR target_type IN ('artist','product','asset')`, [], 'expenses_target_type_check');
    t.check(`(target_type IS NULL) = (target_id IS NULL)`, [], 'expenses_target_check');
  });
  await knex.raw(`CREATE INDEX expenses_payee_idx ON expenses (tenant_id, tenant_user_id) WHERE recoupable`);
  await knex.raw(`CREATE INDEX expenses_created_idx ON expenses (tenant_id, created_at, id)`);
  await enableTenantRls(knex, 'expenses');

  await knex.schema.createTable('revenues', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.uuid('id').notNullable().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('title').notNullable();
    t.text('description');
    t.text('source');
    t.decimal('amount', 28, 12).notNullable();
    t.specificType('currency', 'char(3)').notNullable();
    t.decimal('conversion_rate', 28, 12).notNullable().defaultTo(1);
    t.decimal('base_amount', 28, 12).notNullable();
    t.date('revenue_date').notNullable();
    t.date('accounting_period').notNullable();
    t.uuid('created_by');
    timestamps(t, knex);
    t.primary(['tenant_id', 'id']);
    t.check(`amount > 0 AND conversion_rate > 0 AND base_amount > 0`, [], 'revenues_amount_check');
  });
  await knex.raw(`CREATE INDEX revenues_created_idx ON revenues (tenant_id, created_at, id)`);
  await enableTenantRls(knex, 'revenues');

  await knex.schema.createTable('revenue_shares', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.uuid('revenue_id').notNullable();
    t.uuid('tenant_user_id').notNullable();
    t.decimal('share', 9, 6).notNullable();
    t.decimal('amount', 28, 12).notNullable();
    t.primary(['tenant_id', 'revenue_id', 'tenant_user_id']);
    t.foreign(['tenant_id', 'revenue_id']).references(['tenant_id', 'id']).inTable('revenues').onDelete('CASCADE');
    t.foreign(['tenant_id', 'tenant_user_id']).references(['tenant_id', 'id']).inTable('tenant_users');
    t.check(`share > 0 AND share <= 100`, [], 'revenue_shares_share_check');
  });
  await knex.raw(`CREATE INDEX revenue_shares_payee_idx ON revenue_shares (tenant_id, tenant_user_id)`);
  await enableTenantRls(knex, 'revenue_shares');
}

export async function down(knex: Knex): Promise<void> {
  for (const t of ['revenue_shares', 'revenues', 'expenses']) await knex.schema.dropTableIfExists(t);
}
