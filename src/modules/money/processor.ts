/**
 * Payment-processor integration of a workspace: its secret (sealed at rest, shown only as
 * a hint), sending approved payments as transfers, and the inbound signed events.
 *
 * Reference format: `rondo_<workspace uuid, 32 hex>_<payment uuid, 32 hex>`. It names the
 * workspace, so an inbound event is verified with THAT workspace's secret only: the
 * workspace is read from the reference (owner pool, one row of `tenants`), everything else
 * happens in that tenant's RLS transaction.
 */
import crypto from 'node:crypto';
import type { AppServices } from '../../services';
import { withTenant, type Trx } from '../../db';
import { AppError, NotFoundError, UnauthorizedError, ValidationError } from '../../lib/errors';
import { safeEqual, mask } from '../../lib/crypto';
import { clock } from '../../lib/clock';
import { saveIntegrationRow } from '../../lib/integration-row';
import { iso } from './common';
import { callbackJson } from '../../http/limits';
import { ProcessorApiError, ProcessorClient, toMinorUnits } from './processor-client';
import { setPaymentStatus } from './payments';
import { openSetting } from './settings';

const hex = (uuid: string) => uuid.replace(/-/g, '').toLowerCase();
const unhex = (h: string) => `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;

export function paymentReference(workspaceUuid: string, paymentId: string): string {
  return `rondo_${hex(workspaceUuid)}_${hex(paymentId)}`;
}

export function parseReference(ref: unknown): { workspaceUuid: string; paymentId: string } | null {
  const m = typeof ref === 'string' ? /^rondo_([0-9a-f]{32})_([0-9a-f]{32})$/.exec(ref) : null;
  return m ? { workspaceUuid: unhex(m[1]!), paymentId: unhex(m[2]!) } : null;
}

export function signBody(raw: Buffer | string, secret: string): string {
  return crypto.createHmac('sha512', secret).update(raw).digest('hex');
}

// ------------------------------------------------------------ integration (secret)

export async function integrationStatus(trx: Trx, svc: AppServices) {
  const r = await trx('processor_integrations').first();
  const secret = r ? svc.secrets.open(r.secret_sealed) : null;
  return {
    provider: 'processor',
    configured: !!r,
    isEnabled: r ? !!r.is_enabled : false,
    hasSecret: !!secret,
    secretHint: mask(secret),
    secretUpdatedAt: r ? iso(r.secret_updated_at) : null,
    updatedAt: r ? iso(r.updated_at) : null,
  };
}

export async function setIntegration(trx: Trx, svc: AppServices, input: { secretKey?: string; isEnabled?: boolean }, mode: 'create' | 'update') {
  const cur = await trx('processor_integrations').forUpdate().first();
  const now = clock.now();
  if (mode === 'update' && !cur) throw new NotFoundError('Processor integration');
  if (!cur && !input.secretKey) throw new ValidationError('secretKey is required', ['body must have property "secretKey"'], 'SECRET_REQUIRED');
  const secret = { column: 'secret_sealed', stampColumn: 'secret_updated_at', value: input.secretKey };
  await saveIntegrationRow(trx, 'processor_integrations', cur, (v) => svc.secrets.seal(v), secret, { is_enabled: input.isEnabled }, now);
  return integrationStatus(trx, svc);
}

export async function deleteIntegration(trx: Trx): Promise<void> {
  const n = await trx('processor_integrations').delete();
  if (!n) throw new NotFoundError('Processor integration');
}

/** Integrations this installation offers. */
export function availableIntegrations(svc: AppServices) {
  return [
    {
      provider: 'processor',
      name: 'Payment processor',
      description: 'Sends approved payouts as transfers; signed events report their outcome',
      available: !!svc.cfg.processorApiUrl,
      configureWith: 'POST /integrations/workspace {secretKey}',
    },
    // the other partners (docs/partners.md)
    { provider: 'fxpartner', name: 'FX payout partner', description: 'Pays beneficiaries from multi-currency wallets', available: !!svc.cfg.fxpartnerApiUrl, configureWith: 'POST /integrations/fxpartner {apiKey}' },
    { provider: 'invoicer', name: 'Invoicing partner', description: 'Imports invoices as expenses and revenues (OAuth 2.0)', available: !!svc.cfg.invoicer, configureWith: 'GET /integrations/invoicer/auth/url' },
    { provider: 'distributor', name: 'Distributor', description: 'Delivery partner credentials and catalogue', available: !!svc.cfg.distributorApiUrl, configureWith: 'PUT /ddex/distributor/credentials {token, webhookSecret?}' },
  ];
}

/** How to connect the processor to this workspace: webhook URL, signature, reference format. */
export async function connectionInfo(trx: Trx, svc: AppServices) {
  const ws = await trx('tenants').whereRaw('id = app_tenant_id()').first('uuid');
  return {
    webhookUrl: `${svc.cfg.publicUrl}/processor/webhook`,
    signatureHeader: 'x-processor-signature',
    signature: 'hex HMAC-SHA512 of the raw request body, keyed with the workspace processor secret',
    referenceFormat: 'rondo_<workspace uuid without dashes>_<payment uuid without dashes>',
    referencePrefix: `rondo_${String(ws.uuid).replace(/-/g, '')}_`,
    events: ['transfer.success', 'transfer.failed', 'transfer.reversed'],
    processorApiConfigured: !!svc.cfg.processorApiUrl,
  };
}

async function workspaceSecret(trx: Trx, svc: AppServices, enabledOnly: boolean): Promise<string | null> {
  const r = await trx('processor_integrations').first();
  if (!r || (enabledOnly && !r.is_enabled)) return null;
  return svc.secrets.open(r.secret_sealed);
}

/** Whether approvals in this workspace go out to the processor. */
export async function processorReady(trx: Trx, svc: AppServices): Promise<boolean> {
  return !!svc.cfg.processorApiUrl && !!(await workspaceSecret(trx, svc, true));
}

// ------------------------------------------------------------ outbound transfer

/**
 * Send one payment (status processing, reference set) to the processor. Runs outside the
 * approval transaction (no HTTP call holds a database transaction open). A refusal marks
 * the payment failed: the money returns to the balance and the request to pending.
 */
export async function sendPayment(svc: AppServices, tenantId: number, paymentId: string): Promise<void> {
  const prep = await withTenant(svc.db.app, tenantId, async (trx) => {
    const p = await trx('payments').where({ id: paymentId }).first();
    const secret = await workspaceSecret(trx, svc, true);
    const req = p?.payment_request_id ? await trx('payment_requests').where({ id: p.payment_request_id }).first() : null;
    const settingId = req?.payment_setting_id ?? (await trx('payment_settings').where({ tenant_user_id: p?.tenant_user_id, is_default: true }).first('id'))?.id;
    const setting = settingId ? await openSetting(trx, svc.secrets, settingId) : null;
    return { p, secret, setting };
  });
  if (!prep.p || prep.p.status !== 'processing' || !prep.secret || !svc.cfg.processorApiUrl) return;
  const client = new ProcessorClient(svc.cfg.processorApiUrl, prep.secret);
  try {
    const currency = String(prep.p.currency).trim();
    const res = await client.createTransfer({
      reference: prep.p.reference,
      amount: toMinorUnits(prep.p.amount, currency),
      currency,
      reason: prep.p.title ?? prep.p.memo ?? 'Royalty payout',
      recipient: prep.setting ? { method: prep.setting.method, ...prep.setting.details } : null,
    });
    await withTenant(svc.db.app, tenantId, async (trx) => {
      await trx('payments').where({ id: paymentId }).update({ processor_transfer_id: res.id, updated_at: clock.now() });
      if (res.status === 'failed') await setPaymentStatus(trx, paymentId, 'failed', { reason: 'refused by the processor' });
    });
  } catch (err) {
    if (!(err instanceof ProcessorApiError)) throw err;
    svc.log.warn({ err, paymentId, tenantId }, 'processor refused a transfer');
    await withTenant(svc.db.app, tenantId, (trx) => setPaymentStatus(trx, paymentId, 'failed', { reason: err.message }));
  }
}

// ------------------------------------------------------------ inbound events

export class ProcessorEventError extends AppError {}

const EFFECTS: Record<string, 'completed' | 'failed' | 'reversed'> = {
  'transfer.success': 'completed',
  'transfer.failed': 'failed',
  'transfer.reversed': 'reversed',
};

/**
 * Verify and apply one inbound event. Any refusal throws before anything is written (the
 * tenant transaction rolls back). A redelivered event (same event and transfer id) is
 * acknowledged and changes nothing.
 */
export async function handleProcessorEvent(svc: AppServices, raw: Buffer, signature: string | undefined): Promise<{ event: string }> {
  if (!signature) throw new UnauthorizedError('Missing x-processor-signature header', 'MISSING_SIGNATURE');
  const body = callbackJson(raw) as { event?: unknown; data?: Record<string, unknown> };
  if (typeof body?.event !== 'string' || typeof body.data !== 'object' || body.data === null) {
    throw new ValidationError('Body must have `event` (string) and `data` (object)', [], 'INVALID_EVENT');
  }
  const event = body.event;
  const data = body.data;
  const ref = parseReference(data.reference);
  if (!ref) throw new NotFoundError('Payment reference', 'UNKNOWN_REFERENCE');
  // Cross-tenant by nature: which workspace does this reference name? (owner pool, one row)
  const tenant = await svc.db.owner('tenants').where({ uuid: ref.workspaceUuid }).first('id');
  if (!tenant) throw new NotFoundError('Payment reference', 'UNKNOWN_REFERENCE');
  return withTenant(svc.db.app, tenant.id, async (trx) => {
    const secret = await workspaceSecret(trx, svc, false);
    if (!secret) throw new NotFoundError('Payment reference', 'UNKNOWN_REFERENCE');
    if (!safeEqual(signBody(raw, secret), signature.trim().toLowerCase())) throw new UnauthorizedError('Invalid signature', 'INVALID_SIGNATURE');
    const payment = await trx('payments').where({ id: ref.paymentId, reference: data.reference as string }).forUpdate().first();
    if (!payment) throw new NotFoundError('Payment reference', 'UNKNOWN_REFERENCE');
    const key = `${event}:${String(data.id ?? data.transfer_code ?? '')}`;
    const fresh = await trx.raw(
      `INSERT INTO processor_events (tenant_id, event_key, event, payment_id, payload, received_at)
       VALUES (app_tenant_id(), ?, ?, ?, ?::jsonb, ?) ON CONFLICT DO NOTHING`,
      [key, event, payment.id, raw.toString('utf8'), clock.now()],
    );
    if (!fresh.rowCount) return { event }; // redelivery: already applied
    const status = EFFECTS[event];
    if (!status) return { event }; // other event types are recorded, not acted on
    const at = typeof data.transferred_at === 'string' && !Number.isNaN(Date.parse(data.transferred_at)) ? new Date(data.transferred_at) : clock.now();
    await trx('payments').where({ id: payment.id }).update({ processor_transfer_id: payment.processor_transfer_id ?? (data.id !== undefined ? String(data.id) : null) });
    await setPaymentStatus(trx, payment.id, status, {
      completedAt: status === 'completed' ? at : undefined,
      reason: status === 'completed' ? undefined : typeof data.reason === 'string' ? data.reason : null,
    });
    return { event };
  });
}
