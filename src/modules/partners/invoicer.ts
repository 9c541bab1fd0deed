/**
 * The invoicing partner of a workspace: OAuth 2.0 authorization code flow (state bound to
 * the workspace, tokens sealed at rest, refreshed before expiry and once more on a 401),
 * the partner's invoices, and their import into the ledger.
 *
 * Import (POST …/sync-invoices): `sales` invoices become revenues (100 % to the chosen
 * member), `purchase` invoices become non-recoupable expenses of that member; `draft` and
 * `void` invoices are skipped. One invoice is imported at most once (invoicer_imports), so a
 * re-sync imports only what is new. An invoice in a currency other than the workspace's
 * base currency needs the partner's `exchange_rate`, else it is reported in `failed`.
 */
import crypto from 'node:crypto';
import type { AppServices } from '../../services';
import type { Trx } from '../../db';
import type { AuthContext } from '../auth/tokens';
import { AppError, NotFoundError, ValidationError } from '../../lib/errors';
import { clock } from '../../lib/clock';
import { baseCurrency, iso, money } from '../money/common';
import { createExpense } from '../money/expenses';
import { createRevenue } from '../money/revenues';
import { InvoicerClient, type PartnerInvoice, type TokenSet } from './invoicer-client';
import { PartnerApiError } from './http-client';
import { tx, viaPartner } from './common';
import { memberIdsAmong } from '../../repositories/members';

const STATE_TTL_MS = 10 * 60 * 1000;
/** Refresh this long before the partner's expiry. */
const EARLY_REFRESH_MS = 60 * 1000;

function client(svc: AppServices): InvoicerClient {
  if (!svc.cfg.invoicer) throw new NotFoundError('Invoicing partner (INVOICER_API_URL is not set on this installation)', 'PARTNER_NOT_CONFIGURED');
  return new InvoicerClient(svc.cfg.invoicer, svc.cfg.partnerTimeoutMs);
}

export function redirectUri(svc: AppServices): string {
  return svc.cfg.invoicer?.redirectUri ?? `${svc.cfg.publicUrl}/integrations/invoicer/callback`;
}

export async function invoicerStatus(trx: Trx) {
  const r = await trx('invoicer_connections').first();
  return { provider: 'invoicer', connected: !!r, expiresAt: r ? iso(r.expires_at) : null, scope: r?.scope ?? null, hasRefreshToken: !!r?.refresh_token_sealed };
}

/** GET …/auth/url: where to send the user; `state` ties the answer to this workspace (10 minutes, single use). */
export async function authUrl(trx: Trx, svc: AppServices, auth: AuthContext) {
  const c = client(svc);
  const state = crypto.randomBytes(24).toString('base64url');
  await trx('invoicer_oauth_states').where('expires_at', '<', clock.now()).delete();
  await trx('invoicer_oauth_states').insert({ tenant_id: trx.raw('app_tenant_id()'), state, created_by: auth.tenantUserId, expires_at: new Date(clock.now().getTime() + STATE_TTL_MS) });
  return { url: c.authorizeUrl(state, redirectUri(svc)), state, redirectUri: redirectUri(svc) };
}

async function store(trx: Trx, svc: AppServices, t: TokenSet, keepRefresh: string | null) {
  const now = clock.now();
  const refresh = t.refresh_token ?? keepRefresh;
  const row = {
    access_token_sealed: svc.secrets.seal(t.access_token),
    refresh_token_sealed: refresh ? svc.secrets.seal(refresh) : null,
    expires_at: t.expires_in ? new Date(now.getTime() + t.expires_in * 1000) : null,
    scope: t.scope ?? null,
    updated_at: now,
  };
  const n = await trx('invoicer_connections').update(row);
  if (!n) await trx('invoicer_connections').insert({ ...row, tenant_id: trx.raw('app_tenant_id()'), created_at: now });
}

/** POST …/auth/token {code, state}: exchange the code; the state must be this workspace's, unexpired, unused. */
export async function exchangeToken(svc: AppServices, tenantId: number, code: string, state: string) {
  const c = client(svc);
  const ok = await tx(svc, tenantId, async (trx) => (await trx('invoicer_oauth_states').where({ state }).andWhere('expires_at', '>', clock.now()).delete()) > 0);
  if (!ok) throw new ValidationError('Unknown or expired state: start again from GET /integrations/invoicer/auth/url', [], 'INVALID_STATE');
  const t = await viaPartner('Invoicing partner authorization', () => c.exchangeCode(code, redirectUri(svc)));
  return tx(svc, tenantId, async (trx) => {
    await store(trx, svc, t, null);
    return invoicerStatus(trx);
  });
}

/** GET …/auth/refresh: a new access token (and the partner's next refresh token). */
export async function refreshToken(svc: AppServices, tenantId: number) {
  const c = client(svc);
  const rt = await tx(svc, tenantId, async (trx) => {
    const r = await trx('invoicer_connections').first('refresh_token_sealed');
    if (!r) throw new NotFoundError('Invoicing partner connection');
    return r.refresh_token_sealed ? svc.secrets.open(r.refresh_token_sealed) : null;
  });
  if (!rt) throw new ValidationError('The connection has no refresh token: connect again', [], 'NO_REFRESH_TOKEN');
  let t: TokenSet;
  try {
    t = await c.refresh(rt);
  } catch (err) {
    if (err instanceof PartnerApiError && err.httpStatus === 400) throw new ValidationError('The partner refused the refresh token: connect again', [], 'REFRESH_REFUSED');
    return viaPartner('Invoicing partner', () => Promise.reject(err));
  }
  return tx(svc, tenantId, async (trx) => {
    await store(trx, svc, t, rt);
    return invoicerStatus(trx);
  });
}

/** Run an API call with a fresh access token: refresh first when about to expire, once more on a 401. */
async function withToken<T>(svc: AppServices, tenantId: number, what: string, fn: (c: InvoicerClient, token: string) => Promise<T>): Promise<T> {
  const c = client(svc);
  const read = () =>
    tx(svc, tenantId, async (trx) => {
      const r = await trx('invoicer_connections').first();
      if (!r) throw new NotFoundError('Invoicing partner connection');
      return { token: svc.secrets.open(r.access_token_sealed), expiresAt: r.expires_at as Date | null };
    });
  let cur = await read();
  if (cur.expiresAt && cur.expiresAt.getTime() - EARLY_REFRESH_MS <= clock.now().getTime()) {
    await refreshToken(svc, tenantId);
    cur = await read();
  }
  try {
    return await fn(c, cur.token);
  } catch (err) {
    if (!(err instanceof PartnerApiError) || err.httpStatus !== 401) return viaPartner(what, () => Promise.reject(err));
  }
  await refreshToken(svc, tenantId);
  cur = await read();
  return viaPartner(what, () => fn(c, cur.token));
}

function invoiceView(i: PartnerInvoice, imp: { target_type: string; target_id: string } | undefined) {
  return {
    uuid: i.uuid,
    number: i.number,
    type: i.type,
    status: i.status,
    contactName: i.contact?.name ?? null,
    issueDate: i.issue_date ?? null,
    currency: i.currency,
    total: money(i.total)!,
    description: i.description ?? null,
    importedAs: (imp?.target_type as 'expense' | 'revenue' | undefined) ?? null,
    importedId: imp?.target_id ?? null,
  };
}

async function importsOf(svc: AppServices, tenantId: number, uuids: string[]) {
  if (!uuids.length) return new Map<string, { target_type: string; target_id: string }>();
  const rows = await tx(svc, tenantId, (trx) => trx('invoicer_imports').whereIn('invoice_uuid', uuids).select('invoice_uuid', 'target_type', 'target_id'));
  return new Map(rows.map((r) => [r.invoice_uuid as string, r]));
}

export async function listInvoices(svc: AppServices, tenantId: number, page: number, size: number) {
  const r = await withToken(svc, tenantId, 'Invoices', (c, t) => c.invoices(t, page, size));
  const imp = await importsOf(svc, tenantId, r.data.map((i) => i.uuid));
  return { data: r.data.map((i) => invoiceView(i, imp.get(i.uuid))), total: r.meta.total };
}

export async function getInvoice(svc: AppServices, tenantId: number, uuid: string) {
  const i = await withToken(svc, tenantId, 'Invoice', (c, t) => c.invoice(t, uuid));
  return invoiceView(i, (await importsOf(svc, tenantId, [uuid])).get(uuid));
}

/** Deletes the invoice at the partner; an expense or revenue already imported from it stays. */
export async function deleteInvoice(svc: AppServices, tenantId: number, uuid: string) {
  await withToken(svc, tenantId, 'Invoice', (c, t) => c.deleteInvoice(t, uuid));
}

const MAX_PAGES = 200;

export async function syncInvoices(svc: AppServices, tenantId: number, auth: AuthContext, userId: string | undefined) {
  const payee = userId ?? auth.tenantUserId;
  if (!payee) throw new ValidationError('Invalid request', ['body must have property "userId"']);
  if (!(await tx(svc, tenantId, (trx) => memberIdsAmong(trx, [payee]))).length) throw new NotFoundError('User');
  const all: PartnerInvoice[] = [];
  for (let page = 1; page <= MAX_PAGES; page++) {
    const r = await withToken(svc, tenantId, 'Invoices', (c, t) => c.invoices(t, page, 100));
    all.push(...r.data);
    if (!r.data.length || page * r.meta.per_page >= r.meta.total) break;
  }
  const out = { imported: { expenses: 0, revenues: 0 }, alreadyImported: 0, skipped: 0, failed: [] as { uuid: string; error: string }[] };
  for (const inv of all) {
    const kind = inv.status === 'draft' || inv.status === 'void' ? null : inv.type === 'sales' ? 'revenue' : inv.type === 'purchase' ? 'expense' : null;
    if (!kind) {
      out.skipped++;
      continue;
    }
    try {
      const done = await tx(svc, tenantId, (trx) => importOne(trx, auth, inv, kind, payee));
      if (done) out.imported[kind === 'expense' ? 'expenses' : 'revenues']++;
      else out.alreadyImported++;
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      out.failed.push({ uuid: inv.uuid, error: [err.message, ...err.details].join(': ') });
    }
  }
  return out;
}

/** One invoice in one transaction; false when it was imported before (nothing written). */
async function importOne(trx: Trx, auth: AuthContext, inv: PartnerInvoice, kind: 'expense' | 'revenue', payee: string): Promise<boolean> {
  // the per-invoice row is claimed first: a concurrent sync of the same invoice waits here, then sees it
  await trx.raw('SELECT pg_advisory_xact_lock(hashtext(?))', [`invoicer:${inv.uuid}`]);
  if (await trx('invoicer_imports').where({ invoice_uuid: inv.uuid }).first('invoice_uuid')) return false;
  const base = await baseCurrency(trx);
  const currency = String(inv.currency ?? '').toUpperCase();
  if (currency !== base && !inv.exchange_rate) throw new ValidationError(`Invoice ${inv.number} is in ${currency}, the workspace base currency is ${base}, and the partner gave no exchange rate`, [], 'NO_EXCHANGE_RATE');
  const common = {
    title: `${inv.number}${inv.contact?.name ? ` ${inv.contact.name}` : ''}`.slice(0, 200),
    description: inv.description ?? null,
    amount: String(inv.total),
    currency,
    conversionRate: currency === base ? undefined : String(inv.exchange_rate),
    date: /^\d{4}-\d{2}-\d{2}$/.test(inv.issue_date ?? '') ? inv.issue_date! : undefined,
  };
  const target =
    kind === 'expense'
      ? await createExpense(trx, auth, { ...common, user: payee, category: 'invoice', recoupable: false })
      : await createRevenue(trx, auth, { ...common, source: 'invoicer', splits: [{ user: payee, share: 100 }] });
  await trx('invoicer_imports').insert({ tenant_id: trx.raw('app_tenant_id()'), invoice_uuid: inv.uuid, target_type: kind, target_id: (target as { id: string }).id, imported_at: clock.now() });
  return true;
}
