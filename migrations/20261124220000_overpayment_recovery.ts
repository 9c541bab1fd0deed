import type { Knex } from 'knex';

/**
 * Overpayment recovery (docs/money.md, "Overpayment recovery"): earnings lowered after they
 * were paid out no longer leave a negative balance. The overpaid part is held as a
 * receivable (ledger kind `overpayment_recovery`, source `recovery`, the payee's own id) and
 * recouped from the payee's later earnings. Statements show it in its own section, and a
 * change of it in an already stated period as an adjustment of origin `recovery`.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_kind_check,
    ADD CONSTRAINT ledger_entries_kind_check CHECK (kind IN ('royalty','expense_recoup','revenue_share','payment','reversal','adjustment','overpayment_recovery'))`);
  await knex.raw(`ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_source_check,
    ADD CONSTRAINT ledger_entries_source_check CHECK (source_type IN ('file','expense','revenue','payment','recovery'))`);
  await knex.raw(`ALTER TABLE statement_adjustments DROP CONSTRAINT statement_adjustments_origin_check,
    ADD CONSTRAINT statement_adjustments_origin_check CHECK (origin IN ('split_change','late_file','deleted_file','revenue','expense','payment','recovery'))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DELETE FROM ledger_entries WHERE kind = 'overpayment_recovery'`);
  await knex.raw(`DELETE FROM statement_adjustments WHERE origin = 'recovery'`);
  await knex.raw(`ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_kind_check,
    ADD CONSTRAINT ledger_entries_kind_check CHECK (kind IN ('royalty','expense_recoup','revenue_share','payment','reversal','adjustment'))`);
  await knex.raw(`ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_source_check,
    ADD CONSTRAINT ledger_entries_source_check CHECK (source_type IN ('file','expense','revenue','payment'))`);
  await knex.raw(`ALTER TABLE statement_adjustments DROP CONSTRAINT statement_adjustments_origin_check,
    ADD CONSTRAINT statement_adjustments_origin_check CHECK (origin IN ('split_change','late_file','deleted_file','revenue','expense','payment'))`);
}
