/**
 * Shared bits of the money module: exact decimals, ISO 4217 codes, caller scoping,
 * payee checks, accounting periods.
 */
import Decimal from 'decimal.js';
import { CurrencyCode, Money, MonthIn } from '../../http/schema';
import { isIso4217 } from '../../http/limits';
import { seesWorkspace } from '../../domain/roles';
import { ForbiddenError, NotFoundError, ValidationError } from '../../lib/errors';
import type { AuthContext } from '../auth/tokens';
import type { Trx } from '../../db';
import { memberIdsAmong } from '../../repositories/members';

export { Decimal };

/** Money in requests: a JSON number or a decimal string (exact). */
export const MoneyIn = Money();
export const PositiveMoneyIn = Money({ positive: true });
export const CurrencyIn = CurrencyCode();
export const PeriodIn = MonthIn();

/** Ledger/base amounts keep 12 decimals (NUMERIC(28,12)). */
export const SCALE = 12;

export function dec(v: number | string | Decimal): Decimal {
  // A JSON number is turned into its shortest decimal spelling first (0.1 → "0.1"), never into binary arithmetic.
  return new Decimal(typeof v === 'number' ? String(v) : v);
}

/** Exact decimal string without trailing zeros ("12.5", "0", "-3.000001"). */
export function money(v: string | number | Decimal | null | undefined): string | null {
  if (v === null || v === undefined) return null;
  const d = dec(v as string);
  return d.isZero() ? '0' : d.toFixed();
}

/** Base amount: amount × rate rounded half-up to 12 decimals. */
export function toBase(amount: Decimal, rate: Decimal): Decimal {
  return amount.mul(rate).toDecimalPlaces(SCALE, Decimal.ROUND_HALF_UP);
}

/** ISO 4217 code in use (the one list: src/http/limits.ts). */
export const isCurrency = isIso4217;
export function assertCurrency(code: string, where = 'currency'): string {
  const c = code.trim().toUpperCase();
  if (!isCurrency(c)) throw new ValidationError('Invalid currency', [`${where} "${code}" is not an ISO 4217 currency code`], 'INVALID_CURRENCY');
  return c;
}

export const isAdmin = seesWorkspace;

/**
 * The payee a request is about: admins may name anyone (or nobody: tenant-wide when
 * `allowAll`), other members only themselves.
 */
export function scopeUser(auth: AuthContext, requested: string | undefined): string | null {
  if (isAdmin(auth)) return requested ?? null;
  if (!auth.tenantUserId) throw new ForbiddenError('This action needs a member of the workspace', 'INSUFFICIENT_ROLE');
  if (requested && requested !== auth.tenantUserId) throw new ForbiddenError('You can only see your own accounts', 'INSUFFICIENT_ROLE');
  return auth.tenantUserId;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export function isUuid(s: unknown): s is string {
  return typeof s === 'string' && UUID_RE.test(s);
}

/** Members of this workspace among `ids` (RLS already limits tenant_users to it). */
export async function existingMembers(trx: Trx, ids: string[]): Promise<Set<string>> {
  const valid = [...new Set(ids.filter(isUuid))];
  if (!valid.length) return new Set();
  return new Set(await memberIdsAmong(trx, valid));
}

export async function assertMember(trx: Trx, id: string, what = 'User'): Promise<void> {
  if (!(await existingMembers(trx, [id])).has(id)) throw new NotFoundError(what);
}

export async function baseCurrency(trx: Trx): Promise<string> {
  const r = await trx('tenants').whereRaw('id = app_tenant_id()').first('base_currency');
  return String(r.base_currency).trim();
}

/** "2026-10" → first day of that month, and of the next. */
export function periodBounds(period: string): { start: string; end: string } {
  const [y, m] = period.split('-').map(Number) as [number, number];
  const start = `${y}-${String(m).padStart(2, '0')}-01`;
  const ny = m === 12 ? y + 1 : y;
  const nm = m === 12 ? 1 : m + 1;
  return { start, end: `${ny}-${String(nm).padStart(2, '0')}-01` };
}

export function monthOf(date: Date | string): string {
  const d = typeof date === 'string' ? new Date(date) : date;
  return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}-01`;
}

/** The amount fields of an expense or revenue: amount in its currency, the rate and the base amount. */
export function amountView(r: Record<string, unknown>, base: string) {
  return {
    amount: money(r.amount as string),
    currency: String(r.currency).trim(),
    conversionRate: money(r.conversion_rate as string),
    baseAmount: money(r.base_amount as string),
    baseCurrency: base,
  };
}

export function iso(v: unknown): string | null {
  return v ? new Date(v as string).toISOString() : null;
}

export function dateOnly(v: unknown): string | null {
  if (!v) return null;
  if (typeof v === 'string') return v.slice(0, 10);
  const d = v as Date;
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

export { paged, pagedList } from '../../http/crud';

/**
 * The answer of a one-record delete made with the area's bulk delete: 404 when the record
 * was not found (absent, another member's, another workspace's), 400 with `code` when it
 * exists but may not be deleted.
 */
export function oneDeleted(r: { failedDeletions: { error: string }[] }, noun: string, code = 'NOT_DELETABLE'): void {
  const f = r.failedDeletions[0];
  if (!f) return;
  if (f.error.includes('not found')) throw new NotFoundError(noun);
  throw new ValidationError(f.error, [], code);
}
