/**
 * Royalty analytics: one query builder for every /royalty/* breakdown.
 *
 * Source choice (the coarsest rollup holding every column the request groups or filters by;
 * "statement dimensions" = DSP, country, sale type, aggregator; "catalogue" = artist,
 * product, recording):
 *   royalty_agg_period          totals, month, accounting period
 *   royalty_agg_dim[_all]       ONE statement dimension, no catalogue
 *   royalty_agg_dims[_all]      two or more statement dimensions, no catalogue
 *   (artist only, dated: royalty_agg_artist_dim's aggregator rows, summed)
 *   royalty_agg_item_all        undated by artist / product / recording, no other filter:
 *                               one row per item (no GROUP BY); royalty_agg_item_h the same
 *                               for exactly one sale half-year or year
 *   royalty_agg_catalogue[_all] catalogue, no statement dimension (sale-dated: the range's
 *                               whole years and halves from royalty_agg_catalogue_h, its other
 *                               whole quarters from royalty_agg_catalogue_q, the other months
 *                               from royalty_agg_catalogue; see saleCover)
 *   royalty_agg_artist_dim      artist × ONE statement dimension (compact, by month; undated
 *                               requests sum the months), workspace and members
 *   royalty_agg_file_artist     artist × two or more statement dimensions (or an artist
 *                               filter × one, with a file filter), workspace and members, dated or not
 *                               (undated: every file's rows, by its artist index)
 *   royalty_agg_cross_all       catalogue × ONE statement dimension, undated, no file
 *                               filter (catalogue filters through its item indexes), admins
 *                               and members
 *   royalty_agg_cross_period    catalogue breakdown × ONE dimension filter, admins and
 *                               members, accounting-dated, no catalogue or file filter
 *   royalty_agg_file_cross      catalogue × ONE statement dimension otherwise (workspace view;
 *                               a member's at artist grain), read across files through its
 *                               catalogue / value indexes
 *   royalty_agg_file_*          the others with a `file` filter
 *   (`_all`: all-time tables, for requests with no start/end not grouped by month/period)
 *   line lists → lines /        what no rollup holds (a product / recording filter under
 *     earnings                  two or more dimensions, a member's product / recording
 *                               breakdown or filter crossed with a dimension, a product /
 *                               recording breakdown under two or more dimension filters):
 *                               the line numbers to fetch, per file, from the workspace
 *                               cross rows — under dimension filters the intersection of one
 *                               list per filter (exactly the matching lines), else the item's
 *                               aggregator rows (every value: all its lines) — then each line
 *                               (or the member's earnings of it) by index. Never a scan.
 * Scope: admins/owners read payee = ZERO_UUID (every line of the workspace, matched or
 * not); other members read their own payee rows (their earnings).
 * Dates: `start`/`end` (YYYY-MM or YYYY-MM-DD, inclusive) select sale months
 * (periodFilterType=sale, default) or accounting periods (accounting) that OVERLAP the range.
 */
import type { Trx } from '../../db';
import { ZERO_UUID } from './allocate';
import { startDate, endDate, checkDate, saleCover } from './sale-dates';

export { saleCover, wholeQuarters, type SaleCover } from './sale-dates';

/** `kind` of royalty_agg_item_all (aggregate.ts writes them so). */
const ITEM_KINDS: Record<string, number> = { artist_id: 1, product_id: 2, asset_id: 3 };
/** `dim` of royalty_agg_*cross (aggregate.ts writes them in this order). */
const CROSS_DIMS: Record<string, number> = { dsp: 1, country: 2, sale_type: 3, aggregator: 4 };

export type GroupBy = 'total' | 'month' | 'accountingperiod' | 'dsp' | 'country' | 'artist' | 'product' | 'asset' | 'saletype' | 'aggregator';

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
}

/** Paging of the rows (the `total` always sums every row). */
export interface AnalyticsPaging {
  page?: number;
  size?: number;
}
/** Catalogue breakdowns are paged by default (one row per artist / product / recording). */
export const CATALOGUE_GROUPS = new Set<GroupBy>(['artist', 'product', 'asset']);
export const DEFAULT_PAGE_SIZE = 100;

const GROUP_COLS: Record<GroupBy, string[]> = {
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
};
const DIMS = new Set(['dsp', 'country', 'sale_type', 'aggregator']);
const CAT = new Set(['artist_id', 'product_id', 'asset_id']);

export interface AnalyticsResult {
  currency: string;
  rows: Record<string, unknown>[];
  total: { revenue: string; quantity: string; lines: number };
  pagination: { page: number; size: number; total: number };
  source: string;
}

export async function royaltyAnalytics(
  trx: Trx,
  tenantId: number,
  payee: string | null,
  group: GroupBy,
  q: AnalyticsQuery,
  opts: { raw?: boolean } & AnalyticsPaging = {},
): Promise<AnalyticsResult> {
  const groupCols = GROUP_COLS[group];

  // Filters, as [column, SQL, bindings].
  const filters: { col: string; sql: string; b: any[] }[] = [];
  if (q.dsp) filters.push({ col: 'dsp', sql: `dsp = ?`, b: [q.dsp] });
  if (q.country) filters.push({ col: 'country', sql: `country = ?`, b: [q.country.toUpperCase()] });
  if (q.saleType) filters.push({ col: 'sale_type', sql: `sale_type = ?`, b: [q.saleType] });
  if (q.artist) filters.push({ col: 'artist_id', sql: `artist_id = ?`, b: [q.artist] });
  if (q.product && q.releaseAssets?.length) {
    filters.push({ col: 'asset_id', sql: `(product_id = ? OR asset_id = ANY(?::uuid[]))`, b: [q.product, q.releaseAssets] });
  } else if (q.product) filters.push({ col: 'product_id', sql: `product_id = ?`, b: [q.product] });
  else if (q.releaseAssets) filters.push({ col: 'asset_id', sql: `asset_id = ANY(?::uuid[])`, b: [q.releaseAssets] });
  if (q.asset) filters.push({ col: 'asset_id', sql: `asset_id = ?`, b: [q.asset] });
  const accounting = q.periodFilterType === 'accounting';
  if (q.start) {
    checkDate(q.start, 'start');
    // Accounting: periods ending on or after the start. An accounting period is at most six
    // months long (half-yearly cadence), so it also began after start − 6 months: a bound on
    // accounting_period that indexes holding it (the cross value index) check in the index.
    filters.push(accounting ? { col: 'period', sql: `ap_end >= ?::date AND accounting_period > (?::date - interval '6 months')::date`, b: [startDate(q.start), startDate(q.start)] } : { col: 'sale_month', sql: `sale_month >= date_trunc('month', ?::date)::date`, b: [startDate(q.start)] });
  }
  if (q.end) {
    checkDate(q.end, 'end');
    filters.push(accounting ? { col: 'period', sql: `accounting_period <= ?::date`, b: [endDate(q.end)] } : { col: 'sale_month', sql: `sale_month <= ?::date`, b: [endDate(q.end)] });
  }

  const needed = new Set([...groupCols, ...filters.map((f) => f.col)].filter((c) => DIMS.has(c) || CAT.has(c)));
  const stmt = [...needed].filter((c) => DIMS.has(c));
  const cat = [...needed].filter((c) => CAT.has(c));
  let source: string;
  let from: string;
  const fromB: any[] = [];
  const who = payee ?? ZERO_UUID;
  const crossed = cat.length > 0 && stmt.length > 0;
  /** The sale-month filters are applied inside the source (the quarter rollup's UNION). */
  let monthsInSource = false;
  const fileFilter = !!q.file;
  // Undated breakdowns (no start/end, not by month or accounting period) read the all-time tables.
  const allTime = !fileFilter && !q.start && !q.end && needed.size > 0 && !groupCols.some((c) => ['sale_month', 'accounting_period'].includes(c));
  // Crossed requests:
  //  - artist (the only catalogue column) × ONE statement dimension → the compact artist ×
  //    dimension rollup (by month; with a file filter: the per-file rollups below);
  //  - artist × statement dimensions, with an artist filter or two or more dimensions → the
  //    artist rollup (artist × all four dimensions, workspace and members);
  //  - catalogue × ONE dimension otherwise → the all-time / by-period cross rollups below,
  //    else the per-file cross rollup (workspace at catalogue grain, members at artist grain);
  //  - the rest (product / recording × two or more dimensions, a member's dated product /
  //    recording × any dimension, a product / recording breakdown under two or more
  //    dimension filters) → the lines (or the member's earnings of them) named by the line
  //    lists: the cross rows' lists of the dimension filters, intersected, or the filtered
  //    items' aggregator rows when there is no dimension filter. `raw` is left for
  //    opts.raw (the bench's reference) and as a guard.
  const artistOnly = cat.length === 1 && cat[0] === 'artist_id';
  // Catalogue × ONE statement dimension, workspace and members: undated, with or without
  // catalogue filters → the all-time cross rollup; accounting-dated, with no catalogue
  // filter → the cross rollup by accounting period. Neither with a file filter.
  const catalogueFilter = !!(q.artist || q.product || q.asset || q.releaseAssets);
  const byPeriod = crossed && stmt.length === 1 && !fileFilter && !catalogueFilter
    && !filters.some((f) => f.col === 'sale_month') && !groupCols.includes('sale_month');
  const crossAll = crossed && stmt.length === 1 && allTime;
  // By artist / product / recording (or on one of them) with no filter but on that column and
  // sale dates: the item rollups, whose rows are the groups (no GROUP BY) — all-time when
  // undated, by period for exactly one calendar half or year (below).
  const itemOnly = stmt.length === 0 && cat.length === 1 && !q.releaseAssets && filters.every((f) => f.col === cat[0] || f.col === 'sale_month');
  const itemAll = allTime && !fileFilter && itemOnly;
  const kind = !crossed
    ? 'rollup'
    : artistOnly && stmt.length === 1 && !fileFilter
      ? 'artistdim'
      : artistOnly && (!!q.artist || stmt.length > 1)
      ? 'artist'
      : stmt.length === 1 && (payee === null || artistOnly || byPeriod || crossAll)
        ? 'cross'
        : catalogueFilter || filters.some((f) => DIMS.has(f.col))
          ? 'postings'
          : 'raw';
  if (!opts.raw && kind !== 'raw' && kind !== 'postings') {
    let cols = '*';
    let dimCond = '';
    // A table of ONE dimension's values (dim, value): the request's dimension, under its own name.
    const oneDim = (table: string) => {
      cols = `*, value AS ${stmt[0]}`;
      dimCond = ` AND dim = ${CROSS_DIMS[stmt[0]!]}`;
      return table;
    };
    if (kind === 'artist') source = 'royalty_agg_file_artist';
    // artist × ONE dimension (compact, by month; undated: every month's rows)
    else if (kind === 'artistdim') source = oneDim('royalty_agg_artist_dim');
    // catalogue × ONE dimension, no file filter: undated (catalogue filters through its item
    // indexes) / accounting-dated without a catalogue filter (those use the per-file table's
    // item indexes)
    else if (kind === 'cross' && crossAll) source = oneDim('royalty_agg_cross_all');
    else if (kind === 'cross' && byPeriod) source = oneDim('royalty_agg_cross_period');
    else if (kind === 'cross') source = oneDim('royalty_agg_file_cross');
    else if (fileFilter) source = cat.length ? 'royalty_agg_file_catalogue' : 'royalty_agg_file_dims';
    else if (needed.size === 0) source = 'royalty_agg_period';
    // ONE statement dimension: its values only (not the four dimensions' combinations)
    else if (!cat.length && stmt.length === 1) source = oneDim(`royalty_agg_dim${allTime ? '_all' : ''}`);
    else if (itemAll) {
      // Undated by artist / product / recording, no other filter: one row per item already.
      source = 'royalty_agg_item_all';
      cols = `item AS ${cat[0]}, revenue, quantity, lines`;
      dimCond = ` AND kind = ${ITEM_KINDS[cat[0]!]}`;
    } else if (artistOnly && !allTime) {
      // By artist alone, dated: the artist × aggregator rows of the months. Every line has
      // exactly one value of each dimension, so one dimension's rows of an artist sum to the
      // artist's totals (undated: the all-time catalogue rows, fewer than every month's).
      source = 'royalty_agg_artist_dim';
      dimCond = ` AND dim = ${CROSS_DIMS.aggregator}`;
    } else source = `${cat.length ? 'royalty_agg_catalogue' : 'royalty_agg_dims'}${allTime ? '_all' : ''}`;
    // Sale-dated catalogue rows: the range's whole years, halves and quarters from their
    // rollups, the months outside them from the month rollup (the sale-month filters move
    // into the source).
    const cover = source === 'royalty_agg_catalogue' && !accounting && !groupCols.some((c) => c === 'sale_month' || c === 'accounting_period') ? saleCover(q.start, q.end) : null;
    // Exactly one calendar half or year, by artist / product / recording with no other filter:
    // the item rollup by period, whose rows are the groups (no GROUP BY).
    const onePeriod = cover && !cover.quarters.length && q.start && q.end && `${startDate(q.start).slice(0, 7)}-01` === cover.first && endDate(q.end) === cover.lastDay
      ? cover.years && !cover.halves.length && cover.years[0] === cover.years[1] ? { grain: 12, start: cover.years[0] } : !cover.years && cover.halves.length === 1 ? { grain: 6, start: cover.halves[0]! } : null
      : null;
    if (onePeriod && itemOnly) {
      source = 'royalty_agg_item_h';
      from = `(SELECT item AS ${cat[0]}, revenue, quantity, lines FROM royalty_agg_item_h WHERE tenant_id = ? AND payee = ? AND kind = ${ITEM_KINDS[cat[0]!]} AND grain = ${onePeriod.grain} AND period_start = ?::date) s`;
      fromB.push(tenantId, who, onePeriod.start);
      monthsInSource = true;
    } else if (cover) {
      const qCols = 'artist_id, product_id, asset_id, revenue, quantity, lines';
      const months = filters.filter((f) => f.col === 'sale_month');
      const parts: string[] = [];
      if (cover.years) {
        parts.push(`SELECT ${qCols} FROM royalty_agg_catalogue_h WHERE tenant_id = ? AND payee = ? AND grain = 12 AND period_start >= ?::date AND period_start <= ?::date`);
        fromB.push(tenantId, who, ...cover.years);
      }
      if (cover.halves.length) {
        parts.push(`SELECT ${qCols} FROM royalty_agg_catalogue_h WHERE tenant_id = ? AND payee = ? AND grain = 6 AND period_start = ANY(?::date[])`);
        fromB.push(tenantId, who, cover.halves);
      }
      if (cover.quarters.length) {
        parts.push(`SELECT ${qCols} FROM royalty_agg_catalogue_q WHERE tenant_id = ? AND payee = ? AND sale_quarter = ANY(?::date[])`);
        fromB.push(tenantId, who, cover.quarters);
      }
      parts.push(`SELECT ${qCols} FROM royalty_agg_catalogue WHERE tenant_id = ? AND payee = ?${months.map((f) => ` AND ${f.sql}`).join('')}
                  AND (sale_month < ?::date OR sale_month > ?::date)`);
      fromB.push(tenantId, who, ...months.flatMap((f) => f.b), cover.first, cover.lastDay);
      source = [cover.years || cover.halves.length ? 'royalty_agg_catalogue_h' : '', cover.quarters.length ? 'royalty_agg_catalogue_q' : '', 'royalty_agg_catalogue'].filter(Boolean).join(' + ');
      from = `(${parts.join(`
               UNION ALL
               `)}) s`;
      monthsInSource = true;
    } else {
      from = `(SELECT ${cols} FROM ${source} WHERE tenant_id = ? AND payee = ?${dimCond}${fileFilter ? ' AND file_id = ?' : ''}) s`;
      fromB.push(tenantId, who);
      if (fileFilter) fromB.push(q.file);
    }
  } else {
    const ap = `f.accounting_period, (f.accounting_period + make_interval(months => CASE tn.accounting_cadence WHEN 'quarterly' THEN 3 WHEN 'half-yearly' THEN 6 ELSE 1 END) - interval '1 day')::date AS ap_end`;
    if (!opts.raw && kind === 'postings') {
      // The lines to fetch come from the workspace cross rows' line lists (file × sale month ×
      // catalogue item × ONE dimension value; migration 20261123540000). Under dimension
      // filters: the INTERSECTION of one cross row's list per filter (same file × month ×
      // item), exactly the lines matching every dimension filter. Without one: the item's
      // aggregator rows, every value — each line has exactly one aggregator, so their lists
      // together are the item's lines. Catalogue, sale-month and accounting filters narrow
      // each side; every filter applies again to the fetched lines below. Each file's lines
      // are then ONE index scan `(tenant, file) AND line_no = ANY(…)` of the lines (or of the
      // member's earnings), in a LATERAL subquery the planner cannot flatten (OFFSET 0:
      // flattened, it probed `(tenant, line_no)` across every file of the workspace, or read
      // all of a member's earnings through the payee index).
      const dimFilters = filters.filter((f) => DIMS.has(f.col));
      const sides = dimFilters.length ? dimFilters.map((f) => ({ dim: CROSS_DIMS[f.col]!, b: f.b })) : [{ dim: CROSS_DIMS.aggregator!, b: [] as unknown[] }];
      const narrow = filters.filter((f) => CAT.has(f.col) || f.col === 'sale_month' || f.col === 'period');
      // Member view: a row whose artist the member earns nothing from under that value in that
      // file and month (no member cross row, artist grain) is skipped before its lines'
      // earnings are probed: one index probe instead of one per line.
      // The probe is equalities on every column of the cross value index (tenant, payee, dim,
      // value, artist, accounting period end and start, month: a file's rows share its
      // period), so it reads the one to four entries of that month's files; rows with a NULL
      // in one of them are not pruned.
      const c = 'royalty_agg_file_cross';
      const mine = (i: number) =>
        payee === null || i > 0
          ? ''
          : ` AND (value IS NULL OR artist_id IS NULL OR sale_month IS NULL OR accounting_period IS NULL OR EXISTS (
                SELECT 1 FROM ${c} x WHERE x.tenant_id = ${c}.tenant_id AND x.payee = ?::uuid AND x.dim = ${c}.dim AND x.value = ${c}.value
                   AND x.artist_id = ${c}.artist_id AND x.ap_end = ${c}.ap_end AND x.accounting_period = ${c}.accounting_period
                   AND x.sale_month = ${c}.sale_month AND x.file_id = ${c}.file_id))`;
      const parts = sides.map((sd, i) => {
        fromB.push(ZERO_UUID, ZERO_UUID, ZERO_UUID, tenantId, ZERO_UUID, ...sd.b, ...(fileFilter ? [q.file] : []), ...narrow.flatMap((n) => n.b), ...(mine(i) ? [payee] : []));
        return `(SELECT file_id, coalesce(sale_month, '-infinity') AS m, coalesce(artist_id, ?::uuid) AS ar, coalesce(product_id, ?::uuid) AS pr, coalesce(asset_id, ?::uuid) AS rc, line_nos, accounting_period, ap_end
                   FROM royalty_agg_file_cross WHERE tenant_id = ? AND payee = ? AND dim = ${sd.dim}${sd.b.length ? ' AND value = ?' : ''}${fileFilter ? ' AND file_id = ?' : ''}${narrow
                     .map((n) => ` AND ${n.sql}`)
                     .join('')}${mine(i)}) c${i}`;
      });
      const on = (i: number) => ['file_id', 'm', 'ar', 'pr', 'rc'].map((k) => `c${i}.${k} = c0.${k}`).join(' AND ');
      // One list per file (one index scan of the file's lines, not one per cross row).
      const keep = parts.slice(1).map((_, i) => `x = ANY(c${i + 1}.line_nos)`);
      // The file's accounting period as its rollup rows hold it (set when it was aggregated),
      // like every other source: not recomputed from a cadence changed since.
      const lists = `(SELECT c0.file_id, min(c0.accounting_period) AS accounting_period, min(c0.ap_end) AS ap_end, array_agg(x) AS line_nos FROM ${parts[0]}${parts
        .slice(1)
        .map((p, i) => ` JOIN ${p} ON ${on(i + 1)}`)
        .join('')} CROSS JOIN LATERAL unnest(c0.line_nos) x${keep.length ? ` WHERE ${keep.join(' AND ')}` : ''} GROUP BY c0.file_id) p
                 JOIN files f ON f.tenant_id = ? AND f.id = p.file_id AND f.status = 'processed'`;
      fromB.push(tenantId);
      const listName = 'royalty_agg_file_cross line lists';
      if (payee === null) {
        source = `${listName} → lines`;
        from = `(SELECT l.sale_month, p.accounting_period, p.ap_end, l.dsp, l.country, l.sale_type, l.aggregator, l.artist_id, l.product_id, l.asset_id,
                        l.base_amount AS revenue, l.quantity, 1 AS lines
                   FROM ${lists}
                   CROSS JOIN LATERAL (SELECT l.sale_month, l.dsp, l.country, l.sale_type, l.aggregator, l.artist_id, l.product_id, l.asset_id, l.base_amount, l.quantity
                                         FROM royalty_lines l WHERE l.tenant_id = f.tenant_id AND l.file_id = p.file_id AND l.line_no = ANY(p.line_nos) OFFSET 0) l) s`;
      } else {
        source = `${listName} → earnings`;
        from = `(SELECT e.sale_month, p.accounting_period, p.ap_end, e.dsp, e.country, e.sale_type, e.aggregator, e.artist_id, e.product_id, e.asset_id,
                        e.amount AS revenue, e.quantity, 1 AS lines
                   FROM ${lists}
                   CROSS JOIN LATERAL (SELECT e.sale_month, e.dsp, e.country, e.sale_type, e.aggregator, e.artist_id, e.product_id, e.asset_id, e.amount, e.quantity
                                         FROM royalty_earnings e WHERE e.tenant_id = f.tenant_id AND e.file_id = p.file_id AND e.line_id = ANY(p.line_nos)
                                          AND e.tenant_user_id = ? AND e.superseded_at IS NULL OFFSET 0) e) s`;
        fromB.push(payee);
      }
    } else if (payee === null) {
      // Raw: workspace → every line of processed files; member → their current earnings.
      source = 'lines';
      from = `(SELECT l.sale_month, ${ap}, l.dsp, l.country, l.sale_type, l.aggregator, l.artist_id, l.product_id, l.asset_id,
                      l.base_amount AS revenue, l.quantity, 1 AS lines
                 FROM royalty_lines l JOIN files f ON f.tenant_id = l.tenant_id AND f.id = l.file_id AND f.status = 'processed'
                 JOIN tenants tn ON tn.id = l.tenant_id
                WHERE l.tenant_id = ?${q.file ? ' AND l.file_id = ?' : ''}) s`;
      fromB.push(tenantId);
      if (q.file) fromB.push(q.file);
    } else {
      source = 'earnings';
      // earnings carry their line's dimensions and quantity: no join back to the lines
      from = `(SELECT e.sale_month, ${ap}, e.dsp, e.country, e.sale_type, e.aggregator, e.artist_id, e.product_id, e.asset_id,
                      e.amount AS revenue, e.quantity, 1 AS lines
                 FROM royalty_earnings e JOIN files f ON f.tenant_id = e.tenant_id AND f.id = e.file_id AND f.status = 'processed'
                 JOIN tenants tn ON tn.id = e.tenant_id
                WHERE e.tenant_id = ? AND e.tenant_user_id = ? AND e.superseded_at IS NULL${q.file ? ' AND e.file_id = ?' : ''}) s`;
      fromB.push(tenantId, payee);
      if (q.file) fromB.push(q.file);
    }
  }

  const outer = monthsInSource ? filters.filter((f) => f.col !== 'sale_month') : filters;
  const where = outer.length ? `WHERE ${outer.map((f) => f.sql).join(' AND ')}` : '';
  const whereB = outer.flatMap((f) => f.b);
  const sel = groupCols.length ? `${groupCols.join(', ')}, ` : '';
  const groupSql = groupCols.length ? `GROUP BY ${groupCols.join(', ')}` : '';
  // Sums as they are (trim_scale only on what is answered: the page's rows and the total).
  let sql = source === 'royalty_agg_item_all' || source === 'royalty_agg_item_h'
    ? `SELECT ${sel}revenue, quantity, lines FROM ${from} ${where}`
    : `SELECT ${sel}sum(revenue) AS revenue, sum(quantity) AS quantity, sum(lines)::bigint AS lines FROM ${from} ${where} ${groupSql}`;
  if (group === 'total') sql = `SELECT * FROM (${sql}) g WHERE g.lines IS NOT NULL`;
  // Order (month and accounting-period rows chronological, others by revenue), then one page:
  // the page is taken first (a bounded top-N sort of the groups, not a sort of all of them
  // under a window), then numbered from its offset.
  const chronological = group === 'month' || group === 'accountingperiod' || group === 'total';
  const order = chronological ? groupCols.join(', ') || 'lines' : `revenue DESC, ${groupCols.map((c) => `${c} NULLS LAST`).join(', ')}`;
  const paged = opts.page !== undefined || opts.size !== undefined || CATALOGUE_GROUPS.has(group);
  const page = opts.page ?? 1;
  const size = paged ? opts.size ?? DEFAULT_PAGE_SIZE : 0;
  const offset = paged ? (Number(page) - 1) * Number(size) : 0;
  const limit = paged ? ` LIMIT ${Number(size)} OFFSET ${offset}` : '';
  // Names for the page's rows.
  const named: Record<GroupBy, string> = {
    artist: `p.artist_id AS "artistId", a.name AS artist`,
    product: `p.product_id AS "productId", x.title AS product, x.upc`,
    asset: `p.asset_id AS "assetId", a.title AS asset, a.isrc`,
    month: `to_char(p.sale_month, 'YYYY-MM') AS month`,
    accountingperiod: `to_char(p.accounting_period, 'YYYY-MM-DD') AS "accountingPeriod", to_char(p.ap_end, 'YYYY-MM-DD') AS "accountingPeriodEnd"`,
    dsp: `p.dsp`,
    country: `p.country`,
    saletype: `p.sale_type AS "saleType"`,
    aggregator: `p.aggregator`,
    total: '',
  };
  const joins: Partial<Record<GroupBy, string>> = {
    artist: `LEFT JOIN artists a ON a.tenant_id = ? AND a.id = p.artist_id`,
    product: `LEFT JOIN products x ON x.tenant_id = ? AND x.id = p.product_id`,
    asset: `LEFT JOIN assets a ON a.tenant_id = ? AND a.id = p.asset_id`,
  };
  const finalSql = `
    WITH g AS MATERIALIZED (${sql}),
    t AS (SELECT count(*)::int AS n, trim_scale(sum(revenue)) AS t_revenue, trim_scale(sum(quantity)) AS t_quantity, sum(lines)::bigint AS t_lines,
                 (SELECT base_currency FROM tenants WHERE id = ?) AS t_currency FROM g),
    p AS (SELECT g.*, ${offset} + row_number() OVER (ORDER BY ${order}) AS rn FROM (SELECT * FROM g ORDER BY ${order}${limit}) g)
    SELECT t.*, p.rn${named[group] ? `, ${named[group]}` : ''}, trim_scale(p.revenue) AS revenue, trim_scale(p.quantity) AS quantity, p.lines
      FROM t LEFT JOIN p ON true ${joins[group] ?? ''}
     ORDER BY p.rn`;
  const bindings = [...fromB, ...whereB, tenantId, ...(joins[group] ? [tenantId] : [])];
  const { rows } = await trx.raw(finalSql, bindings);

  const head = rows[0] ?? {};
  const out = rows
    .filter((r: Record<string, unknown>) => r.rn !== null)
    .map(({ n: _n, t_revenue: _r, t_quantity: _q, t_lines: _l, t_currency: _c, rn: _rn, ...r }: Record<string, unknown>) => ({
      ...r,
      // trim_scale(numeric)::text: exact decimal strings without trailing zeros.
      revenue: String(r.revenue ?? '0'),
      quantity: String(r.quantity ?? '0'),
      lines: Number(r.lines),
    }));
  const n = Number(head.n ?? 0);
  return {
    // The workspace's base currency, read in the same statement (one round trip a request).
    currency: String(head.t_currency ?? 'USD').trim(),
    rows: out,
    total: { revenue: String(head.t_revenue ?? '0'), quantity: String(head.t_quantity ?? '0'), lines: Number(head.t_lines ?? 0) },
    pagination: { page, size: paged ? size : n, total: n },
    source,
  };
}
