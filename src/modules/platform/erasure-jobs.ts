/**
 * Account erasure as one audited job (docs/platform.md). POST /godmin/account-erasure/execute
 * checks the planHash against a fresh preview (a stale one is a 400 at once), records the
 * erasure (`account_erasures`, owner pool only) and queues `platform.account.erase` in the same
 * transaction. The job erases in one transaction that also writes the `account.erase` audit
 * record and marks the erasure `completed` with its row counts: all of it, or none. Data that
 * moved between the request and the job fails the erasure with PLAN_CHANGED (nothing erased).
 */
import type { Knex } from 'knex';
import type { AppServices } from '../../services';
import type { AuthContext } from '../auth/tokens';
import { AppError, NotFoundError } from '../../lib/errors';
import { clock } from '../../lib/clock';
import { actorOf } from './audit';
import { rowView } from '../../lib/row-view';
import { executeErasure, planChanged, previewErasure } from './erasure';

export type ErasureStatus = 'queued' | 'running' | 'completed' | 'failed';

export interface ErasureJob {
  jobId: string;
  userId: string;
  planHash: string;
  status: ErasureStatus;
  result: null | { erased: Record<string, number>; retained: Array<{ table: string; columns: string[]; rows: number; reason: string }> };
  error: string | null;
  createdAt: string;
  finishedAt: string | null;
}

const view = (r: Record<string, unknown>) => rowView(r, [['jobId', 'id'], 'user_id', 'plan_hash', 'status', 'result', 'error', 'created_at', 'finished_at']) as unknown as ErasureJob;

/** Check the plan, record the erasure and queue its job (one transaction). */
export async function requestErasure(svc: Pick<AppServices, 'db' | 'queue'>, auth: AuthContext, userId: string, planHash: string) {
  const owner = svc.db.owner;
  const plan = await previewErasure(owner, userId);
  if (plan.planHash !== planHash) throw planChanged(plan.planHash);
  const actor = actorOf(auth);
  return owner.transaction(async (trx) => {
    const [row] = await trx('account_erasures').insert({ user_id: userId, plan_hash: planHash, actor_kind: actor.kind, actor_id: actor.id, created_at: clock.now() }).returning('*');
    const jobId = await svc.queue.send('platform.account.erase', { erasureId: row.id }, { trx });
    await trx('account_erasures').where({ id: row.id }).update({ job_id: jobId });
    return view(row);
  });
}

export async function getErasure(owner: Knex, id: string) {
  const r = await owner('account_erasures').where({ id }).first();
  if (!r) throw new NotFoundError('Erasure job', 'ERASURE_JOB_NOT_FOUND');
  return view(r);
}

const finish = (db: Knex, id: string, patch: Record<string, unknown>) => db('account_erasures').where({ id }).update({ ...patch, finished_at: clock.now() });

/**
 * The job. A finished erasure is left alone (a redelivered job does nothing). A refusal of the
 * erasure itself (PLAN_CHANGED, the person gone) fails it at once; anything else is retried
 * by the queue, and recorded as the failure on the last attempt.
 */
export async function runErasureJob(svc: Pick<AppServices, 'db' | 'log'>, erasureId: string, opts: { lastAttempt?: boolean } = {}): Promise<void> {
  const owner = svc.db.owner;
  const e = await owner('account_erasures').where({ id: erasureId }).first();
  if (!e || e.status === 'completed' || e.status === 'failed') return;
  await owner('account_erasures').where({ id: erasureId }).update({ status: 'running' });
  try {
    await owner.transaction(async (trx) => {
      const locked = await trx('account_erasures').where({ id: erasureId }).forUpdate().first('status');
      if (locked.status !== 'running') return;
      const r = await executeErasure(trx, { kind: e.actor_kind, id: e.actor_id }, e.user_id, e.plan_hash);
      await finish(trx, erasureId, { status: 'completed', result: JSON.stringify({ erased: r.erased, retained: r.retained }), error: null });
    });
  } catch (err) {
    const refused = err instanceof AppError;
    if (!refused && !opts.lastAttempt) throw err;
    if (!refused) svc.log.error({ err, erasureId }, 'account erasure failed on its last attempt');
    const message = refused ? [`${err.code}: ${err.message}`, ...err.details].join('; ') : 'The erasure failed on every attempt (logged); nothing was erased';
    await finish(owner, erasureId, { status: 'failed', error: message });
  }
}
