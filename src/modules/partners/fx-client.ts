/**
 * HTTP client of the FX payout partner (protocol: src/sandbox/fxpartner.ts, docs/partners.md).
 * Bearer API key; payouts carry an Idempotency-Key; lists page with page/per_page.
 */
import { callPartner } from './http-client';

export interface FxWallet {
  id: number;
  label: string;
  currency: string;
  balance: string;
}

export interface FxPayoutView {
  id: string;
  status: string;
  amount: string;
  currency: string;
  rate?: string;
  wallet_id: string;
  beneficiary_id: string;
  reference: string;
  external_id?: string | null;
  updated_at?: string;
}

export interface Paged<T> {
  data: T[];
  meta: { page: number; per_page: number; total: number };
}

export class FxPartnerClient {
  constructor(
    private readonly baseUrl: string,
    private readonly apiKey: string,
    private readonly timeoutMs: number,
  ) {}

  private call<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    return callPartner<T>('fxpartner', `${this.baseUrl}${path}`, { method, body, timeoutMs: this.timeoutMs, headers: { authorization: `Bearer ${this.apiKey}`, ...headers } });
  }

  async account() {
    return (await this.call<{ data: { id: string; name: string; webhookUrl: string | null } }>('GET', '/v1/account')).body.data;
  }
  async setWebhook(url: string) {
    await this.call('PUT', '/v1/webhook', { url });
  }
  async wallets(page: number, perPage: number) {
    return (await this.call<Paged<FxWallet>>('GET', `/v1/wallets?page=${page}&per_page=${perPage}`)).body;
  }
  async beneficiaries(page: number, perPage: number) {
    return (await this.call<Paged<Record<string, unknown>>>('GET', `/v1/beneficiaries?page=${page}&per_page=${perPage}`)).body;
  }
  async beneficiary(id: string) {
    return (await this.call<{ data: Record<string, unknown> }>('GET', `/v1/beneficiaries/${encodeURIComponent(id)}`)).body.data;
  }
  async createBeneficiary(b: Record<string, unknown>) {
    return (await this.call<{ data: Record<string, unknown> }>('POST', '/v1/beneficiaries', b)).body.data;
  }
  async updateBeneficiary(id: string, b: Record<string, unknown>) {
    return (await this.call<{ data: Record<string, unknown> }>('PUT', `/v1/beneficiaries/${encodeURIComponent(id)}`, b)).body.data;
  }
  async deleteBeneficiary(id: string) {
    await this.call('DELETE', `/v1/beneficiaries/${encodeURIComponent(id)}`);
  }
  async purposeCodes() {
    return (await this.call<{ data: { code: string; description: string }[] }>('GET', '/v1/purpose-codes')).body.data;
  }
  /** Create a payout; the same key with the same body answers the same payout (no second payment). */
  async createPayout(idempotencyKey: string, p: { external_id: string; beneficiary_id: string; wallet_id: string; amount: string; currency: string; reference: string; memo: string | null; purpose_code: string | null }) {
    return (await this.call<{ data: FxPayoutView }>('POST', '/v1/payouts', p, { 'idempotency-key': idempotencyKey })).body.data;
  }
  async payout(id: string) {
    return (await this.call<{ data: FxPayoutView }>('GET', `/v1/payouts/${encodeURIComponent(id)}`)).body.data;
  }
}
