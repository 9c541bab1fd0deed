/**
 * Custom domains: a workspace adds a host name, publishes a TXT record, then verifies it.
 * One active domain per workspace (docs/platform.md, "Custom domains"); the active one is the workspace's
 * `tenants.custom_domain`, which GET /auth/authtoken resolves by Host (docs/platform.md, "Sign-in by host").
 */
import type { Knex } from 'knex';
import type { Trx } from '../../db';
import type { TxtResolver } from '../../lib/dns';
import { randomToken } from '../../lib/crypto';
import { clock } from '../../lib/clock';
import { NotFoundError, ValidationError } from '../../lib/errors';

import { assertUnclaimed, normaliseDomain, VERIFY_PREFIX } from '../../lib/dns';

export { normaliseDomain, VERIFY_PREFIX };

function view(r: Record<string, any>) {
  return {
    id: r.id as string,
    domain: r.domain as string,
    status: r.status as 'pending' | 'active',
    verification: { type: 'TXT' as const, name: `${VERIFY_PREFIX}.${r.domain}`, value: `rondo-verify=${r.verification_token}` },
    verifiedAt: r.verified_at ? new Date(r.verified_at).toISOString() : null,
    checkedAt: r.checked_at ? new Date(r.checked_at).toISOString() : null,
    lastError: r.last_error ?? null,
    createdAt: new Date(r.created_at).toISOString(),
  };
}

export async function addDomain(owner: Knex, trx: Trx, tenantId: number, raw: string) {
  const domain = normaliseDomain(raw);
  if (await trx('custom_domains').where({ tenant_id: tenantId }).whereRaw('lower(domain) = ?', [domain]).first('id')) {
    throw new ValidationError('This domain is already added', [`body.domain ${domain} is already on this workspace`], 'DOMAIN_EXISTS');
  }
  await assertUnclaimed(owner, 'custom_domains', tenantId, domain);
  const [row] = await trx('custom_domains').insert({ tenant_id: tenantId, domain, verification_token: randomToken(24), created_at: clock.now(), updated_at: clock.now() }).returning('*');
  return view(row);
}

/**
 * `tenant:create --domain` (the operator runs the installation and vouches for the domain, so
 * no TXT record is asked for): the domain, normalised, checked free in every workspace, becomes
 * the workspace's active custom domain. It then selects the workspace by Host as a verified
 * one does, once the workspace's plan includes custom domains.
 */
export async function operatorDomain(owner: Knex, raw: string): Promise<string> {
  const domain = normaliseDomain(raw, '--domain');
  await assertUnclaimed(owner, 'custom_domains', -1, domain, '--domain');
  return domain;
}

export async function activateOperatorDomain(owner: Knex, tenantId: number, domain: string): Promise<void> {
  await owner.transaction(async (trx) => {
    await trx('custom_domains').insert({ tenant_id: tenantId, domain, verification_token: randomToken(24), status: 'active', verified_at: clock.now(), checked_at: clock.now(), created_at: clock.now(), updated_at: clock.now() });
    await trx('tenants').where({ id: tenantId }).update({ custom_domain: domain, updated_at: clock.now() });
  });
}

export async function listDomains(trx: Trx, tenantId: number) {
  return (await trx('custom_domains').where({ tenant_id: tenantId }).orderBy('created_at').orderBy('id')).map(view);
}

async function domainRow(trx: Trx, tenantId: number, id: string) {
  const row = await trx('custom_domains').where({ tenant_id: tenantId, id }).first();
  if (!row) throw new NotFoundError('Domain', 'DOMAIN_NOT_FOUND');
  return row;
}

/** Looks up the TXT record; found: the domain becomes the workspace's active domain. */
export async function verifyDomain(trx: Trx, tenantId: number, id: string, dns: TxtResolver) {
  const row = await domainRow(trx, tenantId, id);
  if (row.status === 'active') return view(row);
  const active = await trx('custom_domains').where({ tenant_id: tenantId, status: 'active' }).first('domain');
  if (active) throw new ValidationError('A workspace has one active custom domain', [`remove ${active.domain} (DELETE /domains/{id}) before activating ${row.domain}`], 'ONE_ACTIVE_DOMAIN');
  const name = `${VERIFY_PREFIX}.${row.domain}`;
  const expected = `rondo-verify=${row.verification_token}`;
  const found = await dns.resolveTxt(name);
  if (!found.some((v) => v.trim() === expected)) {
    throw new ValidationError('The verification record was not found', [`publish a TXT record at ${name} with the value ${expected} (found ${found.length} TXT record(s) there)`], 'DOMAIN_NOT_VERIFIED');
  }
  // Unique indexes refuse a domain already active for another workspace (a 400).
  const [updated] = await trx('custom_domains').where({ tenant_id: tenantId, id }).update({ status: 'active', verified_at: clock.now(), checked_at: clock.now(), last_error: null, updated_at: clock.now() }).returning('*');
  await trx('tenants').where({ id: tenantId }).update({ custom_domain: row.domain, updated_at: clock.now() });
  return view(updated);
}

export async function removeDomain(trx: Trx, tenantId: number, id: string): Promise<void> {
  const row = await domainRow(trx, tenantId, id);
  await trx('custom_domains').where({ tenant_id: tenantId, id }).delete();
  if (row.status === 'active') await trx('tenants').where({ id: tenantId, custom_domain: row.domain }).update({ custom_domain: null, updated_at: clock.now() });
}
