/**
 * Sandbox invoicing partner: an OAuth 2.0 authorization server (authorization code grant
 * with rotating refresh tokens) in front of an invoices API.
 *
 *   GET  /oauth/authorize?response_type=code&client_id&redirect_uri&state[&scope]
 *        → 302 <redirect_uri>?code=…&state=…   (the sandbox consents at once; codes live 10 minutes, single use)
 *   POST /oauth/token  (application/x-www-form-urlencoded; client_id + client_secret in the body or HTTP Basic)
 *        grant_type=authorization_code&code&redirect_uri   |   grant_type=refresh_token&refresh_token
 *        → {access_token, token_type:"Bearer", expires_in, refresh_token, scope}
 *        a refresh token works once: the answer carries its successor
 *   GET    /api/v1/invoices?page&per_page  {data:[invoice], meta:{page, per_page, total}}
 *   GET    /api/v1/invoices/{uuid}         {data: invoice}
 *   DELETE /api/v1/invoices/{uuid}         204
 *   An expired or unknown access token: 401 {error:"invalid_token"}.
 *
 * An invoice: {uuid, number, type: "sales" | "purchase", status: "draft" | "open" | "paid" | "void",
 * contact:{name}, issue_date (YYYY-MM-DD), currency, total (decimal string), description}.
 * Control: `expireTokens()` / POST /_sandbox/expire-tokens ends every access token now.
 */
import crypto from 'node:crypto';
import { FakeServer, SandboxError, bearer, json, pageOf, type SandboxRequest } from './http';

export const INVOICER_SANDBOX_CLIENT = { clientId: 'rondo-sandbox', clientSecret: 'sandbox-client-secret' };

export interface FakeInvoice {
  uuid: string;
  number: string;
  type: 'sales' | 'purchase';
  status: 'draft' | 'open' | 'paid' | 'void';
  contact: { name: string };
  issue_date: string;
  currency: string;
  total: string;
  description: string;
}

const SEED: Omit<FakeInvoice, 'uuid'>[] = [
  { number: 'INV-1001', type: 'sales', status: 'paid', contact: { name: 'Northwind Films' }, issue_date: '2026-09-03', currency: 'USD', total: '1500.00', description: 'Sync licence: "Night Drive" in a trailer' },
  { number: 'INV-1002', type: 'sales', status: 'open', contact: { name: 'City Jazz Festival' }, issue_date: '2026-10-11', currency: 'USD', total: '820.50', description: 'Live performance fee' },
  { number: 'BILL-2001', type: 'purchase', status: 'paid', contact: { name: 'Studio Azul' }, issue_date: '2026-09-20', currency: 'USD', total: '640.25', description: 'Mixing and mastering' },
  { number: 'BILL-2002', type: 'purchase', status: 'open', contact: { name: 'PressWorks' }, issue_date: '2026-10-02', currency: 'USD', total: '210.00', description: 'Vinyl test pressing' },
  { number: 'INV-1003', type: 'sales', status: 'draft', contact: { name: 'Draft Co' }, issue_date: '2026-10-30', currency: 'USD', total: '99.00', description: 'Not sent yet' },
  { number: 'BILL-2003', type: 'purchase', status: 'void', contact: { name: 'Void Ltd' }, issue_date: '2026-08-01', currency: 'USD', total: '55.00', description: 'Cancelled order' },
];

export class FakeInvoicer extends FakeServer {
  readonly client = { ...INVOICER_SANDBOX_CLIENT };
  readonly invoices = new Map<string, FakeInvoice>();
  accessTtlSeconds = 3600;
  private readonly codes = new Map<string, { redirectUri: string; scope: string; expires: number }>();
  private readonly access = new Map<string, number>();
  private readonly refresh = new Set<string>();

  constructor() {
    super('invoicer');
    for (const s of SEED) this.addInvoice(s);
    this.on('GET', '/oauth/authorize', (r) => {
      const q = r.query;
      if (q.get('response_type') !== 'code') return json(400, { error: 'unsupported_response_type' });
      if (q.get('client_id') !== this.client.clientId) return json(400, { error: 'invalid_client' });
      const redirect = q.get('redirect_uri');
      if (!redirect || !/^https?:\/\//.test(redirect)) return json(400, { error: 'invalid_request', error_description: 'redirect_uri' });
      const code = crypto.randomBytes(16).toString('hex');
      this.codes.set(code, { redirectUri: redirect, scope: q.get('scope') ?? 'invoices', expires: Date.now() + 600_000 });
      const to = new URL(redirect);
      to.searchParams.set('code', code);
      if (q.get('state')) to.searchParams.set('state', q.get('state')!);
      return { status: 302, headers: { location: to.toString() } };
    });
    this.on('POST', '/oauth/token', (r) => this.token(r));
    this.on('GET', '/api/v1/invoices', (r) => (this.authorize(r), json(200, pageOf(r, [...this.invoices.values()]))));
    this.on('GET', '/api/v1/invoices/:uuid', (r) => json(200, { data: this.invoice(r) }));
    this.on('DELETE', '/api/v1/invoices/:uuid', (r) => {
      this.invoice(r);
      this.invoices.delete(r.params.uuid!);
      return { status: 204 };
    });
    this.on('POST', '/_sandbox/expire-tokens', () => (this.expireTokens(), json(200, { ok: true })));
  }

  addInvoice(s: Omit<FakeInvoice, 'uuid'>): FakeInvoice {
    const inv = { uuid: crypto.randomUUID(), ...s };
    this.invoices.set(inv.uuid, inv);
    return inv;
  }

  expireTokens(): void {
    for (const k of this.access.keys()) this.access.set(k, 0);
  }

  private authorize(r: SandboxRequest) {
    const t = bearer(r);
    const exp = this.access.get(t);
    if (exp === undefined || exp < Date.now()) throw new SandboxError(401, { error: 'invalid_token', error_description: 'The access token is expired or unknown' });
  }

  private invoice(r: SandboxRequest): FakeInvoice {
    this.authorize(r);
    const inv = this.invoices.get(r.params.uuid!);
    if (!inv) throw new SandboxError(404, { error: 'not_found', message: 'No such invoice' });
    return inv;
  }

  private token(r: SandboxRequest) {
    let id = r.body.client_id as string | undefined;
    let secret = r.body.client_secret as string | undefined;
    const basic = /^Basic (.+)$/.exec(String(r.headers.authorization ?? ''));
    if (basic) [id, secret] = Buffer.from(basic[1]!, 'base64').toString('utf8').split(':', 2);
    if (id !== this.client.clientId || secret !== this.client.clientSecret) return json(401, { error: 'invalid_client' });
    let scope = 'invoices';
    if (r.body.grant_type === 'authorization_code') {
      const c = this.codes.get(String(r.body.code ?? ''));
      this.codes.delete(String(r.body.code ?? ''));
      if (!c || c.expires < Date.now() || c.redirectUri !== r.body.redirect_uri) return json(400, { error: 'invalid_grant', error_description: 'Unknown, used or expired code, or another redirect_uri' });
      scope = c.scope;
    } else if (r.body.grant_type === 'refresh_token') {
      if (!this.refresh.delete(String(r.body.refresh_token ?? ''))) return json(400, { error: 'invalid_grant', error_description: 'Unknown or used refresh token' });
    } else return json(400, { error: 'unsupported_grant_type' });
    const access = `at_${crypto.randomBytes(18).toString('hex')}`;
    const refresh = `rt_${crypto.randomBytes(18).toString('hex')}`;
    this.access.set(access, Date.now() + this.accessTtlSeconds * 1000);
    this.refresh.add(refresh);
    return json(200, { access_token: access, token_type: 'Bearer', expires_in: this.accessTtlSeconds, refresh_token: refresh, scope }, { 'cache-control': 'no-store' });
  }
}
