import type { Knex } from 'knex';
import { enableTenantRls } from './helpers';

/**
 * Publishing income (docs/publishing.md, "Publishing income" and "Publisher statements").
 *
 * - `files.income`: whose income the file's lines are, from its pattern (`recording` |
 *   `publishing`). Recording allocation leaves publishing lines alone.
 * - `royalty_lines.work_id`, `work_match` (`iswc` | `rule`), `pub_share_set_id`: the work a
 *   publishing line pays and the decision of who shares it. Nullable, no default: adding them
 *   rewrites nothing.
 * - `publishing_share_sets`: immutable (set, payee kind, payee, share) rows, one set per
 *   distinct (work, right, agreements in force) content (id = md5 of it): grows with works
 *   and agreements, never with lines. Amounts are computed at read with royalty_share_amount.
 * - `publishing_match_rules`: accepted title + writers suggestions (apply to later files).
 * - `publishing_match_suggestions`: candidates for unmatched title + writers keys, never applied
 *   until accepted.
 * - `publisher_statements`, `publisher_statement_lines` (per work, right and source, exact and
 *   rounded), `publisher_statement_adjustments`.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE files ADD COLUMN IF NOT EXISTS income text NOT NULL DEFAULT 'recording'`);
  await knex.raw(`ALTER TABLE files ADD CONSTRAINT files_income_check CHECK (income IN ('recording', 'publishing'))`);
  await knex.raw(`ALTER TABLE royalty_lines ADD COLUMN IF NOT EXISTS work_id uuid, ADD COLUMN IF NOT EXISTS work_match text,
                  ADD COLUMN IF NOT EXISTS pub_share_set_id uuid`);

  await knex.raw(`
    CREATE TABLE publishing_share_sets (
      tenant_id       integer NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      share_set_id    uuid NOT NULL,
      payee_kind      text NOT NULL CHECK (payee_kind IN ('writer', 'publisher')),
      payee_id        uuid NOT NULL,
      share           numeric(20,12) NOT NULL,
      gets_remainder  boolean NOT NULL,
      others          numeric[] NOT NULL DEFAULT '{}',
      PRIMARY KEY (tenant_id, share_set_id, payee_kind, payee_id)
    )`);
  await knex.raw(`CREATE INDEX publishing_share_sets_payee ON publishing_share_sets (tenant_id, payee_kind, payee_id)`);
  await enableTenantRls(knex, 'publishing_share_sets');

  // Writers' names of a statement in one normal form: split on / | ; & , each name
  // normalised like titles (rondo_norm), distinct, sorted, joined by ','.
  await knex.raw(`
    CREATE FUNCTION publishing_writers_norm(w text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT coalesce(string_agg(x, ',' ORDER BY x), '')
        FROM (SELECT DISTINCT rondo_norm(p) AS x FROM regexp_split_to_table(coalesce(w, ''), '[/|;&,]') p) q
       WHERE x IS NOT NULL
    $$`);
  await knex.raw(`GRANT EXECUTE ON FUNCTION publishing_writers_norm(text) TO rondo_app`);
  // Per-payee amounts of publishing lines, computed at read (the rounding rule of royalty_earnings).
  await knex.raw(`
    CREATE VIEW publishing_earnings WITH (security_invoker = true) AS
    SELECT l.tenant_id, l.file_id, l.line_no, l.work_id, s.payee_kind, s.payee_id, s.share,
           royalty_share_amount(l.base_amount, s.share, s.gets_remainder, s.others) AS amount,
           l.base_currency AS currency, coalesce(f.accounting_period, l.accounting_period) AS accounting_period, l.sale_month,
           CASE WHEN l.extra->>'rightType' = 'mechanical' THEN 'mechanical' ELSE 'performance' END AS right_type,
           coalesce(f.source_name, l.aggregator, 'Unknown') AS source
      FROM royalty_lines l
      JOIN publishing_share_sets s ON s.tenant_id = l.tenant_id AND s.share_set_id = l.pub_share_set_id
      LEFT JOIN files f ON f.tenant_id = l.tenant_id AND f.id = l.file_id`);
  await knex.raw(`GRANT SELECT ON publishing_earnings TO rondo_app`);

  await knex.raw(`
    CREATE TABLE publishing_match_rules (
      tenant_id    integer NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      id           uuid NOT NULL DEFAULT gen_random_uuid(),
      title_norm   text NOT NULL,
      writers_norm text NOT NULL DEFAULT '',
      work_id      uuid NOT NULL,
      created_by   uuid,
      created_at   timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, id),
      UNIQUE (tenant_id, title_norm, writers_norm),
      FOREIGN KEY (tenant_id, work_id) REFERENCES works (tenant_id, id) ON DELETE CASCADE
    )`);
  await enableTenantRls(knex, 'publishing_match_rules');

  await knex.raw(`
    CREATE TABLE publishing_match_suggestions (
      tenant_id    integer NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      id           uuid NOT NULL DEFAULT gen_random_uuid(),
      title_norm   text NOT NULL,
      writers_norm text NOT NULL DEFAULT '',
      title        text NOT NULL,
      writers      text,
      work_id      uuid NOT NULL,
      score        numeric(5,4) NOT NULL,
      status       text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'accepted', 'rejected')),
      created_at   timestamptz NOT NULL DEFAULT now(),
      decided_at   timestamptz,
      decided_by   uuid,
      PRIMARY KEY (tenant_id, id),
      UNIQUE (tenant_id, title_norm, writers_norm, work_id),
      FOREIGN KEY (tenant_id, work_id) REFERENCES works (tenant_id, id) ON DELETE CASCADE
    )`);
  await knex.raw(`CREATE INDEX publishing_match_suggestions_status ON publishing_match_suggestions (tenant_id, status)`);
  await enableTenantRls(knex, 'publishing_match_suggestions');

  await knex.raw(`
    CREATE TABLE publisher_statements (
      tenant_id      integer NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      id             uuid NOT NULL DEFAULT gen_random_uuid(),
      payee_kind     text NOT NULL CHECK (payee_kind IN ('writer', 'publisher')),
      writer_id      uuid,
      publisher_id   uuid,
      period_start   date NOT NULL,
      period_end     date NOT NULL,
      status         text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'pending', 'approved', 'paid')),
      currency       char(3) NOT NULL,
      income_total   numeric(28,12) NOT NULL,
      created_by     uuid,
      created_at     timestamptz NOT NULL DEFAULT now(),
      updated_at     timestamptz NOT NULL DEFAULT now(),
      status_changed_at timestamptz,
      PRIMARY KEY (tenant_id, id),
      CHECK (period_end >= period_start),
      CHECK ((payee_kind = 'writer') = (writer_id IS NOT NULL) AND (payee_kind = 'publisher') = (publisher_id IS NOT NULL)),
      FOREIGN KEY (tenant_id, writer_id) REFERENCES writers (tenant_id, id) ON DELETE RESTRICT,
      FOREIGN KEY (tenant_id, publisher_id) REFERENCES publishers (tenant_id, id) ON DELETE RESTRICT
    )`);
  await knex.raw(`CREATE INDEX publisher_statements_payee ON publisher_statements (tenant_id, payee_kind, coalesce(writer_id, publisher_id), period_start)`);
  await enableTenantRls(knex, 'publisher_statements');

  await knex.raw(`
    CREATE TABLE publisher_statement_lines (
      tenant_id     integer NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      statement_id  uuid NOT NULL,
      position      integer NOT NULL,
      work_id       uuid,
      work_title    text NOT NULL,
      iswc          text,
      right_type    text NOT NULL,
      source        text NOT NULL,
      lines         integer NOT NULL,
      exact         numeric(28,12) NOT NULL,
      amount        numeric(28,12) NOT NULL,
      PRIMARY KEY (tenant_id, statement_id, position),
      FOREIGN KEY (tenant_id, statement_id) REFERENCES publisher_statements (tenant_id, id) ON DELETE CASCADE
    )`);
  await enableTenantRls(knex, 'publisher_statement_lines');

  await knex.raw(`
    CREATE TABLE publisher_statement_adjustments (
      tenant_id     integer NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      id            uuid NOT NULL DEFAULT gen_random_uuid(),
      statement_id  uuid NOT NULL,
      amount        numeric(28,12) NOT NULL,
      memo          text NOT NULL,
      created_by    uuid,
      created_at    timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, id),
      FOREIGN KEY (tenant_id, statement_id) REFERENCES publisher_statements (tenant_id, id) ON DELETE CASCADE
    )`);
  await knex.raw(`CREATE INDEX publisher_statement_adjustments_statement ON publisher_statement_adjustments (tenant_id, statement_id)`);
  await enableTenantRls(knex, 'publisher_statement_adjustments');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP VIEW IF EXISTS publishing_earnings`);
  await knex.raw(`DROP FUNCTION IF EXISTS publishing_writers_norm(text)`);
  for (const t of ['publisher_statement_adjustments', 'publisher_statement_lines', 'publisher_statements', 'publishing_match_suggestions',
    'publishing_match_rules', 'publishing_share_sets']) await knex.raw(`DROP TABLE IF EXISTS ${t}`);
  await knex.raw(`ALTER TABLE royalty_lines DROP COLUMN IF EXISTS work_id, DROP COLUMN IF EXISTS work_match, DROP COLUMN IF EXISTS pub_share_set_id`);
  await knex.raw(`ALTER TABLE files DROP CONSTRAINT IF EXISTS files_income_check`);
  await knex.raw(`ALTER TABLE files DROP COLUMN IF EXISTS income`);
}
