/**
 * What people read: errors without route names, network failures in words, and money, dates
 * and months in the browser's locale (money from the API's decimal strings, never a float).
 */

export const UNREACHABLE = 'Rondo could not be reached. Check your connection and try again.';

/** A server message without the API routes some carry for API clients ("… (POST /file/…)", "with PUT /currency/rates"). */
export function inWords(message: string): string {
  const out = message
    .replace(/\s*\((?:[^()]*\s)?(?:GET|POST|PUT|PATCH|DELETE)\s+\/[^()]*\)/g, '')
    .replace(/\s*(?:with|through|using|via|call|see)?\s*(?:GET|POST|PUT|PATCH|DELETE)\s+\/[\w\-/{}:.]*[\w}]/g, '')
    .replace(/\s+([,.:;])/g, '$1')
    .trim();
  return out || 'Something went wrong. Try again.';
}

/** What an answer without a message of its own means, for a person. */
export function statusWords(status: number): string {
  if (status === 401) return 'Your session has ended. Sign in again.';
  if (status === 403) return 'Your role in this workspace does not allow this.';
  if (status === 404) return 'This is not there any more: it may have been deleted. Refresh the page.';
  if (status === 409) return 'This changed in the meantime. Refresh the page and try again.';
  if (status === 413) return 'This is too large to send.';
  if (status === 429) return 'Too many requests at once. Wait a moment and try again.';
  if (status >= 500) return 'Rondo had a problem doing this. Try again in a moment.';
  return 'This could not be done. Check what you entered and try again.';
}

const locale = () => (globalThis as { navigator?: { language?: string } }).navigator?.language || 'en';

/** "US dollar" for USD, in the browser's language (the code itself when unknown). */
export function currencyName(code: string): string {
  try {
    return new Intl.DisplayNames([locale()], { type: 'currency' }).of(code) ?? code;
  } catch {
    return code;
  }
}

/** "January 2026" for 2026-01 (or a date in that month), in the browser's language. */
export function monthName(ym: string): string {
  const m = /^(\d{4})-(\d{2})/.exec(ym);
  if (!m) return ym;
  return new Intl.DateTimeFormat(locale(), { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, 1)));
}

/** A date (YYYY-MM-DD or ISO timestamp) in the browser's locale. */
export function localDate(s: string | null | undefined): string {
  if (!s) return '—';
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(s);
  if (!m) return s;
  return new Intl.DateTimeFormat(locale(), { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))));
}

/**
 * A decimal string as money in the browser's locale (the currency as its code: "USD 1,234.50"
 * in English, "1.234,50 USD" in German), rounded half-up to the currency's minor
 * unit on the digits (no float): the grouping and decimal marks come from Intl, the digits
 * from the string. Without a currency, the number alone.
 */
export function localMoney(s: string | number | null | undefined, currency?: string | null): string {
  if (s === null || s === undefined || s === '') return '—';
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(String(s));
  if (!m) return String(s);
  let places = 2;
  let fmt: Intl.NumberFormat;
  try {
    fmt = currency ? new Intl.NumberFormat(locale(), { style: 'currency', currency, currencyDisplay: 'code' }) : new Intl.NumberFormat(locale(), { minimumFractionDigits: 2, maximumFractionDigits: 2 });
    places = fmt.resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    fmt = new Intl.NumberFormat(locale(), { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  }
  const [, sign, int, frac = ''] = m;
  const scaled = BigInt(int + frac.padEnd(places, '0').slice(0, places)) + (Number(frac[places] ?? '0') >= 5 ? 1n : 0n);
  const digits = scaled.toString().padStart(places + 1, '0');
  const whole = digits.slice(0, digits.length - places);
  const fraction = places ? digits.slice(-places) : '';
  const negative = sign === '-' && scaled !== 0n;
  // format a stand-in of the same shape and put the exact digits in its parts
  const parts = fmt.formatToParts(negative ? -1 : 1);
  const groups = (fmt.formatToParts(1234567).find((p) => p.type === 'group')?.value) ?? ',';
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, '\u0000').split('\u0000').join(groups);
  let out = '';
  let wroteInt = false;
  for (const p of parts) {
    if (p.type === 'integer') { if (!wroteInt) out += grouped; wroteInt = true; }
    else if (p.type === 'group') continue;
    else if (p.type === 'fraction') out += fraction;
    else out += p.value;
  }
  if (places && !parts.some((p) => p.type === 'fraction')) {
    const dec = fmt.formatToParts(1.5).find((p) => p.type === 'decimal')?.value ?? '.';
    out = out.replace(grouped, `${grouped}${dec}${fraction}`);
  }
  return out;
}

/** Month rows with every month between the first and the last (or the filter's bounds) present: an empty month is a zero row. */
export function everyMonth<R extends { month?: unknown; revenue: string; quantity: string; lines: number }>(rows: R[], from?: string, to?: string): R[] {
  const months = rows.map((r) => String(r.month ?? '')).filter((m) => /^\d{4}-\d{2}$/.test(m)).sort();
  const lo = /^\d{4}-\d{2}/.test(from ?? '') ? from!.slice(0, 7) : months[0];
  const hi = /^\d{4}-\d{2}/.test(to ?? '') ? to!.slice(0, 7) : months[months.length - 1];
  if (!lo || !hi || lo > hi) return rows;
  const byMonth = new Map(rows.map((r) => [String(r.month), r]));
  const out: R[] = [];
  let [y, m] = lo.split('-').map(Number);
  for (let i = 0; i < 600; i++) {
    const key = `${y}-${String(m).padStart(2, '0')}`;
    if (key > hi) break;
    out.push(byMonth.get(key) ?? ({ month: key, revenue: '0', quantity: '0', lines: 0 } as R));
    m++;
    if (m > 12) { m = 1; y++; }
  }
  return out;
}

/**
 * What an error means to a person. The API's messages are written for programs and may name a
 * route ("accept with POST /auth/acceptinvite"); a page shows these words instead, by the
 * error's code, and never a route.
 */
const BY_CODE: Record<string, string> = {
  TOKEN_USED: 'This link has already been used or has expired. Ask for a new one.',
  TOKEN_LOCKED: 'Too many wrong codes were tried with this link. Ask for a new one.',
  MISSING_TOKEN: 'This page needs the link from your e-mail. Open the e-mail and follow its link again.',
  INVALID_TOKEN: 'This link is not valid. Open the e-mail and follow its link again, or ask for a new one.',
  PASSWORD_ALREADY_SET: 'You already have a password. Accept the invitation without choosing a new one, or reset your password.',
  PASSWORD_REQUIRED: 'Choose a password to accept the invitation.',
  INVALID_CREDENTIALS: 'The e-mail or the password is wrong.',
  INVALID_CODE: 'The verification code is wrong.',
  EMAIL_MISMATCH: 'This e-mail address is not the one the reset was asked for.',
  ALREADY_MEMBER: 'This person is already a member of the workspace.',
  PLAN_LIMIT_REACHED: "The workspace's plan has no room for another member.",
  LAST_OWNER: 'The workspace needs at least one owner.',
  INSUFFICIENT_ROLE: 'Your role does not allow this.',
  INVITATION_PENDING: 'This person has not accepted the invitation yet.',
  NOT_AN_INVITATION: 'This person has already accepted the invitation.',
  RATE_LIMITED: 'Too many attempts. Wait a few minutes and try again.',
  WORKSPACE_SMTP_FAILED: "The workspace's own mail server did not take the e-mail.",
  FEATURE_REQUIRED: "The workspace's plan does not include this.",
  PLAN_CHANGED: "This person's data changed since the plan was shown. Check the new plan and confirm again.",
  EMAIL_DOMAIN_REQUIRED: 'The sender address must be on one of the e-mail domains of this workspace. Add its domain under “E-mail domains” first.',
  SUPER_ADMIN_REQUIRED: 'Only super-admins of this installation can do this.',
  INVALID_ORIGIN: 'Give only the start of the site’s address, such as https://royalties.yourlabel.com: https, and no page after it.',
  TOO_MANY_KEYS: 'At most 25 keys can be in use at once. Revoke one that is no longer used first.',
  SESSION_REQUIRED: 'Keys are made by a person who is signed in, not with another key.',
  API_KEY_NOT_FOUND: 'This key is not there any more: it may have been revoked already. Refresh the page.',
};


export function peopleWords(code: string | undefined, message: string, status?: number): string {
  if (code && Object.hasOwn(BY_CODE, code)) return BY_CODE[code]!;
  if (status === 429) return BY_CODE.RATE_LIMITED!;
  return inWords(message);
}

/** Whether the code has its own words (its details, written for programs, are then not shown). */
export function explained(code: string | undefined): boolean {
  return !!code && Object.hasOwn(BY_CODE, code);
}
