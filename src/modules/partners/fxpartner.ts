/**
 * The FX payout partner of a workspace: its API key (sealed at rest, shown only as a hint),
 * wallets, beneficiaries, the links from beneficiaries to members (whose ledger a payout
 * posts to) and purpose codes. Payout requests live in fx-payouts.ts.
 *
 * Connecting checks the key with the partner and registers the workspace's callback URL
 * (<PUBLIC_URL>/integrations/fxpartner/webhook/<workspace uuid>).
 */
import type { AppServices } from '../../services';
import type { Trx } from '../../db';
import { NotFoundError, ValidationError } from '../../lib/errors';
import { mask } from '../../lib/crypto';
import { clock } from '../../lib/clock';
import { saveIntegrationRow } from '../../lib/integration-row';
import { iso } from '../money/common';
import { FxPartnerClient } from './fx-client';
import { tx, viaPartner } from './common';
import { memberIdsAmong } from '../../repositories/members';

export const FX_PAYOUT_STATUSES = ['pending', 'processing', 'completed', 'failed', 'cancelled'] as const;

export function fxConfigured(svc: AppServices): string {
  if (!svc.cfg.fxpartnerApiUrl) throw new NotFoundError('FX payout partner (FXPARTNER_API_URL is not set on this installation)', 'PARTNER_NOT_CONFIGURED');
  return svc.cfg.fxpartnerApiUrl;
}

export async function webhookUrl(trx: Trx, svc: AppServices): Promise<string> {
  const ws = await trx('tenants').whereRaw('id = app_tenant_id()').first('uuid');
  return `${svc.cfg.publicUrl}/integrations/fxpartner/webhook/${ws.uuid}`;
}

export async function fxStatus(trx: Trx, svc: AppServices) {
  const r = await trx('fx_integrations').first();
  const key = r ? svc.secrets.open(r.api_key_sealed) : null;
  return {
    provider: 'fxpartner',
    configured: !!r,
    isEnabled: r ? !!r.is_enabled : false,
    label: r?.label ?? null,
    hasApiKey: !!key,
    apiKeyHint: mask(key),
    apiKeyUpdatedAt: r ? iso(r.key_updated_at) : null,
    webhookUrl: r ? await webhookUrl(trx, svc) : null,
    updatedAt: r ? iso(r.updated_at) : null,
  };
}

/** The workspace's client (enabled integration only), read in its own short transaction. */
export async function fxClient(svc: AppServices, tenantId: number, opts: { enabledOnly?: boolean } = {}): Promise<FxPartnerClient> {
  const base = fxConfigured(svc);
  const key = await tx(svc, tenantId, async (trx) => {
    const r = await trx('fx_integrations').first();
    if (!r || (opts.enabledOnly !== false && !r.is_enabled)) return null;
    return svc.secrets.open(r.api_key_sealed);
  });
  if (!key) throw new NotFoundError('FX payout integration');
  return new FxPartnerClient(base, key, svc.cfg.partnerTimeoutMs);
}

export interface FxConnectInput {
  apiKey?: string;
  label?: string | null;
  isEnabled?: boolean;
}

/** POST (create) / PUT (update: rotate the key, rename, enable or disable). */
export async function connectFx(svc: AppServices, tenantId: number, input: FxConnectInput, mode: 'create' | 'update') {
  const base = fxConfigured(svc);
  const { exists, hook } = await tx(svc, tenantId, async (trx) => ({ exists: !!(await trx('fx_integrations').first('tenant_id')), hook: await webhookUrl(trx, svc) }));
  if (mode === 'update' && !exists) throw new NotFoundError('FX payout integration');
  if (mode === 'create' && !input.apiKey) throw new ValidationError('apiKey is required', ['body must have property "apiKey"'], 'API_KEY_REQUIRED');
  if (input.apiKey) {
    // a key is checked (and the callback URL registered) before it is stored
    const client = new FxPartnerClient(base, input.apiKey, svc.cfg.partnerTimeoutMs);
    await viaPartner('FX partner account', async () => {
      await client.account();
      await client.setWebhook(hook);
    });
  }
  return tx(svc, tenantId, async (trx) => {
    const cur = await trx('fx_integrations').forUpdate().first();
    const secret = { column: 'api_key_sealed', stampColumn: 'key_updated_at', value: input.apiKey };
    await saveIntegrationRow(trx, 'fx_integrations', cur, (v) => svc.secrets.seal(v), secret, { label: input.label, is_enabled: input.isEnabled }, clock.now());
    return fxStatus(trx, svc);
  });
}

export async function disconnectFx(trx: Trx): Promise<void> {
  const n = await trx('fx_integrations').delete();
  if (!n) throw new NotFoundError('FX payout integration');
}

/** GET /integrations/fxpartner/info: what the partner is and how it talks to Rondo. */
export async function fxInfo(trx: Trx, svc: AppServices) {
  return {
    provider: 'fxpartner',
    name: 'FX payout partner',
    description: 'Pays beneficiaries abroad from multi-currency wallets; signed callbacks and polling report payout outcomes',
    available: !!svc.cfg.fxpartnerApiUrl,
    connected: !!(await trx('fx_integrations').first('tenant_id')),
    configureWith: 'POST /integrations/fxpartner {apiKey}',
    webhookUrl: await webhookUrl(trx, svc),
    signatureHeader: 'x-fxpartner-signature',
    signature: 't=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" keyed with the workspace API key>',
    paymentStatuses: [...FX_PAYOUT_STATUSES],
    walletPageSize: { default: 10, maximum: 50 },
  };
}

export function walletView(w: { id: number | string; label: string; currency: string; balance: string }) {
  return { id: Number(w.id), customReferenceLabel: w.label, currency: w.currency, balance: String(w.balance) };
}

export async function listWallets(svc: AppServices, tenantId: number, page: number, size: number) {
  const client = await fxClient(svc, tenantId);
  const r = await viaPartner('Wallets', () => client.wallets(page, size));
  return { data: r.data.map(walletView), total: r.meta.total };
}

// ------------------------------------------------------------ beneficiaries

const BENEFICIARY_KEYS = ['name', 'currency', 'country', 'accountNumber', 'bankCode', 'bankName', 'iban', 'swift', 'email', 'type'] as const;

function beneficiaryView(b: Record<string, unknown>, links: Map<string, string>) {
  const out: Record<string, unknown> = { id: String(b.id) };
  for (const k of BENEFICIARY_KEYS) out[k] = b[k] ?? null;
  out.linkedUserId = links.get(String(b.id)) ?? null;
  out.createdAt = b.created_at ?? null;
  return out;
}

async function linksOf(svc: AppServices, tenantId: number, ids: string[]): Promise<Map<string, string>> {
  if (!ids.length) return new Map();
  const rows = await tx(svc, tenantId, (trx) => trx('fx_beneficiary_links').whereIn('beneficiary_id', ids).select('beneficiary_id', 'tenant_user_id'));
  return new Map(rows.map((r) => [r.beneficiary_id as string, r.tenant_user_id as string]));
}

export async function listBeneficiaries(svc: AppServices, tenantId: number, page: number, size: number) {
  const client = await fxClient(svc, tenantId);
  const r = await viaPartner('Beneficiaries', () => client.beneficiaries(page, size));
  const links = await linksOf(svc, tenantId, r.data.map((b) => String(b.id)));
  return { data: r.data.map((b) => beneficiaryView(b, links)), total: r.meta.total };
}

export async function getBeneficiary(svc: AppServices, tenantId: number, id: string) {
  const client = await fxClient(svc, tenantId);
  const b = await viaPartner('Beneficiary', () => client.beneficiary(id));
  return beneficiaryView(b, await linksOf(svc, tenantId, [id]));
}

export async function saveBeneficiary(svc: AppServices, tenantId: number, input: Record<string, unknown>, id?: string) {
  const client = await fxClient(svc, tenantId);
  const body = Object.fromEntries(BENEFICIARY_KEYS.filter((k) => input[k] !== undefined).map((k) => [k, input[k]]));
  const b = await viaPartner('Beneficiary', () => (id ? client.updateBeneficiary(id, body) : client.createBeneficiary(body)));
  return beneficiaryView(b, await linksOf(svc, tenantId, [String(b.id)]));
}

export async function deleteBeneficiary(svc: AppServices, tenantId: number, id: string): Promise<void> {
  const client = await fxClient(svc, tenantId);
  await viaPartner('Beneficiary', () => client.deleteBeneficiary(id));
  await tx(svc, tenantId, (trx) => trx('fx_beneficiary_links').where({ beneficiary_id: id }).delete());
}

/** Link a beneficiary to a member: that member's ledger carries the payouts to it. */
export async function linkBeneficiary(svc: AppServices, tenantId: number, beneficiaryId: string, userId: string) {
  const client = await fxClient(svc, tenantId);
  await viaPartner('Beneficiary', () => client.beneficiary(beneficiaryId));
  return tx(svc, tenantId, async (trx) => {
    if (!(await memberIdsAmong(trx, [userId])).length) throw new NotFoundError('User');
    await trx.raw(
      `INSERT INTO fx_beneficiary_links (tenant_id, beneficiary_id, tenant_user_id, created_at) VALUES (app_tenant_id(), ?, ?, ?)
       ON CONFLICT (tenant_id, beneficiary_id) DO UPDATE SET tenant_user_id = EXCLUDED.tenant_user_id, created_at = EXCLUDED.created_at`,
      [beneficiaryId, userId, clock.now()],
    );
    return { beneficiaryId, userId };
  });
}

export async function unlinkBeneficiary(trx: Trx, beneficiaryId: string) {
  const n = await trx('fx_beneficiary_links').where({ beneficiary_id: beneficiaryId }).delete();
  if (!n) throw new NotFoundError('Beneficiary link');
}

export async function purposeCodes(svc: AppServices, tenantId: number) {
  const client = await fxClient(svc, tenantId);
  return viaPartner('Purpose codes', () => client.purposeCodes());
}
