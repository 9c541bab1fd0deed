/**
 * The outbox dispatcher (job `webhooks.dispatch`): every pending `outbound_events` row
 * becomes one delivery per subscribed, enabled endpoint, and each delivery's job is sent,
 * in one transaction with the row's move to `dispatched`. A crash before the commit leaves
 * the row pending for the next sweep; the unique (endpoint, event) key keeps a sweep that
 * runs twice from delivering twice. The job re-sends itself every WEBHOOK_SWEEP_SECONDS
 * (a stately queue holds at most one waiting); the minutely cron restarts a broken chain.
 */
import { withTenant, type Trx } from '../../db';
import type { AppServices } from '../../services';
import { effectivePlanSql } from '../../domain/features';
import { familyOf, subscribed } from './events';
import { queueDelivery } from './service';
import { workspaceFacts, type WorkspaceFacts } from './reference';

const BATCH = 200;

/**
 * A workspace whose plan lacks the `webhooks` feature (a downgrade) keeps its endpoints, but
 * only billing events reach them (the event of the downgrade itself, a reactivation); its
 * other events are marked dispatched with no delivery.
 */
async function dispatchTenant(trx: Trx, svc: AppServices, tenantId: number, workspaceId: string, featured: boolean): Promise<number> {
  const events = await trx('outbound_events').where({ tenant_id: tenantId, status: 'pending' }).orderBy('created_at').orderBy('id').limit(BATCH).forUpdate().skipLocked();
  if (!events.length) return 0;
  const endpoints = await trx('webhook_endpoints').where({ tenant_id: tenantId, is_enabled: true }).select('id', 'events', 'envelope');
  let facts: Promise<WorkspaceFacts> | null = null;
  const ws = () => (facts ??= workspaceFacts(trx, tenantId));
  for (const ev of events) {
    for (const ep of endpoints) {
      if (!subscribed(ep.events, ev.type) || (!featured && familyOf(ev.type) !== 'billing')) continue;
      await queueDelivery(trx, svc, tenantId, ep, { id: ev.id, type: ev.type, createdAt: new Date(ev.created_at).toISOString(), workspaceId, data: ev.payload }, ws);
    }
  }
  await trx('outbound_events').where({ tenant_id: tenantId }).whereIn('id', events.map((e) => e.id)).update({ status: 'dispatched', updated_at: new Date() });
  return events.length;
}

/** One sweep over every workspace with pending events; returns how many events were handled. */
export async function dispatchPending(svc: AppServices): Promise<number> {
  const { rows } = await svc.db.owner.raw(
    `SELECT t.id, t.uuid, 'webhooks' = ANY (p.features) AS featured
       FROM tenants t JOIN plans p ON p.code = ${effectivePlanSql()}
      WHERE EXISTS (SELECT 1 FROM outbound_events e WHERE e.tenant_id = t.id AND e.status = 'pending')`,
  );
  let n = 0;
  for (const t of rows as { id: number; uuid: string; featured: boolean }[]) {
    for (;;) {
      const k = await withTenant(svc.db.app, t.id, (trx) => dispatchTenant(trx, svc, t.id, t.uuid, t.featured));
      n += k;
      if (k < BATCH) break;
    }
  }
  return n;
}

/**
 * Job handler body: sweep, then queue the next sweep, unless this process is stopping (the
 * next start, or another process's cron, restarts the chain; nothing pending is lost, the
 * outbox keeps it).
 */
export async function runDispatchJob(svc: AppServices): Promise<void> {
  try {
    await dispatchPending(svc);
  } finally {
    if (!svc.queue.stopping) await svc.queue.send('webhooks.dispatch', {}, { startAfter: new Date(Date.now() + svc.cfg.webhooks.sweepSeconds * 1000) });
  }
}
