import type { Knex } from 'knex';
import { enableTenantRls } from './helpers';

/**
 * Shares applied at read: per-line, per-payee earnings rows go.
 *
 * - `royalty_share_sets`: immutable (tenant, share_set_id, payee, split, share) rows, one set
 *   per distinct effective split version (id = md5 of its content), so the table grows with
 *   splits, never with lines. Each row also carries the rounding rule's inputs: the payee with
 *   the largest share (ties: the smallest tenant user id) gets the remainder, `others` = the
 *   other payees' shares.
 * - `royalty_lines.share_set_id`: the allocation's decision, one uuid per matched line.
 * - `royalty_allocation_history`: a line's earlier decision when a re-allocation changes it
 *   (line, old set, base amount then, superseded_at): grows with changes, not with payees.
 * - `royalty_earnings` becomes a VIEW with the columns its readers use: current rows are
 *   lines ⋈ share sets, superseded rows are history ⋈ share sets. amount is
 *   royalty_share_amount(base, share, …): round(base × share / 100, 12), the remainder payee
 *   base − Σ the others' rounded amounts, so a line's current rows sum to its base amount.
 *
 * Backfill: each line's current earnings rows → its share set; superseded rows, grouped by
 * (line, superseded_at) → history.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE royalty_share_sets (
      tenant_id       integer NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      share_set_id    uuid NOT NULL,
      tenant_user_id  uuid NOT NULL,
      split_id        uuid,
      share           numeric(9,6) NOT NULL,
      gets_remainder  boolean NOT NULL,
      others          numeric[] NOT NULL DEFAULT '{}',
      PRIMARY KEY (tenant_id, share_set_id, tenant_user_id)
    )`);
  await knex.raw(`CREATE INDEX royalty_share_sets_payee ON royalty_share_sets (tenant_id, tenant_user_id)`);
  await knex.raw(`CREATE INDEX royalty_share_sets_split ON royalty_share_sets (tenant_id, split_id)`);
  await enableTenantRls(knex, 'royalty_share_sets');
  await knex.raw(`
    CREATE TABLE royalty_allocation_history (
      tenant_id          integer NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      file_id            uuid NOT NULL,
      line_id            bigint NOT NULL,
      share_set_id       uuid NOT NULL,
      base_amount        numeric(28,12) NOT NULL,
      currency           char(3) NOT NULL,
      accounting_period  date,
      created_at         timestamptz NOT NULL,
      superseded_at      timestamptz NOT NULL
    )`);
  await knex.raw(`CREATE INDEX royalty_allocation_history_line ON royalty_allocation_history (tenant_id, file_id, line_id)`);
  await enableTenantRls(knex, 'royalty_allocation_history');
  await knex.raw(`ALTER TABLE royalty_lines ADD COLUMN share_set_id uuid`);

  await knex.raw(`
    CREATE FUNCTION royalty_share_amount(base numeric, share numeric, gets_remainder boolean, others numeric[]) RETURNS numeric
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT CASE WHEN NOT gets_remainder THEN round(base * share / 100, 12)
                  ELSE base - coalesce((SELECT sum(round(base * o / 100, 12)) FROM unnest(others) o), 0) END
    $$`);

  // Backfill. A share set's id: md5 of its (split, payee, share) rows in payee order.
  await knex.raw(`
    CREATE TEMP TABLE bf_sets AS
    WITH g AS (
      SELECT e.tenant_id, e.file_id, e.line_id, e.superseded_at,
             md5(string_agg(coalesce(e.split_id::text, '') || ':' || e.tenant_user_id || ':' || e.share::numeric(9,6)::text, ',' ORDER BY e.tenant_user_id))::uuid AS set_id,
             sum(e.amount) AS base_amount, min(e.currency) AS currency, min(e.accounting_period) AS accounting_period, min(e.created_at) AS created_at
        FROM royalty_earnings e GROUP BY 1, 2, 3, 4
    ) SELECT * FROM g`);
  await knex.raw(`
    INSERT INTO royalty_share_sets (tenant_id, share_set_id, tenant_user_id, split_id, share, gets_remainder, others)
    SELECT DISTINCT ON (s.tenant_id, s.set_id, e.tenant_user_id) s.tenant_id, s.set_id, e.tenant_user_id, e.split_id, e.share,
           r.rn = 1, coalesce((SELECT array_agg(o.share ORDER BY o.tenant_user_id) FROM royalty_earnings o
                                WHERE o.tenant_id = e.tenant_id AND o.file_id = e.file_id AND o.line_id = e.line_id
                                  AND o.superseded_at IS NOT DISTINCT FROM e.superseded_at AND o.tenant_user_id <> e.tenant_user_id), '{}')
      FROM bf_sets s
      JOIN royalty_earnings e ON e.tenant_id = s.tenant_id AND e.file_id = s.file_id AND e.line_id = s.line_id AND e.superseded_at IS NOT DISTINCT FROM s.superseded_at
      JOIN LATERAL (SELECT x.rn FROM (SELECT o.tenant_user_id, row_number() OVER (ORDER BY o.share DESC, o.tenant_user_id) AS rn FROM royalty_earnings o
                     WHERE o.tenant_id = e.tenant_id AND o.file_id = e.file_id AND o.line_id = e.line_id AND o.superseded_at IS NOT DISTINCT FROM e.superseded_at) x
                     WHERE x.tenant_user_id = e.tenant_user_id) r ON true
    ON CONFLICT DO NOTHING`);
  await knex.raw(`
    UPDATE royalty_lines l SET share_set_id = s.set_id FROM bf_sets s
     WHERE s.superseded_at IS NULL AND l.tenant_id = s.tenant_id AND l.file_id = s.file_id AND l.line_no = s.line_id`);
  await knex.raw(`
    INSERT INTO royalty_allocation_history (tenant_id, file_id, line_id, share_set_id, base_amount, currency, accounting_period, created_at, superseded_at)
    SELECT tenant_id, file_id, line_id, set_id, base_amount, currency, accounting_period, created_at, superseded_at FROM bf_sets WHERE superseded_at IS NOT NULL`);
  await knex.raw(`DROP TABLE bf_sets`);

  await knex.raw(`DROP TRIGGER IF EXISTS royalty_earnings_tenant_gone ON tenants`);
  await knex.raw(`DROP FUNCTION IF EXISTS royalty_earnings_tenant_gone()`);
  await knex.raw(`DROP TABLE royalty_earnings`);
  // A member named in a share set that pays a line (now or in history) cannot be removed.
  await knex.raw(`
    CREATE OR REPLACE FUNCTION royalty_earnings_payee_in_use() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NOT EXISTS (SELECT 1 FROM tenants t WHERE t.id = OLD.tenant_id) THEN RETURN OLD; END IF;
      IF EXISTS (SELECT 1 FROM royalty_share_sets s WHERE s.tenant_id = OLD.tenant_id AND s.tenant_user_id = OLD.id
                   AND (EXISTS (SELECT 1 FROM royalty_lines l WHERE l.tenant_id = s.tenant_id AND l.share_set_id = s.share_set_id)
                     OR EXISTS (SELECT 1 FROM royalty_allocation_history h WHERE h.tenant_id = s.tenant_id AND h.share_set_id = s.share_set_id))) THEN
        RAISE EXCEPTION 'update or delete on table "tenant_users" violates foreign key constraint on table "royalty_earnings"'
          USING ERRCODE = 'foreign_key_violation', DETAIL = format('Key (tenant_id, id)=(%s, %s) is still referenced from table "royalty_earnings".', OLD.tenant_id, OLD.id);
      END IF;
      RETURN OLD;
    END $$`);
  await knex.raw(VIEW);
}

const CURRENT_CREATED = `coalesce((SELECT max(h2.superseded_at) FROM royalty_allocation_history h2
   WHERE h2.tenant_id = l.tenant_id AND h2.file_id = l.file_id AND h2.line_id = l.line_no), f.created_at)`;

const VIEW = `
  CREATE VIEW royalty_earnings WITH (security_invoker = true) AS
  SELECT md5(l.file_id::text || ':' || l.line_no || ':' || s.tenant_user_id || ':' || s.share_set_id) AS id,
         l.tenant_id, l.file_id, l.line_no::bigint AS line_id, s.tenant_user_id, s.split_id, s.share,
         royalty_share_amount(l.base_amount, s.share, s.gets_remainder, s.others) AS amount,
         l.base_currency AS currency, coalesce(f.accounting_period, l.accounting_period) AS accounting_period, l.sale_month,
         l.asset_id, l.product_id, l.artist_id, l.dsp, l.country, l.sale_type, l.quantity, l.aggregator,
         ${CURRENT_CREATED} AS created_at, NULL::timestamptz AS superseded_at
    FROM royalty_lines l
    JOIN royalty_share_sets s ON s.tenant_id = l.tenant_id AND s.share_set_id = l.share_set_id
    LEFT JOIN files f ON f.tenant_id = l.tenant_id AND f.id = l.file_id
  UNION ALL
  SELECT md5(h.file_id::text || ':' || h.line_id || ':' || s.tenant_user_id || ':' || s.share_set_id || ':' || h.superseded_at::text) AS id,
         h.tenant_id, h.file_id, h.line_id, s.tenant_user_id, s.split_id, s.share,
         royalty_share_amount(h.base_amount, s.share, s.gets_remainder, s.others) AS amount,
         h.currency, h.accounting_period, l.sale_month,
         l.asset_id, l.product_id, l.artist_id, l.dsp, l.country, l.sale_type, l.quantity, l.aggregator,
         h.created_at, h.superseded_at
    FROM royalty_allocation_history h
    JOIN royalty_share_sets s ON s.tenant_id = h.tenant_id AND s.share_set_id = h.share_set_id
    LEFT JOIN royalty_lines l ON l.tenant_id = h.tenant_id AND l.file_id = h.file_id AND l.line_no = h.line_id`;

export async function down(knex: Knex): Promise<void> {
  // One row per line and payee again, exactly as the view reads them.
  await knex.raw(`ALTER VIEW royalty_earnings RENAME TO royalty_earnings_read`);
  await knex.raw(`
    CREATE TABLE royalty_earnings (
      tenant_id integer NOT NULL, id bigint GENERATED BY DEFAULT AS IDENTITY, file_id uuid NOT NULL, line_id bigint NOT NULL,
      tenant_user_id uuid NOT NULL, split_id uuid, share numeric(9,6) NOT NULL, amount numeric(28,12) NOT NULL, currency char(3) NOT NULL,
      accounting_period date, sale_month date, asset_id uuid, product_id uuid, artist_id uuid, dsp text, country text, sale_type text,
      created_at timestamptz NOT NULL DEFAULT now(), superseded_at timestamptz, quantity numeric, aggregator text,
      PRIMARY KEY (tenant_id, id))`);
  await knex.raw(`CREATE INDEX royalty_earnings_payee_idx ON royalty_earnings (tenant_id, tenant_user_id, accounting_period) WHERE superseded_at IS NULL`);
  await knex.raw(`CREATE INDEX royalty_earnings_line_idx ON royalty_earnings (tenant_id, file_id, line_id)`);
  await knex.raw(`CREATE INDEX royalty_earnings_superseded_payee_idx ON royalty_earnings (tenant_id, tenant_user_id) WHERE superseded_at IS NOT NULL`);
  await enableTenantRls(knex, 'royalty_earnings');
  await knex.raw(`
    INSERT INTO royalty_earnings (tenant_id, file_id, line_id, tenant_user_id, split_id, share, amount, currency, accounting_period, sale_month,
                                  asset_id, product_id, artist_id, dsp, country, sale_type, quantity, aggregator, created_at, superseded_at)
    SELECT tenant_id, file_id, line_id, tenant_user_id, split_id, share, amount, currency, accounting_period, sale_month,
           asset_id, product_id, artist_id, dsp, country, sale_type, quantity, aggregator, created_at, superseded_at
      FROM royalty_earnings_read ORDER BY tenant_id, file_id, line_id, created_at, tenant_user_id`);
  await knex.raw(`DROP VIEW royalty_earnings_read`);
  await knex.raw(`
    CREATE OR REPLACE FUNCTION royalty_earnings_payee_in_use() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NOT EXISTS (SELECT 1 FROM tenants t WHERE t.id = OLD.tenant_id) THEN RETURN OLD; END IF;
      IF EXISTS (SELECT 1 FROM royalty_earnings e WHERE e.tenant_id = OLD.tenant_id AND e.tenant_user_id = OLD.id) THEN
        RAISE EXCEPTION 'update or delete on table "tenant_users" violates foreign key constraint on table "royalty_earnings"'
          USING ERRCODE = 'foreign_key_violation', DETAIL = format('Key (tenant_id, id)=(%s, %s) is still referenced from table "royalty_earnings".', OLD.tenant_id, OLD.id);
      END IF;
      RETURN OLD;
    END $$`);
  await knex.raw(`
    CREATE OR REPLACE FUNCTION royalty_earnings_tenant_gone() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN DELETE FROM royalty_earnings WHERE tenant_id = OLD.id; RETURN OLD; END $$`);
  await knex.raw(`CREATE TRIGGER royalty_earnings_tenant_gone AFTER DELETE ON tenants FOR EACH ROW EXECUTE FUNCTION royalty_earnings_tenant_gone()`);
  await knex.raw(`ALTER TABLE royalty_lines DROP COLUMN share_set_id`);
  await knex.raw(`DROP FUNCTION royalty_share_amount(numeric, numeric, boolean, numeric[])`);
  await knex.raw(`DROP TABLE royalty_allocation_history`);
  await knex.raw(`DROP TABLE royalty_share_sets`);
}
