/**
 * The typed job registry: one map from job name to payload type types both send() and
 * the handlers; the pipeline's order (which job follows which) is declared here too.
 */
import type { AppServices } from '../src/services';

export interface JobPayloads {
  /** Housekeeping: drop expired sessions, one-time tokens and rate-limit buckets. */
  'maintenance.cleanup': Record<string, never>;
  /** Match a file's lines, convert currency, write earnings (status `allocating`). `force`: re-run a processed/failed file. */
  'royalty.allocate': { tenantId: number; fileId: string; force?: boolean };
  /** Rebuild a file's analytics rollups (status `aggregating` → `processed`). */
  'royalty.aggregate': { tenantId: number; fileId: string };
  /** Re-match / re-allocate what catalogue, split or rule changes affect in one workspace. */
  'royalty.reallocate': { tenantId: number; force?: boolean };
  /** Safety net: a reallocate job for every workspace with pending change marks. */
  'royalty.sweep': Record<string, never>;
}

export type JobName = keyof JobPayloads;

/**
 * Statement pipeline order. Each job, on success, sends the next one inside its own
 * transaction: … → file ingest → PIPELINE_AFTER_INGEST (royalty.allocate) → royalty.aggregate.
 */
export const PIPELINE_AFTER_INGEST: JobName = 'royalty.allocate';
export const PIPELINE_NEXT: Partial<Record<JobName, JobName>> = {
  'royalty.allocate': 'royalty.aggregate',
};

/** Retry policy per queue: exponential backoff, then the `<name>.dead` queue. */
export const JOB_OPTIONS: Record<JobName, { retryLimit: number; retryDelay: number; retryBackoff: boolean; expireInSeconds: number; policy?: 'standard' | 'stately' }> = {
  'maintenance.cleanup': { retryLimit: 2, retryDelay: 30, retryBackoff: true, expireInSeconds: 300 },
  'royalty.allocate': { retryLimit: 3, retryDelay: 5, retryBackoff: true, expireInSeconds: 3600 },
  'royalty.aggregate': { retryLimit: 3, retryDelay: 5, retryBackoff: true, expireInSeconds: 3600 },
  // stately: at most one queued + one running per workspace (singletonKey = tenant), so a
  // burst of catalogue edits becomes one re-allocation.
  'royalty.reallocate': { retryLimit: 3, retryDelay: 5, retryBackoff: true, expireInSeconds: 3600, policy: 'stately' },
  'royalty.sweep': { retryLimit: 0, retryDelay: 30, retryBackoff: false, expireInSeconds: 300 },
};

export async function registerWorkers(svc: AppServices): Promise<void> {
  const { queue } = svc;
  await queue.work('maintenance.cleanup', async () => {
    const { cleanup } = await import('./maintenance');
    await cleanup(svc);
  });
  await queue.boss.schedule('maintenance.cleanup', '17 * * * *', {});

  const royalty = await import('./royalty');
  await royalty.registerRoyaltyWorkers(svc);
}
