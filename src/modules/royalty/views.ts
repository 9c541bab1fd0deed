/**
 * Who sees what of the royalties, and the answers that combine more than one query: a
 * release's analytics (its product and its tracks' recordings) and the royalty checklists
 * (catalogue items plus, for admins, the statement lines behind them).
 */
import type { Trx } from '../../db';
import type { AuthContext } from '../auth/tokens';
import { ownOnly, seesWorkspace } from '../../domain/roles';
import { royaltyAnalytics, type AnalyticsOptions, type AnalyticsQuery, type GroupBy } from './analytics';
import { missingSplitsChecklist, releaseTargets, unmatchedChecklist, UNMATCHED_ASSET_SORT, UNMATCHED_PRODUCT_SORT } from './service';
import { resolveSort } from '../../http/list-sort';
import { checklist } from '../catalogue/reports';

/** Admins and owners read the whole workspace; any other member their own earnings. */
export const payeeOf = ownOnly;

/** A release's royalties: the lines of its product and of its tracks' recordings. */
export async function releaseAnalytics(trx: Trx, tenantId: number, auth: AuthContext, releaseId: string, group: GroupBy, filters: AnalyticsQuery, page: AnalyticsOptions) {
  const rel = await releaseTargets(trx, releaseId);
  return royaltyAnalytics(trx, tenantId, payeeOf(auth), group, { ...filters, product: rel.productId ?? undefined, releaseAssets: rel.assetIds }, page);
}

export type RoyaltyChecklist = 'royaltyassets' | 'royaltyproducts' | 'missingroyaltysplits';

/**
 * royaltyassets / royaltyproducts: in `data`, the recordings (products) statements name that
 * the catalogue lacks (admins and owners; unmatched lines are nobody's own, so others get an
 * empty list), and in `catalogueItems` the catalogue's own checklist of that name.
 * missingroyaltysplits: the catalogue checklist in `data`, and for admins the statement lines
 * behind it in `statementLines` (same page/size).
 */
export async function royaltyChecklist(trx: Trx, tenantId: number, auth: AuthContext, name: RoyaltyChecklist, query: { page?: number; size?: number; search?: string; sort?: string; order?: 'asc' | 'desc' }) {
  const { sort, order, ...paging } = query;
  const none = { data: [] as unknown[], pagination: { page: query.page ?? 1, size: query.size ?? 20, total: 0 } };
  if (name !== 'missingroyaltysplits') {
    // `sort` orders `data` (the statements' groups); the catalogue's half keeps its own order
    const cols = name === 'royaltyassets' ? UNMATCHED_ASSET_SORT : UNMATCHED_PRODUCT_SORT;
    resolveSort(query, cols, 'amount', 'desc');
    const cat = await checklist(trx, auth, name, paging);
    const missing = seesWorkspace(auth) ? await unmatchedChecklist(trx, tenantId, name === 'royaltyassets' ? 'asset' : 'product', query) : none;
    return { data: missing.data, pagination: missing.pagination, catalogueItems: { data: cat.data, pagination: cat.pagination } };
  }
  const cat = await checklist(trx, auth, name, { ...paging, sort, order });
  const statementLines = seesWorkspace(auth) ? await missingSplitsChecklist(trx, tenantId, paging) : none;
  return { ...cat, statementLines: { data: statementLines.data, pagination: statementLines.pagination } };
}
