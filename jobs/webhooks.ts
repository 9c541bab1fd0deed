/** Webhook jobs (docs/webhooks.md). Thin: call one service, return. */
import type { AppServices } from '../src/services';
import { JOB_OPTIONS } from '../src/pipeline/registry';
import { runDispatchJob } from '../src/modules/webhooks/dispatch';
import { deliver } from '../src/modules/webhooks/deliver';
import type { Queue } from './queue';

export async function registerWebhookWorkers(svc: AppServices, queue: Queue): Promise<void> {
  await queue.work('webhooks.dispatch', () => runDispatchJob(svc));
  await queue.work('webhooks.deliver', (p) => deliver(svc, p), { concurrency: JOB_OPTIONS['webhooks.deliver'].concurrency });
  // start the sweep chain now rather than at the next cron minute (the stately queue drops a duplicate)
  await queue.send('webhooks.dispatch', {});
}
