import type { Knex } from 'knex';

/**
 * The earnings view shows a line's current decision only once its file has been allocated.
 * The ingest may store a line with its share set decided in flight (docs/engine.md, "Decided
 * while stored"); until the allocation step commits (and posts the ledger in the same
 * transaction, where `files.allocated_at` is set first), statements, holdings and balances
 * must not see those lines, or a statement drawn in that window would detail royalties the
 * ledger does not hold yet. Lines with no file row (none in production) stay visible.
 */
const CURRENT_CREATED = `coalesce((SELECT max(h2.superseded_at) FROM royalty_allocation_history h2
   WHERE h2.tenant_id = l.tenant_id AND h2.file_id = l.file_id AND h2.line_id = l.line_no), f.created_at)`;

const view = (current: string) => `
  CREATE OR REPLACE VIEW royalty_earnings WITH (security_invoker = true) AS
  SELECT md5(l.file_id::text || ':' || l.line_no || ':' || s.tenant_user_id || ':' || s.share_set_id) AS id,
         l.tenant_id, l.file_id, l.line_no::bigint AS line_id, s.tenant_user_id, s.split_id, s.share,
         royalty_share_amount(l.base_amount, s.share, s.gets_remainder, s.others) AS amount,
         l.base_currency AS currency, coalesce(f.accounting_period, l.accounting_period) AS accounting_period, l.sale_month,
         l.asset_id, l.product_id, l.artist_id, l.dsp, l.country, l.sale_type, l.quantity, l.aggregator,
         ${CURRENT_CREATED} AS created_at, NULL::timestamptz AS superseded_at
    FROM royalty_lines l
    JOIN royalty_share_sets s ON s.tenant_id = l.tenant_id AND s.share_set_id = l.share_set_id
    LEFT JOIN files f ON f.tenant_id = l.tenant_id AND f.id = l.file_id
  ${current}
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

const ALLOCATED_ONLY = 'WHERE f.id IS NULL OR f.allocated_at IS NOT NULL';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(view(ALLOCATED_ONLY));
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(view(''));
}
