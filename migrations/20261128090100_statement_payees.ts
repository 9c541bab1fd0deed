import type { Knex } from 'knex';
import { enableTenantRls } from './helpers';

/**
 * The payee's name and e-mail leave the frozen statement bodies (docs/statements.md,
 * "The payee's details"; docs/platform.md, account erasure).
 *
 * - statement_payees: per statement, the payee's display details as drawn (name, e-mail),
 *   joined into the JSON, the CSV and the PDF when they are read; an account erasure
 *   replaces them with a pseudonym. `legacy_pdf`: the PDF of a statement made before this
 *   migration, whose bytes print the payee's name (moved here from statements.pdf).
 * - statements.hash_scope: `without_payee` (new statements: the stored bodies name the payee
 *   by id only and the content hash covers them as stored) or `with_payee` (statements made
 *   before: the hash covers the bodies as they were issued, with the payee's name and e-mail
 *   in them; they are re-joined when read, so the hash still verifies until an erasure).
 *
 * Existing statements: the name and e-mail move from `figures.payee` and the CSV's Payee row
 * into statement_payees, the PDF into `legacy_pdf`; `figures.payee.address` (the address lines
 * under the name, when the statement has them: the e-mail) is emptied, its key kept; no
 * content hash is recomputed.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('statement_payees', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.uuid('statement_id').notNullable();
    t.uuid('tenant_user_id').notNullable();
    t.text('name').notNullable();
    t.text('email');
    t.binary('legacy_pdf');
    t.primary(['tenant_id', 'statement_id']);
    t.foreign(['tenant_id', 'statement_id']).references(['tenant_id', 'id']).inTable('statements').onDelete('CASCADE');
    t.foreign(['tenant_id', 'tenant_user_id']).references(['tenant_id', 'id']).inTable('tenant_users');
  });
  await knex.raw(`CREATE INDEX statement_payees_payee_idx ON statement_payees (tenant_id, tenant_user_id)`);
  await enableTenantRls(knex, 'statement_payees');

  await knex.raw(`ALTER TABLE statements ADD COLUMN hash_scope text NOT NULL DEFAULT 'without_payee' CHECK (hash_scope IN ('with_payee', 'without_payee'))`);
  await knex.raw(`ALTER TABLE statements ALTER COLUMN pdf DROP NOT NULL`);
  await moveLegacyPayeeDetails(knex);
}

/**
 * Moves the payee's name and e-mail out of the bodies of statements that have no
 * statement_payees row (all of them, when this migration runs): into statement_payees, the
 * PDF into `legacy_pdf`; marks them `with_payee`. Recomputes no hash. Run it in a transaction
 * (a migration is one), the temporary table lives on its connection.
 */
export async function moveLegacyPayeeDetails(knex: Knex): Promise<void> {
  const legacy = `NOT EXISTS (SELECT 1 FROM statement_payees p WHERE p.tenant_id = s.tenant_id AND p.statement_id = s.id)`;
  await knex.raw(`CREATE TEMP TABLE legacy_statements AS SELECT s.tenant_id, s.id FROM statements s WHERE ${legacy}`);
  await knex.raw(`
    INSERT INTO statement_payees (tenant_id, statement_id, tenant_user_id, name, email, legacy_pdf)
    SELECT s.tenant_id, s.id, s.tenant_user_id, coalesce(s.figures->'payee'->>'name', ''), nullif(s.figures->'payee'->>'email', ''), s.pdf
      FROM statements s JOIN legacy_statements l ON l.tenant_id = s.tenant_id AND l.id = s.id`);
  // the one rewrite of issued statements: their personal details move out, nothing else changes
  await knex.raw(`ALTER TABLE statements DISABLE TRIGGER statements_frozen`);
  await knex.raw(`
    UPDATE statements s SET
      hash_scope = 'with_payee',
      figures = jsonb_set(s.figures, '{payee}', jsonb_build_object('id', s.figures->'payee'->'id', 'name', '', 'email', '')
        || CASE WHEN s.figures->'payee'->'address' IS NOT NULL THEN jsonb_build_object('address', '[]'::jsonb) ELSE '{}'::jsonb END),
      csv = regexp_replace(s.csv, '^(header,Payee,)("([^"]|"")*"|[^,\n]*)', '\\1', 'n'),
      pdf = NULL
      FROM legacy_statements l WHERE l.tenant_id = s.tenant_id AND l.id = s.id`);
  await knex.raw(`ALTER TABLE statements ENABLE TRIGGER statements_frozen`);
  await knex.raw(`DROP TABLE legacy_statements`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE statements DISABLE TRIGGER statements_frozen`);
  await knex.raw(`
    UPDATE statements s SET
      figures = jsonb_set(s.figures, '{payee}', jsonb_build_object('id', s.figures->'payee'->'id', 'name', p.name, 'email', coalesce(p.email, ''))
        || CASE WHEN s.figures->'payee'->'address' IS NOT NULL THEN jsonb_build_object('address', CASE WHEN p.email IS NOT NULL AND p.email <> p.name THEN jsonb_build_array(p.email) ELSE '[]'::jsonb END) ELSE '{}'::jsonb END),
      pdf = p.legacy_pdf
    FROM statement_payees p WHERE p.tenant_id = s.tenant_id AND p.statement_id = s.id AND s.hash_scope = 'with_payee'`);
  await knex.raw(`ALTER TABLE statements ENABLE TRIGGER statements_frozen`);
  await knex.raw(`ALTER TABLE statements DROP COLUMN hash_scope`);
  await knex.schema.dropTableIfExists('statement_payees');
}
