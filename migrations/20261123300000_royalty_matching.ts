import type { Knex } from 'knex';
import { enableTenantRls } from './helpers';

/**
 * Matching and allocation support (issue 5):
 * - pg_trgm (when the server ships it) for fuzzy title suggestions, and `rondo_norm(text)`,
 *   the one normal form of titles and artist names used by matching (lower case, letters and
 *   digits only).
 * - royalty_lines gains `artist_id` (the matched recording's, else product's, primary artist:
 *   the artist rollup and the artist filter read it) and `dsp_source` (the store name as the
 *   statement wrote it, when a "treat store A as DSP B" rule rewrote `dsp`).
 * - matching_rules: saved corrections that apply to every later file.
 * - match_suggestions: fuzzy near-matches waiting for a person (never applied silently).
 * - royalty_earnings gets a per-line index (history, re-allocation comparisons).
 */
export async function up(knex: Knex): Promise<void> {
  const { rows } = await knex.raw(`SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm'`);
  // pg_trgm is a trusted extension (PG 13+); without the right to create it, matching falls
  // back to equal normalised titles for suggestions.
  if (rows.length) {
    await knex.raw(`DO $$ BEGIN CREATE EXTENSION IF NOT EXISTS pg_trgm; EXCEPTION WHEN insufficient_privilege THEN RAISE NOTICE 'pg_trgm not installed'; END $$`);
  }

  await knex.raw(`
    CREATE OR REPLACE FUNCTION rondo_norm(t text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT NULLIF(regexp_replace(lower(coalesce(t, '')), '[^[:alnum:]]+', '', 'g'), '')
    $$`);
  await knex.raw(`GRANT EXECUTE ON FUNCTION rondo_norm(text) TO rondo_app`);

  await knex.raw(`ALTER TABLE royalty_lines ADD COLUMN artist_id uuid, ADD COLUMN dsp_source text`);
  await knex.raw(`CREATE INDEX royalty_earnings_line_idx ON royalty_earnings (tenant_id, file_id, line_id)`);

  await knex.schema.createTable('matching_rules', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.uuid('id').notNullable().defaultTo(knex.raw('gen_random_uuid()'));
    /** asset: lines → asset_id; product: lines → product_id; dsp: store name → dsp name. */
    t.text('kind').notNullable();
    /** Only lines of this DSP (normalised store name); null = any DSP. */
    t.text('dsp_norm');
    t.text('isrc');
    t.text('upc');
    t.text('title_norm');
    t.text('artist_norm');
    t.uuid('asset_id');
    t.uuid('product_id');
    /** kind dsp: the store name as written on statements (normalised) and the DSP to use. */
    t.text('store_norm');
    t.text('dsp_target');
    t.text('note');
    t.uuid('created_by');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['tenant_id', 'id']);
    t.foreign(['tenant_id', 'asset_id']).references(['tenant_id', 'id']).inTable('assets').onDelete('CASCADE');
    t.foreign(['tenant_id', 'product_id']).references(['tenant_id', 'id']).inTable('products').onDelete('CASCADE');
    t.check(
      `(kind = 'asset' AND asset_id IS NOT NULL AND (isrc IS NOT NULL OR title_norm IS NOT NULL))
       OR (kind = 'product' AND product_id IS NOT NULL AND (upc IS NOT NULL OR title_norm IS NOT NULL))
       OR (kind = 'dsp' AND store_norm IS NOT NULL AND dsp_target IS NOT NULL)`,
      [],
      'matching_rules_kind_check',
    );
  });
  await knex.raw(`
    CREATE UNIQUE INDEX matching_rules_key ON matching_rules
      (tenant_id, kind, COALESCE(dsp_norm, ''), COALESCE(isrc, ''), COALESCE(upc, ''), COALESCE(title_norm, ''), COALESCE(artist_norm, ''), COALESCE(store_norm, ''))`);
  await enableTenantRls(knex, 'matching_rules');

  await knex.schema.createTable('match_suggestions', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.uuid('id').notNullable().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('kind').notNullable(); // asset | product
    // The statement side (what lines say), normalised as matching compares it.
    t.text('isrc');
    t.text('upc');
    t.text('title');
    t.text('artist');
    t.text('title_norm');
    t.text('artist_norm');
    // The catalogue side.
    t.uuid('asset_id');
    t.uuid('product_id');
    t.decimal('score', 6, 4).notNullable();
    t.text('reason').notNullable();
    t.text('status').notNullable().defaultTo('open'); // open | accepted | rejected
    t.uuid('decided_by');
    t.timestamp('decided_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['tenant_id', 'id']);
    t.foreign(['tenant_id', 'asset_id']).references(['tenant_id', 'id']).inTable('assets').onDelete('CASCADE');
    t.foreign(['tenant_id', 'product_id']).references(['tenant_id', 'id']).inTable('products').onDelete('CASCADE');
    t.check(`status IN ('open','accepted','rejected')`, [], 'match_suggestions_status_check');
  });
  await knex.raw(`
    CREATE UNIQUE INDEX match_suggestions_key ON match_suggestions
      (tenant_id, kind, COALESCE(isrc, ''), COALESCE(upc, ''), COALESCE(title_norm, ''), COALESCE(artist_norm, ''), COALESCE(asset_id, product_id))`);
  await enableTenantRls(knex, 'match_suggestions');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('match_suggestions');
  await knex.schema.dropTableIfExists('matching_rules');
  await knex.raw(`DROP INDEX IF EXISTS royalty_earnings_line_idx`);
  await knex.raw(`ALTER TABLE royalty_lines DROP COLUMN IF EXISTS artist_id, DROP COLUMN IF EXISTS dsp_source`);
  await knex.raw(`DROP FUNCTION IF EXISTS rondo_norm(text)`);
}
