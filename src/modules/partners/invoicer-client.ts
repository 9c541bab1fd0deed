/**
 * HTTP client of the invoicing partner: an OAuth 2.0 client (authorization code grant,
 * refresh tokens; client credentials sent with HTTP Basic) and the invoices API
 * (protocol: src/sandbox/invoicer.ts, docs/partners.md).
 */
import type { InvoicerConfig } from '../../config';
import { callPartner } from './http-client';

export interface TokenSet {
  access_token: string;
  token_type: string;
  expires_in?: number;
  refresh_token?: string;
  scope?: string;
}

export interface PartnerInvoice {
  uuid: string;
  number: string;
  type: string;
  status: string;
  contact?: { name?: string } | null;
  issue_date?: string | null;
  currency: string;
  total: string;
  description?: string | null;
  exchange_rate?: string | null;
}

export class InvoicerClient {
  constructor(
    private readonly cfg: InvoicerConfig,
    private readonly timeoutMs: number,
  ) {}

  authorizeUrl(state: string, redirectUri: string): string {
    const u = new URL(this.cfg.authorizeUrl);
    u.searchParams.set('response_type', 'code');
    u.searchParams.set('client_id', this.cfg.clientId);
    u.searchParams.set('redirect_uri', redirectUri);
    u.searchParams.set('scope', this.cfg.scope);
    u.searchParams.set('state', state);
    return u.toString();
  }

  private async token(form: Record<string, string>): Promise<TokenSet> {
    const basic = Buffer.from(`${encodeURIComponent(this.cfg.clientId)}:${encodeURIComponent(this.cfg.clientSecret)}`).toString('base64');
    const r = await callPartner<TokenSet>('invoicer', this.cfg.tokenUrl, { method: 'POST', body: new URLSearchParams(form), headers: { authorization: `Basic ${basic}` }, timeoutMs: this.timeoutMs });
    if (!r.body || typeof r.body.access_token !== 'string') throw new Error('invoicer token answer without access_token');
    return r.body;
  }

  exchangeCode(code: string, redirectUri: string) {
    return this.token({ grant_type: 'authorization_code', code, redirect_uri: redirectUri });
  }

  refresh(refreshToken: string) {
    return this.token({ grant_type: 'refresh_token', refresh_token: refreshToken });
  }

  private api<T>(accessToken: string, method: string, path: string) {
    return callPartner<T>('invoicer', `${this.cfg.apiUrl}${path}`, { method, timeoutMs: this.timeoutMs, headers: { authorization: `Bearer ${accessToken}` } });
  }

  async invoices(accessToken: string, page: number, perPage: number) {
    return (await this.api<{ data: PartnerInvoice[]; meta: { page: number; per_page: number; total: number } }>(accessToken, 'GET', `/invoices?page=${page}&per_page=${perPage}`)).body;
  }
  async invoice(accessToken: string, uuid: string) {
    return (await this.api<{ data: PartnerInvoice }>(accessToken, 'GET', `/invoices/${encodeURIComponent(uuid)}`)).body.data;
  }
  async deleteInvoice(accessToken: string, uuid: string) {
    await this.api(accessToken, 'DELETE', `/invoices/${encodeURIComponent(uuid)}`);
  }
}
