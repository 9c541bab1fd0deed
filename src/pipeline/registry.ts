/**
 * THE job registry and THE statement pipeline, declared once. A leaf: it imports nothing
 * of the application, so every layer (modules, jobs, recovery, the composition root) may
 * read it without a cycle.
 *
 *   upload ──▶ file.decompress ──▶ file.detect ──(confident)──▶ file.ingest ──▶ royalty.allocate ──▶ processed
 *                 │ zip: children      └──(not)──▶ needs_confirmation ──POST /file/confirm-detection──┘
 *                 └──▶ each child: file.decompress …
 *
 * Each step owns the file statuses it is queued in and runs in (PIPELINE below) and does its
 * whole work there: `does` says what. A step's service returns its outcome (or throws its
 * one failure type) to runStep (src/pipeline/run-step.ts), which records the status and
 * enqueues the successor in the same transaction, and sends a settled file's notice. Stale-step recovery and the
 * re-run routes read the same table: a file in a step's status is re-sent to that step.
 */
import type { Knex } from 'knex';

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
  /** Match what the ingest left unmatched, convert currency, write earnings, post the ledger and build the file's analytics rollups (status `allocating` → `processed`). `force`: re-run a processed/failed file. */
  'royalty.allocate': FileJob & { force?: boolean };
  /** Re-match / re-allocate what catalogue, split or rule changes affect in one workspace. */
  'royalty.reallocate': { tenantId: number; force?: boolean };
  /** Safety net: a reallocate job for every workspace with pending change marks. */
  'royalty.sweep': Record<string, never>;
  /** Every minute: resend unconfirmed FX payouts (same idempotency key) and poll open ones (src/modules/partners/fx-payouts.ts). */
  'partners.fxpartner.sync': Record<string, never>;
  /** Outbox sweep: pending outbound_events → one delivery per subscribed endpoint (src/modules/webhooks/dispatch.ts). */
  'webhooks.dispatch': Record<string, never>;
  /** One attempt of one webhook delivery; failures schedule the next attempt themselves. `manual`: the retry route. */
  'webhooks.deliver': { tenantId: number; deliveryId: string; manual?: boolean };
  /** Fetch a catalogue import batch from its provider and stage its items (src/modules/imports/service.ts). */
  'catalogue.import.fetch': { tenantId: number; batchId: string };
  /** Run one account erasure (an `account_erasures` row) in one audited transaction (src/modules/platform/erasure-jobs.ts). */
  'platform.account.erase': { erasureId: string };
  /** Sweep: a delivery job per new notification delivery; re-sends itself every few seconds (src/modules/notifications/deliveries.ts). */
  'notifications.dispatch': Record<string, never>;
  /** One attempt of one notification delivery (e-mail, SMS or push); a failed attempt throws and is retried. */
  'notifications.deliver': { tenantId: number; deliveryId: string };
}

export type JobName = keyof JobPayloads;

/** Statuses of a statement file, in pipeline order. */
export type FileStatus =
  | 'uploaded' | 'decompressing' | 'detecting' | 'needs_confirmation' | 'queued' | 'ingesting'
  | 'allocating' | 'processed' | 'failed';

export interface JobOptions {
  retryLimit: number;
  retryDelay: number;
  retryBackoff: boolean;
  expireInSeconds: number;
  policy?: 'standard' | 'stately';
  /** Workers per process (default 1). */
  concurrency?: number;
  /** Cron schedule for periodic jobs. */
  cron?: string;
}

/** Ingest jobs per worker process: one (ingest is CPU-bound: a second one in parallel gained nothing; docs/operations.md). */
export const INGEST_CONCURRENCY = 1;

/** Retry policy per queue: exponential backoff, then the `<name>.dead` queue. */
export const JOB_OPTIONS: Record<JobName, JobOptions> = {
  'maintenance.cleanup': { retryLimit: 2, retryDelay: 30, retryBackoff: true, expireInSeconds: 300, cron: '17 * * * *' },
  'maintenance.recover': { retryLimit: 0, retryDelay: 30, retryBackoff: false, expireInSeconds: 120, cron: '* * * * *' },
  'file.decompress': { retryLimit: 3, retryDelay: 2, retryBackoff: true, expireInSeconds: 3600, concurrency: 2 },
  'file.detect': { retryLimit: 3, retryDelay: 2, retryBackoff: true, expireInSeconds: 300, concurrency: 2 },
  // One 5M-line file takes about a minute; a crashed worker's job is retried once its lease ends (jobs/leases.ts).
  'file.ingest': { retryLimit: 3, retryDelay: 2, retryBackoff: true, expireInSeconds: 1800, concurrency: INGEST_CONCURRENCY },
  'royalty.allocate': { retryLimit: 3, retryDelay: 5, retryBackoff: true, expireInSeconds: 3600 },
  // stately: at most one queued + one running per workspace (singletonKey = tenant), so a
  // burst of catalogue edits becomes one re-allocation.
  'royalty.reallocate': { retryLimit: 3, retryDelay: 5, retryBackoff: true, expireInSeconds: 3600, policy: 'stately' },
  'royalty.sweep': { retryLimit: 0, retryDelay: 30, retryBackoff: false, expireInSeconds: 300, cron: '* * * * *' },
  'partners.fxpartner.sync': { retryLimit: 0, retryDelay: 30, retryBackoff: false, expireInSeconds: 300, cron: '* * * * *' },
  // stately: one sweep waiting at most; it re-sends itself every WEBHOOK_SWEEP_SECONDS, the cron restarts a broken chain.
  'webhooks.dispatch': { retryLimit: 0, retryDelay: 5, retryBackoff: false, expireInSeconds: 300, policy: 'stately', cron: '* * * * *' },
  // Delivery retries are the service's own schedule; pg-boss retries only a job whose worker died (its lease ended, or expiry).
  'webhooks.deliver': { retryLimit: 3, retryDelay: 30, retryBackoff: true, expireInSeconds: 120, concurrency: 4 },
  // a provider that does not answer is retried; a refusal marks the batch failed at once
  'catalogue.import.fetch': { retryLimit: 3, retryDelay: 5, retryBackoff: true, expireInSeconds: 600 },
  // all or nothing, so a retry is safe; the last failure is recorded on the erasure
  'platform.account.erase': { retryLimit: 2, retryDelay: 10, retryBackoff: true, expireInSeconds: 1800 },
  // stately: one sweep waiting at most; the cron restarts a broken chain
  'notifications.dispatch': { retryLimit: 0, retryDelay: 5, retryBackoff: false, expireInSeconds: 300, policy: 'stately', cron: '* * * * *' },
  // 8 attempts over about 6 minutes (3 s, doubling); the last failure marks the delivery failed
  'notifications.deliver': { retryLimit: 7, retryDelay: 3, retryBackoff: true, expireInSeconds: 120, concurrency: 2 },
};

/** pg-boss queue options (what JOB_OPTIONS holds beyond them is this process's business). */
export function queueOptions(name: JobName): Omit<JobOptions, 'concurrency' | 'cron'> {
  const { concurrency: _c, cron: _s, ...o } = JOB_OPTIONS[name];
  return o;
}

// ------------------------------------------------------------------------------ the pipeline

export type StepName = 'file.decompress' | 'file.detect' | 'file.ingest' | 'royalty.allocate';

export interface StepDeclaration {
  /** The status a file waits in for this step (what the predecessor hands on). */
  queuedAs: FileStatus;
  /** The status while the step works (the same as queuedAs where the step has no separate mark). */
  runningAs: FileStatus;
  /** The step that follows a successful run; null: the file is then `processed`. */
  next: StepName | null;
  /** The work the step does, all of it in this step (docs/architecture.md, "The pipeline"). */
  does: string;
}

/** The step order, in exactly one place. */
export const PIPELINE: Readonly<Record<StepName, StepDeclaration>> = {
  'file.decompress': { queuedAs: 'uploaded', runningAs: 'decompressing', next: 'file.detect', does: 'zip → a child file per statement; gzip → plain; checks a workbook' },
  'file.detect': { queuedAs: 'detecting', runningAs: 'detecting', next: 'file.ingest', does: 'the source pattern from the first 64 KB (or needs_confirmation)' },
  'file.ingest': {
    queuedAs: 'queued', runningAs: 'ingesting', next: 'royalty.allocate',
    does: 'reads the lines with the pattern and COPYs them, matched and shared in flight where the catalogue allows it (royalty/prefill.ts)',
  },
  'royalty.allocate': {
    queuedAs: 'allocating', runningAs: 'allocating', next: null,
    does: 'matches what the ingest left, converts currency, writes earnings, posts the ledger and builds the analytics rollups',
  },
};

/** The step an upload (and each child of an archive) starts with. */
export const FIRST_STEP: StepName = 'file.decompress';

/** What a file is when its last step succeeded. */
export const DONE_STATUS: FileStatus = 'processed';

export const STEPS = Object.keys(PIPELINE) as StepName[];

export function isStep(name: string): name is StepName {
  return Object.hasOwn(PIPELINE, name);
}

/** The step that owns `status` (a file in it is waiting for, or inside, that step); null for settled statuses. */
export function stepFor(status: string): StepName | null {
  for (const s of STEPS) if (PIPELINE[s].queuedAs === status || PIPELINE[s].runningAs === status) return s;
  return null;
}

/** The status a successful run of `step` leaves the file in. */
export function statusAfter(step: StepName): FileStatus {
  const next = PIPELINE[step].next;
  return next ? PIPELINE[next].queuedAs : DONE_STATUS;
}

/** Statuses in which the pipeline still has work to do: recovery and resend-pending-files re-send these. */
export const IN_FLIGHT_STATUSES: FileStatus[] = [...new Set(STEPS.flatMap((s) => [PIPELINE[s].queuedAs, PIPELINE[s].runningAs]))];

/** Statuses a file ends in: a re-run is a deliberate request. */
export const TERMINAL_STATUSES: FileStatus[] = [DONE_STATUS, 'failed'];

/** Statuses a file settles in (no job will move it on by itself). */
export const SETTLED_STATUSES: FileStatus[] = ['needs_confirmation', ...TERMINAL_STATUSES];

// ------------------------------------------------------------------------------ the queue port

export interface SendOptions {
  /** Enqueue inside this transaction: the job appears when (and only if) it commits. */
  trx?: Knex.Transaction;
  singletonKey?: string;
  startAfter?: number | string | Date;
}

/** What services see of the queue. The pg-boss implementation is jobs/queue.ts. */
export interface JobQueue {
  send<N extends JobName>(name: N, data: JobPayloads[N], opts?: SendOptions): Promise<string | null>;
  /** Whether a job of `name` sent with `singletonKey` waits to run (queued, or waiting for a retry): not yet taken by any worker. */
  waiting(name: JobName, singletonKey: string): Promise<boolean>;
  /** True once the queue of this process began to stop: schedule nothing more from a handler. */
  readonly stopping: boolean;
  /** Aborted when a stopping queue stops waiting for its running handlers: pass it to outbound I/O. */
  readonly signal: AbortSignal;
}
