/**
 * Payout requests to the FX partner (POST /integrations/fxpartner/payment-requests and /v2).
 *
 * 1. The request is recorded `pending` with its own idempotency key (a uuid, or the caller's
 *    Idempotency-Key: the same key with the same body answers the same request, never a
 *    second payout; with another body it is refused) and committed.
 * 2. It is sent to the partner outside any transaction with that key and our id as
 *    `external_id`. No answer (timeout, 5xx): it stays pending, unsubmitted; the sync job
 *    sends it again with the SAME key, so the partner answers the payout it already made.
 *    A refusal (4xx): it becomes `failed` with the partner's reason.
 * 3. Later statuses come from the partner's signed callbacks and from polling (syncFxPayouts,
 *    the `partners.fxpartner.sync` job). Statuses only move forward: pending → processing →
 *    completed | failed | cancelled; a stale or repeated callback changes nothing.
 * 4. Completed, with a beneficiary linked to a member: one `payments` row (status completed)
 *    is created for that member, which posts the payout to the ledger exactly once.
 */
import crypto from 'node:crypto';
import type { AppServices } from '../../services';
import type { Trx } from '../../db';
import type { AuthContext } from '../auth/tokens';
import { ANONYMOUS } from '../auth/tokens';
import { NotFoundError, UnauthorizedError, ValidationError } from '../../lib/errors';
import { safeEqual } from '../../lib/crypto';
import { clock } from '../../lib/clock';
import { assertCurrency, baseCurrency, dec, iso, money } from '../money/common';
import { minorDigits } from '../money/processor-client';
import { createPayment } from '../money/payments';
import { PartnerApiError } from './http-client';
import type { FxPayoutView } from './fx-client';
import { fxClient } from './fxpartner';
import { tx } from './common';
import { callbackJson } from '../../http/limits';

const RANK: Record<string, number> = { pending: 0, processing: 1, completed: 2, failed: 2, cancelled: 2 };
export const OPEN_STATUSES = ['pending', 'processing'];

export interface FxPaymentInput {
  beneficiaryId: string;
  amount: number | string;
  currency: string;
  walletId: string;
  reference: string;
  memo?: string | null;
  purposeCode?: string | null;
}

export function requestView(r: Record<string, any>) {
  return {
    id: r.id,
    paymentId: r.id,
    version: r.version,
    status: r.status,
    beneficiaryId: r.beneficiary_id,
    walletId: r.wallet_id,
    amount: money(r.amount),
    currency: String(r.currency).trim(),
    reference: r.reference,
    memo: r.memo ?? null,
    purposeCode: r.purpose_code ?? null,
    userId: r.tenant_user_id ?? null,
    partnerPaymentId: r.partner_payment_id ?? null,
    submitted: !!r.submitted,
    lastError: r.last_error ?? null,
    ledgerPaymentId: r.payment_id ?? null,
    statusUpdatedAt: iso(r.status_updated_at),
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  };
}

function fingerprint(r: { beneficiary_id: string; wallet_id: string; amount: string; currency: string; reference: string; memo: string | null; purpose_code: string | null; version: number }) {
  return JSON.stringify([r.version, r.beneficiary_id, r.wallet_id, dec(r.amount).toFixed(), String(r.currency).trim(), r.reference, r.memo ?? null, r.purpose_code ?? null]);
}

/** Record the request (step 1), or find the one this idempotency key already made. */
async function record(trx: Trx, auth: AuthContext, input: FxPaymentInput, version: 1 | 2, key: string | null) {
  if (!(await trx('fx_integrations').where({ is_enabled: true }).first('tenant_id'))) throw new NotFoundError('FX payout integration');
  const currency = assertCurrency(input.currency, 'body.currency');
  let amount;
  try {
    amount = dec(input.amount);
  } catch {
    throw new ValidationError('Invalid request', ['body.amount must be a number']);
  }
  if (!amount.isFinite() || amount.lte(0)) throw new ValidationError('Invalid request', ['body.amount must be greater than 0']);
  if (amount.decimalPlaces() > minorDigits(currency)) throw new ValidationError('Invalid request', [`body.amount has more decimals than ${currency} allows (${minorDigits(currency)})`]);
  const row = {
    version,
    beneficiary_id: input.beneficiaryId,
    wallet_id: String(input.walletId),
    amount: amount.toFixed(),
    currency,
    reference: input.reference,
    memo: input.memo ?? null,
    purpose_code: input.purposeCode ?? null,
  };
  if (key) {
    const seen = await trx('fx_payment_requests').where({ idempotency_key: key }).first();
    if (seen) {
      if (fingerprint(seen) !== fingerprint(row)) throw new ValidationError('This Idempotency-Key was used for another payment request', [], 'IDEMPOTENCY_KEY_REUSED');
      return { id: seen.id as string, replay: true };
    }
  }
  const link = await trx('fx_beneficiary_links').where({ beneficiary_id: input.beneficiaryId }).first('tenant_user_id');
  const now = clock.now();
  const [r] = await trx('fx_payment_requests')
    .insert({ ...row, tenant_id: trx.raw('app_tenant_id()'), idempotency_key: key ?? crypto.randomUUID(), tenant_user_id: link?.tenant_user_id ?? null, created_by: auth.tenantUserId, status_updated_at: now, created_at: now, updated_at: now })
    .onConflict(['tenant_id', 'idempotency_key'])
    .ignore()
    .returning('id');
  if (!r) throw new ValidationError('This Idempotency-Key is being used by a concurrent request', [], 'IDEMPOTENCY_KEY_REUSED');
  return { id: r.id as string, replay: false };
}

export async function createFxPaymentRequest(svc: AppServices, tenantId: number, auth: AuthContext, input: FxPaymentInput, version: 1 | 2, key: string | null) {
  const { id, replay } = await tx(svc, tenantId, (trx) => record(trx, auth, input, version, key));
  if (!replay) await submit(svc, tenantId, id);
  const r = await tx(svc, tenantId, (trx) => trx('fx_payment_requests').where({ id }).first());
  if (r.status === 'failed' && !r.submitted) throw new ValidationError(`Payment request ${r.id} refused by the partner: ${r.last_error}`, [], 'PARTNER_REFUSED');
  const message = r.submitted ? 'Payment request created' : 'Payment request created; the partner has not confirmed it yet (it is retried with the same idempotency key)';
  return { success: true, message, data: { paymentId: r.id as string, status: r.status as string } };
}

/** Send one unsubmitted request (step 2). Safe to repeat: the idempotency key never changes. */
export async function submit(svc: AppServices, tenantId: number, id: string): Promise<void> {
  const r = await tx(svc, tenantId, (trx) => trx('fx_payment_requests').where({ id }).first());
  if (!r || r.submitted || r.status !== 'pending') return;
  let payout: FxPayoutView;
  try {
    const client = await fxClient(svc, tenantId);
    payout = await client.createPayout(r.idempotency_key, {
      external_id: r.id,
      beneficiary_id: r.beneficiary_id,
      wallet_id: r.wallet_id,
      amount: dec(r.amount).toFixed(),
      currency: String(r.currency).trim(),
      reference: r.reference,
      memo: r.memo,
      purpose_code: r.purpose_code,
    });
  } catch (err) {
    if (!(err instanceof PartnerApiError) && !(err instanceof NotFoundError)) throw err;
    const permanent = err instanceof PartnerApiError && !err.transient;
    svc.log.warn({ paymentRequestId: id, tenantId, partnerStatus: err instanceof PartnerApiError ? err.httpStatus : null, reason: err.message }, permanent ? 'fxpartner refused a payout' : 'fxpartner payout not confirmed, will retry');
    await tx(svc, tenantId, async (trx) => {
      await trx('fx_payment_requests').where({ id }).update({ attempts: trx.raw('attempts + 1'), last_error: err.message, updated_at: clock.now() });
      if (permanent) await moveTo(trx, svc, id, 'failed', null);
    });
    return;
  }
  await tx(svc, tenantId, async (trx) => {
    await trx('fx_payment_requests').where({ id }).update({ submitted: true, partner_payment_id: payout.id, conversion_rate: payout.rate ?? null, attempts: trx.raw('attempts + 1'), last_error: null, updated_at: clock.now() });
    await moveTo(trx, svc, id, payout.status, payout);
  });
}

/**
 * Apply a partner status to a request (forward moves only). Completion posts the payout to
 * the linked member's ledger once (the row lock and the `payment_id` check make a second
 * completion a no-op).
 */
export async function moveTo(trx: Trx, svc: AppServices, id: string, status: string, payout: FxPayoutView | null): Promise<boolean> {
  const r = await trx('fx_payment_requests').where({ id }).forUpdate().first();
  if (!r || !(status in RANK) || RANK[status]! <= RANK[r.status]!) return false;
  const now = clock.now();
  const upd: Record<string, unknown> = { status, status_updated_at: now, updated_at: now };
  if (payout?.rate) upd.conversion_rate = payout.rate;
  if (payout?.id && !r.partner_payment_id) (upd.partner_payment_id = payout.id), (upd.submitted = true);
  if (status === 'completed' && r.tenant_user_id && !r.payment_id) {
    const currency = String(r.currency).trim();
    const base = await baseCurrency(trx);
    const rate = payout?.rate ?? r.conversion_rate;
    try {
      const auth: AuthContext = { ...ANONYMOUS, kind: 'anonymous', tenantId: null, role: 'admin', tenantUserId: r.created_by ?? r.tenant_user_id };
      const p = await createPayment(trx, auth, {
        user: r.tenant_user_id,
        title: `FX payout ${r.reference}`,
        memo: r.memo ?? `FX partner payout ${upd.partner_payment_id ?? r.partner_payment_id ?? ''}`.trim(),
        currency,
        amount: dec(r.amount).toFixed(),
        conversionRate: currency === base || !rate ? undefined : dec(rate).toFixed(),
        status: 'completed',
      });
      upd.payment_id = p.id;
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      upd.last_error = `completed but not posted to the ledger: ${err.details.join('; ') || err.message}`;
      svc.log.warn({ paymentRequestId: id, reason: upd.last_error }, 'fx payout not posted');
    }
  }
  await trx('fx_payment_requests').where({ id }).update(upd);
  return true;
}

// ------------------------------------------------------------ callbacks

const TOLERANCE_SECONDS = 300;

/** Parse `t=<unix>,v1=<hex>`; null when malformed. */
function parseSignature(h: string): { t: number; v1: string } | null {
  const parts = Object.fromEntries(h.split(',').map((p) => p.trim().split('=', 2) as [string, string]));
  const t = Number(parts.t);
  return Number.isInteger(t) && typeof parts.v1 === 'string' && /^[0-9a-f]{64}$/i.test(parts.v1) ? { t, v1: parts.v1.toLowerCase() } : null;
}

/**
 * POST /integrations/fxpartner/webhook/{workspaceId}: verify the signature with THAT
 * workspace's key (constant time), drop a repeated event id, apply the payout's status.
 */
export async function handleFxCallback(svc: AppServices, workspaceId: string, raw: Buffer, signature: string | undefined): Promise<{ applied: boolean }> {
  if (!signature) throw new UnauthorizedError('Missing x-fxpartner-signature header', 'MISSING_SIGNATURE');
  const sig = parseSignature(signature);
  if (!sig) throw new UnauthorizedError('Invalid signature', 'INVALID_SIGNATURE');
  if (Math.abs(Date.now() / 1000 - sig.t) > TOLERANCE_SECONDS) throw new UnauthorizedError('Signature timestamp outside the allowed window', 'STALE_SIGNATURE');
  // an unknown workspace, or one without the partner, answers like a bad signature: the route
  // tells a caller nothing about which workspaces exist
  const refuse = () => new UnauthorizedError('Invalid signature', 'INVALID_SIGNATURE');
  // Which workspace? (owner pool, one row of `tenants`); everything else under its RLS.
  const tenant = await svc.db.owner('tenants').where({ uuid: workspaceId }).first('id');
  if (!tenant) throw refuse();
  return tx(svc, tenant.id, async (trx) => {
    const integ = await trx('fx_integrations').first('api_key_sealed');
    if (!integ) throw refuse();
    const key = svc.secrets.open(integ.api_key_sealed);
    const expected = crypto.createHmac('sha256', key).update(`${sig.t}.`).update(raw).digest('hex');
    if (!safeEqual(expected, sig.v1)) throw refuse();
    const body = callbackJson(raw) as { id?: unknown; type?: unknown; data?: FxPayoutView };
    if (typeof body?.id !== 'string' || typeof body.data !== 'object' || body.data === null || typeof body.data.id !== 'string') throw new ValidationError('Body must have `id` (string) and `data` (payout)', [], 'INVALID_EVENT');
    const payout = body.data;
    const q = trx('fx_payment_requests').where({ partner_payment_id: payout.id });
    if (typeof payout.external_id === 'string' && /^[0-9a-f-]{36}$/i.test(payout.external_id)) q.orWhere({ id: payout.external_id });
    const req = await q.first('id');
    const fresh = await trx.raw(`INSERT INTO fx_events (tenant_id, event_id, payment_request_id, payload, received_at) VALUES (app_tenant_id(), ?, ?, ?::jsonb, ?) ON CONFLICT DO NOTHING`, [
      body.id,
      req?.id ?? null,
      raw.toString('utf8'),
      clock.now(),
    ]);
    if (!fresh.rowCount || !req) return { applied: false };
    return { applied: await moveTo(trx, svc, req.id, String(payout.status), payout) };
  });
}

// ------------------------------------------------------------ polling

/** One workspace: resend unconfirmed requests (same key), poll submitted open ones. */
export async function syncFxPayouts(svc: AppServices, tenantId: number): Promise<{ resent: number; polled: number; changed: number }> {
  const open = await tx(svc, tenantId, (trx) => trx('fx_payment_requests').whereIn('status', OPEN_STATUSES).orderBy('created_at').limit(500).select('id', 'submitted', 'partner_payment_id'));
  const out = { resent: 0, polled: 0, changed: 0 };
  if (!open.length) return out;
  const client = await fxClient(svc, tenantId, { enabledOnly: false });
  for (const r of open) {
    if (!r.submitted) {
      await submit(svc, tenantId, r.id);
      out.resent++;
      continue;
    }
    let p: FxPayoutView;
    try {
      p = await client.payout(r.partner_payment_id);
    } catch (err) {
      if (!(err instanceof PartnerApiError)) throw err;
      svc.log.warn({ paymentRequestId: r.id, tenantId, reason: err.message }, 'fxpartner poll failed');
      continue;
    }
    out.polled++;
    if (await tx(svc, tenantId, (trx) => moveTo(trx, svc, r.id, p.status, p))) out.changed++;
  }
  return out;
}

/** The job: every workspace with open requests (owner pool: a list of tenant ids only). */
export async function syncAllFxPayouts(svc: AppServices): Promise<void> {
  if (!svc.cfg.fxpartnerApiUrl) return;
  const rows = await svc.db.owner('fx_payment_requests').whereIn('status', OPEN_STATUSES).distinct('tenant_id');
  for (const { tenant_id } of rows) {
    try {
      await syncFxPayouts(svc, tenant_id as number);
    } catch (err) {
      svc.log.warn({ tenantId: tenant_id, reason: (err as Error).message }, 'fxpartner sync failed for a workspace');
    }
  }
}

export async function listFxRequests(trx: Trx, page: number, size: number, status?: string) {
  const q = trx('fx_payment_requests');
  if (status) q.where({ status });
  const [{ n }] = await q.clone().count({ n: '*' });
  const rows = await q.orderBy('created_at', 'desc').orderBy('id').offset((page - 1) * size).limit(size);
  return { data: rows.map(requestView), total: Number(n) };
}

export async function getFxRequest(trx: Trx, id: string) {
  const r = await trx('fx_payment_requests').where({ id }).first();
  if (!r) throw new NotFoundError('Payment request');
  return requestView(r);
}
