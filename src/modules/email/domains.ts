/**
 * E-mail domains: a workspace's own sender domain. Adding one generates a DKIM key pair
 * (RSA 2048; the private key sealed) and answers the DNS records to publish: the DKIM key,
 * an SPF include and an ownership TXT record. Verification reads them through the DNS
 * adapter (svc.dns); a verified domain signs the workspace's outgoing mail (settings.ts).
 */
import crypto from 'node:crypto';
import type { Trx } from '../../db';
import type { AppServices } from '../../services';
import { assertUnclaimed, normaliseDomain, VERIFY_PREFIX, type TxtResolver } from '../../lib/dns';
import { randomToken } from '../../lib/crypto';
import { clock } from '../../lib/clock';
import { NotFoundError, ValidationError } from '../../lib/errors';

type Deps = Pick<AppServices, 'cfg' | 'secrets'>;
type AddDeps = Deps & Pick<AppServices, 'db'>;

export interface DnsRecord {
  purpose: 'dkim' | 'spf' | 'verification';
  type: 'TXT';
  name: string;
  value: string;
}

function records(cfg: Deps['cfg'], r: Record<string, any>): DnsRecord[] {
  return [
    { purpose: 'verification', type: 'TXT', name: `${VERIFY_PREFIX}.${r.domain}`, value: `rondo-verify=${r.verification_token}` },
    { purpose: 'dkim', type: 'TXT', name: `${r.selector}._domainkey.${r.domain}`, value: `v=DKIM1; k=rsa; p=${r.dkim_public_key}` },
    { purpose: 'spf', type: 'TXT', name: r.domain, value: `v=spf1 include:${cfg.mailSpfInclude} ~all` },
  ];
}

function view(cfg: Deps['cfg'], r: Record<string, any>) {
  return {
    id: r.id as string,
    domain: r.domain as string,
    status: r.status as 'pending' | 'verified',
    selector: r.selector as string,
    records: records(cfg, r),
    checks: (r.checks as { verification: boolean; dkim: boolean; spf: boolean } | null) ?? null,
    verifiedAt: r.verified_at ? new Date(r.verified_at).toISOString() : null,
    checkedAt: r.checked_at ? new Date(r.checked_at).toISOString() : null,
    lastError: (r.last_error as string | null) ?? null,
    createdAt: new Date(r.created_at).toISOString(),
  };
}

export async function addEmailDomain(d: AddDeps, trx: Trx, tenantId: number, raw: string) {
  const domain = normaliseDomain(raw);
  if (await trx('email_domains').where({ tenant_id: tenantId }).whereRaw('lower(domain) = ?', [domain]).first('id')) {
    throw new ValidationError('This e-mail domain is already added', [`body.domain ${domain} is already on this workspace`], 'EMAIL_DOMAIN_EXISTS');
  }
  await assertUnclaimed(d.db.owner, 'email_domains', tenantId, domain);
  const { publicKey, privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pub = publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const selector = `rondo${clock.now().toISOString().slice(0, 10).replace(/-/g, '')}`;
  const [row] = await trx('email_domains')
    .insert({ tenant_id: tenantId, domain, selector, dkim_public_key: pub, dkim_private_key_sealed: d.secrets.seal(pem), verification_token: randomToken(24), created_at: clock.now(), updated_at: clock.now() })
    .returning('*');
  return view(d.cfg, row);
}

export async function listEmailDomains(d: Deps, trx: Trx, tenantId: number) {
  return (await trx('email_domains').where({ tenant_id: tenantId }).orderBy('created_at').orderBy('id')).map((r) => view(d.cfg, r));
}

async function domainRow(trx: Trx, tenantId: number, id: string) {
  const row = await trx('email_domains').where({ tenant_id: tenantId, id }).first();
  if (!row) throw new NotFoundError('E-mail domain', 'EMAIL_DOMAIN_NOT_FOUND');
  return row;
}

export async function getEmailDomain(d: Deps, trx: Trx, tenantId: number, id: string) {
  return view(d.cfg, await domainRow(trx, tenantId, id));
}

/** DKIM TXT values hold `k=v` tags separated by `;` (whitespace anywhere); the record matches when its p= is our key. */
function dkimMatches(found: string[], pub: string): boolean {
  return found.some((v) => {
    const tags = new Map(v.split(';').map((t) => t.replace(/\s+/g, '')).filter(Boolean).map((t) => [t.slice(0, t.indexOf('=')), t.slice(t.indexOf('=') + 1)] as const));
    return tags.get('p') === pub && (tags.get('v') ?? 'DKIM1') === 'DKIM1';
  });
}

/**
 * Reads the three records. Ownership and DKIM must both be published for the domain to be
 * verified; SPF is checked and reported (a domain may authorise our servers another way).
 * The outcome is kept on the domain (`checks`, `lastError` naming each missing record): a
 * domain not yet published answers 200 with status `pending`, so the checks stay visible.
 */
export async function verifyEmailDomain(d: Deps, trx: Trx, tenantId: number, id: string, dns: TxtResolver) {
  const row = await domainRow(trx, tenantId, id);
  const [want, dkimRec, spfRec] = records(d.cfg, row);
  const [own, dkim, spf] = await Promise.all([dns.resolveTxt(want!.name), dns.resolveTxt(dkimRec!.name), dns.resolveTxt(spfRec!.name)]);
  const checks = {
    verification: own.some((v) => v.trim() === want!.value),
    dkim: dkimMatches(dkim, row.dkim_public_key),
    spf: spf.some((v) => /^v=spf1\s/i.test(v.trim()) && v.split(/\s+/).includes(`include:${d.cfg.mailSpfInclude}`)),
  };
  const missing = [
    ...(checks.verification ? [] : [`publish a TXT record at ${want!.name} with the value ${want!.value}`]),
    ...(checks.dkim ? [] : [`publish a TXT record at ${dkimRec!.name} with the value ${dkimRec!.value}`]),
  ];
  const ok = missing.length === 0;
  const [updated] = await trx('email_domains')
    .where({ tenant_id: tenantId, id })
    .update({
      checks: JSON.stringify(checks),
      checked_at: clock.now(),
      last_error: ok ? null : missing.join('; '),
      status: ok ? 'verified' : row.status,
      verified_at: ok ? (row.verified_at ?? clock.now()) : row.verified_at,
      updated_at: clock.now(),
    })
    .returning('*');
  return view(d.cfg, updated);
}

export async function removeEmailDomain(trx: Trx, tenantId: number, id: string): Promise<void> {
  const row = await domainRow(trx, tenantId, id);
  await trx('email_domains').where({ tenant_id: tenantId, id }).delete();
  // a sender address on the removed domain falls back to the default sender
  await trx('email_settings').where({ tenant_id: tenantId }).whereRaw(`lower(split_part(from_email, '@', 2)) = ?`, [row.domain.toLowerCase()]).update({ from_email: null, updated_at: clock.now() });
}
