/**
 * Who sees what of the royalties, and the answers that combine more than one query: a
 * release's analytics (its product and its tracks' recordings) and the royalty checklists
 * (catalogue items plus, for admins, the statement lines behind them).
 */
import type { Trx } from '../../db';
import type { AuthContext } from '../auth/tokens';
import { ownOnly, seesWorkspace } from '../../domain/roles';
import { royaltyAnalytics, type AnalyticsPaging, type AnalyticsQuery, type GroupBy } from './analytics';
import { missingSplitsChecklist, releaseTargets, unmatchedChecklist } from './service';
import { checklist } from '../catalogue/reports';

/** Admins and owners read the whole workspace; any other member their own earnings. */
export const payeeOf = ownOnly;

/** A release's royalties: the lines of its product and of its tracks' recordings. */
export async function releaseAnalytics(trx: Trx, tenantId: number, auth: AuthContext, releaseId: string, group: GroupBy, filters: AnalyticsQuery, page: AnalyticsPaging) {
  const rel = await releaseTargets(trx, releaseId);
  return royaltyAnalytics(trx, tenantId, payeeOf(auth), group, { ...filters, product: rel.productId ?? undefined, releaseAssets: rel.assetIds }, page);
}

export type RoyaltyChecklist = 'royaltyassets' | 'royaltyproducts' | 'missingroyaltysplits';

/** The catalogue checklist of that name plus, for admins, the statement lines behind it (same page/size). */
export async function royaltyChecklist(trx: Trx, tenantId: number, auth: AuthContext, name: RoyaltyChecklist, query: { page?: number; size?: number; search?: string }) {
  const cat = await checklist(trx, auth, name, query);
  let statementLines: { data: unknown[]; pagination: unknown } = { data: [], pagination: { page: query.page ?? 1, size: query.size ?? 20, total: 0 } };
  if (seesWorkspace(auth)) {
    const r = name === 'missingroyaltysplits'
      ? await missingSplitsChecklist(trx, tenantId, query)
      : await unmatchedChecklist(trx, tenantId, name === 'royaltyassets' ? 'asset' : 'product', query);
    statementLines = { data: r.data, pagination: r.pagination };
  }
  return { ...cat, statementLines };
}
