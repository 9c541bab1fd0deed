/** Readiness: the database answers a query and the queue answers a ping. */
import type { AppServices } from '../../services';

export interface Readiness {
  ok: boolean;
  checks: Record<string, string>;
}

export async function readiness(svc: Pick<AppServices, 'db' | 'queue'>): Promise<Readiness> {
  const checks: Record<string, string> = {};
  try {
    await svc.db.app.raw('select 1');
    checks.database = 'ok';
  } catch (err) {
    checks.database = `error: ${(err as Error).message}`;
  }
  try {
    checks.queue = (await svc.queue.ping()) ? 'ok' : 'error';
  } catch (err) {
    checks.queue = `error: ${(err as Error).message}`;
  }
  return { ok: Object.values(checks).every((v) => v === 'ok'), checks };
}
