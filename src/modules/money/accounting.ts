/**
 * Read side of the ledger: dues, transactions, per-kind summaries, monthly figures, payee
 * stats, and the reconciliation check (refreshstats). Every figure is a SUM over
 * ledger_entries, never a stored counter.
 */
import { sortedPage, whereSearch } from '../../http/list-sort';
import { TRANSACTION_SORT } from './sorts';
import type { Knex, Trx } from "../../db";
import { NotFoundError } from '../../lib/errors';
import { fileCountsByStatus } from '../../repositories/files';
import { baseCurrency, dec, existingMembers, iso, money } from './common';
import { EARNINGS_PERIOD, LEDGER_KINDS, ledgerDigits, refreshLedger, totalsByKind, type KindTotals } from './ledger';
import { availableFor } from './requests';

/** Ledger totals by kind + the identity terms, as decimal strings. */
export function shapeTotals(t: KindTotals, currency: string) {
  const earnings = dec(t.royalty).plus(t.revenue_share);
  return {
    currency,
    royalties: money(t.royalty),
    revenueShares: money(t.revenue_share),
    earnings: money(earnings),
    recouped: money(dec(t.expense_recoup).neg()),
    payments: money(dec(t.payment).neg()),
    reversals: money(t.reversal),
    adjustments: money(t.adjustment),
    // overpaid amounts held as a receivable (+) and recouped from later earnings (−): net, what is still to recover
    overpaymentRecovery: money(t.overpayment_recovery),
    // due = earnings − recouped − payments + reversals + adjustments + overpaymentRecovery (= the ledger's sum, never negative)
    due: money(t.due),
  };
}

export async function currentDue(trx: Trx, payee: string) {
  if (!(await existingMembers(trx, [payee])).has(payee)) throw new NotFoundError('User');
  const a = await availableFor(trx, payee);
  return { user: payee, currency: await baseCurrency(trx), due: money(a.balance), pendingRequests: money(a.pending), available: money(a.available) };
}

export async function totalDue(trx: Trx, payee: string | null) {
  const currency = await baseCurrency(trx);
  if (payee) {
    const t = await totalsByKind(trx, { payee });
    return { currency, totalDue: money(t.due), outstanding: money(dec(t.due).gt(0) ? t.due : '0'), payees: 1 };
  }
  const r = await trx.raw(
    `SELECT coalesce(sum(due), 0)::text AS total, coalesce(sum(due) FILTER (WHERE due > 0), 0)::text AS outstanding,
            count(*) FILTER (WHERE due > 0)::int AS owed, count(*)::int AS payees
     FROM (SELECT tenant_user_id, sum(amount) AS due FROM ledger_entries GROUP BY 1) b`,
  );
  const x = r.rows[0];
  return { currency, totalDue: money(x.total), outstanding: money(x.outstanding), payees: x.payees, payeesOwed: x.owed };
}

export async function transactions(
  trx: Trx,
  o: { payee: string | null; page: number; size: number; kind?: string; from?: string; to?: string; search?: string; sort?: string; order?: 'asc' | 'desc' },
) {
  const q = trx('ledger_entries');
  if (o.payee) q.where('tenant_user_id', o.payee);
  if (o.kind) q.where('kind', o.kind);
  if (o.from) q.where('accounting_period', '>=', o.from);
  if (o.to) q.where('accounting_period', '<', o.to);
  whereSearch(q, o.search, ['kind', 'source_type']);
  const { rows, total: n } = await sortedPage(
    q.select('id', 'tenant_user_id', 'kind', 'amount', 'currency', trx.raw(`to_char(accounting_period, 'YYYY-MM') AS period`), 'source_type', 'source_id', 'created_at'),
    o, TRANSACTION_SORT, 'id', 'id', 'desc',
  );
  return {
    data: (rows as Record<string, any>[]).map((r) => ({
      id: String(r.id),
      user: r.tenant_user_id,
      kind: r.kind,
      amount: money(r.amount),
      currency: String(r.currency).trim(),
      accountingPeriod: r.period,
      sourceType: r.source_type,
      sourceId: r.source_id,
      createdAt: iso(r.created_at),
    })),
    total: Number(n),
  };
}

export async function transactionSummary(trx: Trx, o: { payee: string | null; from?: string; to?: string }) {
  return shapeTotals(await totalsByKind(trx, o), await baseCurrency(trx));
}

/** Per accounting period: each kind's total, the period's net and the running balance. */
export async function monthly(trx: Trx, o: { payee: string | null; from?: string; to?: string }) {
  const b: Knex.RawBinding[] = [];
  const w: string[] = [];
  if (o.payee) (w.push('tenant_user_id = ?'), b.push(o.payee));
  const r = await trx.raw(
    `SELECT to_char(accounting_period, 'YYYY-MM') AS period, accounting_period AS p,
            ${LEDGER_KINDS
              .map((k) => `coalesce(sum(amount) FILTER (WHERE kind = '${k}'), 0)::text AS ${k}`)
              .join(', ')},
            sum(amount)::text AS net,
            (sum(sum(amount)) OVER (ORDER BY accounting_period))::text AS closing
     FROM ledger_entries ${w.length ? 'WHERE ' + w.join(' AND ') : ''}
     GROUP BY accounting_period ORDER BY accounting_period`,
    b,
  );
  const currency = await baseCurrency(trx);
  return r.rows
    .filter((x: { period: string }) => (!o.from || x.period >= o.from.slice(0, 7)) && (!o.to || x.period < o.to.slice(0, 7)))
    .map((x: KindTotals & { period: string; net: string; closing: string }) => ({
      period: x.period,
      ...shapeTotals({ ...x, due: x.net }, currency),
      net: money(x.net),
      closingBalance: money(x.closing),
    }))
    .map(({ due: _d, ...rest }: Record<string, unknown>) => rest);
}

export async function payeeStats(trx: Trx, payee: string) {
  if (!(await existingMembers(trx, [payee])).has(payee)) throw new NotFoundError('User');
  const currency = await baseCurrency(trx);
  const totals = shapeTotals(await totalsByKind(trx, { payee }), currency);
  const a = await availableFor(trx, payee);
  const r = await trx.raw(
    `SELECT to_char(min(accounting_period), 'YYYY-MM') AS first, to_char(max(accounting_period), 'YYYY-MM') AS last,
            count(DISTINCT source_id) FILTER (WHERE source_type = 'file')::int AS files
     FROM ledger_entries WHERE tenant_user_id = ?`,
    [payee],
  );
  const x = await trx.raw(
    `SELECT count(*)::int AS n, coalesce(sum(round(x.base_amount, ${await ledgerDigits(trx)})), 0)::text AS total,
            coalesce(sum(coalesce((SELECT -sum(l.amount) FROM ledger_entries l WHERE l.source_type = 'expense' AND l.source_id = x.id), 0)), 0)::text AS recouped
     FROM expenses x WHERE x.tenant_user_id = ? AND x.recoupable`,
    [payee],
  );
  const e = x.rows[0];
  return {
    user: payee,
    ...totals,
    pendingRequests: money(a.pending),
    available: money(a.available),
    firstPeriod: r.rows[0].first,
    lastPeriod: r.rows[0].last,
    files: r.rows[0].files,
    recoupableExpenses: e.n,
    unrecouped: money(dec(e.total).minus(e.recouped)),
  };
}

/**
 * Reconciliation check, without writing: re-derive the ledger inside a savepoint, count what
 * would be posted, roll back. consistent = nothing to post, and the identities hold:
 *   royalties allocated (current royalty_earnings, each file's period total rounded to the
 *   minor unit) = Σ payees' royalty entries
 *   due (Σ ledger) = earnings − recouped − payments + reversals + adjustments + overpayment recovery
 */
export async function reconciliation(trx: Trx) {
  let pending = { royalty: 0, revenue: 0, payment: 0, recoupment: 0, recovery: 0 };
  await trx
    .transaction(async (sp) => {
      pending = await refreshLedger(sp);
      throw new Error('rollback');
    })
    .catch((e: Error) => {
      if (e.message !== 'rollback') throw e;
    });
  const currency = await baseCurrency(trx);
  const t = await totalsByKind(trx, {});
  // Allocated royalties as the ledger holds them: each file's period total rounded to the minor unit.
  const d = await ledgerDigits(trx);
  const alloc = await trx.raw(
    `SELECT coalesce(sum(round(s, ${d})), 0)::text AS s, (SELECT count(DISTINCT tenant_user_id)::int FROM royalty_earnings WHERE superseded_at IS NULL) AS payees
     FROM (SELECT e.file_id, ${EARNINGS_PERIOD('e')} AS p, sum(e.amount) AS s FROM royalty_earnings e WHERE e.superseded_at IS NULL GROUP BY 1, 2) f`,
  );
  const shaped = shapeTotals(t, currency);
  const identity = dec(shaped.earnings!).minus(shaped.recouped!).minus(shaped.payments!).plus(shaped.reversals!).plus(shaped.adjustments!).plus(shaped.overpaymentRecovery!);
  const pendingTotal = pending.royalty + pending.revenue + pending.payment + pending.recoupment + pending.recovery;
  return {
    consistent: pendingTotal === 0 && dec(alloc.rows[0].s).eq(t.royalty) && identity.eq(t.due),
    pendingEntries: pending,
    royaltiesAllocated: money(alloc.rows[0].s),
    payeesWithEarnings: alloc.rows[0].payees,
    ledger: shaped,
  };
}

/** Re-derive the ledger from source rows (posts only differences), then the tenant-wide totals. */
export async function refresh(trx: Trx) {
  const posted = await refreshLedger(trx);
  return { posted, totals: await transactionSummary(trx, { payee: null }) };
}

/** Statement files by where they stand before their figures count: waiting to be read, waiting for a person to confirm the source, being read or allocated. */
const FILE_STAGES = { waiting: ['uploaded', 'decompressing', 'detecting', 'queued'], needsConfirmation: ['needs_confirmation'], processing: ['ingesting', 'allocating'] } as const;

/**
 * What stands between the workspace and current figures (the reference's accounting queue):
 * statement files not yet processed, catalogue and split changes waiting to be re-allocated,
 * and re-allocations queued or running. `idle` when nothing is. The job queue is read as the
 * database owner, narrowed to this workspace.
 */
export async function queueStatus(trx: Trx, owner: Knex, tenantId: number) {
  const byStatus = await fileCountsByStatus(trx, Object.values(FILE_STAGES).flat());
  const files = Object.fromEntries(Object.entries(FILE_STAGES).map(([stage, statuses]) => [stage, statuses.reduce((n, st) => n + (byStatus.get(st) ?? 0), 0)])) as Record<keyof typeof FILE_STAGES, number>;
  const { rows } = await owner.raw(
    `SELECT (SELECT count(*) FROM allocation_dirty WHERE tenant_id = ?)::int AS changes,
            (SELECT count(*) FROM pgboss.job WHERE name = 'royalty.reallocate' AND state IN ('created', 'retry') AND data->>'tenantId' = ?)::int AS queued,
            (SELECT count(*) FROM pgboss.job WHERE name = 'royalty.reallocate' AND state = 'active' AND data->>'tenantId' = ?)::int AS running`,
    [tenantId, String(tenantId), String(tenantId)],
  );
  const reallocation = { changesWaiting: rows[0].changes as number, queued: rows[0].queued as number, running: rows[0].running as number };
  const idle = files.waiting + files.processing === 0 && reallocation.changesWaiting + reallocation.queued + reallocation.running === 0;
  return { idle, files, reallocation };
}
