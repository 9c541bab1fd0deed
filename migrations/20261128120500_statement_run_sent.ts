import type { Knex } from 'knex';

/**
 * Sending an issued run's statements to its payees is its own step (docs/statements.md,
 * "Sending"): `sent_at` is when it was last done, null until then.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE statement_runs ADD COLUMN sent_at timestamptz`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE statement_runs DROP COLUMN sent_at`);
}
