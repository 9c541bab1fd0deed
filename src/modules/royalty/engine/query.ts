/**
 * A breakdown's grouped sums from the replica: the planner's plan (its group columns and its
 * filters, whose SQL DuckDB reads as Postgres does) over the workspace's own schema only.
 * A member's view groups by share set first, then applies the member's shares: Σ revenue ×
 * share × 0.01 per share set, exact (the same figure Postgres sums line by line).
 */
import type { Trx } from '../../../db';
import type { AnalyticsReplica, GroupedRows } from './replica';

/** What of the planner's plan (royalty/planner.ts) the replica reads: the filters' SQL reads the same column names. */
export interface GroupedPlan {
  member: boolean;
  groupCols: string[];
  filters: { sql: string; b: unknown[] }[];
}

/**
 * The grouped rows (group columns, revenue, quantity, lines, streams, downloads; strings) of
 * `plan`, or null when the replica does not hold the workspace at the version the request's
 * snapshot sees (nor gets there within ANALYTICS_REPLICA_WAIT_MS), or cannot hold it exactly.
 */
export async function duckdbGrouped(replica: AnalyticsReplica, trx: Trx, tenantId: number, payee: string | null, plan: GroupedPlan): Promise<GroupedRows | null> {
  const { rows } = await trx.raw(`SELECT version FROM analytics_versions WHERE tenant_id = ?`, [tenantId]);
  const version = Number(rows[0]?.version ?? 0);
  if (!(await replica.ready(tenantId, version))) {
    replica.stats.postgres++;
    return null;
  }
  replica.stats.answered++;
  if (version === 0) return []; // no statement processed yet
  const s = `t${Number(tenantId)}`;
  const gc = plan.groupCols;
  const where = plan.filters.map((f) => f.sql);
  const whereB = plan.filters.flatMap((f) => f.b);
  const out = (c: string) => `CAST(${c} AS VARCHAR) AS ${c}`;
  const str = (e: string, as: string) => `CAST(${e} AS VARCHAR) AS ${as}`;
  let sql: string;
  let b: unknown[];
  if (!plan.member) {
    sql = `SELECT ${[...gc.map(out), str('sum(revenue)', 'revenue'), str('sum(revenue_lo)', 'revenue2'), str('sum(quantity)', 'quantity'), str('count(*)', 'lines'),
                     str('sum(streams)', 'streams'), str('sum(downloads)', 'downloads'), str('max(rs)', 'rscale'), str('max(qs)', 'qscale')].join(', ')}
             FROM ${s}.lines ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
             ${gc.length ? `GROUP BY ${gc.join(', ')}` : 'HAVING count(*) > 0'}`;
    b = whereB;
  } else {
    // Per group and share set: Σ of each part of the amounts times the share (DECIMAL(38,14)
    // and DECIMAL(38,18): exact). Postgres adds them and applies the 0.01 (analytics.ts).
    const mine = `share_set_id IN (SELECT share_set_id FROM ${s}.share_sets WHERE tenant_user_id = ?::UUID)`;
    sql = `WITH g0 AS (SELECT ${[...gc, 'share_set_id'].join(', ')}, sum(revenue) AS h, sum(revenue_lo) AS lo,
                              sum(quantity) AS quantity, count(*) AS lines, sum(streams) AS streams, sum(downloads) AS downloads, max(rs) AS rs, max(qs) AS qs
                         FROM ${s}.lines WHERE ${[...where, mine].join(' AND ')}
                        GROUP BY ${[...gc, 'share_set_id'].join(', ')})
           SELECT ${[...gc.map((c) => `CAST(g0.${c} AS VARCHAR) AS ${c}`), str('sum(g0.h * ss.share)', 'revenue'), str('sum(g0.lo * ss.share)', 'revenue2'),
                     ...['quantity', 'lines', 'streams', 'downloads'].map((m) => str(`sum(g0.${m})`, m)), str('max(g0.rs) + 8', 'rscale'), str('max(g0.qs)', 'qscale')].join(', ')}
             FROM g0 JOIN ${s}.share_sets ss ON ss.share_set_id = g0.share_set_id AND ss.tenant_user_id = ?::UUID
             ${gc.length ? `GROUP BY ${gc.map((c) => `g0.${c}`).join(', ')}` : 'HAVING count(*) > 0'}`;
    b = [...whereB, payee, payee];
  }
  try {
    return await replica.query(sql, b);
  } catch (err) {
    // A sum beyond DECIMAL(38) (DuckDB refuses it, never rounds): Postgres answers.
    replica.warn({ err, tenantId }, 'analytics replica query failed: Postgres answers');
    replica.stats.answered--;
    replica.stats.postgres++;
    return null;
  }
}
