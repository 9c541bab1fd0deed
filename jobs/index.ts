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
  /** Match a file's lines, convert currency, write earnings (status `allocating`). `force`: re-run a processed/failed file. */
  'royalty.allocate': FileJob & { force?: boolean };
  /** Rebuild a file's analytics rollups (status `aggregating` → `processed`). */
  'royalty.aggregate': FileJob;
  /** Re-match / re-allocate what catalogue, split or rule changes affect in one workspace. */
  'royalty.reallocate': { tenantId: number; force?: boolean };
  /** Safety net: a reallocate job for every workspace with pending change marks. */
  'royalty.sweep': Record<string, never>;
  /** Every minute: resend unconfirmed FX payouts (same idempotency key) and poll open ones (src/modules/partners/fx-payouts.ts). */
  'partners.fxpartner.sync': Record<string, never>;
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
 *   upload ──▶ file.decompress ──▶ file.detect ──(confident)──▶ file.ingest ──▶ royalty.allocate ──▶ royalty.aggregate ──▶ processed
 *                 │ zip: children      └──(not)──▶ needs_confirmation ──POST /file/confirm-detection──┘
 *                 └──▶ each child: file.decompress …
 *
 * royalty.allocate: match + currency + accounting period + earnings (status `allocating`; a
 * missing exchange rate → `failed`); money's post-allocation hook runs in the same
 * transaction. royalty.aggregate: rollups (status `aggregating`), then `processed`, an
 * in-app notification and a `royalty processing` outbound event. Catalogue/split/rule
 * changes → royalty.reallocate (one per workspace, from trigger marks).
 */
export const PIPELINE = {
  afterUpload: 'file.decompress',
  afterDecompress: 'file.detect',
  afterDetect: 'file.ingest',
  afterAllocate: 'royalty.aggregate',
} as const satisfies Record<string, JobName>;

/**
 * What follows a successful ingest (committed in the ingest transaction itself, so lines and
 * the next step appear together): the allocation step.
 */
export const PIPELINE_AFTER_INGEST: { status: FileStatus; jobs: JobName[] } = { status: 'allocating', jobs: ['royalty.allocate'] };

/** Retry policy per queue: exponential backoff, then the `<name>.dead` queue. */
export const JOB_OPTIONS: Record<JobName, { retryLimit: number; retryDelay: number; retryBackoff: boolean; expireInSeconds: number; policy?: 'standard' | 'stately' }> = {
  'maintenance.cleanup': { retryLimit: 2, retryDelay: 30, retryBackoff: true, expireInSeconds: 300 },
  'maintenance.recover': { retryLimit: 0, retryDelay: 30, retryBackoff: false, expireInSeconds: 120 },
  'file.decompress': { retryLimit: 3, retryDelay: 2, retryBackoff: true, expireInSeconds: 3600 },
  'file.detect': { retryLimit: 3, retryDelay: 2, retryBackoff: true, expireInSeconds: 300 },
  // One 5M-line file takes about a minute; a crashed worker's job is retried after expiry.
  'file.ingest': { retryLimit: 3, retryDelay: 2, retryBackoff: true, expireInSeconds: 1800 },
  'royalty.allocate': { retryLimit: 3, retryDelay: 5, retryBackoff: true, expireInSeconds: 3600 },
  'royalty.aggregate': { retryLimit: 3, retryDelay: 5, retryBackoff: true, expireInSeconds: 3600 },
  // stately: at most one queued + one running per workspace (singletonKey = tenant), so a
  // burst of catalogue edits becomes one re-allocation.
  'royalty.reallocate': { retryLimit: 3, retryDelay: 5, retryBackoff: true, expireInSeconds: 3600, policy: 'stately' },
  'royalty.sweep': { retryLimit: 0, retryDelay: 30, retryBackoff: false, expireInSeconds: 300 },
  'partners.fxpartner.sync': { retryLimit: 0, retryDelay: 30, retryBackoff: false, expireInSeconds: 300 },
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

  await queue.work('partners.fxpartner.sync', async () => {
    const { syncAllFxPayouts } = await import('../src/modules/partners/fx-payouts');
    await syncAllFxPayouts(svc);
  });
  await queue.boss.schedule('partners.fxpartner.sync', '* * * * *', {});

  const files = await import('./files');
  await files.registerFileWorkers(svc);
  const royalty = await import('./royalty');
  await royalty.registerRoyaltyWorkers(svc);
}
