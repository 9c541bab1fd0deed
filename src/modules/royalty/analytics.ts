/**
 * Royalty analytics: one query builder for every /royalty/* breakdown. Which rollup shape
 * answers is the planner's (planner.ts, pure); this module turns its plan into SQL.
 *
 * Source: the plan's shape (shapes.ts) — rows of one file each, summed here — or, where no
 * shape holds every column the request needs, the statement lines of processed files.
 * Scope: admins/owners read every line of the workspace (matched or not); other members
 * their own earnings: Σ revenue × share over the share sets naming them (exact NUMERIC:
 * multiplied, never divided), the quantity and count of the lines they earn from.
 * Dates: `start`/`end` (YYYY-MM or YYYY-MM-DD, inclusive) select sale months
 * (periodFilterType=sale, default) or accounting periods (accounting) that OVERLAP the range.
 */
import type { Knex } from 'knex';
import { hashJoins, type Trx } from '../../db';
import { planAnalytics, type AnalyticsQuery, type GroupBy, type Plan } from './planner';
import { CATALOGUE, CATALOGUE_SHAPE, DIMENSION_COLUMNS, KEY_TYPES, LINE_DOWNLOADS, LINE_STREAMS, SHAPES, shapeKeys } from './shapes';
import { duckdbGrouped, replicaSumsOf, type AnalyticsReplica } from './engine';

export type { AnalyticsQuery, GroupBy } from './planner';

/** Paging of the rows (the `total` always sums every row), and their order. */
export interface AnalyticsPaging {
  page?: number;
  size?: number;
  /**
   * What the rows are ordered by before the page is taken: a figure, or `name` (the row's own
   * key: the month, the store, the artist's name, the recording's title...). Without it, months
   * and accounting periods come in time order and the rest by revenue, largest first.
   */
  sort?: AnalyticsSort;
  /** `asc` or `desc`; by default descending for a figure, ascending for a name. */
  order?: 'asc' | 'desc';
}
export const ANALYTICS_SORTS = ['revenue', 'quantity', 'lines', 'name'] as const;
export type AnalyticsSort = (typeof ANALYTICS_SORTS)[number];

/** The name a catalogue or file row is sorted by: its title or name, read for each group row. */
const NAME_OF: Partial<Record<GroupBy, (tenantId: number) => string>> = {
  artist: (t) => `(SELECT n.name FROM artists n WHERE n.tenant_id = ${t} AND n.id = g.artist_id)`,
  product: (t) => `(SELECT n.title FROM products n WHERE n.tenant_id = ${t} AND n.id = g.product_id)`,
  asset: (t) => `(SELECT n.title FROM assets n WHERE n.tenant_id = ${t} AND n.id = g.asset_id)`,
  file: (t) => `(SELECT n.original_name FROM files n WHERE n.tenant_id = ${t} AND n.id = g.file_id)`,
};

/** The ORDER BY of a breakdown's rows (each group column ends the order, so pages never overlap). */
export function rowOrder(group: GroupBy, groupCols: string[], tenantId: number, sort?: AnalyticsSort, order?: 'asc' | 'desc'): string {
  const keys = groupCols.map((c) => `g.${c}`);
  const chronological = group === 'month' || group === 'accountingperiod' || group === 'total';
  if (!sort) return chronological ? keys.join(', ') || 'lines' : `revenue DESC, ${keys.map((c) => `${c} NULLS LAST`).join(', ')}`;
  const dir = (order ?? (sort === 'name' ? 'asc' : 'desc')).toUpperCase();
  if (sort === 'name') {
    const name = NAME_OF[group]?.(Number(tenantId));
    return [...(name ? [`${name} ${dir} NULLS LAST`] : []), ...keys.map((c) => `${c} ${dir} NULLS LAST`)].join(', ') || 'lines';
  }
  return [`g.${sort} ${dir}`, ...keys.map((c) => `${c} NULLS LAST`)].join(', ');
}
/** Breakdowns whose page the engine takes (their groups grow with the catalogue or the files; keyed by a uuid). */
const ENGINE_PAGED = new Set<GroupBy>(['artist', 'product', 'asset', 'file']);

/**
 * rowOrder's order of a figure sort, in the engine's SQL over its grouped columns: the same
 * groups in the same order (the amount is exact there too: its two parts added; a uuid key
 * as text orders as Postgres orders the uuid).
 */
function engineOrder(groupCols: string[], sort?: AnalyticsSort, order?: 'asc' | 'desc'): string {
  const keys = groupCols.map((c) => `CAST(${c} AS VARCHAR) ASC NULLS LAST`);
  const figure = (f: AnalyticsSort) => (f === 'revenue' ? '(revenue + revenue2 * 0.00000001)' : f);
  if (!sort) return [`${figure('revenue')} DESC`, ...keys].join(', ');
  return [`${figure(sort)} ${(order ?? 'desc').toUpperCase()}`, ...keys].join(', ');
}

/** Catalogue breakdowns are paged by default (one row per artist / product / recording). */
export const CATALOGUE_GROUPS = new Set<GroupBy>(['artist', 'product', 'asset']);
export const DEFAULT_PAGE_SIZE = 100;

export interface AnalyticsResult {
  currency: string;
  rows: Record<string, unknown>[];
  total: { revenue: string; quantity: string; lines: number };
  pagination: { page: number; size: number; total: number };
  source: string;
}

/** Every line column a request can read (the lines source selects them all). */
const LINE_KEYS = ['sale_month', 'share_set_id', ...CATALOGUE, ...DIMENSION_COLUMNS];

/** A member's recordings, and for their lines without a recording, products and artists. */
export interface MemberCatalogue {
  assets: string[];
  products: string[];
  artists: string[];
}

/** Past this many recordings, products and artists, the lists are not sent: the lines are scanned. */
const MEMBER_RECORDINGS_MAX = 10_000;
/**
 * A member whose share sets pay more than this part of the workspace's lines has them
 * scanned: testing each line against the lists cost a scan about 10 % more (a payee on half
 * the share sets at 10M lines).
 */
const MEMBER_LINES_SHARE_MAX = 0.25;

/**
 * What a member's lines carry, from the catalogue shape: every line of a share set naming
 * them has a catalogue row with its share set, recording, product and artist. Null when
 * their lines are too large a part of the workspace's for an index read to pay. A statement
 * of its own (the lists are then bound as values): the analytics routes run in a REPEATABLE
 * READ transaction, so it and the query that uses it read the same snapshot.
 */
export async function memberCatalogue(trx: Trx, tenantId: number, payee: string): Promise<MemberCatalogue | null> {
  const catalogue = CATALOGUE_SHAPE.table;
  const mine = 'ss.share_set_id IS NOT NULL';
  // Hashed (hashJoins): without fresh statistics a nested loop would read the member's share
  // sets once per catalogue row (see royaltyAnalytics).
  const { rows } = await hashJoins(trx, () => trx.raw(
    `SELECT coalesce(array_agg(DISTINCT c.asset_id::text) FILTER (WHERE ${mine} AND c.asset_id IS NOT NULL), '{}') AS assets,
            coalesce(array_agg(DISTINCT c.product_id::text) FILTER (WHERE ${mine} AND c.asset_id IS NULL AND c.product_id IS NOT NULL), '{}') AS products,
            coalesce(array_agg(DISTINCT c.artist_id::text) FILTER (WHERE ${mine} AND c.asset_id IS NULL AND c.artist_id IS NOT NULL), '{}') AS artists,
            coalesce(sum(c.lines) FILTER (WHERE ${mine}), 0)::float8 / greatest(coalesce(sum(c.lines), 0), 1)::float8 AS share
       FROM ${catalogue} c LEFT JOIN royalty_share_sets ss ON ss.tenant_id = c.tenant_id AND ss.share_set_id = c.share_set_id AND ss.tenant_user_id = ?
      WHERE c.tenant_id = ?`,
    [payee, tenantId],
  ));
  const { share, ...m } = rows[0] as MemberCatalogue & { share: number };
  return share > MEMBER_LINES_SHARE_MAX || m.assets.length + m.products.length + m.artists.length > MEMBER_RECORDINGS_MAX ? null : m;
}

/**
 * The plan's source as a relation `s` with file_id, accounting_period, ap_end, the keys,
 * revenue, quantity, lines; a member's revenue is their share of it (the share set joined
 * on its payee). `mine`: the member's recordings (memberCatalogue), which narrow the lines
 * read. Returns [SQL, bindings, name].
 */
function sourceOf(plan: Plan, tenantId: number, payee: string | null, mine: MemberCatalogue | null = null): [string, unknown[], string] {
  const share = plan.member ? ` JOIN royalty_share_sets ss ON ss.tenant_id = r.tenant_id AND ss.share_set_id = r.share_set_id AND ss.tenant_user_id = ?` : '';
  const revenue = plan.member ? `r.revenue * ss.share * 0.01` : `r.revenue`;
  const memberB = plan.member ? [payee] : [];
  if (plan.shape) {
    const keys = shapeKeys(plan.shape).map((k) => `r.${k}`).join(', ');
    return [
      `(SELECT r.file_id, r.accounting_period, r.ap_end, ${keys}, ${revenue} AS revenue, r.quantity, r.lines, r.streams, r.downloads
          FROM ${plan.shape.table} r${share} WHERE r.tenant_id = ?) s`,
      [...memberB, tenantId],
      plan.shape.table,
    ];
  }
  // The lines of processed files, each file's period as its rows of the first shape hold it
  // (set when it was aggregated: a later cadence change does not move it; one row a file,
  // joined, not a lateral read per file: under hashJoins that would run once per line). A member's: the
  // lines of their recordings (the recording index), and of their products or artists
  // without a recording (partial indexes); the share-set join keeps exactly theirs. The
  // arrays are bound as values, so Postgres reads a few recordings' lines through the index
  // and scans when they are most of the workspace's.
  const narrow = mine
    ? ` AND ((l.tenant_id = ? AND l.asset_id = ANY(?::uuid[]))
            OR (l.tenant_id = ? AND l.asset_id IS NULL AND l.product_id IS NOT NULL AND l.product_id = ANY(?::uuid[]))
            OR (l.tenant_id = ? AND l.asset_id IS NULL AND l.artist_id IS NOT NULL AND l.artist_id = ANY(?::uuid[])))`
    : '';
  const narrowB = mine ? [tenantId, mine.assets, tenantId, mine.products, tenantId, mine.artists] : [];
  return [
    `(SELECT r.tenant_id, r.file_id, p.accounting_period, p.ap_end, ${LINE_KEYS.map((k) => `r.${k}`).join(', ')}, ${revenue} AS revenue, r.quantity, r.lines, r.streams, r.downloads
        FROM (SELECT DISTINCT ON (d.file_id) d.file_id AS id, d.accounting_period, d.ap_end FROM ${SHAPES[0]!.table} d
                JOIN files f ON f.tenant_id = d.tenant_id AND f.id = d.file_id
               WHERE d.tenant_id = ? AND f.status = 'processed' ORDER BY d.file_id) p
        JOIN (SELECT l.*, l.base_amount AS revenue, 1 AS lines, ${LINE_STREAMS} AS streams, ${LINE_DOWNLOADS} AS downloads FROM royalty_lines l WHERE l.tenant_id = ? AND l.base_amount IS NOT NULL${narrow}) r ON r.file_id = p.id${share}) s`,
    [tenantId, tenantId, ...narrowB, ...memberB],
    plan.member ? 'lines × share sets' : 'lines',
  ];
}

/**
 * The reference service's row fields beside Rondo's: Streams and Downloads = Σ quantity of
 * the lines of sale type stream / download (measures of every shape, exact). Derived, in NUMERIC (exact until the one rounding,
 * half away from zero): RatePer1K = revenue × 1000 / quantity (6 places), RoyaltyPercentage
 * and CountPercentage = the row's revenue / quantity × 100 over the total of every row
 * (4 places). Null where the divisor is zero.
 */
export const RATE_PLACES = 6;
export const PERCENT_PLACES = 4;
const REFERENCE_FIELDS_SQL = `trim_scale(round(p.revenue * 1000 / nullif(p.quantity, 0), ${RATE_PLACES})) AS "RatePer1K",
           trim_scale(round(p.revenue * 100 / nullif(t.t_revenue, 0), ${PERCENT_PLACES})) AS "RoyaltyPercentage",
           trim_scale(round(p.quantity * 100 / nullif(t.t_quantity, 0), ${PERCENT_PLACES})) AS "CountPercentage"`;

/**
 * The shapes keyed by no share set nor catalogue column (their rows per file do not grow with
 * the catalogue): Postgres answers their plans even when the replica is on.
 */
export const SMALL_SHAPES = new Set(SHAPES.filter((s) => !s.keys.some((k) => k === 'share_set_id' || (CATALOGUE as readonly string[]).includes(k))));

/**
 * Whether the replica answers a plan, or Postgres (measured at 10M lines, bench/RESULTS.md
 * "Analytics engine"): the replica answers what Postgres would read the statement lines for
 * (a member by or under a statement dimension, a catalogue breakdown under one: 0.1–1 s
 * against 4–10 s and more), the recordings and products of the whole workspace (groups as
 * many as the catalogue), what its sums hold (a breakdown filtered on its own columns at most:
 * a row per share set and group, where the rollups hold rows per file and month) and the
 * workspace's artists under a statement dimension. Postgres keeps the rest: a catalogue
 * filter (one artist, product or recording, read through its indexes: 3–31 ms against a
 * scan's 46–253 ms), the small shapes' few rows per file, and a member's figures under a
 * date range that no sums table holds (the share set × artist rollup).
 */
export function engineAnswers(plan: Plan, group: GroupBy): boolean {
  if (plan.filters.some((f) => f.cols.some((c) => (CATALOGUE as readonly string[]).includes(c)))) return false;
  if (!plan.shape) return true;
  if (SMALL_SHAPES.has(plan.shape)) return false;
  // The replica's sums (a row per share set and group) answer a member's totals, months,
  // periods and artists (under a date range too) and the workspace's artists faster than the
  // rollups' rows per file and month (a payee on every share set at 10M lines: 290–370 ms in
  // Postgres; its artists under six months 154 ms, against 16–27 ms); the workspace's
  // artists under a statement dimension read its lines faster than the artist × dimension rollup.
  return group === 'asset' || group === 'product' || replicaSumsOf(plan) !== null || plan.shape.table === 'royalty_roll_artist_dims';
}

/** The Postgres types of the grouped rows' columns (the replica's rows are bound as arrays of them). */
const GROUPED_TYPES: Record<string, string> = {
  ...KEY_TYPES, accounting_period: 'date', ap_end: 'date', file_id: 'uuid',
  revenue: 'numeric', revenue2: 'numeric', quantity: 'numeric', lines: 'bigint', streams: 'numeric', downloads: 'numeric', rscale: 'int', qscale: 'int',
};

/**
 * How a breakdown is computed besides its paging: `raw` (the statement lines in Postgres
 * whatever could answer: the benches' and tests' reference), `all` (every row, no page),
 * `engine` (the process's analytics replica, when on: engine/index.ts analyticsEngineOf).
 */
export interface AnalyticsOptions extends AnalyticsPaging {
  raw?: boolean;
  all?: boolean;
  engine?: AnalyticsReplica | null;
}

export async function royaltyAnalytics(
  trx: Trx,
  tenantId: number,
  payee: string | null,
  group: GroupBy,
  q: AnalyticsQuery,
  opts: AnalyticsOptions = {},
): Promise<AnalyticsResult> {
  const plan = planAnalytics(group, q, payee !== null, { raw: opts.raw });
  const { groupCols } = plan;
  // The grouped sums `g`: from the replica when it holds the workspace as this request's
  // snapshot sees it (engine/, docs/engine.md "The analytics engine"), else from Postgres.
  // Everything after `g` (names, order, paging, totals, derived fields) is Postgres' either way.
  const replicaAnswers = !!opts.engine && !opts.raw && engineAnswers(plan, group);
  // Order (by default month and accounting-period rows chronological, others by revenue), then
  // one page: the page is taken first (a bounded top-N sort of the groups, not a sort of all
  // of them under a window), then numbered from its offset.
  const order = rowOrder(group, groupCols, tenantId, opts.sort, opts.order);
  const paged = !opts.all && (opts.page !== undefined || opts.size !== undefined || CATALOGUE_GROUPS.has(group));
  const page = opts.page ?? 1;
  const size = paged ? opts.size ?? DEFAULT_PAGE_SIZE : 0;
  const offset = paged ? (Number(page) - 1) * Number(size) : 0;
  // A catalogue or file breakdown ordered by a figure is paged in the engine: its groups can
  // be as many as the catalogue (20,000 recordings), and only the page's go to Postgres.
  const enginePage = replicaAnswers && paged && ENGINE_PAGED.has(group) && opts.sort !== 'name'
    ? { order: engineOrder(groupCols, opts.sort, opts.order), limit: Number(size), offset }
    : undefined;
  const grouped = replicaAnswers ? await duckdbGrouped(opts.engine!, trx, tenantId, payee, plan, enginePage) : null;
  let sql: string;
  let sqlB: unknown[];
  let source: string;
  // The totals row `t`: over `g`, or (a page taken in the engine) the engine's totals of every group.
  let totals = `SELECT count(*)::int AS n, trim_scale(sum(revenue)) AS t_revenue, trim_scale(sum(quantity)) AS t_quantity, sum(lines)::bigint AS t_lines FROM g`;
  let totalsB: unknown[] = [];
  if (grouped) {
    // The amount from its two parts (engine/replica.ts), each sum at the scale Postgres' own
    // sum would have (the largest of its terms'; a member's: the amounts' + 8, share × 0.01):
    // exact (the sum has no more digits), and the derived fields' divisions then round alike.
    const cols = [...groupCols, 'revenue', 'revenue2', 'quantity', 'lines', 'streams', 'downloads', 'rscale', 'qscale'];
    const revenue = `round((g.revenue + g.revenue2 * 0.00000001)${plan.member ? ' * 0.01' : ''}, g.rscale)`;
    sql = `SELECT ${[...groupCols.map((c) => `g.${c}`), `${revenue} AS revenue`, `round(g.quantity, g.qscale) AS quantity`, 'g.lines', 'g.streams', 'g.downloads'].join(', ')}
             FROM unnest(${cols.map((c) => `?::${GROUPED_TYPES[c]}[]`).join(', ')}) AS g(${cols.join(', ')})`;
    sqlB = cols.map((c) => grouped.rows.map((r) => r[c] ?? null));
    source = `duckdb:${grouped.sums ? 'sums' : 'lines'}${plan.member ? ' × share sets' : ''}`;
    if (grouped.totals) {
      const t = grouped.totals;
      totals = `SELECT ?::int AS n, trim_scale((?::numeric + ?::numeric * 0.00000001)${plan.member ? ' * 0.01' : ''}) AS t_revenue, trim_scale(?::numeric) AS t_quantity, ?::bigint AS t_lines`;
      totalsB = [t.n ?? '0', t.revenue ?? null, t.revenue2 ?? null, t.quantity ?? null, t.lines ?? null];
    }
  } else {
    // A member's lines narrowed to what their splits pay, unless a recording, product or artist
    // filter already reads only that catalogue item's lines.
    const byCatalogue = plan.filters.some((f) => f.cols.some((c) => (CATALOGUE as readonly string[]).includes(c)));
    const mine = plan.member && !plan.shape && !byCatalogue ? await memberCatalogue(trx, tenantId, payee!) : null;
    const [from, fromB, src] = sourceOf(plan, tenantId, payee, mine);
    // The lines read a product or an artist through their recordings (planner.ts, viaRecordings).
    const filters = plan.filters.map((f) => (!plan.shape && f.lines ? f.lines(tenantId) : f));
    const where = filters.length ? `WHERE ${filters.map((f) => f.sql).join(' AND ')}` : '';
    const sel = groupCols.length ? `${groupCols.join(', ')}, ` : '';
    const groupSql = groupCols.length ? `GROUP BY ${groupCols.join(', ')}` : '';
    // Sums as they are (trim_scale only on what is answered: the page's rows and the total).
    sql = `SELECT ${sel}sum(revenue) AS revenue, sum(quantity) AS quantity, sum(lines)::bigint AS lines, sum(streams) AS streams, sum(downloads) AS downloads FROM ${from} ${where} ${groupSql}`;
    if (group === 'total') sql = `SELECT * FROM (${sql}) g WHERE g.lines IS NOT NULL`;
    sqlB = [...fromB, ...filters.flatMap((f) => f.b)];
    source = src;
  }
  // (a page taken in the engine: `g` is that page already)
  const limit = paged && !grouped?.totals ? ` LIMIT ${Number(size)} OFFSET ${offset}` : '';
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
    file: `p.file_id AS "fileId", p.file_id AS table_name, fl.original_name AS "fileName", fl.source_name AS source`,
    total: '',
  };
  const joins: Partial<Record<GroupBy, string>> = {
    artist: `LEFT JOIN artists a ON a.tenant_id = ? AND a.id = p.artist_id`,
    product: `LEFT JOIN products x ON x.tenant_id = ? AND x.id = p.product_id`,
    asset: `LEFT JOIN assets a ON a.tenant_id = ? AND a.id = p.asset_id`,
    file: `LEFT JOIN files fl ON fl.tenant_id = ? AND fl.id = p.file_id`,
  };
  const finalSql = `
    WITH g AS MATERIALIZED (${sql}),
    t AS (SELECT t0.*, (SELECT base_currency FROM tenants WHERE id = ?) AS t_currency FROM (${totals}) t0),
    p AS (SELECT g.*, ${offset} + row_number() OVER (ORDER BY ${order}) AS rn FROM (SELECT * FROM g ORDER BY ${order}${limit}) g)
    SELECT t.*, p.rn${named[group] ? `, ${named[group]}` : ''}, trim_scale(p.revenue) AS revenue, trim_scale(p.quantity) AS quantity, p.lines,
           trim_scale(p.streams) AS "Streams", trim_scale(p.downloads) AS "Downloads",
           ${REFERENCE_FIELDS_SQL}
      FROM t LEFT JOIN p ON true ${joins[group] ?? ''}
     ORDER BY p.rn`;
  const bindings = [...sqlB, tenantId, ...totalsB, ...(joins[group] ? [tenantId] : [])];
  // A member's share sets are joined by hash, never by a nested loop: with the statistics of
  // a table loaded a moment ago (still those of an empty one) the planner took the share
  // sets for a row or two and read every rollup row once per share set — minutes for a
  // payee on most of the catalogue. A hash join reads each side once whatever the
  // estimates (docs/analytics.md, "Plans without fresh statistics").
  const run = () => trx.raw(finalSql, bindings as Knex.RawBinding[]);
  const { rows } = plan.member && !grouped ? await hashJoins(trx, run) : await run();

  const head = rows[0] ?? {};
  const out = rows
    .filter((r: Record<string, unknown>) => r.rn !== null)
    .map(({ n: _n, t_revenue: _r, t_quantity: _q, t_lines: _l, t_currency: _c, rn: _rn, ...r }: Record<string, unknown>) => ({
      ...r,
      // trim_scale(numeric)::text: exact decimal strings without trailing zeros.
      revenue: String(r.revenue ?? '0'),
      quantity: String(r.quantity ?? '0'),
      lines: Number(r.lines),
      // The reference service's names for the same figures (docs/analytics.md, "The reference's row fields").
      Royalty: String(r.revenue ?? '0'),
      Count: String(r.quantity ?? '0'),
      Streams: String(r.Streams ?? '0'),
      Downloads: String(r.Downloads ?? '0'),
      RatePer1K: r.RatePer1K === null ? null : String(r.RatePer1K),
      RoyaltyPercentage: r.RoyaltyPercentage === null ? null : String(r.RoyaltyPercentage),
      CountPercentage: r.CountPercentage === null ? null : String(r.CountPercentage),
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
