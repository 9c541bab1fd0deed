/**
 * The one place a file moves from step to step. A step's service does its work and hands
 * its outcome to the `commit` it was given, inside the transaction that records its result;
 * commit writes the file's status (from the PIPELINE declaration) and enqueues the successor
 * in that same transaction, so a file's status and its next job appear together or not at all.
 *
 * Services receive the queue only as the JobQueue port (a plain argument); this file and the
 * registry import nothing of the modules.
 */
import type { Knex } from 'knex';
import { FIRST_STEP, PIPELINE, statusAfter, type FileStatus, type JobQueue, type StepName } from './registry';

export type StepOutcome =
  /** Done: the file goes to the next step's status (or `processed` after the last) and the next job is enqueued. */
  | { advance: true; patch?: Record<string, unknown> }
  /** The file stops here (`needs_confirmation`, `failed`, an archive `processed` with its children queued). */
  | { advance: false; status: FileStatus; patch?: Record<string, unknown> };

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

/** The commit function of `step` for one file. */
export function stepCommit(queue: JobQueue, step: StepName, tenantId: number, fileId: string): CommitStep {
  const own = [PIPELINE[step].queuedAs, PIPELINE[step].runningAs];
  return async (trx, outcome) => {
    if (stepTestHooks.beforeCommit) await stepTestHooks.beforeCommit(step, fileId);
    const status = outcome.advance ? statusAfter(step) : outcome.status;
    const n = await trx('files')
      .where({ tenant_id: tenantId, id: fileId })
      .whereIn('status', own)
      .update({ updated_at: trx.fn.now(), ...outcome.patch, status });
    if (!n) throw new StepSuperseded(step, fileId);
    const next = PIPELINE[step].next;
    if (outcome.advance && next) await queue.send(next, { tenantId, fileId }, { trx, singletonKey: fileId });
  };
}

/** Runs one pipeline step for one file: the service gets the step's commit. */
export async function runStep<P extends { tenantId: number; fileId: string }>(queue: JobQueue, step: StepName, payload: P, service: StepService<P>): Promise<unknown> {
  try {
    return await service(payload, stepCommit(queue, step, payload.tenantId, payload.fileId));
  } catch (err) {
    if (err instanceof StepSuperseded) return null; // an expected no-op: the file moved on without this run
    throw err;
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
