/**
 * Payment requests: a payee asks for a payout of what is due.
 *   pending → approved (admin; a payment is created and, when the workspace has a processor,
 *             sent as a transfer) → paid (transfer.success)
 *   pending → declined (admin)
 *   approved → pending again when its payment fails or is reversed.
 * The amount is checked against the balance when requested (minus the payee's other
 * pending requests) and again at approval, under the payee's ledger lock and in the same
 * transaction that posts the payment, so two approvals cannot spend the same balance.
 */
import { sortedPage, whereSearch } from '../../http/list-sort';
import { REQUEST_SORT } from './sorts';
import crypto from 'node:crypto';
import type { Trx } from '../../db';
import type { CrudService } from '../../http/crud';
import { withTenant } from '../../db';
import type { AppServices } from '../../services';
import type { AuthContext } from '../auth/tokens';
import { ForbiddenError, NotFoundError, ValidationError } from '../../lib/errors';
import { clock } from '../../lib/clock';
import { baseCurrency, dec, existingMembers, iso, isAdmin, money, oneDeleted } from './common';
import { balanceOf, lockLedger, lockPayees, reconcilePayments } from './ledger';
import { emitEvent } from '../webhooks/events';
import { minorDigits } from './processor-client';
import { paymentReference, processorReady, sendPayment } from './processor';
import { emitPaymentStatus, getPayment } from './payments';
import { memberPeople } from '../../repositories/members';

export function toRequestView(r: Record<string, unknown>) {
  return {
    id: r.id,
    user: r.tenant_user_id,
    amount: money(r.amount as string),
    currency: String(r.currency).trim(),
    memo: r.memo ?? null,
    paymentSettingId: r.payment_setting_id ?? null,
    status: r.status,
    paymentId: r.payment_id ?? null,
    decidedBy: r.decided_by ?? null,
    decidedAt: iso(r.decided_at),
    declineReason: r.decline_reason ?? null,
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  };
}

/** The data of the `payment.request.*` events. */
function requestEvent(r: Record<string, unknown>) {
  return { requestId: r.id, userId: r.tenant_user_id, amount: money(r.amount as string), currency: String(r.currency).trim(), status: r.status, memo: r.memo ?? null };
}

function scoped(trx: Trx, auth: AuthContext) {
  const q = trx('payment_requests');
  if (!isAdmin(auth)) q.where('tenant_user_id', auth.tenantUserId);
  return q;
}

/** What a payee may still request: balance − other pending requests. */
export async function availableFor(trx: Trx, payee: string, excludeRequest?: string) {
  const balance = dec(await balanceOf(trx, payee));
  const q = trx('payment_requests').where({ tenant_user_id: payee, status: 'pending' });
  if (excludeRequest) q.whereNot({ id: excludeRequest });
  const [{ s }] = await q.sum({ s: 'amount' });
  const pending = dec(s ?? '0');
  return { balance, pending, available: balance.minus(pending) };
}

async function checkAmount(trx: Trx, amountIn: number | string, base: string) {
  const amount = dec(amountIn);
  if (amount.lte(0)) throw new ValidationError('amount must be greater than 0', [], 'INVALID_AMOUNT');
  if (amount.decimalPlaces() > minorDigits(base)) throw new ValidationError(`amount has more decimals than ${base} allows`, [], 'INVALID_AMOUNT');
  return amount;
}

async function checkSetting(trx: Trx, payee: string, settingId: string | null | undefined) {
  if (!settingId) return;
  const s = await trx('payment_settings').where({ id: settingId, tenant_user_id: payee }).first('id');
  if (!s) throw new ValidationError('paymentSettingId is not a payment setting of this payee', [], 'INVALID_PAYMENT_SETTING');
}

export async function createRequest(trx: Trx, auth: AuthContext, input: { amount: number | string; memo?: string | null; paymentSettingId?: string | null; user?: string }) {
  const payee = isAdmin(auth) && input.user ? input.user : auth.tenantUserId;
  if (!payee) throw new ValidationError('Name the payee (user)', [], 'USER_REQUIRED');
  if (input.user && input.user !== auth.tenantUserId && !isAdmin(auth)) throw new ForbiddenError('You can only request your own payouts', 'INSUFFICIENT_ROLE');
  if (!(await existingMembers(trx, [payee])).has(payee)) throw new NotFoundError('User');
  const base = await baseCurrency(trx);
  const amount = await checkAmount(trx, input.amount, base);
  await checkSetting(trx, payee, input.paymentSettingId);
  await lockLedger(trx);
  await lockPayees(trx, [payee]);
  const a = await availableFor(trx, payee);
  if (amount.gt(a.available)) throw new ValidationError('Amount exceeds what is due', [`available ${money(a.available)} ${base}`], 'INSUFFICIENT_BALANCE');
  const [row] = await trx('payment_requests')
    .insert({
      tenant_id: trx.raw('app_tenant_id()'),
      tenant_user_id: payee,
      amount: amount.toFixed(),
      currency: base,
      memo: input.memo ?? null,
      payment_setting_id: input.paymentSettingId ?? null,
      created_at: clock.now(),
      updated_at: clock.now(),
    })
    .returning('*');
  await emitEvent(trx, null, 'payment.request.sent', requestEvent(row));
  return toRequestView(row);
}

export async function getRequest(trx: Trx, auth: AuthContext, id: string) {
  const r = await scoped(trx, auth).where({ id }).first();
  if (!r) throw new NotFoundError('Payment request');
  return toRequestView(r);
}

export async function listRequests(trx: Trx, auth: AuthContext, o: { page: number; size: number; user?: string; status?: string; search?: string; sort?: string; order?: 'asc' | 'desc' }) {
  const q = scoped(trx, auth);
  if (isAdmin(auth) && o.user) q.where('tenant_user_id', o.user);
  if (o.status) q.where('status', o.status);
  const { rows, total } = await sortedPage(whereSearch(q, o.search, ['memo', 'status', 'decline_reason']).select('*'), o, REQUEST_SORT, 'createdAt');
  return { data: rows.map(toRequestView), total };
}

export async function updateRequest(trx: Trx, auth: AuthContext, id: string, patch: { amount?: number | string; memo?: string | null; paymentSettingId?: string | null }) {
  const cur = await scoped(trx, auth).where({ id }).forUpdate().first();
  if (!cur) throw new NotFoundError('Payment request');
  if (cur.status !== 'pending') throw new ValidationError('Only a pending request can be changed', [], 'REQUEST_NOT_PENDING');
  const upd: Record<string, unknown> = { updated_at: clock.now() };
  if (patch.memo !== undefined) upd.memo = patch.memo;
  if (patch.paymentSettingId !== undefined) {
    await checkSetting(trx, cur.tenant_user_id, patch.paymentSettingId);
    upd.payment_setting_id = patch.paymentSettingId;
  }
  if (patch.amount !== undefined) {
    const base = String(cur.currency).trim();
    const amount = await checkAmount(trx, patch.amount, base);
    await lockLedger(trx);
    await lockPayees(trx, [cur.tenant_user_id]);
    const a = await availableFor(trx, cur.tenant_user_id, id);
    if (amount.gt(a.available)) throw new ValidationError('Amount exceeds what is due', [`available ${money(a.available)} ${base}`], 'INSUFFICIENT_BALANCE');
    upd.amount = amount.toFixed();
  }
  const [row] = await trx('payment_requests').where({ id }).update(upd).returning('*');
  return toRequestView(row);
}

export async function deleteRequests(trx: Trx, auth: AuthContext, ids: string[]) {
  const rows = await scoped(trx, auth).whereIn('id', ids).select('id', 'status');
  const failed: { id: string; error: string }[] = [];
  const ok: string[] = [];
  for (const id of ids) {
    const r = rows.find((x) => x.id === id);
    if (!r) failed.push({ id, error: 'Payment request not found' });
    else if (r.status === 'approved' || r.status === 'paid') failed.push({ id, error: `A ${r.status} request cannot be deleted` });
    else ok.push(id);
  }
  if (ok.length) await trx('payment_requests').whereIn('id', ok).delete();
  return { message: `${ok.length} payment request(s) deleted`, processedCount: ok.length, failedDeletions: failed };
}

export async function declineRequest(trx: Trx, auth: AuthContext, id: string, reason: string | null) {
  const cur = await trx('payment_requests').where({ id }).forUpdate().first();
  if (!cur) throw new NotFoundError('Payment request');
  if (cur.status !== 'pending') throw new ValidationError('Only a pending request can be declined', [], 'REQUEST_NOT_PENDING');
  const [row] = await trx('payment_requests')
    .where({ id })
    .update({ status: 'declined', decline_reason: reason, decided_by: auth.tenantUserId, decided_at: clock.now(), updated_at: clock.now() })
    .returning('*');
  await emitEvent(trx, null, 'payment.request.rejected', { ...requestEvent(row), reason });
  return toRequestView(row);
}

/**
 * Approve: one transaction checks the balance under the payee's lock, creates the payment
 * (its ledger entry included) and marks the request approved; then, after commit, the
 * payment goes to the processor when the workspace has one.
 */
export async function approveRequest(svc: AppServices, auth: AuthContext, tenantId: number, id: string, memo: string | null) {
  const { paymentId, send } = await withTenant(svc.db.app, tenantId, async (trx) => {
    const cur = await trx('payment_requests').where({ id }).forUpdate().first();
    if (!cur) throw new NotFoundError('Payment request');
    if (cur.status !== 'pending') throw new ValidationError('Only a pending request can be approved', [], 'REQUEST_NOT_PENDING');
    await lockLedger(trx);
    await lockPayees(trx, [cur.tenant_user_id]);
    const balance = dec(await balanceOf(trx, cur.tenant_user_id));
    const amount = dec(cur.amount);
    if (amount.gt(balance)) throw new ValidationError('Amount exceeds what is due', [`due ${money(balance)} ${String(cur.currency).trim()}`], 'INSUFFICIENT_BALANCE');
    const send = await processorReady(trx, svc);
    const ws = await trx('tenants').whereRaw('id = app_tenant_id()').first('uuid');
    const paymentId = crypto.randomUUID();
    const [who] = await memberPeople(trx, [cur.tenant_user_id]);
    const base = String(cur.currency).trim();
    const now = clock.now();
    await trx('payments').insert({
      tenant_id: trx.raw('app_tenant_id()'),
      id: paymentId,
      tenant_user_id: cur.tenant_user_id,
      first_name: who?.first_name ?? null,
      last_name: who?.last_name ?? null,
      title: 'Payout',
      memo: memo ?? cur.memo ?? null,
      transaction_date: now,
      currency: base,
      amount: amount.toFixed(),
      amount_usd: base === 'USD' ? amount.toFixed() : null,
      conversion_rate: base === 'USD' ? '1' : null,
      base_amount: amount.toFixed(),
      status: send ? 'processing' : 'pending',
      payment_request_id: id,
      reference: send ? paymentReference(ws.uuid, paymentId) : null,
      created_by: auth.tenantUserId,
      created_at: now,
      updated_at: now,
    });
    await reconcilePayments(trx, [paymentId]);
    if (send) await emitPaymentStatus(trx, { id: paymentId, tenant_id: cur.tenant_id, tenant_user_id: cur.tenant_user_id, amount: amount.toFixed(), currency: base }, 'processing', null);
    await trx('payment_requests').where({ id }).update({ status: 'approved', payment_id: paymentId, decided_by: auth.tenantUserId, decided_at: now, updated_at: now });
    await emitEvent(trx, null, 'payment.request.approved', { ...requestEvent({ ...cur, status: 'approved' }), paymentId });
    return { paymentId, send };
  });
  if (send) await sendPayment(svc, tenantId, paymentId);
  return withTenant(svc.db.app, tenantId, async (trx) => ({
    ...(await getRequest(trx, auth, id)),
    payment: await getPayment(trx, auth, paymentId),
  }));
}

/** Delete one pending or declined request: 404 when absent (or not the caller's), 400 when approved or paid. */
export async function deleteRequest(trx: Trx, auth: AuthContext, id: string): Promise<void> {
  oneDeleted(await deleteRequests(trx, auth, [id]), 'Payment request', 'REQUEST_NOT_DELETABLE');
}

/** The payment request area as the route factory calls it. */
export const requestCrud: CrudService<Parameters<typeof listRequests>[2], Parameters<typeof createRequest>[2], Parameters<typeof updateRequest>[3]> = {
  list: listRequests,
  get: getRequest,
  create: createRequest,
  update: updateRequest,
  remove: deleteRequest,
  bulkRemove: deleteRequests,
};
