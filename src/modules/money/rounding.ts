/**
 * Where money leaves the exact world (ledger postings, payee statements, payments, CSV/PDF
 * figures) it is in the currency's minor unit. The rule (docs/money.md, "Rounding"):
 *
 *   For a group (a file's accounting period, a revenue, a statement's section), the group's
 *   rounded total is round(Σ exact) half away from zero to the minor unit. Each member first
 *   gets its exact amount rounded DOWN (floor) to the minor unit; the units still missing
 *   (always between 0 and the number of members) go one each to the members with the largest
 *   remainders, ties broken by the member's stable key (ascending). So Σ members = the
 *   group's rounded total exactly, and no member is more than one unit from its exact amount.
 *
 * The same rule exists twice: `apportion` (TypeScript, decimal.js) and `apportionSql`
 * (set-based, used by the ledger); `test/money/rounding.test.ts` checks they agree.
 */
import { Decimal } from './common';

const DIGITS = new Map<string, number>();

/** ISO 4217 minor-unit digits (JPY 0, USD 2, KWD 3), from ICU through Intl. */
export function minorDigits(currency: string): number {
  const c = currency.trim().toUpperCase();
  let d = DIGITS.get(c);
  if (d === undefined) {
    d = new Intl.NumberFormat('en', { style: 'currency', currency: c }).resolvedOptions().maximumFractionDigits ?? 2;
    DIGITS.set(c, d);
  }
  return d;
}

/** One amount rounded half away from zero to `digits` decimals. */
export function roundMinor(v: Decimal.Value, digits: number): Decimal {
  return new Decimal(v).toDecimalPlaces(digits, Decimal.ROUND_HALF_UP);
}

/**
 * Largest-remainder apportionment of `items` (exact amounts with a stable key) to `digits`
 * decimals. `target` (already in minor units) defaults to round(Σ exact); when a caller
 * gives another target (a statement's section total read from the ledger) and the gap is
 * larger than one unit per item, the excess goes to the item with the largest amount.
 * Returns the rounded amounts in the items' order.
 */
export function apportion(items: { key: string; exact: Decimal.Value }[], digits: number, target?: Decimal.Value): Decimal[] {
  if (!items.length) return [];
  const scale = new Decimal(10).pow(digits);
  const scaled = items.map((it) => new Decimal(it.exact).mul(scale));
  const floors = scaled.map((s) => s.floor());
  const goal = target === undefined ? scaled.reduce((a, b) => a.plus(b), new Decimal(0)).toDecimalPlaces(0, Decimal.ROUND_HALF_UP) : new Decimal(target).mul(scale);
  let missing = goal.minus(floors.reduce((a, b) => a.plus(b), new Decimal(0))).toNumber();
  const order = items
    .map((it, i) => ({ i, key: it.key, rem: scaled[i]!.minus(floors[i]!) }))
    .sort((a, b) => b.rem.comparedTo(a.rem) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const out = floors.map((f) => f);
  for (const o of order) {
    if (missing <= 0) break;
    out[o.i] = out[o.i]!.plus(1);
    missing -= 1;
  }
  if (missing !== 0) {
    // Only with a caller's target far from Σ exact: the rest on the largest item (first by key among equals).
    let big = 0;
    items.forEach((_, i) => {
      if (scaled[i]!.abs().gt(scaled[big]!.abs())) big = i;
    });
    out[big] = out[big]!.plus(missing);
  }
  return out.map((u) => u.div(scale));
}

/**
 * The same rule in SQL. `input` is a SELECT with the group columns, the key column and
 * `exact`; the answer has every input column plus `rounded` (minor units, as a decimal).
 */
export function apportionSql(input: string, groupCols: string[], keyCol: string, digits: number): string {
  const d = Math.trunc(digits);
  const s = `power(10::numeric, ${d})`;
  const part = groupCols.join(', ');
  return `SELECT a.*, round((a.fl + CASE WHEN a.rk <= a.target - a.sfl THEN 1 ELSE 0 END) / ${s}, ${d}) AS rounded
    FROM (
      SELECT i.*, floor(i.exact * ${s}) AS fl,
             round(sum(i.exact) OVER (PARTITION BY ${part}) * ${s}) AS target,
             sum(floor(i.exact * ${s})) OVER (PARTITION BY ${part}) AS sfl,
             row_number() OVER (PARTITION BY ${part} ORDER BY i.exact * ${s} - floor(i.exact * ${s}) DESC, i.${keyCol}) AS rk
      FROM (${input}) i
    ) a`;
}
