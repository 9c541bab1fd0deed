/**
 * The reference service's analytics conventions on the /royalty/* breakdowns: its filter
 * names (comma-separated lists) mapped onto the planner's filters, and the previous period
 * (`includePreviousPeriod`). Rondo's own filters, rows, totals and paging are unchanged.
 */
import { ValidationError } from '../../lib/errors';
import type { Trx } from '../../db';
import { Type } from '../../http/schema';
import { royaltyAnalytics, type AnalyticsOptions, type AnalyticsQuery, type AnalyticsResult, type GroupBy } from './analytics';
import { checkDate, endDate, startDate } from './sale-dates';

/** A comma-separated list of uuids. */
const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';
const List = (maxLength: number) => Type.Optional(Type.String({ minLength: 1, maxLength }));

/** The reference's query parameters (beside Rondo's `dsp` and `country`, which also take lists). */
export const ReferenceAnalyticsQuery = {
  isrc: List(2000),
  upc: List(2000),
  type: List(500),
  aggregator: List(2000),
  artists: Type.Optional(Type.String({ pattern: `^${UUID}(,${UUID})*$`, maxLength: 3700, description: 'Artist ids, comma-separated', examples: ['3f1c2a9e-3b7d-4e52-9a0f-1d2c3b4a5e6f'] })),
  table_name: Type.Optional(Type.String({ pattern: `^${UUID}(,${UUID})*$`, maxLength: 3700, description: 'Statement file ids (as /royalty/tables lists them), comma-separated', examples: ['8c76ea4b-680c-44ca-96e5-eb14b8202e33'] })),
  includePreviousPeriod: Type.Optional(Type.Boolean()),
};

export interface ReferenceParams {
  dsp?: string;
  country?: string;
  isrc?: string;
  upc?: string;
  type?: string;
  aggregator?: string;
  artists?: string;
  table_name?: string;
  includePreviousPeriod?: boolean;
}

/** `a, b,c` → ['a', 'b', 'c'] (blanks dropped). */
export function listOf(v: string): string[] {
  return v.split(',').map((s) => s.trim()).filter(Boolean);
}

/**
 * The planner's query for a request: `dsp`, `country` (upper-cased), `type` (sale type) and
 * `aggregator` as lists of statement values; `artists` as artist ids; `isrc` and `upc` as the
 * recordings and products of the workspace carrying those codes (none: nothing matches).
 */
export async function plannerQuery<Q extends ReferenceParams & AnalyticsQuery>(trx: Trx, q: Q): Promise<AnalyticsQuery> {
  const { dsp, country, isrc, upc, type, aggregator, artists, table_name, includePreviousPeriod: _p, ...rest } = q;
  const out: AnalyticsQuery = { ...rest };
  const dims: NonNullable<AnalyticsQuery['dimensionsIn']> = {};
  if (dsp) dims.dsp = listOf(dsp);
  if (country) dims.country = listOf(country).map((c) => c.toUpperCase());
  if (type) dims.sale_type = listOf(type);
  if (aggregator) dims.aggregator = listOf(aggregator);
  if (Object.keys(dims).length) out.dimensionsIn = dims;
  if (artists) out.artistIds = listOf(artists);
  if (table_name) out.fileIds = listOf(table_name);
  if (isrc) {
    const codes = listOf(isrc).map((c) => c.toUpperCase());
    out.assetIds = (await trx('assets').whereRaw('upper(isrc) = ANY(?::text[])', [codes]).pluck('id')) as string[];
  }
  if (upc) {
    const codes = listOf(upc);
    out.productIds = (await trx('products').whereRaw('upc = ANY(?::text[])', [codes]).pluck('id')) as string[];
  }
  return out;
}

/** YYYY-MM of a month index (year × 12 + month − 1). */
function monthOf(i: number): string {
  return `${String(Math.floor(i / 12)).padStart(4, '0')}-${String((i % 12) + 1).padStart(2, '0')}`;
}
function monthIndex(d: string): number {
  return Number(d.slice(0, 4)) * 12 + Number(d.slice(5, 7)) - 1;
}

/**
 * The previous period of [start, end]: as many calendar months as the range touches (the
 * start's month to the end's month), immediately before the start's month. Also how far back
 * it lies, in months.
 */
export function previousPeriod(start: string, end: string): { start: string; end: string; months: number } {
  checkDate(start, 'start');
  checkDate(end, 'end');
  const a = monthIndex(startDate(start));
  const b = monthIndex(endDate(end));
  if (b < a) throw new ValidationError('end must not be before start', [`end: ${end}`]);
  const months = b - a + 1;
  return { start: `${monthOf(a - months)}-01`, end: endDate(monthOf(a - 1)), months };
}

/** The key a row of a breakdown is matched on in the previous period (time keys shifted by `months`). */
function keyOf(group: GroupBy, r: Record<string, unknown>, months: number): string {
  const shift = (d: unknown) => {
    const s = String(d);
    return `${monthOf(monthIndex(s) - months)}${s.slice(7)}`;
  };
  switch (group) {
    case 'total': return '';
    case 'month': return shift(r.month);
    case 'accountingperiod': return shift(r.accountingPeriod);
    case 'dsp': return String(r.dsp);
    case 'country': return String(r.country);
    case 'saletype': return String(r.saleType);
    case 'aggregator': return String(r.aggregator);
    case 'artist': return String(r.artistId);
    case 'product': return String(r.productId);
    case 'asset': return String(r.assetId);
    case 'file': return String(r.fileId);
  }
}
function ownKey(group: GroupBy, r: Record<string, unknown>): string {
  return keyOf(group, r, 0);
}

/**
 * A breakdown with the reference's conventions: the planner's answer, and with
 * `includePreviousPeriod` each row's `PreviousRoyalty` and `PreviousCount` (the same query over
 * the previous period; a month or accounting-period row is matched to the one `months` before;
 * "0" when the previous period has no such row) and `previous: {start, end, total}`.
 */
export async function referenceAnalytics(
  trx: Trx,
  tenantId: number,
  payee: string | null,
  group: GroupBy,
  q: ReferenceParams & AnalyticsQuery,
  paging: AnalyticsOptions,
): Promise<AnalyticsResult & { previous?: { start: string; end: string; total: AnalyticsResult['total'] } }> {
  if (q.includePreviousPeriod && (!q.start || !q.end)) {
    throw new ValidationError('includePreviousPeriod needs start and end', [`query.${q.start ? 'end' : 'start'}: required with includePreviousPeriod`]);
  }
  const planned = await plannerQuery(trx, q);
  const r = await royaltyAnalytics(trx, tenantId, payee, group, planned, paging);
  if (!q.includePreviousPeriod) return r;
  const prev = previousPeriod(q.start!, q.end!);
  const p = await royaltyAnalytics(trx, tenantId, payee, group, { ...planned, start: prev.start, end: prev.end }, { all: true, engine: paging.engine });
  const byKey = new Map(p.rows.map((row) => [ownKey(group, row), row]));
  const rows = r.rows.map((row) => {
    const before = byKey.get(keyOf(group, row, prev.months));
    return { ...row, PreviousRoyalty: String(before?.revenue ?? '0'), PreviousCount: String(before?.quantity ?? '0') };
  });
  return { ...r, rows, previous: { start: prev.start, end: prev.end, total: p.total } };
}
