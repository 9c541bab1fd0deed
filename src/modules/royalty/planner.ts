/**
 * Which rollup shape answers an analytics request: a pure function of the request (no
 * database), unit-tested in test/unit/allocation/planner.test.ts.
 *
 * request (breakdown, filters, dates, workspace or member view)
 *   → the columns it groups or filters by
 *   → the first declared shape (shapes.ts, coarsest first) whose keys hold them all, a member
 *     view only from a shape keyed by share set; none → the statement lines themselves
 *   + its period cover: the sale months or accounting periods the dates select.
 */
import { CATALOGUE_SHAPE, DIMENSIONS, DIMENSION_COLUMNS, SHAPES, shapeKeys, type Dimension, type KeyColumn, type ShapeDecl } from './shapes';
import { checkDate, endDate, startDate } from './sale-dates';

export type GroupBy = 'total' | 'month' | 'accountingperiod' | 'dsp' | 'country' | 'artist' | 'product' | 'asset' | 'saletype' | 'aggregator' | 'file';

export interface AnalyticsQuery {
  periodFilterType?: 'accounting' | 'sale';
  start?: string;
  end?: string;
  artist?: string;
  product?: string;
  asset?: string;
  /** Release analytics: the release's product and/or its tracks' recordings. */
  releaseAssets?: string[];
  dsp?: string;
  country?: string;
  saleType?: string;
  file?: string;
  /** The reference's `table_name`: statement files (ids). */
  fileIds?: string[];
  /**
   * The reference service's list filters (each a set of values, ANDed with Rondo's own):
   * statement dimensions, and catalogue items (`isrc`/`upc` resolved to the recordings and
   * products carrying them before planning). An empty list selects nothing.
   */
  dimensionsIn?: Partial<Record<Dimension, string[]>>;
  artistIds?: string[];
  productIds?: string[];
  assetIds?: string[];
}

/** Columns of a breakdown's rows (accounting_period / ap_end: the file's, on every row). */
export const GROUP_COLS: Record<GroupBy, string[]> = {
  total: [],
  month: ['sale_month'],
  accountingperiod: ['accounting_period', 'ap_end'],
  dsp: ['dsp'],
  country: ['country'],
  saletype: ['sale_type'],
  aggregator: ['aggregator'],
  artist: ['artist_id'],
  product: ['product_id'],
  asset: ['asset_id'],
  // Every shape row sums one file's lines: any shape answers by file.
  file: ['file_id'],
};

/** A filter: the key columns it reads, its SQL over the source's columns, its bindings. */
export interface Filter {
  cols: KeyColumn[];
  sql: string;
  b: unknown[];
  /** The same filter as the statement lines source reads it, where that differs (viaRecordings). */
  lines?: (tenantId: number) => { sql: string; b: unknown[] };
}

/**
 * `col = v` over the statement lines for a catalogue column without a full index of its own
 * (product, artist): the lines of the recordings the catalogue shape lists with v (every
 * line with v and a recording has its recording there), through the lines' recording index,
 * plus v's lines without a recording (a partial index). Exact: each part keeps `col = v`.
 */
function viaRecordings(col: 'product_id' | 'artist_id', v: string): (tenantId: number) => { sql: string; b: unknown[] } {
  const catalogue = CATALOGUE_SHAPE.table;
  return (t) => ({
    sql: `((tenant_id = ? AND asset_id = ANY(ARRAY(SELECT DISTINCT c.asset_id FROM ${catalogue} c WHERE c.tenant_id = ? AND c.${col} = ? AND c.asset_id IS NOT NULL)) AND ${col} = ?)
           OR (tenant_id = ? AND asset_id IS NULL AND ${col} = ?))`,
    b: [t, t, v, v, t, v],
  });
}

/** `col = ANY(vs)` over the statement lines for a product or artist list, as viaRecordings does for one value. */
function viaRecordingsAny(col: 'product_id' | 'artist_id', vs: string[]): (tenantId: number) => { sql: string; b: unknown[] } {
  const catalogue = CATALOGUE_SHAPE.table;
  return (t) => ({
    sql: `((tenant_id = ? AND asset_id = ANY(ARRAY(SELECT DISTINCT c.asset_id FROM ${catalogue} c WHERE c.tenant_id = ? AND c.${col} = ANY(?::uuid[]) AND c.asset_id IS NOT NULL)) AND ${col} = ANY(?::uuid[]))
           OR (tenant_id = ? AND asset_id IS NULL AND ${col} = ANY(?::uuid[])))`,
    b: [t, t, vs, vs, t, vs],
  });
}

/** The dates a request selects: sale months, or accounting periods overlapping [from, to]. */
export interface PeriodCover {
  by: 'sale' | 'accounting';
  /** First day (sale: of the start's month). */
  from: string | null;
  /** Last day, inclusive. */
  to: string | null;
}

export interface Plan {
  /** The shape that answers, or null: the statement lines. */
  shape: ShapeDecl | null;
  /** A member's view (shares applied at read through the share sets). */
  member: boolean;
  cover: PeriodCover;
  /** Key columns the request groups or filters by. */
  needs: KeyColumn[];
  /** Every filter, the dates' included. */
  filters: Filter[];
  groupCols: string[];
}

/** The dates of a request (checked: a 400 naming the field when malformed). */
export function periodCover(q: AnalyticsQuery): PeriodCover {
  if (q.start) checkDate(q.start, 'start');
  if (q.end) checkDate(q.end, 'end');
  const by = q.periodFilterType === 'accounting' ? 'accounting' : 'sale';
  const from = q.start ? (by === 'sale' ? `${startDate(q.start).slice(0, 7)}-01` : startDate(q.start)) : null;
  return { by, from, to: q.end ? endDate(q.end) : null };
}

/** The filters of a request: statement dimensions, catalogue, file, dates. */
function filtersOf(q: AnalyticsQuery, cover: PeriodCover): Filter[] {
  const f: Filter[] = [];
  for (const d of DIMENSION_COLUMNS) {
    const def: { param: string | null; upper?: boolean } = DIMENSIONS[d];
    const v = def.param ? (q as Record<string, unknown>)[def.param] : undefined;
    if (typeof v === 'string' && v) f.push({ cols: [d], sql: `${d} = ?`, b: [def.upper ? v.toUpperCase() : v] });
  }
  if (q.artist) f.push({ cols: ['artist_id'], sql: `artist_id = ?`, b: [q.artist], lines: viaRecordings('artist_id', q.artist) });
  if (q.product && q.releaseAssets?.length) {
    const product = viaRecordings('product_id', q.product);
    const assets = q.releaseAssets;
    f.push({
      cols: ['product_id', 'asset_id'],
      sql: `(product_id = ? OR asset_id = ANY(?::uuid[]))`,
      b: [q.product, assets],
      lines: (t) => {
        const p = product(t);
        return { sql: `((tenant_id = ? AND asset_id = ANY(?::uuid[])) OR ${p.sql})`, b: [t, assets, ...p.b] };
      },
    });
  } else if (q.product) f.push({ cols: ['product_id'], sql: `product_id = ?`, b: [q.product], lines: viaRecordings('product_id', q.product) });
  else if (q.releaseAssets) f.push({ cols: ['asset_id'], sql: `asset_id = ANY(?::uuid[])`, b: [q.releaseAssets] });
  if (q.asset) f.push({ cols: ['asset_id'], sql: `asset_id = ?`, b: [q.asset] });
  if (q.file) f.push({ cols: [], sql: `file_id = ?`, b: [q.file] });
  if (q.fileIds) f.push({ cols: [], sql: `file_id = ANY(?::uuid[])`, b: [q.fileIds] });
  // The reference's lists.
  for (const d of DIMENSION_COLUMNS) {
    const vs = q.dimensionsIn?.[d];
    if (vs) f.push({ cols: [d], sql: `${d} = ANY(?::text[])`, b: [vs] });
  }
  if (q.artistIds) f.push({ cols: ['artist_id'], sql: `artist_id = ANY(?::uuid[])`, b: [q.artistIds], lines: viaRecordingsAny('artist_id', q.artistIds) });
  if (q.productIds) f.push({ cols: ['product_id'], sql: `product_id = ANY(?::uuid[])`, b: [q.productIds], lines: viaRecordingsAny('product_id', q.productIds) });
  if (q.assetIds) f.push({ cols: ['asset_id'], sql: `asset_id = ANY(?::uuid[])`, b: [q.assetIds] });
  if (cover.by === 'sale') {
    if (cover.from) f.push({ cols: ['sale_month'], sql: `sale_month >= ?::date`, b: [cover.from] });
    if (cover.to) f.push({ cols: ['sale_month'], sql: `sale_month <= ?::date`, b: [cover.to] });
  } else {
    // Periods overlapping the range: ending on or after its start, starting on or before its end.
    if (cover.from) f.push({ cols: [], sql: `ap_end >= ?::date`, b: [cover.from] });
    if (cover.to) f.push({ cols: [], sql: `accounting_period <= ?::date`, b: [cover.to] });
  }
  return f;
}

/** The plan of a request. `raw`: the statement lines whatever shape could answer (the benches' and tests' reference). */
export function planAnalytics(group: GroupBy, q: AnalyticsQuery, member: boolean, opts: { raw?: boolean } = {}): Plan {
  const cover = periodCover(q);
  const filters = filtersOf(q, cover);
  const groupCols = GROUP_COLS[group];
  const needs = new Set<KeyColumn>(filters.flatMap((f) => f.cols));
  for (const c of groupCols) if (c !== 'accounting_period' && c !== 'ap_end' && c !== 'file_id') needs.add(c as KeyColumn);
  if (member) needs.add('share_set_id');
  const shape = opts.raw ? null : SHAPES.find((s) => [...needs].every((c) => shapeKeys(s).includes(c))) ?? null;
  return { shape, member, cover, needs: [...needs].sort(), filters, groupCols };
}
