/**
 * Sale-date ranges of the analytics: request bounds as dates, and how a sale-dated range
 * splits into whole years and halves, whole quarters and the remaining months (the
 * rollups that serve each part).
 */
import { ValidationError } from '../../lib/errors';

export function startDate(s: string): string {
  return /^\d{4}-\d{2}$/.test(s) ? `${s}-01` : s;
}
export function endDate(s: string): string {
  if (/^\d{4}-\d{2}$/.test(s)) {
    const [y, m] = s.split('-').map(Number) as [number, number];
    return new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
  }
  return s;
}
export function checkDate(s: string, what: string): void {
  const d = startDate(s);
  const t = Date.parse(`${d}T00:00:00Z`);
  if (Number.isNaN(t) || new Date(t).toISOString().slice(0, 10) !== d) throw new ValidationError(`${what} must be YYYY-MM or YYYY-MM-DD`, [`${what}: ${s}`]);
}

/** 'YYYY-MM-DD' of a UTC date. */
export const iso = (d: Date) => d.toISOString().slice(0, 10);

/**
 * The whole sale quarters inside a sale-date range (start: its month from the 1st; end:
 * inclusive, a day): the first and last quarter's first day, and the last quarter's last day;
 * null when none is whole. A quarter is whole when every date it holds passes both bounds
 * (start ≤ its first day, its last day ≤ end), so the month rows outside [first, lastDay] are
 * exactly the rest of the range. A range open on one side takes the quarters on that side up
 * to 400 years away (quarter rows without a sale month never match).
 */
export function wholeQuarters(start: string | undefined, end: string | undefined): { first: string; last: string; lastDay: string } | null {
  if (!start && !end) return null;
  const lo = start ? new Date(`${startDate(start).slice(0, 7)}-01T00:00:00Z`) : new Date(Date.UTC(1700, 0, 1));
  const hi = end ? new Date(`${endDate(end)}T00:00:00Z`) : new Date(Date.UTC(2400, 11, 31));
  // first: the first quarter starting on or after lo
  const qm = Math.ceil(lo.getUTCMonth() / 3) * 3;
  const first = new Date(Date.UTC(lo.getUTCFullYear(), qm, 1));
  // last: the last quarter ending on or before hi (its first day + 3 months − 1 day ≤ hi)
  const next = new Date(Date.UTC(hi.getUTCFullYear(), hi.getUTCMonth(), hi.getUTCDate() + 1)); // the day after hi
  const lastEnd = new Date(Date.UTC(next.getUTCFullYear(), Math.floor(next.getUTCMonth() / 3) * 3, 1)); // quarter start ≤ next
  const last = new Date(Date.UTC(lastEnd.getUTCFullYear(), lastEnd.getUTCMonth() - 3, 1));
  if (last < first) return null;
  return { first: iso(first), last: iso(last), lastDay: iso(new Date(lastEnd.getTime() - 86_400_000)) };
}

/** Whole sale periods covering a range: years as a range of first days, halves and quarters as lists. */
export interface SaleCover {
  /** The whole quarters' span (as wholeQuarters): the months outside it come from the month rollup. */
  first: string;
  lastDay: string;
  /** First days of the first and last whole calendar year inside the span, or null. */
  years: [string, string] | null;
  /** First days of the whole halves (Jan–Jun, Jul–Dec) inside the span, outside the years. */
  halves: string[];
  /** First days of the quarters of the span outside the years and halves. */
  quarters: string[];
}

const addMonths = (d: Date, n: number) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + n, 1));
/** The first `step`-month boundary (months 0, step, 2·step… of a year) on or after d / on or before d. */
const ceilTo = (d: Date, step: number) => new Date(Date.UTC(d.getUTCFullYear(), Math.ceil(d.getUTCMonth() / step) * step, 1));
const floorTo = (d: Date, step: number) => new Date(Date.UTC(d.getUTCFullYear(), Math.floor(d.getUTCMonth() / step) * step, 1));

/**
 * The whole quarters of a sale-date range (wholeQuarters), split into the coarsest whole
 * periods: calendar years (royalty_agg_catalogue_h, grain 12), then halves (grain 6), then the
 * quarters left (royalty_agg_catalogue_q). A full-year breakdown by recording reads one row per
 * recording instead of four; a half-year's, one instead of two. Greedy from the span's middle:
 * the years inside it, then at most one half on each side of them (or, with no whole year, the
 * halves inside it: at most two), then the quarters at each end (at most two).
 */
export function saleCover(start: string | undefined, end: string | undefined): SaleCover | null {
  const wq = wholeQuarters(start, end);
  if (!wq) return null;
  const a = new Date(`${wq.first}T00:00:00Z`);
  const b = addMonths(new Date(`${wq.last}T00:00:00Z`), 3); // exclusive end of the span
  let lo: Date; // [lo, hi): what years and halves cover
  let hi: Date;
  let years: [string, string] | null = null;
  const halves: string[] = [];
  const y1 = ceilTo(a, 12);
  const y2 = floorTo(new Date(b.getTime() - 86_400_000), 12); // the year holding the span's last day…
  const yEnd = addMonths(y2, 12) <= b ? addMonths(y2, 12) : y2; // …counted only when whole
  if (y1 < yEnd) {
    years = [iso(y1), iso(addMonths(yEnd, -12))];
    lo = y1;
    hi = yEnd;
    if (addMonths(lo, -6) >= a) halves.push(iso((lo = addMonths(lo, -6))));
    if (addMonths(hi, 6) <= b) halves.push(iso(hi)), (hi = addMonths(hi, 6));
  } else {
    lo = ceilTo(a, 6);
    hi = lo;
    while (addMonths(hi, 6) <= b) halves.push(iso(hi)), (hi = addMonths(hi, 6));
    if (!halves.length) lo = hi = b; // no whole half: every quarter of the span is left
  }
  const quarters: string[] = [];
  for (let q = a; q < lo; q = addMonths(q, 3)) quarters.push(iso(q));
  for (let q = hi; q < b; q = addMonths(q, 3)) quarters.push(iso(q));
  return { first: wq.first, lastDay: wq.lastDay, years, halves, quarters };
}
