/** Partner jobs. Thin: call one service, return. */
import type { AppServices } from '../src/services';
import { syncAllFxPayouts } from '../src/modules/partners/fx-payouts';
import type { Queue } from './queue';

export async function registerPartnerWorkers(svc: AppServices, queue: Queue): Promise<void> {
  // FX payouts: unconfirmed creates are resent with their key, open payouts polled (docs/partners.md)
  await queue.work('partners.fxpartner.sync', () => syncAllFxPayouts(svc));
}
