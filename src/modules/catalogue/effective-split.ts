/**
 * The effective split: which split pays a given sale. ONE definition, in SQL
 * (migration 20261123100300_effective_split), used both by POST /split/match (through
 * resolveEffectiveSplit below) and by the allocation job, so the API never promises what
 * allocation does not do.
 *
 *   effective_split_for(p_tenant integer, p_asset uuid, p_product uuid,
 *                       p_sale_date date, p_territory text, p_type text)
 *     RETURNS TABLE (split_id uuid, level text)          -- zero or one row
 *   effective_split_shares(same six arguments)
 *     RETURNS TABLE (split_id uuid, level text, tenant_user_id uuid, share numeric)
 *
 * Rule, first level with a matching split wins:
 *   1. `asset`          a split of the recording (asset_id)
 *   2. `product`        a split of the product (product_id)
 *   3. `asset_artist`   the default split of the recording's primary artist
 *                       (asset_artists with the lowest position)
 *   4. `product_artist` the default split of the product's primary artist
 * A split matches a sale when
 *   - its type is `all` or equals the sale type (null sale type = `all`),
 *   - the sale date (today when null) is within [valid_from, valid_to] (null = open end),
 *   - its territories are null (worldwide) or contain the sale's territory (ISO alpha-2).
 * Within one level: the exact sale type beats `all`; a territory-specific split beats a
 * worldwide one; then the latest valid_from; then the newest split.
 *
 * Allocation use (one call per distinct key, not per line):
 *   SELECT k.*, e.tenant_user_id, e.share
 *     FROM (SELECT DISTINCT asset_id, product_id, sale_date, territory, sale_type FROM lines) k
 *     CROSS JOIN LATERAL effective_split_shares(:tenant, k.asset_id, k.product_id,
 *                                               k.sale_date, k.territory, k.sale_type) e
 * Keys with no row are unsplit (reported by /checklist/missingroyaltysplits).
 */
import type { Trx } from '../../db';

export interface EffectiveSplitQuery {
  tenantId: number;
  assetId?: string | null;
  productId?: string | null;
  /** YYYY-MM-DD; today when omitted. */
  saleDate?: string | null;
  territory?: string | null;
  /** Sale type (stream, download, …); `all` when omitted. */
  type?: string | null;
}

export type SplitLevel = 'asset' | 'product' | 'asset_artist' | 'product_artist';

export interface EffectiveSplit {
  splitId: string;
  level: SplitLevel;
  shares: { user: string; share: string }[];
}

/** The split allocation would use for this sale, or null (unsplit). */
export async function resolveEffectiveSplit(trx: Trx, q: EffectiveSplitQuery): Promise<EffectiveSplit | null> {
  const { rows } = await trx.raw(`SELECT split_id, level, tenant_user_id, share::text AS share FROM effective_split_shares(?, ?, ?, ?::date, ?, ?)`, [
    q.tenantId,
    q.assetId ?? null,
    q.productId ?? null,
    q.saleDate ?? null,
    q.territory ?? null,
    q.type ?? null,
  ]);
  if (!rows.length) return null;
  return {
    splitId: rows[0].split_id,
    level: rows[0].level,
    shares: rows.map((r: { tenant_user_id: string; share: string }) => ({ user: r.tenant_user_id, share: r.share })),
  };
}
