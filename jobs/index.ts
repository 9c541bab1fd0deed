/**
 * The typed job registry: one map from job name to payload type types both send() and
 * the handlers; the pipeline's order (which job follows which) is declared here too.
 */
import type { AppServices } from '../src/services';

export interface JobPayloads {
  /** Housekeeping: drop expired sessions, one-time tokens and rate-limit buckets. */
  'maintenance.cleanup': Record<string, never>;
}

export type JobName = keyof JobPayloads;

/** Retry policy per queue: exponential backoff, then the `<name>.dead` queue. */
export const JOB_OPTIONS: Record<JobName, { retryLimit: number; retryDelay: number; retryBackoff: boolean; expireInSeconds: number }> = {
  'maintenance.cleanup': { retryLimit: 2, retryDelay: 30, retryBackoff: true, expireInSeconds: 300 },
};

export async function registerWorkers(svc: AppServices): Promise<void> {
  const { queue } = svc;
  await queue.work('maintenance.cleanup', async () => {
    const { cleanup } = await import('./maintenance');
    await cleanup(svc);
  });
  await queue.boss.schedule('maintenance.cleanup', '17 * * * *', {});
}
