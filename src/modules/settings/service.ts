/**
 * Workspace settings (base currency, accounting cadence, catalogue auto-creation) and the
 * monthly exchange-rate table allocation converts with.
 */
import Decimal from 'decimal.js';
import type { Trx } from '../../db';
import { clock } from '../../lib/clock';
import { assertOneLine, NotFoundError, ValidationError } from '../../lib/errors';
import type { Cadence } from './periods';

export interface WorkspaceSettings {
  workspaceId: string;
  tenantId: number;
  name: string;
  baseCurrency: string;
  accountingCadence: Cadence;
  /** Create missing artists, assets and products from statement data during matching. */
  autoCreateCatalogue: boolean;
  customDomain: string | null;
  plan: string;
}

export async function getSettings(trx: Trx, tenantId: number): Promise<WorkspaceSettings> {
  const t = await trx('tenants').where({ id: tenantId }).first();
  if (!t) throw new NotFoundError('Workspace');
  return {
    workspaceId: t.uuid,
    tenantId: t.id,
    name: t.name,
    baseCurrency: t.base_currency.trim(),
    accountingCadence: t.accounting_cadence,
    autoCreateCatalogue: !!t.settings?.autoCreateCatalogue,
    customDomain: t.custom_domain,
    plan: t.plan,
  };
}

export async function updateSettings(
  trx: Trx,
  tenantId: number,
  patch: Partial<Pick<WorkspaceSettings, 'name' | 'baseCurrency' | 'accountingCadence' | 'autoCreateCatalogue' | 'customDomain'>>,
): Promise<WorkspaceSettings> {
  const current = await getSettings(trx, tenantId);
  const row: Record<string, unknown> = {};
  if (patch.name !== undefined) {
    assertOneLine(patch.name, 'body.name', 'workspace name');
    row.name = patch.name;
  }
  if (patch.accountingCadence !== undefined) row.accounting_cadence = patch.accountingCadence;
  // The custom domain resolves the workspace at sign-in: it is set only by a verified domain (POST /domains).
  if (patch.customDomain !== undefined && (patch.customDomain?.toLowerCase() ?? null) !== current.customDomain) {
    throw new ValidationError('The custom domain is set by adding it and verifying its DNS record', ['body.customDomain: use POST /domains, then POST /domains/{domainId}/verify'], 'DOMAIN_NOT_VERIFIED');
  }
  if (patch.baseCurrency !== undefined && patch.baseCurrency.toUpperCase() !== current.baseCurrency) {
    // Amounts already converted would silently change meaning.
    const { rows } = await trx.raw(`SELECT EXISTS (SELECT 1 FROM royalty_earnings WHERE superseded_at IS NULL) AS used`);
    if (rows[0].used) throw new ValidationError('The base currency cannot change once royalties have been allocated', [], 'BASE_CURRENCY_LOCKED');
    row.base_currency = patch.baseCurrency.toUpperCase();
  }
  if (patch.autoCreateCatalogue !== undefined) row.settings = trx.raw(`settings || ?::jsonb`, [JSON.stringify({ autoCreateCatalogue: patch.autoCreateCatalogue })]);
  if (Object.keys(row).length) await trx('tenants').where({ id: tenantId }).update({ ...row, updated_at: clock.now() });
  return getSettings(trx, tenantId);
}

export interface RateRow {
  currency: string;
  month: string;
  rate: string;
  updatedAt: string;
}

function monthStart(m: string): string {
  return /^\d{4}-\d{2}$/.test(m) ? `${m}-01` : m;
}

export async function listRates(trx: Trx, q: { currency?: string; from?: string; to?: string }): Promise<RateRow[]> {
  const rows = await trx('fx_rates')
    .modify((b) => {
      if (q.currency) b.where('currency', q.currency.toUpperCase());
      if (q.from) b.where('month', '>=', monthStart(q.from));
      if (q.to) b.where('month', '<=', monthStart(q.to));
    })
    .orderBy([{ column: 'currency' }, { column: 'month' }])
    .select(trx.raw(`currency, to_char(month, 'YYYY-MM') AS month, rate::text AS rate, updated_at`));
  return rows.map((r: Record<string, unknown>) => ({
    currency: String(r.currency).trim(),
    month: r.month as string,
    rate: new Decimal(r.rate as string).toFixed(),
    updatedAt: new Date(r.updated_at as string).toISOString(),
  }));
}

export async function upsertRates(trx: Trx, tenantId: number, by: string | null, rates: { currency: string; month: string; rate: string | number }[], baseCurrency: string) {
  const errors: string[] = [];
  const good: Record<string, unknown>[] = [];
  rates.forEach((r, i) => {
    const cur = r.currency.toUpperCase();
    let rate: Decimal;
    try {
      rate = new Decimal(String(r.rate));
    } catch {
      errors.push(`rates[${i}]: rate "${r.rate}" is not a number`);
      return;
    }
    if (!rate.isFinite() || rate.lte(0)) errors.push(`rates[${i}]: rate must be greater than 0`);
    else if (cur === baseCurrency) errors.push(`rates[${i}]: ${cur} is the base currency (its rate is always 1)`);
    else good.push({ tenant_id: tenantId, currency: cur, month: monthStart(r.month), rate: rate.toFixed(), set_by: by, created_at: clock.now(), updated_at: clock.now() });
  });
  if (good.length) {
    await trx('fx_rates').insert(good).onConflict(['tenant_id', 'currency', 'month']).merge(['rate', 'set_by', 'updated_at']);
  }
  return { saved: good.length, errors };
}

export async function deleteRate(trx: Trx, currency: string, month: string): Promise<void> {
  const n = await trx('fx_rates').where({ currency: currency.toUpperCase(), month: monthStart(month) }).delete();
  if (!n) throw new NotFoundError('Rate');
}

/** The workspace's base currency with its monthly rates (filtered). */
export async function ratesWithBase(trx: Trx, tenantId: number, q: { currency?: string; from?: string; to?: string }) {
  const s = await getSettings(trx, tenantId);
  return { baseCurrency: s.baseCurrency, rates: await listRates(trx, q) };
}

/** Set monthly rates against the workspace's base currency. */
export async function saveRates(trx: Trx, tenantId: number, by: string | null, rates: { currency: string; month: string; rate: string | number }[]) {
  const s = await getSettings(trx, tenantId);
  return upsertRates(trx, tenantId, by, rates, s.baseCurrency);
}
