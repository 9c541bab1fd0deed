/**
 * The analytics engine of a process (docs/engine.md, "The analytics engine"): its DuckDB
 * replica (engine/, which knows nothing of royalties: it is given here what to copy), made on
 * the first analytics request of a process that serves the API (worker-only processes never
 * make one) and closed with the process (compose.ts). ANALYTICS_ENGINE=postgres: none,
 * Postgres answers alone.
 */
import type { AppServices } from '../../services';
import { AnalyticsReplica } from './engine';
import { LINE_DOWNLOADS, LINE_STREAMS, SHAPES } from './shapes';

/** An amount the replica's two decimals hold exactly (REPLICA_LINE_COLUMNS), a quantity its DECIMAL(18,6) does. */
const FITS_R = `(scale(l.base_amount) <= 20 AND abs(l.base_amount) < 1e10)`;
const FITS = `(scale(l.quantity) <= 6 AND abs(l.quantity) < 1e12)`;

/**
 * A workspace's replica lines (REPLICA_LINE_COLUMNS), of `files` or of all: exactly the lines
 * source of analytics.ts (sourceOf) — allocated lines of processed files, each with its file's
 * period as its first rollup rows hold it. An amount or quantity the replica cannot hold
 * exactly is copied as NULL (its workspace is then answered by Postgres).
 */
export function replicaLinesSql(tenantId: number, files: string[] | null): string {
  const t = Number(tenantId);
  const only = files ? ` AND d.file_id = ANY('{${files.join(',')}}'::uuid[])` : '';
  return `${replicaFilesOf(t, only)}
          SELECT l.file_id, l.sale_month, p.accounting_period, p.ap_end, l.share_set_id, l.artist_id, l.product_id, l.asset_id,
                 l.dsp, l.country, l.sale_type, l.aggregator,
                 CASE WHEN ${FITS_R} THEN trunc(l.base_amount, 8) END, CASE WHEN ${FITS_R} THEN (l.base_amount - trunc(l.base_amount, 8)) * 100000000 END,
                 CASE WHEN ${FITS} THEN l.quantity END, CASE WHEN ${FITS} THEN ${LINE_STREAMS} ELSE 0 END, CASE WHEN ${FITS} THEN ${LINE_DOWNLOADS} ELSE 0 END,
                 least(scale(l.base_amount), 255), least(scale(l.quantity), 255)
            FROM p JOIN royalty_lines l ON l.tenant_id = ${t} AND l.file_id = p.id AND l.base_amount IS NOT NULL
           ORDER BY l.file_id, l.country, l.asset_id`;
}

/** The processed files whose lines the replica holds, each with its period as its first rollup rows hold it (a WITH clause: `p`). */
const replicaFilesOf = (t: number, only: string) =>
  `WITH p AS (SELECT DISTINCT ON (d.file_id) d.file_id AS id, d.accounting_period, d.ap_end FROM ${SHAPES[0]!.table} d
                JOIN files f ON f.tenant_id = d.tenant_id AND f.id = d.file_id
               WHERE d.tenant_id = ${t} AND f.status = 'processed'${only} ORDER BY d.file_id)`;

/** The ids of every file replicaLinesSql(tenantId, null) reads (`id`). */
export function replicaFilesSql(tenantId: number): string {
  return `${replicaFilesOf(Number(tenantId), '')} SELECT id::text AS id FROM p ORDER BY id`;
}

/** The rollup keyed by share set with the fewest keys: a file's share sets are its rows' (built from the same lines). */
const SHARE_SET_SHAPE = SHAPES.find((s) => s.keys.includes('share_set_id'))!;

/**
 * The share sets a workspace's replica needs (SHARE_SET_COLUMNS): those of the lines of
 * `files`, or all. A file's are read from its rollup keyed by share set (built from the
 * same allocated lines in the same transaction): 6 ms for a file of 104,000 lines, against
 * 107 ms reading its lines.
 */
export function replicaShareSetsSql(tenantId: number, files: string[] | null): string {
  const t = Number(tenantId);
  const only = files
    ? ` AND ss.share_set_id IN (SELECT r.share_set_id FROM ${SHARE_SET_SHAPE.table} r WHERE r.tenant_id = ${t} AND r.file_id = ANY('{${files.join(',')}}'::uuid[]) AND r.share_set_id IS NOT NULL)`
    : '';
  return `SELECT ss.share_set_id, ss.tenant_user_id, ss.share FROM royalty_share_sets ss WHERE ss.tenant_id = ${t}${only}`;
}

const replicas = new WeakMap<AppServices, AnalyticsReplica>();

/** The process's replica, or null when Postgres answers alone (the setting is read per request). */
export function analyticsEngineOf(svc: AppServices): AnalyticsReplica | null {
  if (svc.cfg.analyticsEngine !== 'duckdb') return null;
  let r = replicas.get(svc);
  if (!r) {
    r = new AnalyticsReplica(svc.db, svc.log, {
      path: svc.cfg.analyticsReplicaPath,
      memory: svc.cfg.analyticsReplicaMemory,
      threads: svc.cfg.analyticsReplicaThreads,
      reads: svc.cfg.analyticsReplicaReads,
      waitMs: svc.cfg.analyticsReplicaWaitMs,
      linesSql: replicaLinesSql,
      shareSetsSql: replicaShareSetsSql,
      filesSql: replicaFilesSql,
    });
    replicas.set(svc, r);
  }
  return r;
}

/** Closes the process's replica, if one was made. */
export async function closeAnalyticsEngine(svc: AppServices): Promise<void> {
  const r = replicas.get(svc);
  if (!r) return;
  replicas.delete(svc);
  await r.close();
}
