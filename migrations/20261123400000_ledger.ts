import type { Knex } from 'knex';
import { enableTenantRls } from './helpers';

/**
 * The money ledger: every movement of money for a payee (tenant user) is one row here.
 * Append-only: the application role may only SELECT and INSERT (UPDATE/DELETE/TRUNCATE
 * revoked), and an UPDATE trigger refuses changes for every role. Corrections are new rows
 * (differences), so balances are always SUM(amount), never a stored counter.
 *
 * amount is signed from the payee's point of view, in the tenant's base currency:
 *   royalty +, revenue_share +, expense_recoup −, payment −, reversal +, adjustment ±.
 * (source_type, source_id) names the row that caused it: file, expense, revenue, payment.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('ledger_entries', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.bigIncrements('id', { primaryKey: false });
    t.uuid('tenant_user_id').notNullable();
    t.text('kind').notNullable();
    t.decimal('amount', 28, 12).notNullable();
    t.specificType('currency', 'char(3)').notNullable();
    t.date('accounting_period').notNullable();
    t.text('source_type').notNullable();
    t.uuid('source_id').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['tenant_id', 'id']);
    t.foreign(['tenant_id', 'tenant_user_id']).references(['tenant_id', 'id']).inTable('tenant_users');
    t.check(`kind IN ('royalty','expense_recoup','revenue_share','payment','reversal','adjustment')`, [], 'ledger_entries_kind_check');
    t.check(`source_type IN ('file','expense','revenue','payment')`, [], 'ledger_entries_source_check');
  });
  // Balances per payee (and per period for statements) read only this index.
  await knex.raw(`CREATE INDEX ledger_entries_payee_idx ON ledger_entries (tenant_id, tenant_user_id, accounting_period) INCLUDE (amount, kind)`);
  // Re-posting a source compares with what was already posted for it.
  await knex.raw(`CREATE INDEX ledger_entries_source_idx ON ledger_entries (tenant_id, source_type, source_id)`);
  await enableTenantRls(knex, 'ledger_entries');
  await knex.raw(`REVOKE UPDATE, DELETE, TRUNCATE ON ledger_entries FROM rondo_app`);
  await knex.raw(`
    CREATE OR REPLACE FUNCTION ledger_entries_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'ledger_entries is append-only: post a correcting entry instead' USING ERRCODE = '42501';
    END $$;
  `);
  await knex.raw(`CREATE TRIGGER ledger_entries_no_update BEFORE UPDATE ON ledger_entries FOR EACH ROW EXECUTE FUNCTION ledger_entries_append_only()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('ledger_entries');
  await knex.raw(`DROP FUNCTION IF EXISTS ledger_entries_append_only()`);
}
