/**
 * Sandbox FX payout partner: multi-currency wallets, beneficiaries, purpose codes and
 * payouts, modelled on the usual cross-border payout API.
 *
 *   Authorization: Bearer <API key>       any non-empty key is accepted; each key is its own account
 *   GET    /v1/account                     {data:{id, name, webhookUrl}}
 *   PUT    /v1/webhook {url}               where signed payout callbacks go
 *   GET    /v1/wallets?page&per_page       {data:[{id, label, currency, balance}], meta:{page, per_page, total}}
 *   GET|POST /v1/beneficiaries, GET|PUT|DELETE /v1/beneficiaries/{id}
 *   GET    /v1/purpose-codes               {data:[{code, description}]}
 *   POST   /v1/payouts  (Idempotency-Key header required)
 *          same key + same body → 200 and the same payout; same key + other body → 422 idempotency_key_reused
 *   GET    /v1/payouts/{id}                {data: payout}
 *
 * A payout: {id, status: pending|processing|completed|failed, amount, currency, rate (USD per
 * unit of currency), wallet_id, beneficiary_id, reference, external_id, memo, purpose_code, created_at, updated_at}.
 * Callbacks: POST <webhook url> {id: "evt_…", type: "payout.updated", created_at, data: payout}
 * with `x-fxpartner-signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" keyed with the API key>`.
 *
 * Control (tests, or by hand): `settle(id, status, {duplicate, staleAfter})` / POST
 * /_sandbox/payouts/{id}/settle {status, duplicate?, staleAfter?}: move a payout and send its
 * callback (twice when `duplicate`; followed by a stale `processing` callback when
 * `staleAfter`, i.e. out of order). `autoSettleMs` completes every payout on its own.
 */
import crypto from 'node:crypto';
import { FakeServer, SandboxError, bearer, json, pageOf, postJson, type SandboxRequest } from './http';

/** USD per unit (decimal strings: the sandbox never does float money either). */
export const FX_RATES: Record<string, string> = { USD: '1', EUR: '1.08', GBP: '1.27', NGN: '0.00065', KES: '0.0077', GHS: '0.064', ZAR: '0.055', CAD: '0.73', BRL: '0.18', JPY: '0.0067', INR: '0.012', MXN: '0.058' };

export const PURPOSE_CODES = [
  { code: 'ROY', description: 'Royalty payment' },
  { code: 'SVC', description: 'Payment for services' },
  { code: 'ADV', description: 'Advance against royalties' },
  { code: 'FEE', description: 'Licence or sync fee' },
  { code: 'OTH', description: 'Other' },
];

export interface FxPayout {
  id: string;
  status: 'pending' | 'processing' | 'completed' | 'failed';
  amount: string;
  currency: string;
  rate: string;
  wallet_id: string;
  beneficiary_id: string;
  reference: string;
  /** The caller's own id for the payout (Rondo: its payment request id), echoed in callbacks. */
  external_id: string | null;
  memo: string | null;
  purpose_code: string | null;
  created_at: string;
  updated_at: string;
}

interface Account {
  key: string;
  id: string;
  webhookUrl: string | null;
  wallets: { id: number; label: string; currency: string; balance: string }[];
  beneficiaries: Map<string, Record<string, unknown>>;
  payouts: Map<string, FxPayout>;
  idem: Map<string, { hash: string; id: string }>;
}

const WALLET_CURRENCIES = ['USD', 'EUR', 'GBP', 'NGN', 'KES', 'GHS', 'ZAR', 'CAD', 'BRL', 'JPY', 'INR', 'MXN'];
const BENEFICIARY_FIELDS = ['name', 'currency', 'country', 'accountNumber', 'bankCode', 'bankName', 'iban', 'swift', 'email', 'type'];

export function signFx(raw: string, key: string, t = Math.floor(Date.now() / 1000)): string {
  return `t=${t},v1=${crypto.createHmac('sha256', key).update(`${t}.${raw}`).digest('hex')}`;
}

export class FakeFxPartner extends FakeServer {
  readonly accounts = new Map<string, Account>();
  /** Every callback sent: its URL, body and the HTTP status Rondo answered (0: unreachable). */
  readonly callbacks: { url: string; body: any; status: number }[] = [];
  autoSettleMs: number | null = null;
  private seq = 1;

  constructor() {
    super('fxpartner');
    this.on('GET', '/v1/account', (r) => {
      const a = this.account(r);
      return json(200, { data: { id: a.id, name: `Sandbox account ${a.id}`, webhookUrl: a.webhookUrl } });
    });
    this.on('PUT', '/v1/webhook', (r) => {
      const a = this.account(r);
      if (typeof r.body.url !== 'string' || !/^https?:\/\//.test(r.body.url)) throw new SandboxError(422, { error: 'invalid_url', message: 'url must be an http(s) URL' });
      a.webhookUrl = r.body.url;
      return json(200, { data: { url: a.webhookUrl } });
    });
    this.on('GET', '/v1/wallets', (r) => json(200, pageOf(r, this.account(r).wallets)));
    this.on('GET', '/v1/purpose-codes', (r) => (this.account(r), json(200, { data: PURPOSE_CODES })));
    this.on('GET', '/v1/beneficiaries', (r) => json(200, pageOf(r, [...this.account(r).beneficiaries.values()], 50)));
    this.on('POST', '/v1/beneficiaries', (r) => {
      const a = this.account(r);
      const b = this.beneficiaryFields(r.body, true);
      const id = `ben_${this.seq++}`;
      const rec = { id, ...b, created_at: new Date().toISOString() };
      a.beneficiaries.set(id, rec);
      return json(201, { data: rec });
    });
    this.on('GET', '/v1/beneficiaries/:id', (r) => json(200, { data: this.beneficiary(r) }));
    this.on('PUT', '/v1/beneficiaries/:id', (r) => {
      const b = this.beneficiary(r);
      Object.assign(b, this.beneficiaryFields(r.body, false));
      return json(200, { data: b });
    });
    this.on('DELETE', '/v1/beneficiaries/:id', (r) => {
      this.beneficiary(r);
      this.account(r).beneficiaries.delete(r.params.id!);
      return { status: 204 };
    });
    this.on('POST', '/v1/payouts', (r) => this.createPayout(r));
    this.on('GET', '/v1/payouts/:id', (r) => {
      const p = this.account(r).payouts.get(r.params.id!);
      if (!p) throw new SandboxError(404, { error: 'not_found', message: 'No such payout' });
      return json(200, { data: p });
    });
    this.on('POST', '/_sandbox/payouts/:id/settle', async (r) => json(200, { data: await this.settle(r.params.id!, r.body.status, r.body) }));
  }

  private account(r: SandboxRequest): Account {
    const key = bearer(r);
    let a = this.accounts.get(key);
    if (!a) {
      a = {
        key,
        id: `acc_${this.accounts.size + 1}`,
        webhookUrl: null,
        wallets: WALLET_CURRENCIES.map((c, i) => ({ id: i + 1, label: `${c} wallet`, currency: c, balance: c === 'JPY' ? '1500000' : '250000.00' })),
        beneficiaries: new Map(),
        payouts: new Map(),
        idem: new Map(),
      };
      this.accounts.set(key, a);
    }
    return a;
  }

  private beneficiary(r: SandboxRequest): Record<string, unknown> {
    const b = this.account(r).beneficiaries.get(r.params.id!);
    if (!b) throw new SandboxError(404, { error: 'not_found', message: 'No such beneficiary' });
    return b;
  }

  private beneficiaryFields(body: Record<string, unknown>, create: boolean) {
    const out: Record<string, unknown> = {};
    for (const f of BENEFICIARY_FIELDS) if (body[f] !== undefined) out[f] = body[f];
    if (create) for (const f of ['name', 'currency', 'country', 'accountNumber']) if (typeof body[f] !== 'string' || !body[f]) throw new SandboxError(422, { error: 'invalid_beneficiary', message: `${f} is required` });
    if (out.currency !== undefined && !FX_RATES[String(out.currency)]) throw new SandboxError(422, { error: 'unsupported_currency', message: `currency ${String(out.currency)} is not supported` });
    return out;
  }

  private createPayout(r: SandboxRequest) {
    const a = this.account(r);
    const key = String(r.headers['idempotency-key'] ?? '');
    if (!key) throw new SandboxError(400, { error: 'idempotency_key_required', message: 'Idempotency-Key header is required' });
    const hash = crypto.createHash('sha256').update(r.raw).digest('hex');
    const seen = a.idem.get(key);
    if (seen) {
      if (seen.hash !== hash) throw new SandboxError(422, { error: 'idempotency_key_reused', message: 'This Idempotency-Key was used with a different request body' });
      return json(200, { data: a.payouts.get(seen.id) }, { 'idempotent-replayed': 'true' });
    }
    const b = r.body;
    const amount = String(b.amount ?? '');
    if (!/^[0-9]+(\.[0-9]+)?$/.test(amount) || /^0+(\.0+)?$/.test(amount)) throw new SandboxError(422, { error: 'invalid_amount', message: 'amount must be a positive decimal string' });
    const currency = String(b.currency ?? '');
    if (!FX_RATES[currency]) throw new SandboxError(422, { error: 'unsupported_currency', message: `currency ${currency} is not supported` });
    if (!a.wallets.some((w) => String(w.id) === String(b.wallet_id))) throw new SandboxError(422, { error: 'unknown_wallet', message: 'No such wallet' });
    if (!a.beneficiaries.has(String(b.beneficiary_id))) throw new SandboxError(422, { error: 'unknown_beneficiary', message: 'No such beneficiary' });
    const now = new Date().toISOString();
    const p: FxPayout = {
      id: `pay_${this.seq++}`,
      status: 'pending',
      amount,
      currency,
      rate: FX_RATES[currency]!,
      wallet_id: String(b.wallet_id),
      beneficiary_id: String(b.beneficiary_id),
      reference: String(b.reference ?? ''),
      external_id: b.external_id ?? null,
      memo: b.memo ?? null,
      purpose_code: b.purpose_code ?? null,
      created_at: now,
      updated_at: now,
    };
    a.payouts.set(p.id, p);
    a.idem.set(key, { hash, id: p.id });
    if (this.autoSettleMs !== null) {
      const t = setTimeout(() => void this.settle(p.id, 'completed').catch(() => undefined), this.autoSettleMs);
      t.unref();
    }
    return json(201, { data: p });
  }

  /** Every payout of every account, oldest first. */
  payouts(): FxPayout[] {
    return [...this.accounts.values()].flatMap((a) => [...a.payouts.values()]);
  }

  /** Move a payout to `status` and send its signed callback (see the file header). */
  async settle(id: string, status: FxPayout['status'], opts: { duplicate?: boolean; staleAfter?: boolean; silent?: boolean } = {}): Promise<FxPayout> {
    if (!['processing', 'completed', 'failed'].includes(status)) throw new SandboxError(400, { error: 'status must be processing, completed or failed' });
    const a = [...this.accounts.values()].find((x) => x.payouts.has(id));
    if (!a) throw new SandboxError(404, { error: 'not_found', message: 'No such payout' });
    const p = a.payouts.get(id)!;
    const before = { ...p };
    p.status = status;
    p.updated_at = new Date().toISOString();
    if (opts.silent || !a.webhookUrl) return p;
    const event = { id: `evt_${this.seq++}`, type: 'payout.updated', created_at: p.updated_at, data: { ...p } };
    const sends = [event];
    if (opts.duplicate) sends.push(event);
    if (opts.staleAfter) sends.push({ id: `evt_${this.seq++}`, type: 'payout.updated', created_at: before.updated_at, data: { ...before, status: 'processing' } });
    for (const e of sends) await this.callback(a, e);
    return p;
  }

  private async callback(a: Account, body: unknown) {
    const raw = JSON.stringify(body);
    const status = await postJson(a.webhookUrl!, raw, { 'x-fxpartner-signature': signFx(raw, a.key) });
    this.callbacks.push({ url: a.webhookUrl!, body, status });
  }
}
