/**
 * The workspace's distributor credentials (docs/partners.md, "Distributor credentials"): a token and an optional webhook
 * secret, both sealed at rest. Neither is ever returned, logged or put in an error: the
 * status shows `tokenHint` (the last 4 characters of the token, no more) and timestamps only.
 *
 * credentialState: `missing` (nothing stored), `valid` (the distributor accepted the token
 * when it was set), `invalid` (it refused it), `unverified` (no DISTRIBUTOR_API_URL, or the
 * distributor did not answer).
 */
import type { AppServices } from '../../services';
import type { Trx } from '../../db';
import { NotFoundError } from '../../lib/errors';
import { clock } from '../../lib/clock';
import { iso } from '../money/common';
import { PartnerApiError } from '../partners/http-client';
import { tx } from '../partners/common';
import { DistributorClient } from './client';

export type CredentialState = 'missing' | 'valid' | 'invalid' | 'unverified';

export async function credentialStatus(trx: Trx, svc: AppServices) {
  const r = await trx('distributor_credentials').first();
  const token = r ? svc.secrets.open(r.token_sealed) : null;
  return {
    providerSeeded: !!svc.cfg.distributorApiUrl,
    configured: !!r,
    isEnabled: r ? !!r.is_enabled : false,
    credentialState: (r ? r.credential_state : 'missing') as CredentialState,
    hasToken: !!token,
    // the masked status (docs/partners.md): at most the last 4 characters of the token, nothing else
    tokenHint: token ? token.slice(-4) : null,
    tokenUpdatedAt: r ? iso(r.token_updated_at) : null,
    hasWebhookSecret: !!r?.webhook_secret_sealed,
    webhookSecretUpdatedAt: r ? iso(r.webhook_secret_updated_at) : null,
  };
}

/** Ask the distributor whether it accepts the token (no answer: unverified). */
async function verify(svc: AppServices, token: string): Promise<CredentialState> {
  if (!svc.cfg.distributorApiUrl) return 'unverified';
  try {
    await new DistributorClient(svc.cfg.distributorApiUrl, token, svc.cfg.partnerTimeoutMs).me();
    return 'valid';
  } catch (err) {
    if (!(err instanceof PartnerApiError)) throw err;
    if (err.httpStatus === 401 || err.httpStatus === 403) return 'invalid';
    svc.log.warn({ partnerStatus: err.httpStatus }, 'distributor did not confirm a token');
    return 'unverified';
  }
}

/** PUT /ddex/distributor/credentials: set or rotate; an omitted webhookSecret keeps the stored one. */
export async function setCredentials(svc: AppServices, tenantId: number, input: { token: string; webhookSecret?: string }) {
  const state = await verify(svc, input.token);
  return tx(svc, tenantId, async (trx) => {
    const now = clock.now();
    const row: Record<string, unknown> = { token_sealed: svc.secrets.seal(input.token), token_updated_at: now, credential_state: state, updated_at: now };
    if (input.webhookSecret !== undefined) (row.webhook_secret_sealed = svc.secrets.seal(input.webhookSecret)), (row.webhook_secret_updated_at = now);
    const n = await trx('distributor_credentials').update(row);
    if (!n) await trx('distributor_credentials').insert({ ...row, tenant_id: trx.raw('app_tenant_id()'), is_enabled: true, created_at: now });
    return credentialStatus(trx, svc);
  });
}

/** The workspace's distributor client (for catalogue import and deliveries); 404 when none. */
export async function distributorClient(svc: AppServices, tenantId: number): Promise<DistributorClient> {
  if (!svc.cfg.distributorApiUrl) throw new NotFoundError('Distributor (DISTRIBUTOR_API_URL is not set on this installation)', 'PARTNER_NOT_CONFIGURED');
  const token = await tx(svc, tenantId, async (trx) => {
    const r = await trx('distributor_credentials').where({ is_enabled: true }).first('token_sealed');
    return r ? svc.secrets.open(r.token_sealed) : null;
  });
  if (!token) throw new NotFoundError('Distributor credentials');
  return new DistributorClient(svc.cfg.distributorApiUrl, token, svc.cfg.partnerTimeoutMs);
}

/** The stored webhook secret (to verify the distributor's signed deliveries), or null. */
export async function webhookSecret(trx: Trx, svc: AppServices): Promise<string | null> {
  const r = await trx('distributor_credentials').first('webhook_secret_sealed');
  return r?.webhook_secret_sealed ? svc.secrets.open(r.webhook_secret_sealed) : null;
}
