/** The fields each money list sorts by (the names its items show) and their columns; see http/list-sort. */
import { sortColumns, sortExpr } from '../../http/list-sort';

/** What the ledger recouped of an expense (`recouped`), and what is left (`unrecouped`: 0 unless recoupable). */
const RECOUPED = `(SELECT coalesce(-sum(l.amount), 0) FROM ledger_entries l WHERE l.source_type = 'expense' AND l.source_id = x.id)`;
export const EXPENSE_SORT = sortColumns({
  createdAt: 'x.created_at', date: 'x.expense_date', amount: 'x.base_amount', title: 'x.title', category: 'x.category', currency: 'x.currency', recoupable: 'x.recoupable',
  updatedAt: 'x.updated_at', user: 'x.tenant_user_id', description: 'x.description', conversionRate: 'x.conversion_rate', baseAmount: 'x.base_amount',
  targetType: 'x.target_type', targetId: 'x.target_id', recouped: sortExpr(RECOUPED), unrecouped: sortExpr(`CASE WHEN x.recoupable THEN x.base_amount - ${RECOUPED} ELSE 0 END`),
});
export const REVENUE_SORT = sortColumns({
  createdAt: 'r.created_at', date: 'r.revenue_date', amount: 'r.base_amount', title: 'r.title', source: 'r.source', currency: 'r.currency',
  updatedAt: 'r.updated_at', description: 'r.description', conversionRate: 'r.conversion_rate', baseAmount: 'r.base_amount', accountingPeriod: 'r.accounting_period',
});
export const PAYMENT_SORT = sortColumns({
  createdAt: 'created_at', transactionDate: 'transaction_date', amount: 'base_amount', status: 'status', title: 'title', currency: 'currency', reference: 'reference',
  updatedAt: 'updated_at', user: 'tenant_user_id', firstName: 'first_name', lastName: 'last_name', memo: 'memo', amountUSD: 'amount_usd', conversionRate: 'conversion_rate',
  baseAmount: 'base_amount', paymentRequestId: 'payment_request_id', processorTransferId: 'processor_transfer_id', reason: 'processor_reason', completedAt: 'completed_at',
});
export const REQUEST_SORT = sortColumns({
  createdAt: 'created_at', updatedAt: 'updated_at', amount: 'amount', currency: 'currency', memo: 'memo', status: 'status', decidedAt: 'decided_at',
  user: 'tenant_user_id', paymentSettingId: 'payment_setting_id', paymentId: 'payment_id', decidedBy: 'decided_by', declineReason: 'decline_reason',
});
export const SETTING_SORT = sortColumns({ createdAt: 'created_at', updatedAt: 'updated_at', method: 'method', label: 'label', currency: 'currency', isDefault: 'is_default', user: 'tenant_user_id' });
/** `period` sorts by the period's first day (the item shows its label). */
export const STATEMENT_SORT = sortColumns({
  number: 'number', user: 'tenant_user_id', period: 'period_start', runId: 'run_id', contentHash: 'content_hash', issuedAt: 'issued_at',
  currency: sortExpr(`figures->>'currency'`), closingBalance: sortExpr(`(figures->>'closingBalance')::numeric`),
});
/** Ledger entries: `id` is the order they were posted in. */
export const TRANSACTION_SORT = sortColumns({
  id: 'id', user: 'tenant_user_id', kind: 'kind', amount: 'amount', currency: 'currency', accountingPeriod: 'accounting_period', sourceType: 'source_type', sourceId: 'source_id', createdAt: 'created_at',
});
