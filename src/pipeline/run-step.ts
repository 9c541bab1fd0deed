/**
 * The one place a file moves from step to step. A step's service does its work and hands
 * its outcome to the `commit` it was given, inside the transaction that records its result;
 * commit writes the file's status (from the PIPELINE declaration) and enqueues the successor
 * in that same transaction, so a file's status and its next job appear together or not at all.
 * A step's result is one StepOutcome; its failure is one type (StepFailure), which this file
 * alone turns into the file's `failed` status and its notice (markFailed); the notice of a
 * processed file is sent here too.
 *
 * Services receive the queue only as the JobQueue port (a plain argument); this file and the
 * registry import nothing of the modules.
 */
import type { Knex } from 'knex';
import { FIRST_STEP, PIPELINE, statusAfter, type FileStatus, type JobQueue, type StepName } from './registry';

/** Why a file failed: a problem of the file itself (or of what it needs), never retried. */
export type FailureReason =
  /** The stored bytes are gone, or the object store could not read them. */
  | 'unreadable'
  /** The file breaks a limit or is malformed (archive limits, nesting, a corrupt zip/gzip/workbook, .xls). */
  | 'refused'
  /** Its source pattern no longer exists: the source is confirmed again. */
  | 'no_pattern'
  /** Not one line could be read. */
  | 'no_lines'
  /** It would pass the plan's monthly statement lines. */
  | 'over_quota'
  /** No exchange rate for a currency-month of its lines (`missing_rates` names them). */
  | 'missing_rates'
  /** An unexpected error outlived the step's last retry. */
  | 'retries_exhausted';

/**
 * THE failure of a step: the file fails with `message` (its `error_message`, and the failed
 * notice) and `patch`. A service throws it (runStep marks the file failed in a transaction of
 * its own) or commits it (`{ failed }`, inside the step's transaction). `cause`: the error
 * behind a failure after the last retry; the job then ends failed too (its dead letter keeps it).
 */
export class StepFailure extends Error {
  constructor(
    readonly reason: FailureReason,
    message: string,
    readonly patch: Record<string, unknown> = {},
    readonly failedCause?: unknown,
  ) {
    super(message);
  }
}

export type StepOutcome =
  /** Done: the file goes to the next step's status (or `processed` after the last, with the notice's figures) and the next job is enqueued. */
  | { advance: true; patch?: Record<string, unknown>; summary?: Record<string, unknown> }
  /** The file stops here: `needs_confirmation`, or an archive `processed` with its children queued. */
  | { advance: false; status: 'needs_confirmation' | 'processed'; patch?: Record<string, unknown> }
  /** The file failed (its lines and counts may be kept: `failure.patch`). */
  | { failed: StepFailure };

/** What a settled file's notice names (the row's columns the status update returns). */
export interface SettledFile {
  id: string;
  original_name: string;
  uploaded_by: string | null;
}

/**
 * What a run of a step did to its file, once the transaction that wrote it committed: the
 * status it left the file in, the lines it stored (the ingest's `rows_ingested`, 0 for the
 * other steps) and how long the run took. The metrics count it: they need not read the file.
 */
export interface StepRecord {
  step: StepName;
  status: FileStatus;
  linesStored: number;
  seconds: number;
}

/**
 * What the runner needs of the application, handed in by jobs/ (this file imports nothing of
 * the modules): the queue, a transaction of a workspace, the notice of a file that settled
 * (`processed` or `failed`: a notification and an outbound event), and where a run's record
 * goes (the metrics).
 */
export interface StepPorts {
  queue: JobQueue;
  inTenant<T>(tenantId: number, fn: (trx: Knex.Transaction) => Promise<T>): Promise<T>;
  notice(trx: Knex.Transaction, tenantId: number, file: SettledFile, outcome: 'processed' | 'failed', info: Record<string, unknown>): Promise<void>;
  recorded?(record: StepRecord): void;
  log: { info(obj: object, msg: string): void };
}

/** What commit wrote: the status and the patch (reported once the step's transaction committed). */
type Written = { status: FileStatus; patch: Record<string, unknown> };

/** Records a step's outcome inside `trx` (the transaction that holds the step's own writes). */
export type CommitStep = (trx: Knex.Transaction, outcome: StepOutcome) => Promise<void>;

/** A step's service: does the work for one file and commits through `commit`. */
export type StepService<P> = (payload: P, commit: CommitStep) => Promise<unknown>;

/**
 * Test-only fault injection (the kill-at-each-step test): called inside the step's
 * transaction just before its outcome is written. Never set outside tests. On globalThis so
 * a test and the workers share it even if the loader instantiates this module twice.
 */
type StepTestHooks = { beforeCommit?: (step: StepName, fileId: string) => Promise<void> | void };
export const stepTestHooks: StepTestHooks = ((globalThis as { __rondoStepTestHooks?: StepTestHooks }).__rondoStepTestHooks ??= {});

/**
 * The file left the step while it worked (deleted, or started over by a re-run): its outcome
 * is stale. Thrown by commit, so the step's transaction rolls back; runStep ends the job quietly.
 */
export class StepSuperseded extends Error {
  constructor(readonly step: StepName, readonly fileId: string) {
    super(`file ${fileId} left ${step} while it ran; its outcome is dropped`);
  }
}

const SETTLED_COLUMNS = ['id', 'original_name', 'uploaded_by'];

/**
 * The one "mark the file failed" path: status `failed`, the message and the failure's patch,
 * while the file is still in `step`'s own statuses (else StepSuperseded), then the notice.
 */
async function markFailed(ports: StepPorts, trx: Knex.Transaction, step: StepName, tenantId: number, fileId: string, failure: StepFailure): Promise<Written> {
  const message = failure.message.slice(0, 2000);
  const written: Written = { status: 'failed', patch: failure.patch };
  ports.log.info({ tenantId, fileId, step, reason: failure.reason, message }, 'file failed');
  const [file] = await trx('files')
    .where({ tenant_id: tenantId, id: fileId })
    .whereIn('status', [PIPELINE[step].queuedAs, PIPELINE[step].runningAs])
    .update({ updated_at: trx.fn.now(), ...failure.patch, status: written.status, error_message: message }, SETTLED_COLUMNS);
  if (!file) throw new StepSuperseded(step, fileId);
  await ports.notice(trx, tenantId, file, 'failed', { error: message });
  return written;
}

/** The commit function of `step` for one file; `wrote` hears what it wrote (inside the transaction). */
function stepCommit(ports: StepPorts, step: StepName, tenantId: number, fileId: string, wrote: (w: Written) => void): CommitStep {
  const own = [PIPELINE[step].queuedAs, PIPELINE[step].runningAs];
  return async (trx, outcome) => {
    if (stepTestHooks.beforeCommit) await stepTestHooks.beforeCommit(step, fileId);
    if ('failed' in outcome) return wrote(await markFailed(ports, trx, step, tenantId, fileId, outcome.failed));
    const status = outcome.advance ? statusAfter(step) : outcome.status;
    const [file] = await trx('files')
      .where({ tenant_id: tenantId, id: fileId })
      .whereIn('status', own)
      .update({ updated_at: trx.fn.now(), ...outcome.patch, status }, SETTLED_COLUMNS);
    if (!file) throw new StepSuperseded(step, fileId);
    wrote({ status, patch: outcome.patch ?? {} });
    const next = PIPELINE[step].next;
    if (outcome.advance && next) await ports.queue.send(next, { tenantId, fileId }, { trx, singletonKey: fileId });
    if (outcome.advance && !next) await ports.notice(trx, tenantId, file, 'processed', outcome.summary ?? {});
  };
}

/**
 * Runs one pipeline step for one file: the service gets the step's commit. A StepFailure it
 * throws marks the file failed here, in a transaction of its own; a file that moved on
 * meanwhile (StepSuperseded) ends the job quietly; anything else is thrown for a retry.
 */
export async function runStep<P extends { tenantId: number; fileId: string }>(ports: StepPorts, step: StepName, payload: P, service: StepService<P>): Promise<unknown> {
  const started = process.hrtime.bigint();
  const record = (w: Written) => {
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    ports.recorded?.({ step, status: w.status, linesStored: Number(w.patch.rows_ingested ?? 0) || 0, seconds });
  };
  let written: Written | null = null;
  try {
    const out = await service(payload, stepCommit(ports, step, payload.tenantId, payload.fileId, (w) => (written = w)));
    if (written) record(written); // the service returned: the transaction that wrote it committed
    return out;
  } catch (err) {
    if (err instanceof StepSuperseded) return null; // an expected no-op: the file moved on without this run
    if (!(err instanceof StepFailure)) throw err;
    try {
      record(await ports.inTenant(payload.tenantId, (trx) => markFailed(ports, trx, step, payload.tenantId, payload.fileId, err)));
    } catch (e) {
      if (err.failedCause === undefined && !(e instanceof StepSuperseded)) throw e;
    }
    if (err.failedCause !== undefined) throw err.failedCause; // after the last retry: the job fails too
    return null;
  }
}

/**
 * Hands a file to `step` from outside the pipeline (an upload, a re-run, a confirmation,
 * stale-step recovery), in the caller's transaction. The caller sets the status.
 */
export async function sendToStep(queue: JobQueue, trx: Knex.Transaction, step: StepName, tenantId: number, fileId: string): Promise<void> {
  await queue.send(step, { tenantId, fileId }, { trx, singletonKey: fileId });
}

/** Hands a newly recorded file to the first step. */
export function startPipeline(queue: JobQueue, trx: Knex.Transaction, tenantId: number, fileId: string): Promise<void> {
  return sendToStep(queue, trx, FIRST_STEP, tenantId, fileId);
}
