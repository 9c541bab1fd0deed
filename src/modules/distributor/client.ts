/**
 * HTTP client of the distributor (protocol: src/sandbox/distributor.ts, docs/partners.md):
 * Bearer token; `GET /me` checks a token, `GET /releases` pages the catalogue the
 * distributor holds for the account.
 */
import { callPartner } from '../partners/http-client';

export interface DistributorRelease {
  id: string;
  title: string;
  artist: string;
  upc: string | null;
  releaseDate: string | null;
  label: string | null;
  tracks: { isrc: string | null; title: string; durationSeconds: number | null }[];
}

export class DistributorClient {
  constructor(
    private readonly baseUrl: string,
    private readonly token: string,
    private readonly timeoutMs: number,
  ) {}

  private call<T>(path: string) {
    return callPartner<T>('distributor', `${this.baseUrl}${path}`, { timeoutMs: this.timeoutMs, headers: { authorization: `Bearer ${this.token}` } });
  }

  async me() {
    return (await this.call<{ data: { accountId: string; name: string } }>('/me')).body.data;
  }

  async releases(query: string, page: number, perPage: number) {
    const q = new URLSearchParams({ query, page: String(page), per_page: String(perPage) });
    return (await this.call<{ data: DistributorRelease[]; meta: { page: number; per_page: number; total: number } }>(`/releases?${q}`)).body;
  }
}
