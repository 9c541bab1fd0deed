/**
 * Delivery of notifications over e-mail, SMS and Web Push.
 *
 * notify() records one `notification_deliveries` row per recipient and external channel the
 * recipient's preferences allow, in the transaction of the change (a rolled-back change sends
 * nothing; a committed one is never lost). The dispatcher (job `notifications.dispatch`, every
 * DISPATCH_SECONDS) sends one `notifications.deliver` job per new row in the transaction that
 * marks it queued; a delivery job makes one attempt and records it (attempts, history, last
 * error); a failed attempt throws, so pg-boss retries it with backoff until the last attempt
 * marks the delivery `failed`. A delivery that cannot be made (no SMS number, no push
 * subscription, push not configured) is `skipped` with the reason.
 */
import { withTenant, type Trx } from '../../db';
import type { AppServices } from '../../services';
import { clock } from '../../lib/clock';
import { NotFoundError } from '../../lib/errors';
import { sendPush } from '../../lib/push';
import { JOB_OPTIONS } from '../../pipeline/registry';
import { sendMail } from '../email/service';
import { TEMPLATES, templateForNotification, type TemplateData } from '../email/templates';
import { channelAllowed, EXTERNAL_CHANNELS, type ExternalChannel } from './preferences';
import { activeMemberIds, memberPeople } from '../../repositories/members';

/** Seconds between two dispatcher sweeps. */
export const DISPATCH_SECONDS = 2;
/** Attempts per delivery: the first and pg-boss's retries. */
export const MAX_ATTEMPTS = JOB_OPTIONS['notifications.deliver'].retryLimit + 1;
const FINAL = ['sent', 'failed', 'skipped'];

/** Called by notify(): a pending delivery per recipient (the member, else every active member) and allowed channel. */
export async function planDeliveries(trx: Trx, tenantId: number, notificationId: string, to: string | null, type: string): Promise<void> {
  const recipients = to ? [to] : await activeMemberIds(trx, tenantId);
  if (!recipients.length) return;
  const prefs = new Map((await trx('notification_preferences').whereIn('tenant_user_id', recipients).select('tenant_user_id', 'channels', 'types')).map((p) => [p.tenant_user_id as string, p]));
  const rows = recipients.flatMap((u) =>
    EXTERNAL_CHANNELS.filter((c) => channelAllowed(prefs.get(u), type, c)).map((channel) => ({ tenant_id: tenantId, notification_id: notificationId, tenant_user_id: u, channel, created_at: clock.now(), updated_at: clock.now() })),
  );
  if (rows.length) await trx('notification_deliveries').insert(rows);
}

function deliveryView(r: Record<string, any>) {
  return {
    id: r.id as string,
    channel: r.channel as ExternalChannel,
    recipient: r.tenant_user_id as string,
    status: r.status as 'pending' | 'retrying' | 'sent' | 'failed' | 'skipped',
    attempts: r.attempts as number,
    lastError: (r.last_error as string | null) ?? null,
    history: r.history as { at: string; ok: boolean; error: string | null }[],
    sentAt: r.sent_at ? new Date(r.sent_at).toISOString() : null,
    updatedAt: new Date(r.updated_at).toISOString(),
  };
}

/** The deliveries of these notifications to `me`, by notification id. */
export async function deliveriesOf(trx: Trx, notificationIds: string[], me: string | null) {
  const out = new Map<string, ReturnType<typeof deliveryView>[]>();
  if (!notificationIds.length || !me) return out;
  const rows = await trx('notification_deliveries').whereIn('notification_id', notificationIds).where({ tenant_user_id: me }).orderBy('channel');
  for (const r of rows) out.set(r.notification_id, [...(out.get(r.notification_id) ?? []), deliveryView(r)]);
  return out;
}

/** GET /notifications/{id}/deliveries: every recipient's for admins, else the caller's own (of a notification they can see). */
export async function listDeliveries(trx: Trx, notificationId: string, me: string | null, isAdmin: boolean) {
  const n = await trx('notifications').where({ id: notificationId }).first('id', 'tenant_user_id');
  if (!n || (!isAdmin && n.tenant_user_id && n.tenant_user_id !== me)) throw new NotFoundError('Notification');
  const q = trx('notification_deliveries').where({ notification_id: notificationId }).orderBy('tenant_user_id').orderBy('channel');
  if (!isAdmin) q.where({ tenant_user_id: me });
  return (await q).map(deliveryView);
}

// ------------------------------------------------------------------------------ dispatch

/** One sweep: a delivery job for every new delivery, sent in the transaction that marks it queued. */
export async function dispatchPending(svc: Pick<AppServices, 'db' | 'queue'>): Promise<number> {
  const { rows } = await svc.db.owner.raw(`SELECT DISTINCT tenant_id FROM notification_deliveries WHERE status = 'pending' AND job_id IS NULL`);
  let n = 0;
  for (const { tenant_id: tenantId } of rows as { tenant_id: number }[]) {
    n += await withTenant(svc.db.app, tenantId, async (trx) => {
      const todo = await trx('notification_deliveries').where({ status: 'pending' }).whereNull('job_id').orderBy('created_at').limit(500).forUpdate().skipLocked().select('id');
      for (const d of todo) {
        const jobId = await svc.queue.send('notifications.deliver', { tenantId, deliveryId: d.id }, { trx });
        await trx('notification_deliveries').where({ id: d.id }).update({ job_id: jobId ?? 'sent', updated_at: clock.now() });
      }
      return todo.length;
    });
  }
  return n;
}

/** Job `notifications.dispatch`: sweep, then queue the next sweep (the minutely cron restarts a broken chain). */
export async function runDispatchJob(svc: AppServices): Promise<void> {
  try {
    await dispatchPending(svc);
  } finally {
    await svc.queue.send('notifications.dispatch', {}, { startAfter: new Date(Date.now() + DISPATCH_SECONDS * 1000) });
  }
}

// ------------------------------------------------------------------------------ delivery

type Outcome = { ok: true } | { ok: false; error: string; skip?: boolean };

const scalars = (m: Record<string, unknown>) => Object.fromEntries(Object.entries(m ?? {}).filter(([, v]) => ['string', 'number'].includes(typeof v))) as Record<string, string | number>;

/**
 * The web app page a notification's e-mail, SMS and push link to (people open pages, not API
 * routes): a statement file on the statements page, a statement or payment on the payee's own
 * page, a member on the people page, anything else in the notification centre.
 */
export function appPathOf(n: Record<string, any>): string {
  const id = encodeURIComponent(String(n.resource_id ?? ''));
  switch (n.resource_type) {
    case 'file': return `/app/statements?file=${id}`;
    case 'statement': return `/app/me?statement=${id}`;
    case 'payment': return `/app/me?payment=${id}`;
    case 'user': return '/app/people';
    default: return n.id ? `/app/notifications?id=${encodeURIComponent(String(n.id))}` : '/app/notifications';
  }
}

/** The template data of a notification's e-mail: its fields, and its metadata under the template's own group (file, payment, …). */
export function notificationData(n: Record<string, any>, publicUrl: string): TemplateData {
  const link = new URL(appPathOf(n).slice(1), `${publicUrl.replace(/\/+$/, '')}/`).toString();
  const data: TemplateData = { notification: { title: n.title, content: n.content, type: n.type, link } };
  const groups = new Set(TEMPLATES[templateForNotification(n.type)].placeholders.map((p) => p.split('.')[0]!).filter((g) => g !== 'notification'));
  for (const g of groups) data[g] = { ...scalars(n.metadata), link };
  return data;
}

async function viaEmail(svc: AppServices, tenantId: number, d: Record<string, any>, n: Record<string, any>): Promise<Outcome> {
  return withTenant(svc.db.app, tenantId, async (trx) => {
    const [who] = await memberPeople(trx, [d.tenant_user_id]);
    if (!who?.email) return { ok: false, error: 'the member has no e-mail address', skip: true };
    const name = [who.first_name, who.last_name].filter(Boolean).join(' ') || null;
    await sendMail(svc, trx, tenantId, templateForNotification(n.type), { email: who.email, name }, notificationData(n, svc.cfg.publicUrl));
    return { ok: true };
  });
}

async function viaSms(svc: AppServices, tenantId: number, d: Record<string, any>, n: Record<string, any>): Promise<Outcome> {
  const number = await withTenant(svc.db.app, tenantId, async (trx) => (await trx('notification_preferences').where({ tenant_user_id: d.tenant_user_id }).first('sms_number'))?.sms_number as string | undefined);
  if (!number) return { ok: false, error: 'no SMS number in the member\'s preferences', skip: true };
  const link = notificationData(n, svc.cfg.publicUrl).notification!.link;
  const text = `${n.title}${n.content ? ` — ${n.content}` : ''}`.slice(0, 400) + ` ${link}`;
  await svc.sms.send(number, text, d.id);
  return { ok: true };
}

async function viaPush(svc: AppServices, tenantId: number, d: Record<string, any>, n: Record<string, any>): Promise<Outcome> {
  if (!svc.cfg.vapid) return { ok: false, error: 'Web Push is not configured (VAPID keys)', skip: true };
  const subs = await withTenant(svc.db.app, tenantId, (trx) => trx('push_subscriptions').where({ tenant_user_id: d.tenant_user_id }).select('id', 'endpoint', 'p256dh', 'auth'));
  if (!subs.length) return { ok: false, error: 'the member has no push subscription', skip: true };
  const payload = JSON.stringify({ notificationId: n.id, type: n.type, title: n.title, body: n.content, url: n.action_url });
  const errors: string[] = [];
  let delivered = 0;
  for (const s of subs) {
    try {
      const r = await sendPush(svc.cfg.vapid, s, payload, svc.cfg.allowPrivateOutbound, svc.cfg.partnerTimeoutMs);
      if (r.status >= 200 && r.status < 300) delivered++;
      else errors.push(`${new URL(s.endpoint).host}: ${r.status} ${r.body.slice(0, 100)}`);
      if (r.gone) await withTenant(svc.db.app, tenantId, (trx) => trx('push_subscriptions').where({ id: s.id }).delete());
    } catch (err) {
      errors.push(`${new URL(s.endpoint).host}: ${(err as Error).message}`);
    }
  }
  return delivered ? { ok: true } : { ok: false, error: errors.join('; ') };
}

const SENDERS: Record<ExternalChannel, (svc: AppServices, tenantId: number, d: Record<string, any>, n: Record<string, any>) => Promise<Outcome>> = { email: viaEmail, sms: viaSms, push: viaPush };

/** Job `notifications.deliver`: one attempt, recorded; a failed attempt that may be retried throws (pg-boss retries it). */
export async function deliverOne(svc: AppServices, p: { tenantId: number; deliveryId: string }): Promise<void> {
  const found = await withTenant(svc.db.app, p.tenantId, async (trx) => {
    const d = await trx('notification_deliveries').where({ id: p.deliveryId }).first();
    if (!d || FINAL.includes(d.status)) return null;
    return { d, n: await trx('notifications').where({ id: d.notification_id }).first() };
  });
  if (!found) return; // gone, or done already
  const { d, n } = found;
  let outcome: Outcome;
  try {
    outcome = await SENDERS[d.channel as ExternalChannel](svc, p.tenantId, d, n);
  } catch (err) {
    outcome = { ok: false, error: (err as Error).message || String(err) };
  }
  const attempts = d.attempts + 1;
  const status = outcome.ok ? 'sent' : outcome.skip ? 'skipped' : attempts >= MAX_ATTEMPTS ? 'failed' : 'retrying';
  const error = outcome.ok ? null : outcome.error.slice(0, 1000);
  await withTenant(svc.db.app, p.tenantId, (trx) =>
    trx('notification_deliveries')
      .where({ id: d.id })
      .update({
        attempts,
        status,
        last_error: error,
        sent_at: outcome.ok ? clock.now() : null,
        history: trx.raw(`history || ?::jsonb`, [JSON.stringify([{ at: clock.now().toISOString(), ok: outcome.ok, error }])]),
        updated_at: clock.now(),
      }),
  );
  if (status === 'retrying') throw new Error(`${d.channel} delivery ${d.id}: attempt ${attempts} of ${MAX_ATTEMPTS} failed: ${error}`);
}
