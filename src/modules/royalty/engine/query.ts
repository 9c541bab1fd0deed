/**
 * A breakdown's grouped sums from the replica: the planner's plan (its group columns and its
 * filters, whose SQL DuckDB reads as Postgres does) over the workspace's own schema only.
 * A member's view groups by share set first, then applies the member's shares: Σ revenue ×
 * share × 0.01 per share set, exact (the same figure Postgres sums line by line).
 */
import type { Trx } from '../../../db';
import type { AnalyticsReplica, GroupedRows } from './replica';
import { REPLICA_SUMS, type ReplicaSums } from './sums';

/** What of the planner's plan (royalty/planner.ts) the replica reads: the filters' SQL reads the same column names. */
export interface GroupedPlan {
  member: boolean;
  groupCols: string[];
  filters: { sql: string; b: unknown[]; cols: readonly string[] }[];
}

/**
 * The replica's sums that answer a plan (sums.ts REPLICA_SUMS), or null: the lines. They do
 * when they hold every column the plan groups by or filters on (a filter naming no column, a
 * file's, reads the lines); of those, the first listed (the fewest rows as lines usually make
 * them). Sums with more columns than the plan groups by are summed again by its columns
 * (exact: sums of sums, the largest scale of each).
 */
export function replicaSumsOf(plan: Pick<GroupedPlan, 'groupCols' | 'filters'>): ReplicaSums | null {
  if (!plan.filters.every((f) => f.cols.length > 0)) return null;
  const need = [...plan.groupCols, ...plan.filters.flatMap((f) => f.cols)];
  return REPLICA_SUMS.find((x) => need.every((c) => x.cols.includes(c))) ?? null;
}

/**
 * Whether a payee holds more than half of a workspace's share sets (at a version; kept per
 * replica, a few thousand entries at most). Its read of the lines then groups every line by
 * share set and leaves the join to drop the others: at 15M lines a payee on every share set
 * took 68–97 ms instead of 95–142 ms with its share sets tested line by line first; one on
 * 20 share sets 34–52 ms with the test against 60–66 ms without, one on half 58–86 ms either
 * way. Either way the figures are the same: the choice is speed only.
 */
const broadPayees = new WeakMap<AnalyticsReplica, Map<string, boolean>>();
async function broadPayee(replica: AnalyticsReplica, tenantId: number, version: number, payee: string): Promise<boolean> {
  let known = broadPayees.get(replica);
  if (!known) broadPayees.set(replica, (known = new Map()));
  const key = `${tenantId}:${version}:${payee}`;
  const hit = known.get(key);
  if (hit !== undefined) return hit;
  const [r] = await replica.query(tenantId, `SELECT count(*) FILTER (WHERE tenant_user_id = ?::UUID) * 2 > count(DISTINCT share_set_id) AS broad FROM t${Number(tenantId)}.share_sets`, [payee]);
  if (known.size >= 5000) known.clear();
  const broad = String(r?.broad) === 'true';
  known.set(key, broad);
  return broad;
}

/** The breakdowns by time (month, accounting period): a member's read of the lines sums them by group alone (duckdbGrouped). */
const BY_TIME = new Set(['sale_month', 'accounting_period']);

/**
 * A page of the groups taken in the engine: the groups ordered by `order` (DuckDB SQL over the
 * grouped columns, each key column last, so no two groups tie), `limit` of them from `offset`.
 */
export interface EnginePage {
  order: string;
  limit: number;
  offset: number;
}

/** Grouped rows, and with a page the totals over every group (`n` groups; the measures summed). */
export interface Grouped {
  rows: GroupedRows;
  totals: Record<string, string | null> | null;
  /** Whether the replica's sums answered (else its lines). */
  sums: boolean;
}

/**
 * The grouped rows (group columns, revenue, quantity, lines, streams, downloads; strings) of
 * `plan`, or null when the replica does not hold the workspace at the version the request's
 * snapshot sees (nor gets there within ANALYTICS_REPLICA_WAIT_MS), or cannot hold it exactly.
 * With `page`, only that page's groups (in its order) and the totals of every group: a
 * breakdown of 20,000 recordings sends 50 rows to Postgres, not 20,000.
 */
export async function duckdbGrouped(replica: AnalyticsReplica, trx: Trx, tenantId: number, payee: string | null, plan: GroupedPlan, page?: EnginePage): Promise<Grouped | null> {
  const { rows } = await trx.raw(`SELECT version FROM analytics_versions WHERE tenant_id = ?`, [tenantId]);
  const version = Number(rows[0]?.version ?? 0);
  if (!(await replica.ready(tenantId, version))) {
    replica.stats.postgres++;
    return null;
  }
  replica.stats.answered++;
  if (version === 0) return { rows: [], totals: page ? { n: '0' } : null, sums: false }; // no statement processed yet
  const s = `t${Number(tenantId)}`;
  const gc = plan.groupCols;
  const where = plan.filters.map((f) => f.sql);
  const whereB = plan.filters.flatMap((f) => f.b);
  const measures = ['revenue', 'revenue2', 'quantity', 'lines', 'streams', 'downloads', 'rscale', 'qscale'];
  // The sums when they answer (a row per share set and group: the same figures summed once more), else the lines.
  const sums = replicaSumsOf(plan);
  const from = sums ? `${s}.${sums.table}` : `${s}.lines`;
  const [h, lo, lines] = sums ? ['h', 'lo', 'sum(lines)'] : ['revenue', 'revenue_lo', 'count(*)'];
  let inner: string;
  let b: unknown[];
  if (!plan.member) {
    inner = `SELECT ${[...gc, `sum(${h}) AS revenue`, `sum(${lo}) AS revenue2`, 'sum(quantity) AS quantity', `${lines} AS lines`,
                       'sum(streams) AS streams', 'sum(downloads) AS downloads', 'max(rs) AS rscale', 'max(qs) AS qscale'].join(', ')}
               FROM ${from} ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
               ${gc.length ? `GROUP BY ${gc.join(', ')}` : 'HAVING count(*) > 0'}`;
    b = whereB;
  } else {
    // Per group: Σ of each part of the amounts times the member's share (DECIMAL(38,14) and
    // DECIMAL(38,18): exact). Postgres adds them and applies the 0.01 (analytics.ts).
    const outer = [...gc.map((c) => `g0.${c}`), 'sum(g0.h * ss.share) AS revenue', 'sum(g0.lo * ss.share) AS revenue2',
      ...['quantity', 'lines', 'streams', 'downloads'].map((m) => `sum(g0.${m}) AS ${m}`), 'max(g0.rs) + 8 AS rscale', 'max(g0.qs) AS qscale'].join(', ');
    const byGroup = gc.length ? `GROUP BY ${gc.map((c) => `g0.${c}`).join(', ')}` : 'HAVING count(*) > 0';
    const join = `JOIN ${s}.share_sets ss ON ss.share_set_id = g0.share_set_id AND ss.tenant_user_id = ?::UUID`;
    // The plan's filters over the lines or sums joined to the share sets (each parenthesized: an OR stays inside).
    const whereJoined = where.length ? `WHERE ${where.map((w) => `(${w})`).join(' AND ')}` : '';
    if (sums) {
      // The sums are a row per share set and group (or finer: summed again by the group):
      // joined to the member's share sets as they are (one join; about a fifth less work than
      // narrowing them first).
      inner = `SELECT ${outer} FROM ${from} g0 ${join} ${whereJoined} ${byGroup}`;
      b = [payee, ...whereB];
    } else if (gc.some((c) => BY_TIME.has(c))) {
      // By month or period: each line joined to the member's share set and its parts times the
      // share summed by month (Σ (a × s) = (Σ a) × s: the same exact figures), with a hash
      // table of the months only. Summed by month and share set first, 24 months × 6,000 share
      // sets made a table that spilled past the memory limit with two reads at once (13.5 s
      // for 8 clients at 10M lines). Each part is widened to 38 digits first: DuckDB multiplies
      // two narrow decimals in 64 bits and refuses, never rounds, a product past them. (Per
      // line, that widening costs: at 100M lines, 25M lines read this way took twice as long
      // as summed by group and share set first, so only a breakdown by time reads them so.)
      inner = `SELECT ${[...gc.map((c) => `g0.${c}`), 'sum(CAST(g0.revenue AS DECIMAL(38,8)) * ss.share) AS revenue', 'sum(CAST(g0.revenue_lo AS DECIMAL(38,12)) * ss.share) AS revenue2',
        'sum(g0.quantity) AS quantity', 'count(*) AS lines', 'sum(g0.streams) AS streams', 'sum(g0.downloads) AS downloads', 'max(g0.rs) + 8 AS rscale', 'max(g0.qs) AS qscale'].join(', ')}
                 FROM ${from} g0 ${join} ${whereJoined} ${byGroup}`;
      b = [payee, ...whereB];
    } else {
      // The lines narrowed to the member's share sets (unless it holds most of them: the join
      // drops the others), summed by group and share set, then joined to the member's share sets.
      const narrow = !(await broadPayee(replica, tenantId, version, payee!).catch(() => false));
      const mine = narrow ? [`share_set_id IN (SELECT share_set_id FROM ${s}.share_sets WHERE tenant_user_id = ?::UUID)`] : [];
      const g0 = `SELECT ${[...gc, 'share_set_id'].join(', ')}, sum(revenue) AS h, sum(revenue_lo) AS lo,
                         sum(quantity) AS quantity, count(*) AS lines, sum(streams) AS streams, sum(downloads) AS downloads, max(rs) AS rs, max(qs) AS qs
                    FROM ${from} ${[...where, ...mine].length ? `WHERE ${[...where, ...mine].join(' AND ')}` : ''}
                   GROUP BY ${[...gc, 'share_set_id'].join(', ')}`;
      inner = `WITH g0 AS (${g0}) SELECT ${outer} FROM g0 ${join} ${byGroup}`;
      b = [...whereB, ...(narrow ? [payee] : []), payee];
    }
  }
  const str = (e: string, as: string) => `CAST(${e} AS VARCHAR) AS ${as}`;
  const cols = [...gc, ...measures];
  const sql = !page
    ? `SELECT ${cols.map((c) => str(c, c)).join(', ')} FROM (${inner}) g`
    : // The page's groups numbered in their order, then one row of totals (rn NULL) over every group.
      `WITH g AS MATERIALIZED (${inner}),
            pg AS (SELECT *, row_number() OVER (ORDER BY ${page.order}) AS rn FROM (SELECT * FROM g ORDER BY ${page.order} LIMIT ${Number(page.limit)} OFFSET ${Number(page.offset)}) x)
       SELECT ${[str('rn', 'rn'), `NULL AS n`, ...cols.map((c) => str(c, c))].join(', ')} FROM pg
       UNION ALL
       SELECT ${[`NULL AS rn`, str('count(*)', 'n'), ...gc.map((c) => `NULL AS ${c}`), ...['revenue', 'revenue2', 'quantity', 'lines', 'streams', 'downloads'].map((m) => str(`sum(${m})`, m)),
                 str('max(rscale)', 'rscale'), str('max(qscale)', 'qscale')].join(', ')} FROM g`;
  try {
    const out = await replica.query(tenantId, sql, b);
    if (!page) return { rows: out, totals: null, sums: !!sums };
    const totals = out.find((r) => r.rn === null) ?? null;
    const pageRows = out.filter((r) => r.rn !== null).sort((x, y) => Number(x.rn) - Number(y.rn));
    return { rows: pageRows, totals, sums: !!sums };
  } catch (err) {
    // A sum beyond DECIMAL(38) (DuckDB refuses it, never rounds): Postgres answers.
    replica.warn({ err, tenantId }, 'analytics replica query failed: Postgres answers');
    replica.stats.answered--;
    replica.stats.postgres++;
    return null;
  }
}
