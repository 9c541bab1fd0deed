/**
 * DNS TXT lookups behind one adapter: custom-domain and e-mail-domain verification read TXT
 * records through it. The real one asks the system's resolvers (or DNS_SERVERS); tests put
 * a fake in its place.
 */
import { Resolver } from 'node:dns/promises';
import type { Knex } from 'knex';
import { ConflictError, ValidationError } from './errors';

/** Where a domain's ownership TXT record lives: `<VERIFY_PREFIX>.<domain>`. */
export const VERIFY_PREFIX = '_rondo-verify';
const HOST_RE = /^(?=.{4,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** Lower case, no trailing dot, a real host name (two labels at least, no IP address, no port). */
export function normaliseDomain(raw: string, field = 'body.domain'): string {
  const d = raw.trim().toLowerCase().replace(/\.$/, '');
  if (!HOST_RE.test(d)) throw new ValidationError('Invalid domain', [`${field} must be a host name such as royalties.example.com (no scheme, port or path)`]);
  return d;
}

/**
 * A domain added to one workspace (pending or verified) cannot be added to another: its
 * verification record would otherwise be a race, and a pending claim would let a workspace
 * squat on a domain it does not hold. `owner` sees every workspace (row-level security would
 * hide the other claims). 409 `DOMAIN_CLAIMED` (answered as 400, docs/errors.md).
 */
export async function assertUnclaimed(owner: Knex, table: 'custom_domains' | 'email_domains', tenantId: number, domain: string, field = 'body.domain'): Promise<void> {
  const other = await owner(table).whereRaw('lower(domain) = ?', [domain]).whereNot({ tenant_id: tenantId }).first('id');
  if (other) throw new ConflictError('This domain belongs to another workspace', [`${field} ${domain} is already added to another workspace (pending or verified); it can be added here once that workspace removes it`], 'DOMAIN_CLAIMED');
}

export interface TxtResolver {
  /** The TXT records at `name`, each joined from its strings; [] when there are none. */
  resolveTxt(name: string): Promise<string[]>;
}

const ABSENT = new Set(['ENOTFOUND', 'ENODATA', 'NXDOMAIN']);

export class NodeTxtResolver implements TxtResolver {
  private readonly resolver = new Resolver({ timeout: 5000, tries: 2 });
  constructor(servers?: string[]) {
    if (servers?.length) this.resolver.setServers(servers);
  }
  async resolveTxt(name: string): Promise<string[]> {
    try {
      return (await this.resolver.resolveTxt(name)).map((chunks) => chunks.join(''));
    } catch (err) {
      if (ABSENT.has((err as { code?: string }).code ?? '')) return [];
      throw err;
    }
  }
}

/** In-memory records, for tests and local use. */
export class FakeTxtResolver implements TxtResolver {
  readonly records = new Map<string, string[]>();
  set(name: string, values: string[]): void {
    this.records.set(name.toLowerCase(), values);
  }
  async resolveTxt(name: string): Promise<string[]> {
    return this.records.get(name.toLowerCase()) ?? [];
  }
}
