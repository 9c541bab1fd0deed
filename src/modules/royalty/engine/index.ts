/**
 * The analytics engine of a process: its replica (replica.ts), made on the first analytics
 * request of a process that serves the API (worker-only processes never make one) and closed
 * with the process (compose.ts). ANALYTICS_ENGINE=postgres: none, Postgres answers alone.
 */
import type { AppServices } from '../../../services';
import { AnalyticsReplica } from './replica';

export { AnalyticsReplica } from './replica';
export { duckdbGrouped, REPLICA_WAIT_MS } from './query';

const replicas = new WeakMap<AppServices, AnalyticsReplica>();

/** The process's replica, or null when Postgres answers alone (read per request: the setting may change in tests). */
export function analyticsEngineOf(svc: AppServices): AnalyticsReplica | null {
  if (svc.cfg.analyticsEngine !== 'duckdb') return null;
  let r = replicas.get(svc);
  if (!r) {
    r = new AnalyticsReplica(svc.db, svc.log, { path: svc.cfg.analyticsReplicaPath, memory: svc.cfg.analyticsReplicaMemory, threads: svc.cfg.analyticsReplicaThreads });
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
