import type { Knex } from 'knex';

/**
 * Statement line amounts exactly as the statement wrote them (docs/ingestion.md, "Stored lines": some distributors write
 * 15 decimals; keep at least 20): `royalty_lines.net`, `gross` and `base_amount` and
 * `royalty_allocation_history.base_amount` go from NUMERIC(28,12) (which rounded a
 * 15-decimal amount to 12 places when it was stored) to unconstrained NUMERIC, which keeps
 * every digit written. Everything read from them — the earnings views, the rollup shapes
 * (`revenue numeric`), the analytics — was already unconstrained. Removing a numeric's
 * typmod rewrites no row.
 *
 * The two views over the lines (`royalty_earnings`, `publishing_earnings`) are dropped and
 * re-created as they stand (frozen text of 20261124290100 and 20261124260000), since a column
 * a view reads cannot change type.
 */
const EARNINGS_VIEW = `
  CREATE VIEW royalty_earnings WITH (security_invoker = true) AS
  SELECT md5(l.file_id::text || ':' || l.line_no || ':' || s.tenant_user_id || ':' || s.share_set_id) AS id,
         l.tenant_id, l.file_id, l.line_no::bigint AS line_id, s.tenant_user_id, s.split_id, s.share,
         royalty_share_amount(l.base_amount, s.share, s.gets_remainder, s.others) AS amount,
         l.base_currency AS currency, coalesce(f.accounting_period, l.accounting_period) AS accounting_period, l.sale_month,
         l.asset_id, l.product_id, l.artist_id, l.dsp, l.country, l.sale_type, l.quantity, l.aggregator,
         coalesce((SELECT max(h2.superseded_at) FROM royalty_allocation_history h2
                    WHERE h2.tenant_id = l.tenant_id AND h2.file_id = l.file_id AND h2.line_id = l.line_no), f.created_at) AS created_at,
         NULL::timestamptz AS superseded_at
    FROM royalty_lines l
    JOIN royalty_share_sets s ON s.tenant_id = l.tenant_id AND s.share_set_id = l.share_set_id
    LEFT JOIN files f ON f.tenant_id = l.tenant_id AND f.id = l.file_id
   WHERE f.id IS NULL OR f.allocated_at IS NOT NULL
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

const PUBLISHING_VIEW = `
  CREATE VIEW publishing_earnings WITH (security_invoker = true) AS
  SELECT l.tenant_id, l.file_id, l.line_no, l.work_id, s.payee_kind, s.payee_id, s.share,
         royalty_share_amount(l.base_amount, s.share, s.gets_remainder, s.others) AS amount,
         l.base_currency AS currency, coalesce(f.accounting_period, l.accounting_period) AS accounting_period, l.sale_month,
         CASE WHEN l.extra->>'rightType' = 'mechanical' THEN 'mechanical' ELSE 'performance' END AS right_type,
         coalesce(f.source_name, l.aggregator, 'Unknown') AS source
    FROM royalty_lines l
    JOIN publishing_share_sets s ON s.tenant_id = l.tenant_id AND s.share_set_id = l.pub_share_set_id
    LEFT JOIN files f ON f.tenant_id = l.tenant_id AND f.id = l.file_id`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`DROP VIEW IF EXISTS publishing_earnings`);
  await knex.raw(`DROP VIEW IF EXISTS royalty_earnings`);
  await knex.raw(`ALTER TABLE royalty_lines ALTER COLUMN net TYPE numeric, ALTER COLUMN gross TYPE numeric, ALTER COLUMN base_amount TYPE numeric`);
  await knex.raw(`ALTER TABLE royalty_allocation_history ALTER COLUMN base_amount TYPE numeric`);
  await knex.raw(EARNINGS_VIEW);
  await knex.raw(PUBLISHING_VIEW);
  await knex.raw(`GRANT SELECT ON royalty_earnings, publishing_earnings TO rondo_app`);
}

/** The columns stay unconstrained: narrowing them again would round stored amounts to 12 places. */
export async function down(_knex: Knex): Promise<void> {}
