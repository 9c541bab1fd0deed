/**
 * Registers this process's workers: one thin handler per job of the registry
 * (src/pipeline/registry.ts: names, payloads, options, schedules and the pipeline order).
 * Called by the composition root (src/compose.ts) only; nothing in src/ imports jobs/ except it.
 */
import type { AppServices } from '../src/services';
import { JOB_OPTIONS, type JobName } from '../src/pipeline/registry';
import type { Queue } from './queue';
import { registerFileWorkers } from './files';
import { registerRoyaltyWorkers } from './royalty';
import { registerMaintenanceWorkers } from './maintenance';
import { registerPartnerWorkers } from './partners';
import { registerWebhookWorkers } from './webhooks';
import { registerImportWorkers } from './imports';
import { registerPlatformWorkers } from './platform';
import { registerNotificationWorkers } from './notifications';

export async function registerWorkers(svc: AppServices, queue: Queue): Promise<void> {
  await registerMaintenanceWorkers(svc, queue);
  await registerFileWorkers(svc, queue);
  await registerRoyaltyWorkers(svc, queue);
  await registerPartnerWorkers(svc, queue);
  await registerWebhookWorkers(svc, queue);
  await registerImportWorkers(svc, queue);
  await registerPlatformWorkers(svc, queue);
  await registerNotificationWorkers(svc, queue);
  for (const name of Object.keys(JOB_OPTIONS) as JobName[]) {
    const cron = JOB_OPTIONS[name].cron;
    if (cron) await queue.boss.schedule(name, cron, {});
  }
}
