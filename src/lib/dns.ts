/**
 * DNS TXT lookups behind one adapter: custom-domain and e-mail-domain verification read TXT
 * records through it. The real one asks the system's resolvers (or DNS_SERVERS); tests put
 * a fake in its place.
 */
import { Resolver } from 'node:dns/promises';

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
