/**
 * What a request value may be, so that every accepted value fits the column it goes to
 * (docs/errors.md): shared TypeBox builders for money, shares, rates, dates, months,
 * currencies, text and integers, the ajv keyword and formats behind them, and the guard
 * every parsed body, query and path passes first (no NUL or unpaired surrogate in any
 * string or key, bounded nesting).
 */
import { Type } from '@sinclair/typebox';
import type { Ajv, AnySchemaObject, ErrorObject } from 'ajv';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import Decimal from 'decimal.js';

// ---------------------------------------------------------------- decimals
/** A NUMERIC(precision, scale) column, and whether the value must be above zero. */
export interface DecimalRule {
  precision: number;
  scale: number;
  positive?: boolean;
}

/** Why `v` does not fit `rule` (null when it fits). Numbers are read as their shortest decimal spelling. */
export function decimalProblem(v: unknown, rule: DecimalRule): string | null {
  if (typeof v !== 'number' && typeof v !== 'string') return null; // the type keywords speak for it
  if (typeof v === 'string' && !/^-?[0-9]+(\.[0-9]+)?$/.test(v)) return 'must be a decimal number such as "12.50"';
  let d: Decimal;
  try {
    d = new Decimal(typeof v === 'number' ? String(v) : v);
  } catch {
    return 'must be a decimal number';
  }
  if (!d.isFinite()) return 'must be a finite decimal number';
  const whole = rule.precision - rule.scale;
  if (d.decimalPlaces() > rule.scale) return `must have at most ${rule.scale} decimal places`;
  if (d.abs().gte(new Decimal(10).pow(whole))) return `must be less than 1e${whole} in absolute value (at most ${whole} digits before the point)`;
  if (rule.positive && d.lte(0)) return 'must be greater than 0';
  return null;
}

function DecimalIn(rule: DecimalRule, description: string) {
  const pattern = rule.positive ? '^[0-9]+(\\.[0-9]+)?$' : '^-?[0-9]+(\\.[0-9]+)?$';
  return Type.Union([Type.Number(), Type.String({ pattern, maxLength: 64 })], { 'x-decimal': rule, description });
}

/** Money: NUMERIC(28,12), a JSON number or a decimal string, at most 16 digits before the point and 12 after. */
export const Money = (opts: { positive?: boolean } = {}) =>
  DecimalIn({ precision: 28, scale: 12, positive: !!opts.positive }, `Decimal, at most 16 digits before the point and 12 after${opts.positive ? ', above 0' : ''}`);
/** Exchange or conversion rate: NUMERIC(28,12), above 0 (`positive: false` where a list route reports a zero rate per item). */
export const Rate = (opts: { positive?: boolean } = {}) => {
  const positive = opts.positive ?? true;
  return DecimalIn({ precision: 28, scale: 12, positive }, `Decimal rate${positive ? ' above 0' : ''}, at most 16 digits before the point and 12 after`);
};
/** Split share in percent: NUMERIC(9,6), above 0 (at most 100 is checked with the split). */
export const Share = () => DecimalIn({ precision: 9, scale: 6, positive: true }, 'Percentage above 0, at most 3 digits before the point and 6 after');
/** Percentage with cents: NUMERIC(5,2), 0 allowed (at most 100 is checked where it is used). */
export const Percent = () => DecimalIn({ precision: 5, scale: 2 }, 'Percentage, at most 3 digits before the point and 2 after');

// ---------------------------------------------------------------- dates
/** Business range of every date a request may carry (inside Postgres's date and timestamptz ranges). */
export const DATE_RANGE = { min: '1900-01-01', max: '2199-12-31' } as const;

type FormatCheck = (s: string) => boolean;
const asCheck = (f: unknown): FormatCheck => {
  const g = f as FormatCheck | RegExp | { validate: FormatCheck | RegExp };
  const v = typeof g === 'object' && 'validate' in g ? g.validate : g;
  return v instanceof RegExp ? (s) => v.test(s) : v;
};
const isDate = asCheck(fullFormats.date);
const isDateTime = asCheck(fullFormats['date-time']);
const inRange = (day: string) => day >= DATE_RANGE.min && day <= DATE_RANGE.max;

/** Calendar date (YYYY-MM-DD) within DATE_RANGE. */
export const DateIn = () => Type.String({ format: 'date' });
/** RFC 3339 date-time with a zone, its day within DATE_RANGE. */
export const DateTimeIn = () => Type.String({ format: 'date-time' });
/** Month (YYYY-MM) within DATE_RANGE. */
export const MonthIn = () => Type.String({ format: 'month' });
/** A month (YYYY-MM) or a day (YYYY-MM-DD), within DATE_RANGE. */
export const MonthOrDateIn = () => Type.String({ format: 'month-or-date' });

// ---------------------------------------------------------------- currencies, text, integers
/** ISO 4217 codes in use (the runtime's ICU list: current codes, no funds or historic ones). */
const ISO4217 = new Set(Intl.supportedValuesOf('currency'));
export function isIso4217(code: string): boolean {
  return /^[A-Z]{3}$/.test(code) && ISO4217.has(code);
}
/** ISO 4217 currency code (case-insensitive on input: "usd" is USD). */
export const CurrencyCode = () => Type.String({ format: 'iso4217', minLength: 3, maxLength: 3 });

/** Text of at most `max` characters (NUL and unpaired surrogates are refused everywhere by the input guard). */
export const Text = (max = 500, opts: { minLength?: number } = {}) => Type.String({ maxLength: max, ...opts });

export const INT4_MAX = 2_147_483_647;
/** Integer that fits an int4 column. */
export const Int32 = (opts: { minimum?: number; maximum?: number; default?: number } = {}) =>
  Type.Integer({ minimum: opts.minimum ?? -INT4_MAX - 1, maximum: Math.min(opts.maximum ?? INT4_MAX, INT4_MAX), ...(opts.default !== undefined ? { default: opts.default } : {}) });
/** Positive bigint id (exact in a JS number). */
export const IdInt = () => Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });

/** What each of our formats means, for error messages. */
export const FORMAT_TEXT: Record<string, string> = {
  date: `must be a date (YYYY-MM-DD) from ${DATE_RANGE.min} to ${DATE_RANGE.max}`,
  'date-time': `must be a date-time with a zone (RFC 3339) from ${DATE_RANGE.min} to ${DATE_RANGE.max}`,
  month: `must be a month (YYYY-MM) from ${DATE_RANGE.min.slice(0, 7)} to ${DATE_RANGE.max.slice(0, 7)}`,
  'month-or-date': `must be a month (YYYY-MM) or a date (YYYY-MM-DD) from ${DATE_RANGE.min} to ${DATE_RANGE.max}`,
  iso4217: 'must be an ISO 4217 currency code (e.g. USD)',
  uuid: 'must be a UUID',
};

/** The `x-decimal` keyword and the date, month and currency formats, on one ajv instance. */
export function addInputRules(ajv: Ajv): Ajv {
  type Check = ((rule: DecimalRule, data: unknown) => boolean) & { errors?: Partial<ErrorObject>[] };
  const check: Check = (rule, data) => {
    const problem = decimalProblem(data, rule);
    check.errors = problem ? [{ keyword: 'x-decimal', message: problem, params: { ...rule } }] : [];
    return !problem;
  };
  ajv.addKeyword({ keyword: 'x-decimal', schemaType: 'object', errors: true, validate: check as never, metaSchema: { type: 'object' } as AnySchemaObject });
  ajv.addFormat('date', { type: 'string', validate: (s: string) => isDate(s) && inRange(s) });
  ajv.addFormat('date-time', { type: 'string', validate: (s: string) => isDateTime(s) && inRange(s.slice(0, 10)) });
  ajv.addFormat('month', { type: 'string', validate: (s: string) => /^\d{4}-(0[1-9]|1[0-2])$/.test(s) && inRange(`${s}-01`) });
  ajv.addFormat('month-or-date', { type: 'string', validate: (s: string) => (s.length === 7 ? /^\d{4}-(0[1-9]|1[0-2])$/.test(s) && inRange(`${s}-01`) : isDate(s) && inRange(s)) });
  ajv.addFormat('iso4217', { type: 'string', validate: (s: string) => isIso4217(s.toUpperCase()) });
  return ajv;
}

// ---------------------------------------------------------------- the input guard
/** Deepest nesting of objects and arrays a request may send. */
export const MAX_DEPTH = 32;

const BAD_TEXT = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const textProblem = (s: string) => (s.includes('\u0000') ? 'must not contain NUL characters' : BAD_TEXT.test(s) ? 'must not contain unpaired surrogates' : null);

/**
 * Problems of a parsed input that no schema can express: NUL characters or unpaired
 * surrogates in any string or key (Postgres text and jsonb cannot hold them), nesting
 * deeper than MAX_DEPTH. Iterative, so a body nested a million levels costs no stack.
 */
export function inputProblems(value: unknown, where: string, opts: { maxDepth?: number; skip?: string } = {}): string[] {
  const maxDepth = opts.maxDepth ?? MAX_DEPTH;
  // Text problems under `skip` (a bulk route's item list) are reported per item instead.
  const skipped = (at: string) => opts.skip !== undefined && (at === opts.skip || at.startsWith(`${opts.skip}.`));
  const problems: string[] = [];
  const stack: { v: unknown; at: string; depth: number }[] = [{ v: value, at: where, depth: 0 }];
  while (stack.length && problems.length < 20) {
    const { v, at, depth } = stack.pop()!;
    if (typeof v === 'string') {
      const p = textProblem(v);
      if (p && !skipped(at)) problems.push(`${at} ${p}`);
    } else if (v !== null && typeof v === 'object') {
      if (depth >= maxDepth) {
        problems.push(`${at} is nested deeper than ${maxDepth} levels`);
        continue;
      }
      const entries = Array.isArray(v) ? v.map((x, i) => [String(i), x] as const) : Object.entries(v);
      for (const [k, x] of entries) {
        const p = textProblem(k);
        if (p && !skipped(at)) problems.push(`${at} has a property name that ${p}`);
        stack.push({ v: x, at: `${at}.${k.replace(/[\u0000\uD800-\uDFFF]/g, '?')}`, depth: depth + 1 });
      }
    }
  }
  return problems;
}
