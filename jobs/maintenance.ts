import type { AppServices } from '../src/services';
import { clock } from '../src/lib/clock';

export async function cleanup(svc: AppServices): Promise<void> {
  const now = clock.now();
  const dayAgo = new Date(now.getTime() - 24 * 3600_000);
  await svc.db.owner('sessions').where('expires_at', '<', dayAgo).delete();
  await svc.db.owner('one_time_tokens').where('expires_at', '<', dayAgo).delete();
  await svc.db.owner('rate_limit_hits').where('window_start', '<', dayAgo).delete();
}
