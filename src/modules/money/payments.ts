/**
 * Payments: recorded by admins (single or bulk, docs/money.md "Routes") or created by approving a
 * payment request. A payment takes its base amount out of the payee's balance while its
 * status is pending, processing or completed (a `payment` ledger entry); failed, reversed
 * or deleted, the money comes back (a `reversal` entry). Nothing is ever updated in the
 * ledger: reconcilePayments() posts the difference.
 *
 * Currency rules (README "Payments"): conversionRate is USD per unit of `currency`;
 * amountUSD = amount × conversionRate must hold within max(0.01, 0.01% of amountUSD);
 * either may be omitted and is then derived from the other. The base amount posted to the
 * ledger is `amount` when the currency is the workspace base currency, else amountUSD when
 * the base currency is USD; any other combination is refused (no rate to the base).
 */
import { orderSql, resolveSort } from '../../http/list-sort';
import { PAYMENT_SORT } from './sorts';
import type { Trx } from '../../db';
import type { CrudService } from '../../http/crud';
import type { AuthContext } from '../auth/tokens';
import { ForbiddenError, NotFoundError, ValidationError } from '../../lib/errors';
import { clock } from '../../lib/clock';
import { baseCurrency, dec, Decimal, existingMembers, isAdmin, isCurrency, iso, money, SCALE, oneDeleted } from './common';
import { lockLedger, lockPayees, reconcilePayments } from './ledger';
import { minorDigits } from './rounding';
import { notify } from '../notifications/service';
import { emitEvent } from '../webhooks/events';
import { memberPeople } from '../../repositories/members';

export interface PaymentInput {
  firstName?: string | null;
  lastName?: string | null;
  user: string;
  title?: string | null;
  transactionDate?: string;
  currency: string;
  amount: number | string;
  amountUSD?: number | string | null;
  conversionRate?: number | string | null;
  memo?: string | null;
  status?: 'pending' | 'completed';
}

export type PaymentStatus = 'pending' | 'processing' | 'completed' | 'failed' | 'reversed';

const ABS_TOLERANCE = new Decimal('0.01');
const REL_TOLERANCE = new Decimal('0.0001');

/** Resolve amount / amountUSD / conversionRate / base amount, or say why not. */
export function resolveAmounts(
  input: { currency: string; amount: number | string; amountUSD?: number | string | null; conversionRate?: number | string | null },
  base: string,
  where: string,
): { currency: string; amount: Decimal; amountUSD: Decimal | null; rate: Decimal | null; baseAmount: Decimal } | { errors: string[] } {
  const errors: string[] = [];
  const currency = String(input.currency ?? '').trim().toUpperCase();
  if (!isCurrency(currency)) return { errors: [`${where}: invalid currency "${input.currency}" (not an ISO 4217 code)`] };
  let amount: Decimal, usd: Decimal | null, rate: Decimal | null;
  try {
    amount = dec(input.amount);
    usd = input.amountUSD === undefined || input.amountUSD === null ? null : dec(input.amountUSD);
    rate = input.conversionRate === undefined || input.conversionRate === null ? null : dec(input.conversionRate);
  } catch {
    return { errors: [`${where}: amount, amountUSD and conversionRate must be numbers`] };
  }
  if (!amount.isFinite() || amount.lte(0)) errors.push(`${where}: amount must be greater than 0`);
  if (usd && usd.lte(0)) errors.push(`${where}: amountUSD must be greater than 0`);
  if (rate && rate.lte(0)) errors.push(`${where}: conversionRate must be greater than 0`);
  if (errors.length) return { errors };
  if (currency === 'USD') {
    if (rate && !rate.eq(1)) errors.push(`${where}: conversionRate must be 1 for a USD payment (got ${rate.toFixed()})`);
    rate = new Decimal(1);
    if (!usd) usd = amount;
  }
  if (usd && rate) {
    const tol = Decimal.max(ABS_TOLERANCE, usd.abs().mul(REL_TOLERANCE));
    const diff = amount.mul(rate).minus(usd).abs();
    if (diff.gt(tol)) {
      errors.push(`${where}: amountUSD ${usd.toFixed()} contradicts amount × conversionRate = ${amount.mul(rate).toFixed()} (tolerance ${tol.toFixed()})`);
    }
  } else if (usd && !rate) rate = usd.div(amount).toDecimalPlaces(SCALE, Decimal.ROUND_HALF_UP);
  else if (rate && !usd) usd = amount.mul(rate).toDecimalPlaces(SCALE, Decimal.ROUND_HALF_UP);
  let baseAmount: Decimal | null = null;
  if (currency === base) baseAmount = amount;
  else if (base === 'USD') {
    if (usd) baseAmount = usd;
    else errors.push(`${where}: a ${currency} payment needs amountUSD or conversionRate (the workspace base currency is USD)`);
  } else errors.push(`${where}: the workspace base currency is ${base}; a ${currency} payment cannot be converted to it`);
  if (errors.length) return { errors };
  return { currency, amount, amountUSD: usd, rate, baseAmount: baseAmount! };
}

export function toPaymentView(r: Record<string, unknown>, base: string) {
  return {
    id: r.id,
    user: r.tenant_user_id,
    firstName: r.first_name ?? null,
    lastName: r.last_name ?? null,
    title: r.title ?? null,
    memo: r.memo ?? null,
    transactionDate: iso(r.transaction_date),
    currency: String(r.currency).trim(),
    amount: money(r.amount as string),
    amountUSD: money(r.amount_usd as string | null),
    conversionRate: money(r.conversion_rate as string | null),
    baseAmount: money(r.base_amount as string),
    baseCurrency: base,
    status: r.status,
    paymentRequestId: r.payment_request_id ?? null,
    reference: r.reference ?? null,
    processorTransferId: r.processor_transfer_id ?? null,
    reason: r.processor_reason ?? null,
    completedAt: iso(r.completed_at),
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  };
}

async function namesOf(trx: Trx, ids: string[]): Promise<Map<string, { first: string | null; last: string | null }>> {
  const rows = await memberPeople(trx, ids);
  return new Map(rows.map((r) => [r.id as string, { first: r.first_name, last: r.last_name }]));
}

async function prepare(trx: Trx, input: PaymentInput, base: string, where: string, members: Set<string>) {
  const errors: string[] = [];
  if (!members.has(input.user)) errors.push(`${where}: unknown user ${input.user}`);
  const a = resolveAmounts(input, base, where);
  if ('errors' in a) errors.push(...a.errors);
  let when = clock.now();
  if (input.transactionDate) {
    when = new Date(input.transactionDate);
    if (Number.isNaN(when.getTime())) errors.push(`${where}: transactionDate is not a date-time`);
  }
  if (errors.length || 'errors' in a) return { errors };
  return {
    row: {
      tenant_user_id: input.user,
      first_name: input.firstName ?? null,
      last_name: input.lastName ?? null,
      title: input.title ?? null,
      memo: input.memo ?? null,
      transaction_date: when,
      currency: a.currency,
      amount: a.amount.toFixed(),
      amount_usd: a.amountUSD?.toFixed() ?? null,
      conversion_rate: a.rate?.toFixed() ?? null,
      base_amount: a.baseAmount.toFixed(),
      status: input.status ?? 'completed',
    },
  };
}

async function insertPayments(trx: Trx, auth: AuthContext, rows: Record<string, unknown>[]): Promise<string[]> {
  if (!rows.length) return [];
  const names = await namesOf(trx, rows.map((r) => r.tenant_user_id as string));
  const now = clock.now();
  const ins = rows.map((r) => {
    const n = names.get(r.tenant_user_id as string);
    return {
      ...r,
      first_name: r.first_name ?? n?.first ?? null,
      last_name: r.last_name ?? n?.last ?? null,
      completed_at: r.status === 'completed' ? now : null,
      tenant_id: trx.raw('app_tenant_id()'),
      created_by: auth.tenantUserId,
      created_at: now,
      updated_at: now,
    };
  });
  await lockLedger(trx);
  await lockPayees(trx, rows.map((r) => r.tenant_user_id as string));
  const ids = (await trx('payments').insert(ins).returning('id')).map((r) => r.id as string);
  await reconcilePayments(trx, ids);
  for (const [i, id] of ids.entries()) await emitEvent(trx, null, 'payment.created', { paymentId: id, userId: rows[i]!.tenant_user_id, amount: rows[i]!.amount, currency: rows[i]!.currency, status: rows[i]!.status });
  return ids;
}

export async function createPayment(trx: Trx, auth: AuthContext, input: PaymentInput) {
  const base = await baseCurrency(trx);
  const p = await prepare(trx, input, base, 'body', await existingMembers(trx, [input.user]));
  if ('errors' in p) throw new ValidationError('Invalid payment', p.errors);
  const [id] = await insertPayments(trx, auth, [p.row!]);
  return getPayment(trx, auth, id!);
}

/** POST /payment/bulk: every valid item is created; each invalid one is reported in `errors` (`total`: items sent, valid or not). */
export async function bulkCreatePayments(trx: Trx, auth: AuthContext, items: { i: number; item: PaymentInput }[], total = items.length) {
  const base = await baseCurrency(trx);
  const members = await existingMembers(trx, items.map((x) => x.item.user));
  const errors: string[] = [];
  const rows: Record<string, unknown>[] = [];
  for (const { i, item } of items) {
    const p = await prepare(trx, item, base, `payments[${i}]`, members);
    if ('errors' in p) errors.push(...p.errors!);
    else rows.push(p.row!);
  }
  const ids = await insertPayments(trx, auth, rows);
  return { message: `${ids.length} payment(s) created, ${total - ids.length} failed`, createdPayments: ids, errors };
}

export async function getPayment(trx: Trx, auth: AuthContext, id: string) {
  const q = trx('payments').where({ id }).first();
  if (!isAdmin(auth)) q.andWhere('tenant_user_id', auth.tenantUserId);
  const r = await q;
  if (!r) throw new NotFoundError('Payment');
  return toPaymentView(r, await baseCurrency(trx));
}

export async function listPayments(
  trx: Trx,
  auth: AuthContext,
  o: { page: number; size: number; search?: string; user?: string; status?: string; sort?: string; order?: 'asc' | 'desc' },
) {
  const q = trx('payments');
  if (!isAdmin(auth)) q.where('tenant_user_id', auth.tenantUserId);
  else if (o.user) q.where('tenant_user_id', o.user);
  if (o.status) q.where('status', o.status);
  if (o.search) {
    const like = `%${o.search.replace(/[%_\\]/g, '\\$&')}%`;
    q.where((w) => w.whereILike('title', like).orWhereILike('memo', like).orWhereILike('reference', like));
  }
  const [{ n }] = await q.clone().count({ n: '*' });
  const sort = resolveSort(o, PAYMENT_SORT, 'createdAt');
  const rows = await q.select('*').orderByRaw(orderSql(sort)).orderBy('id', sort.order).limit(o.size).offset((o.page - 1) * o.size);
  const base = await baseCurrency(trx);
  return { data: rows.map((r) => toPaymentView(r, base)), total: Number(n) };
}

/**
 * Move a payment to a new status and keep the ledger and its request in step:
 * completed → completion time; failed / reversed → the money comes back (reversal entry)
 * and the linked payment request returns to pending.
 */
/** The payee hears of each state change of their payment (docs/notifications.md; e-mail etc. by their preferences). */
async function announcePayment(trx: Trx, cur: Record<string, any>, status: string, reason: string | null): Promise<void> {
  const d = dec(String(cur.amount));
  const amount = d.toFixed(Math.max(2, d.decimalPlaces())); // exact, at least two decimals
  const currency = String(cur.currency).trim();
  await notify(trx, {
    tenantId: cur.tenant_id, tenantUserId: cur.tenant_user_id, type: `payment.${status}`, title: `Payment ${status}: ${amount} ${currency}`, content: `${cur.status} → ${status}${reason ? ` (${reason})` : ''}`,
    resourceType: 'payment', resourceId: cur.id, actionUrl: `/payments/${cur.id}`, isImportant: status === 'failed' || status === 'reversed',
    metadata: { amount, currency, status, previousStatus: cur.status, reason: reason ?? '' },
  });
}

/**
 * The `payment.<status>` event of a payment entering `processing`, `completed`, `failed` or
 * `reversed` (one payload shape; `previousStatus` null: the payment was created in that status),
 * written in the transaction of the change.
 */
export async function emitPaymentStatus(trx: Trx, p: { id: string; tenant_id: number; tenant_user_id: string; amount: unknown; currency: unknown }, status: Exclude<PaymentStatus, 'pending'>, previousStatus: PaymentStatus | null, reason: string | null = null): Promise<void> {
  await emitEvent(trx, p.tenant_id, `payment.${status}`, { paymentId: p.id, userId: p.tenant_user_id, amount: String(p.amount), currency: String(p.currency).trim(), status, previousStatus, reason });
}

export async function setPaymentStatus(trx: Trx, paymentId: string, status: PaymentStatus, extra: { reason?: string | null; completedAt?: Date | null } = {}) {
  const cur = await trx('payments').where({ id: paymentId }).forUpdate().first();
  if (!cur) throw new NotFoundError('Payment');
  await lockLedger(trx);
  await lockPayees(trx, [cur.tenant_user_id]);
  const patch: Record<string, unknown> = { status, updated_at: clock.now() };
  if (status === 'completed') patch.completed_at = extra.completedAt ?? clock.now();
  if (extra.reason !== undefined) patch.processor_reason = extra.reason;
  await trx('payments').where({ id: paymentId }).update(patch);
  if (status !== cur.status) await announcePayment(trx, cur, status, extra.reason ?? null);
  await reconcilePayments(trx, [paymentId]);
  if (status !== cur.status && status !== 'pending') await emitPaymentStatus(trx, cur, status, cur.status, extra.reason ?? null);
  if (cur.payment_request_id) {
    if (status === 'failed' || status === 'reversed') {
      await trx('payment_requests').where({ id: cur.payment_request_id, payment_id: paymentId }).update({ status: 'pending', payment_id: null, updated_at: clock.now() });
    } else if (status === 'completed') {
      await trx('payment_requests').where({ id: cur.payment_request_id }).update({ status: 'paid', payment_id: paymentId, updated_at: clock.now() });
    }
  }
}

export async function updatePayment(trx: Trx, auth: AuthContext, id: string, patch: Partial<PaymentInput> & { status?: PaymentStatus }) {
  const cur = await trx('payments').where({ id }).forUpdate().first();
  if (!cur) throw new NotFoundError('Payment');
  const viaProcessor = !!cur.reference;
  const moneyFields = ['amount', 'currency', 'amountUSD', 'conversionRate', 'user'] as const;
  if (viaProcessor && (moneyFields.some((k) => patch[k] !== undefined) || patch.status !== undefined)) {
    throw new ValidationError('A payment sent to the processor changes only through processor events', [], 'PAYMENT_VIA_PROCESSOR');
  }
  if ((patch.status as string | undefined) === 'processing') throw new ValidationError('processing is set only by the processor', [], 'INVALID_STATUS');
  const base = await baseCurrency(trx);
  // Amount fields: what is given wins; of the two derived ones, the rate is kept when only the
  // amount changes, amountUSD when only it is given; a new currency drops both old values.
  let usd: string | number | null = cur.amount_usd;
  let rate: string | number | null = cur.conversion_rate;
  const curCurrency = String(cur.currency).trim();
  if (patch.currency !== undefined && patch.currency.toUpperCase() !== curCurrency) (usd = null), (rate = null);
  else if (patch.amountUSD !== undefined && patch.conversionRate === undefined) rate = null;
  else if (patch.amount !== undefined || patch.conversionRate !== undefined) usd = null;
  if (patch.amountUSD !== undefined) usd = patch.amountUSD;
  if (patch.conversionRate !== undefined) rate = patch.conversionRate;
  const merged: PaymentInput = {
    user: patch.user ?? cur.tenant_user_id,
    firstName: patch.firstName !== undefined ? patch.firstName : cur.first_name,
    lastName: patch.lastName !== undefined ? patch.lastName : cur.last_name,
    title: patch.title !== undefined ? patch.title : cur.title,
    memo: patch.memo !== undefined ? patch.memo : cur.memo,
    transactionDate: patch.transactionDate ?? new Date(cur.transaction_date).toISOString(),
    currency: patch.currency ?? curCurrency,
    amount: patch.amount ?? cur.amount,
    amountUSD: usd,
    conversionRate: rate,
  };
  const p = await prepare(trx, merged, base, 'body', await existingMembers(trx, [merged.user]));
  if ('errors' in p) throw new ValidationError('Invalid payment', p.errors);
  const { status: _ignored, ...row } = p.row!;
  await lockLedger(trx);
  await lockPayees(trx, [cur.tenant_user_id, merged.user]);
  await trx('payments').where({ id }).update({ ...row, updated_at: clock.now() });
  await reconcilePayments(trx, [id]);
  const status = patch.status as PaymentStatus | undefined;
  if (status && status !== cur.status) await setPaymentStatus(trx, id, status);
  return getPayment(trx, auth, id);
}

export async function deletePayments(trx: Trx, ids: string[]) {
  const rows = await trx('payments').whereIn('id', ids).forUpdate().select('id', 'status', 'payment_request_id', 'tenant_user_id', 'amount', 'currency');
  const failed: { id: string; error: string }[] = [];
  const ok: string[] = [];
  for (const id of ids) {
    const r = rows.find((x) => x.id === id);
    if (!r) failed.push({ id, error: 'Payment not found' });
    else if (r.status === 'processing') failed.push({ id, error: 'Payment is being processed by the processor' });
    else ok.push(id);
  }
  if (ok.length) {
    await lockLedger(trx);
    await lockPayees(trx, rows.filter((r) => ok.includes(r.id)).map((r) => r.tenant_user_id));
    const reqs = rows.filter((r) => ok.includes(r.id) && r.payment_request_id);
    await trx('payments').whereIn('id', ok).delete();
    for (const r of rows.filter((x) => ok.includes(x.id))) {
      await emitEvent(trx, null, 'payment.deleted', { paymentId: r.id, userId: r.tenant_user_id, amount: String(r.amount), currency: String(r.currency).trim(), status: r.status, paymentRequestId: r.payment_request_id ?? null });
    }
    await reconcilePayments(trx, ok);
    for (const r of reqs) {
      await trx('payment_requests').where({ id: r.payment_request_id, payment_id: r.id }).update({ status: 'pending', payment_id: null, updated_at: clock.now() });
    }
  }
  return { message: `${ok.length} payment(s) deleted`, processedCount: ok.length, failedDeletions: failed };
}

export async function deletePayment(trx: Trx, auth: AuthContext, id: string) {
  void auth;
  oneDeleted(await deletePayments(trx, [id]), 'Payment', 'PAYMENT_IN_FLIGHT');
}

/**
 * Figures for display, in minor units: each payment rounded once as the ledger posts it (half
 * away from zero; in its own currency's digits for `byCurrency`), then summed, so totalPaid
 * is what the ledger took and the parts add up to the totals.
 */
export async function paymentSummary(trx: Trx, payee: string | null) {
  const w = payee ? 'WHERE tenant_user_id = ?' : '';
  const b = payee ? [payee] : [];
  const base = await baseCurrency(trx);
  const d = minorDigits(base);
  const r = await trx.raw(
    `SELECT count(*)::int AS count,
            coalesce(sum(round(base_amount, ${d})) FILTER (WHERE status IN ('pending','processing','completed')), 0)::text AS paid
     FROM payments ${w}`,
    b,
  );
  const byStatus = await trx.raw(`SELECT status, count(*)::int AS count, sum(round(base_amount, ${d}))::text AS total FROM payments ${w} GROUP BY 1 ORDER BY 1`, b);
  const currencies = (await trx.raw(`SELECT DISTINCT trim(currency) AS c FROM payments ${w}`, b)).rows.map((x: { c: string }) => x.c) as string[];
  const byCurrency = await trx.raw(
    `SELECT p.currency, count(*)::int AS count, sum(round(p.amount, u.d))::text AS total
     FROM payments p JOIN unnest(?::text[], ?::int[]) AS u(c, d) ON u.c = trim(p.currency) ${payee ? 'WHERE p.tenant_user_id = ?' : ''} GROUP BY 1 ORDER BY 1`,
    [currencies, currencies.map(minorDigits), ...b],
  );
  const req = await trx.raw(`SELECT count(*)::int AS count, coalesce(sum(amount), 0)::text AS total FROM payment_requests WHERE status = 'pending' ${payee ? 'AND tenant_user_id = ?' : ''}`, b);
  return {
    currency: base,
    totalPayments: r.rows[0].count,
    totalPaid: money(r.rows[0].paid),
    byStatus: Object.fromEntries(byStatus.rows.map((s: Record<string, unknown>) => [s.status, { count: s.count, amount: money(s.total as string) }])),
    byCurrency: byCurrency.rows.map((c: Record<string, unknown>) => ({ currency: String(c.currency).trim(), count: c.count, amount: money(c.total as string) })),
    pendingRequests: { count: req.rows[0].count, amount: money(req.rows[0].total) },
  };
}

export function assertOwnOrAdmin(auth: AuthContext, payee: string): void {
  if (!isAdmin(auth) && auth.tenantUserId !== payee) throw new ForbiddenError('Not your record', 'INSUFFICIENT_ROLE');
}

/** The payment area as the route factory calls it. */
export const paymentCrud: CrudService<Parameters<typeof listPayments>[2], PaymentInput, Partial<PaymentInput> & { status?: PaymentStatus }> = {
  list: listPayments,
  get: getPayment,
  create: createPayment,
  update: updatePayment,
  remove: deletePayment,
  bulkRemove: (trx, _auth, ids) => deletePayments(trx, ids),
  summary: paymentSummary,
  bulkCreate: bulkCreatePayments,
};
