import type { Knex } from 'knex';

/**
 * royalty_share_amount without a sub-SELECT for splits of up to 5 payees, so the planner
 * inlines it into every read of the royalty_earnings view (a SQL function with a sub-SELECT
 * is called once per row instead). Same results: each payee round(base × share / 100, 12),
 * the remainder payee base − Σ the others' rounded amounts; larger splits go through
 * royalty_share_remainder (the sub-SELECT form).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE FUNCTION royalty_share_remainder(base numeric, others numeric[]) RETURNS numeric
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT base - coalesce((SELECT sum(round(base * o / 100, 12)) FROM unnest(others) o), 0)
    $$`);
  await knex.raw(`
    CREATE OR REPLACE FUNCTION royalty_share_amount(base numeric, share numeric, gets_remainder boolean, others numeric[]) RETURNS numeric
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT CASE WHEN NOT gets_remainder THEN round(base * share / 100, 12)
                  WHEN cardinality(others) <= 4 THEN base - coalesce(round(base * others[1] / 100, 12), 0) - coalesce(round(base * others[2] / 100, 12), 0)
                                                         - coalesce(round(base * others[3] / 100, 12), 0) - coalesce(round(base * others[4] / 100, 12), 0)
                  ELSE royalty_share_remainder(base, others) END
    $$`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE OR REPLACE FUNCTION royalty_share_amount(base numeric, share numeric, gets_remainder boolean, others numeric[]) RETURNS numeric
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT CASE WHEN NOT gets_remainder THEN round(base * share / 100, 12)
                  ELSE base - coalesce((SELECT sum(round(base * o / 100, 12)) FROM unnest(others) o), 0) END
    $$`);
  await knex.raw(`DROP FUNCTION royalty_share_remainder(numeric, numeric[])`);
}
