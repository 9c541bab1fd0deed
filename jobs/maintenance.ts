/** Housekeeping jobs. Thin: call one service, return. */
import type { AppServices } from '../src/services';
import { clock } from '../src/lib/clock';
import { recoverStaleFiles } from '../src/modules/files/recovery';
import type { Queue } from './queue';

export async function cleanup(svc: AppServices): Promise<void> {
  const now = clock.now();
  const dayAgo = new Date(now.getTime() - 24 * 3600_000);
  await svc.db.owner('sessions').where('expires_at', '<', dayAgo).delete();
  await svc.db.owner('one_time_tokens').where('expires_at', '<', dayAgo).delete();
  await svc.db.owner('rate_limit_hits').where('window_start', '<', dayAgo).delete();
  await svc.db.owner('file_upload_intents').where('created_at', '<', dayAgo).delete();
}

export async function registerMaintenanceWorkers(svc: AppServices, queue: Queue): Promise<void> {
  await queue.work('maintenance.cleanup', () => cleanup(svc));
  // Stale-step recovery: a file in any step's status that has not moved for STALE_FILE_SECONDS.
  await queue.work('maintenance.recover', async () => {
    await recoverStaleFiles(svc, svc.cfg.staleFileSeconds);
  });
}
