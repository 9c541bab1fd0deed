import type { Knex } from 'knex';

/**
 * royalty_lines.extra: the fields a source pattern keeps per line besides the canonical ones
 * (`extra` in the pattern: ISWC, writers, song codes…), as a JSON object of text values.
 * Nullable and without a default: adding it rewrites nothing, and lines without extras
 * store nothing.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE royalty_lines ADD COLUMN IF NOT EXISTS extra jsonb`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE royalty_lines DROP COLUMN IF EXISTS extra`);
}
