/** Platform jobs. Thin: check the payload, call one service, return. */
import type { AppServices } from '../src/services';
import { runErasureJob } from '../src/modules/platform/erasure-jobs';
import type { Queue } from './queue';

export async function registerPlatformWorkers(svc: AppServices, queue: Queue): Promise<void> {
  await queue.work('platform.account.erase', async (data, job) => {
    if (typeof data.erasureId !== 'string' || !/^[0-9a-f-]{36}$/i.test(data.erasureId)) {
      svc.log.warn({ data }, 'platform.account.erase: bad payload');
      return;
    }
    await runErasureJob(svc, data.erasureId, { lastAttempt: job.retryCount >= job.retryLimit });
  });
}
