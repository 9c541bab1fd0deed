/** Notification delivery jobs. Thin: call one service, return. */
import type { AppServices } from '../src/services';
import { deliverOne, runDispatchJob } from '../src/modules/notifications/deliveries';
import { JOB_OPTIONS } from '../src/pipeline/registry';
import type { Queue } from './queue';

export async function registerNotificationWorkers(svc: AppServices, queue: Queue): Promise<void> {
  await queue.work('notifications.dispatch', () => runDispatchJob(svc));
  await queue.work('notifications.deliver', (data) => deliverOne(svc, data), { concurrency: JOB_OPTIONS['notifications.deliver'].concurrency });
  // start the sweep chain now rather than at the next cron minute
  await queue.send('notifications.dispatch', {});
}
