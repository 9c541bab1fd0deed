/**
 * The typed job registry: one map from job name to payload type types both send() and
 * the handlers; the pipeline's order (which job follows which) is declared here too.
 */
import type { AppServices } from '../src/services';

export interface FileJob {
  tenantId: number;
  fileId: string;
}

export interface JobPayloads {
  /** Housekeeping: drop expired sessions, one-time tokens and rate-limit buckets. */
  'maintenance.cleanup': Record<string, never>;
  /** Every minute: hand files whose worker died mid-step to a new job (src/modules/files/recovery.ts). */
  'maintenance.recover': Record<string, never>;
  /** zip → one child file per statement entry; gzip → plain; anything else → detect. */
  'file.decompress': FileJob;
  /** First 64 KB → detectSource over the tenant's active patterns. */
  'file.detect': FileJob;
  /** Stream → readStatement → COPY into royalty_lines, in one transaction. */
  'file.ingest': FileJob;
}

export type JobName = keyof JobPayloads;

/** Statuses of a statement file, in pipeline order (allocating/aggregating: the allocation step). */
export type FileStatus =
  | 'uploaded' | 'decompressing' | 'detecting' | 'needs_confirmation' | 'queued' | 'ingesting'
  | 'allocating' | 'aggregating' | 'processed' | 'failed';

/**
 * THE PIPELINE, in one place. Each step's service enqueues the next one inside the same
 * transaction that records its own result.
 *
 *   upload ──▶ file.decompress ──▶ file.detect ──(confident)──▶ file.ingest ──▶ PIPELINE_AFTER_INGEST
 *                 │ zip: children      └──(not)──▶ needs_confirmation ──POST /file/confirm-detection──┘
 *                 └──▶ each child: file.decompress …
 */
export const PIPELINE = {
  afterUpload: 'file.decompress',
  afterDecompress: 'file.detect',
  afterDetect: 'file.ingest',
} as const satisfies Record<string, JobName>;

/**
 * What follows a successful ingest (committed in the ingest transaction itself, so lines and
 * the next step appear together). For now the file is done: `processed`, nothing enqueued.
 * The allocation step changes this to `{ status: 'allocating', jobs: ['file.allocate'] }`.
 */
export const PIPELINE_AFTER_INGEST: { status: FileStatus; jobs: JobName[] } = { status: 'processed', jobs: [] };

/** Retry policy per queue: exponential backoff, then the `<name>.dead` queue. */
export const JOB_OPTIONS: Record<JobName, { retryLimit: number; retryDelay: number; retryBackoff: boolean; expireInSeconds: number }> = {
  'maintenance.cleanup': { retryLimit: 2, retryDelay: 30, retryBackoff: true, expireInSeconds: 300 },
  'maintenance.recover': { retryLimit: 0, retryDelay: 30, retryBackoff: false, expireInSeconds: 120 },
  'file.decompress': { retryLimit: 3, retryDelay: 2, retryBackoff: true, expireInSeconds: 3600 },
  'file.detect': { retryLimit: 3, retryDelay: 2, retryBackoff: true, expireInSeconds: 300 },
  // One 5M-line file takes about a minute; a crashed worker's job is retried after expiry.
  'file.ingest': { retryLimit: 3, retryDelay: 2, retryBackoff: true, expireInSeconds: 1800 },
};

/** Ingest jobs per worker process: one (DESIGN §5: a second one in parallel gained nothing). */
export const INGEST_CONCURRENCY = 1;

export async function registerWorkers(svc: AppServices): Promise<void> {
  const { queue } = svc;
  await queue.work('maintenance.cleanup', async () => {
    const { cleanup } = await import('./maintenance');
    await cleanup(svc);
  });
  await queue.boss.schedule('maintenance.cleanup', '17 * * * *', {});
  await queue.work('maintenance.recover', async () => {
    const { recoverStaleFiles } = await import('../src/modules/files/recovery');
    await recoverStaleFiles(svc, svc.cfg.staleFileSeconds);
  });
  await queue.boss.schedule('maintenance.recover', '* * * * *', {});

  const files = await import('./files');
  await files.registerFileWorkers(svc);
}
