import type { Knex } from 'knex';
import { enableTenantRls, timestamps } from './helpers';

/**
 * Monthly exchange rates set by a workspace's admins: 1 unit of `currency` = `rate` units
 * of the workspace's base currency, for sales in `month` (first day of the month).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('fx_rates', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.specificType('currency', 'char(3)').notNullable();
    t.date('month').notNullable();
    t.decimal('rate', 28, 12).notNullable();
    t.uuid('set_by');
    timestamps(t, knex);
    t.primary(['tenant_id', 'currency', 'month']);
    t.check('rate > 0', [], 'fx_rates_positive');
    t.check(`extract(day from month) = 1`, [], 'fx_rates_first_of_month');
  });
  await enableTenantRls(knex, 'fx_rates');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('fx_rates');
}
