import type { Knex } from 'knex';
import { enableTenantRls } from './helpers';

/**
 * The contract between allocation (who earned what) and money (ledger, balances,
 * statements): one row per statement line per payee, in the tenant's base currency.
 * Written only by the allocation step (set-based SQL), replaced per file on re-allocation;
 * superseded rows stay with `superseded_at` set, so earlier allocations remain visible.
 *
 * Invariant: for a line, SUM(amount) over its current rows = the line's base amount, exactly.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('royalty_earnings', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.bigIncrements('id', { primaryKey: false });
    t.uuid('file_id').notNullable();
    t.bigInteger('line_id').notNullable();
    t.uuid('tenant_user_id').notNullable();
    t.uuid('split_id');
    /** Percentage of the line this payee receives (0–100). */
    t.decimal('share', 9, 6).notNullable();
    /** Base-currency amount for this payee; rounding remainders documented by allocation. */
    t.decimal('amount', 28, 12).notNullable();
    t.specificType('currency', 'char(3)').notNullable();
    t.date('accounting_period');
    t.date('sale_month');
    t.uuid('asset_id');
    t.uuid('product_id');
    t.uuid('artist_id');
    t.text('dsp');
    t.text('country');
    t.text('sale_type');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('superseded_at', { useTz: true });
    t.primary(['tenant_id', 'id']);
    t.foreign(['tenant_id', 'tenant_user_id']).references(['tenant_id', 'id']).inTable('tenant_users');
  });
  await knex.raw(`CREATE INDEX royalty_earnings_file_idx ON royalty_earnings (tenant_id, file_id) WHERE superseded_at IS NULL`);
  await knex.raw(`CREATE INDEX royalty_earnings_payee_idx ON royalty_earnings (tenant_id, tenant_user_id, accounting_period) WHERE superseded_at IS NULL`);
  await enableTenantRls(knex, 'royalty_earnings');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('royalty_earnings');
}
