/**
 * Royalty analytics: one query builder for every /royalty/* breakdown.
 *
 * Source choice (the coarsest rollup holding every column the request groups or filters by):
 *   royalty_agg_period       totals, month, accounting period
 *   royalty_agg_dims         + dsp, country, sale type, aggregator
 *   royalty_agg_catalogue    + artist, product, asset
 *   royalty_agg_file_*       the same two with a `file` filter
 *   raw lines / earnings     a combination no rollup holds (e.g. DSP breakdown of one
 *                            asset): correct, slower; the response says `source: "lines"`.
 * Scope: admins/owners read payee = ZERO_UUID (every line of the workspace, matched or
 * not); other members read their own payee rows (their earnings).
 * Dates: `start`/`end` (YYYY-MM or YYYY-MM-DD, inclusive) select sale months
 * (periodFilterType=sale, default) or accounting periods (accounting) that OVERLAP the range.
 */
import DecimalBase from 'decimal.js';

/** Exact sums: the default 20 significant digits would round 28,12 amounts. */
const Decimal = DecimalBase.clone({ precision: 80 });
import type { Trx } from '../../db';
import { ValidationError } from '../../lib/errors';
import { ZERO_UUID } from './allocate';

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

function startDate(s: string): string {
  return /^\d{4}-\d{2}$/.test(s) ? `${s}-01` : s;
}
function endDate(s: string): string {
  if (/^\d{4}-\d{2}$/.test(s)) {
    const [y, m] = s.split('-').map(Number) as [number, number];
    return new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
  }
  return s;
}
function checkDate(s: string, what: string): void {
  const d = startDate(s);
  const t = Date.parse(`${d}T00:00:00Z`);
  if (Number.isNaN(t) || new Date(t).toISOString().slice(0, 10) !== d) throw new ValidationError(`${what} must be YYYY-MM or YYYY-MM-DD`, [`${what}: ${s}`]);
}

export interface AnalyticsResult {
  currency: string;
  rows: Record<string, unknown>[];
  total: { revenue: string; quantity: string; lines: number };
  source: string;
}

export async function royaltyAnalytics(
  trx: Trx,
  tenantId: number,
  payee: string | null,
  group: GroupBy,
  q: AnalyticsQuery,
  opts: { raw?: boolean } = {},
): Promise<AnalyticsResult> {
  const { rows: t } = await trx.raw(`SELECT base_currency FROM tenants WHERE id = ?`, [tenantId]);
  const currency = String(t[0]?.base_currency ?? 'USD').trim();
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
    filters.push(accounting ? { col: '', sql: `ap_end >= ?::date`, b: [startDate(q.start)] } : { col: '', sql: `sale_month >= date_trunc('month', ?::date)::date`, b: [startDate(q.start)] });
  }
  if (q.end) {
    checkDate(q.end, 'end');
    filters.push(accounting ? { col: '', sql: `accounting_period <= ?::date`, b: [endDate(q.end)] } : { col: '', sql: `sale_month <= ?::date`, b: [endDate(q.end)] });
  }

  const needed = new Set([...groupCols, ...filters.map((f) => f.col)].filter((c) => DIMS.has(c) || CAT.has(c)));
  const onlyDims = [...needed].every((c) => DIMS.has(c));
  const onlyCat = [...needed].every((c) => CAT.has(c));
  let source: string;
  let from: string;
  const fromB: any[] = [];
  const who = payee ?? ZERO_UUID;
  if (!opts.raw && (onlyDims || onlyCat)) {
    const fileFilter = !!q.file;
    // Undated breakdowns (no start/end, not by month or accounting period) read the all-time tables.
    const allTime = !q.start && !q.end && needed.size > 0 && !groupCols.some((c) => ['sale_month', 'accounting_period'].includes(c));
    source = fileFilter
      ? onlyDims ? 'royalty_agg_file_dims' : 'royalty_agg_file_catalogue'
      : needed.size === 0 ? 'royalty_agg_period' : `${onlyDims ? 'royalty_agg_dims' : 'royalty_agg_catalogue'}${allTime ? '_all' : ''}`;
    from = `(SELECT * FROM ${source} WHERE tenant_id = ? AND payee = ?${fileFilter ? ' AND file_id = ?' : ''}) s`;
    fromB.push(tenantId, who);
    if (fileFilter) fromB.push(q.file);
  } else {
    // Raw: workspace → every line of processed files; member → their current earnings.
    const fileCond = q.file ? ' AND l.file_id = ?' : '';
    const ap = `f.accounting_period, (f.accounting_period + make_interval(months => CASE tn.accounting_cadence WHEN 'quarterly' THEN 3 WHEN 'half-yearly' THEN 6 ELSE 1 END) - interval '1 day')::date AS ap_end`;
    if (payee === null) {
      source = 'lines';
      from = `(SELECT l.sale_month, ${ap}, l.dsp, l.country, l.sale_type, l.aggregator, l.artist_id, l.product_id, l.asset_id,
                      l.base_amount AS revenue, l.quantity, 1 AS lines
                 FROM royalty_lines l JOIN files f ON f.tenant_id = l.tenant_id AND f.id = l.file_id AND f.status = 'processed'
                 JOIN tenants tn ON tn.id = l.tenant_id
                WHERE l.tenant_id = ?${fileCond}) s`;
      fromB.push(tenantId);
    } else {
      source = 'earnings';
      from = `(SELECT l.sale_month, ${ap}, l.dsp, l.country, l.sale_type, l.aggregator, l.artist_id, l.product_id, l.asset_id,
                      e.amount AS revenue, l.quantity, 1 AS lines
                 FROM royalty_earnings e JOIN royalty_lines l ON l.tenant_id = e.tenant_id AND l.file_id = e.file_id AND l.line_no = e.line_id
                 JOIN files f ON f.tenant_id = l.tenant_id AND f.id = l.file_id AND f.status = 'processed'
                 JOIN tenants tn ON tn.id = l.tenant_id
                WHERE e.tenant_id = ? AND e.tenant_user_id = ? AND e.superseded_at IS NULL${fileCond}) s`;
      fromB.push(tenantId, payee);
    }
    if (q.file) fromB.push(q.file);
  }

  const where = filters.length ? `WHERE ${filters.map((f) => f.sql).join(' AND ')}` : '';
  const whereB = filters.flatMap((f) => f.b);
  const sel = groupCols.length ? `${groupCols.join(', ')}, ` : '';
  const groupSql = groupCols.length ? `GROUP BY ${groupCols.join(', ')}` : '';
  let sql = `SELECT ${sel}trim_scale(sum(revenue)) AS revenue, trim_scale(sum(quantity)) AS quantity, sum(lines)::bigint AS lines FROM ${from} ${where} ${groupSql}`;
  if (group === 'total') sql = `SELECT * FROM (${sql}) g WHERE g.lines IS NOT NULL`;
  // Names for the catalogue keys.
  const named: Record<string, string> = {
    artist: `SELECT g.artist_id AS "artistId", a.name AS artist, g.revenue, g.quantity, g.lines FROM (${sql}) g LEFT JOIN artists a ON a.tenant_id = ? AND a.id = g.artist_id`,
    product: `SELECT g.product_id AS "productId", p.title AS product, p.upc, g.revenue, g.quantity, g.lines FROM (${sql}) g LEFT JOIN products p ON p.tenant_id = ? AND p.id = g.product_id`,
    asset: `SELECT g.asset_id AS "assetId", a.title AS asset, a.isrc, g.revenue, g.quantity, g.lines FROM (${sql}) g LEFT JOIN assets a ON a.tenant_id = ? AND a.id = g.asset_id`,
    month: `SELECT to_char(g.sale_month, 'YYYY-MM') AS month, g.revenue, g.quantity, g.lines FROM (${sql}) g`,
    accountingperiod: `SELECT to_char(g.accounting_period, 'YYYY-MM-DD') AS "accountingPeriod", to_char(g.ap_end, 'YYYY-MM-DD') AS "accountingPeriodEnd", g.revenue, g.quantity, g.lines FROM (${sql}) g`,
    dsp: `SELECT g.dsp, g.revenue, g.quantity, g.lines FROM (${sql}) g`,
    country: `SELECT g.country, g.revenue, g.quantity, g.lines FROM (${sql}) g`,
    saletype: `SELECT g.sale_type AS "saleType", g.revenue, g.quantity, g.lines FROM (${sql}) g`,
    aggregator: `SELECT g.aggregator, g.revenue, g.quantity, g.lines FROM (${sql}) g`,
    total: sql,
  };
  const chronological = group === 'month' || group === 'accountingperiod';
  const order = group === 'total' ? '' : chronological ? ' ORDER BY 1' : ' ORDER BY g.revenue DESC, 1';
  const finalSql = `${named[group]!}${order}`;
  const bindings = [...fromB, ...whereB, ...(['artist', 'product', 'asset'].includes(group) ? [tenantId] : [])];
  const { rows } = await trx.raw(finalSql, bindings);

  let revenue = new Decimal(0);
  let quantity = new Decimal(0);
  let lines = 0;
  const out = rows.map((r: Record<string, unknown>) => {
    // trim_scale(numeric)::text: exact decimal strings without trailing zeros.
    const rev = String(r.revenue ?? '0');
    const qty = String(r.quantity ?? '0');
    revenue = revenue.plus(rev);
    quantity = quantity.plus(qty);
    lines += Number(r.lines);
    return { ...r, revenue: rev, quantity: qty, lines: Number(r.lines) };
  });
  return { currency, rows: out, total: { revenue: revenue.toFixed(), quantity: quantity.toFixed(), lines }, source };
}
