/** Catalogue import jobs. Thin: check the payload, call one service, return. */
import type { AppServices } from '../src/services';
import { runFetchJob } from '../src/modules/imports/service';
import type { Queue } from './queue';

export async function registerImportWorkers(svc: AppServices, queue: Queue): Promise<void> {
  await queue.work('catalogue.import.fetch', async (data) => {
    if (!Number.isInteger(data.tenantId) || typeof data.batchId !== 'string' || !/^[0-9a-f-]{36}$/i.test(data.batchId)) {
      svc.log.warn({ data }, 'catalogue.import.fetch: bad payload');
      return;
    }
    await runFetchJob(svc, data.tenantId, data.batchId);
  });
}
