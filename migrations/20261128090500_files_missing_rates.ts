import type { Knex } from 'knex';

/**
 * files.missing_rates: the currency-months a file's allocation found no exchange rate for
 * (`[{"currency":"USD","month":"2026-01"}]`), kept while the file is failed for them, so a
 * person sees which rates to add (and the app asks for them) after any reload. Cleared when
 * the file is allocated or read again.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE files ADD COLUMN missing_rates jsonb`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE files DROP COLUMN missing_rates`);
}
