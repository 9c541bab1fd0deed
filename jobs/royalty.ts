/**
 * Workers of the allocation end of the pipeline. Thin: validate, run one service, return.
 * Catalogue/split/rule changes arrive as NOTIFY rondo_allocation_dirty (tenant id) from the
 * triggers of migration 20261123300100; a dedicated listener turns them into one
 * royalty.reallocate job per workspace, and a minutely sweep covers missed notifications.
 */
import { PgListener } from '../src/db/listen';
import type { AppServices } from '../src/services';
import type { JobPayloads, JobQueue } from '../src/pipeline/registry';
import { runStep } from '../src/pipeline/run-step';
import { runAllocateJob, runReallocateJob, tenantsWithMarks } from '../src/modules/royalty/pipeline';
import type { Queue } from './queue';
import { stepPorts } from './steps';

function valid(p: { tenantId?: unknown; fileId?: unknown }, needFile: boolean): boolean {
  return Number.isInteger(p.tenantId) && (!needFile || (typeof p.fileId === 'string' && /^[0-9a-f-]{36}$/i.test(p.fileId)));
}

export async function requestReallocation(queue: JobQueue, tenantId: number): Promise<void> {
  await queue.send('royalty.reallocate', { tenantId }, { singletonKey: `tenant:${tenantId}` });
}

export async function registerRoyaltyWorkers(svc: AppServices, jobs: Queue): Promise<void> {
  const { log } = svc;
  const ports = stepPorts(svc, jobs);
  // Unexpected errors are logged here, then rethrown for pg-boss to retry / dead-letter.
  const queue = {
    work: async <N extends 'royalty.allocate' | 'royalty.reallocate' | 'royalty.sweep'>(
      name: N,
      fn: (data: JobPayloads[N]) => Promise<unknown>,
    ) =>
      jobs.work(name, async (data) => {
        try {
          await fn(data);
        } catch (err) {
          log.error({ err, job: name, data }, 'job failed');
          throw err;
        }
      }),
  };
  await queue.work('royalty.allocate', async (data) => {
    if (!valid(data, true)) return log.warn({ data }, 'royalty.allocate: bad payload');
    await runStep(ports, 'royalty.allocate', data, (p, commit) => runAllocateJob(svc, p, commit));
  });
  await queue.work('royalty.reallocate', async (data) => {
    if (!valid(data, false)) return log.warn({ data }, 'royalty.reallocate: bad payload');
    await runReallocateJob(svc, data);
  });
  await queue.work('royalty.sweep', async () => {
    for (const t of await tenantsWithMarks(svc)) await requestReallocation(jobs, t);
  });

  // Reconnects after a drop; the minutely sweep covers notifications missed meanwhile.
  const listener = new PgListener(
    svc.db.url,
    'rondo_allocation_dirty',
    (payload) => {
      const tenantId = Number(payload);
      if (!Number.isInteger(tenantId)) return;
      requestReallocation(jobs, tenantId).catch((err) => log.warn({ err }, 'could not enqueue royalty.reallocate'));
    },
    (err) => log.warn({ err }, 'allocation listener error'),
  );
  await listener.start();
  jobs.boss.once('stopped', () => void listener.close());
}
