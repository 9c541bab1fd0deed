/**
 * One delivery attempt (job `webhooks.deliver`): sign, POST with a time limit, record the
 * attempt; on a non-2xx answer or a network error schedule the next attempt (RETRY_SCHEDULE,
 * jittered) as a delayed job in the same transaction; after the last one the delivery fails.
 * An endpoint that has failed without a success for WEBHOOK_DISABLE_AFTER_SECONDS is disabled
 * and the workspace's admins are told (in-app notification and e-mail).
 */
import crypto from 'node:crypto';
import { withTenant, type Trx } from '../../db';
import type { AppServices } from '../../services';
import { clock } from '../../lib/clock';
import { guardedPost } from '../../lib/outbound';
import { notify } from '../notifications/service';
import { htmlFromText } from '../email/templates';
import { cancelPending, signingSecrets } from './service';
import { withDeliveryBlock } from './reference';
import { activeAdmins } from '../../repositories/members';

/** Seconds before retry n (1-based) at WEBHOOK_RETRY_SCALE=1: 9 attempts in all over about 24.6 hours. */
export const RETRY_SCHEDULE = [20, 60, 300, 1800, 7200, 14400, 28800, 36000];
export const MAX_ATTEMPTS = RETRY_SCHEDULE.length + 1;
/**
 * The reference service's convention, for endpoints that asked for its envelope: 3 attempts,
 * the first two retries of the same schedule (20 s, then 1 min: exponential, jittered).
 */
export const REFERENCE_MAX_ATTEMPTS = 3;

/** How many attempts a delivery gets: by the envelope it was queued in. */
export function maxAttemptsOf(envelope: string): number {
  return envelope === 'reference' ? REFERENCE_MAX_ATTEMPTS : MAX_ATTEMPTS;
}
/** ±20 % jitter on every delay, so endpoints that failed together do not retry together. */
const JITTER = 0.2;
/** Attempts at one endpoint that one worker process runs at the same time. */
const IN_FLIGHT_PER_ENDPOINT = 2;
const RESPONSE_KEEP = 1024;

/** `t=<unix seconds>,v1=<hex>[,v1=<hex>]`: HMAC-SHA256 over "<t>.<body>" with each secret in force. */
export function signatureHeader(secrets: string[], t: number, body: string): string {
  return [`t=${t}`, ...secrets.map((s) => `v1=${crypto.createHmac('sha256', s).update(`${t}.${body}`).digest('hex')}`)].join(',');
}

/** Milliseconds before the retry that follows attempt number `attempt` (1-based). */
export function retryDelayMs(attempt: number, scale: number, rnd = Math.random()): number {
  const base = RETRY_SCHEDULE[Math.min(attempt, RETRY_SCHEDULE.length) - 1]! * 1000 * scale;
  return Math.round(base * (1 + JITTER * (2 * rnd - 1)));
}

const inFlight = new Map<string, number>();

async function readStart(res: Response): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let n = 0;
  try {
    while (n < RESPONSE_KEEP) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      n += value.length;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks).subarray(0, RESPONSE_KEEP).toString('utf8');
}

interface Outcome {
  statusCode: number | null;
  latencyMs: number;
  responseBody: string | null;
  error: string | null;
  success: boolean;
  /** No answer within the time limit. */
  timedOut: boolean;
}

/**
 * The bytes of this attempt: the stored body, plus (reference envelope) the attempt's
 * `delivery` block, `nextRetryAt` being when the next attempt is due if this one fails.
 */
export function attemptBody(d: Record<string, any>, attempt: number, retryAt: Date | null): string {
  return d.envelope === 'reference' ? withDeliveryBlock(d.body, { attempt, maxAttempts: maxAttemptsOf(d.envelope), nextRetryAt: retryAt?.toISOString() ?? null }) : d.body;
}

async function post(svc: AppServices, ep: Record<string, any>, d: Record<string, any>, body: string): Promise<Outcome> {
  const t = Math.floor(clock.now().getTime() / 1000);
  const headers: Record<string, string> = {
    ...(ep.headers_sealed ? JSON.parse(svc.secrets.open(ep.headers_sealed)) : {}),
    'content-type': 'application/json',
    'user-agent': 'Rondo-Webhooks/1',
    'rondo-signature': signatureHeader(signingSecrets(svc, ep), t, body),
    'rondo-event-id': d.event_id,
    'rondo-event-type': d.event_type,
  };
  if (ep.auth_sealed) {
    const a = JSON.parse(svc.secrets.open(ep.auth_sealed));
    headers.authorization = a.type === 'basic' ? `Basic ${Buffer.from(`${a.username}:${a.password}`).toString('base64')}` : `Bearer ${a.token}`;
  }
  const started = performance.now();
  try {
    const res = await guardedPost(ep.url, { headers, body, signal: AbortSignal.any([AbortSignal.timeout(svc.cfg.webhooks.timeoutMs), svc.queue.signal]) }, svc.cfg.allowPrivateOutbound);
    const text = await readStart(res).catch(() => '');
    const success = res.status >= 200 && res.status < 300;
    return { statusCode: res.status, latencyMs: Math.round(performance.now() - started), responseBody: text, error: success ? null : `HTTP ${res.status}`, success, timedOut: false };
  } catch (err) {
    const e = err as Error & { code?: string; details?: string[] };
    const timedOut = !svc.queue.signal.aborted && (e.name === 'TimeoutError' || e.name === 'AbortError');
    const msg = svc.queue.signal.aborted
      ? 'interrupted: the worker was shutting down'
      : timedOut
        ? `no answer within ${svc.cfg.webhooks.timeoutMs} ms`
        : [e.code, e.message, ...(e.details ?? [])].filter(Boolean).join(': ');
    return { statusCode: null, latencyMs: Math.round(performance.now() - started), responseBody: null, error: msg.slice(0, 500), success: false, timedOut };
  }
}

async function load(trx: Trx, tenantId: number, deliveryId: string) {
  const d = await trx('webhook_deliveries').where({ tenant_id: tenantId, id: deliveryId }).first();
  if (!d) return null;
  const ep = await trx('webhook_endpoints').where({ tenant_id: tenantId, id: d.endpoint_id }).first();
  return ep ? { d, ep } : null;
}

/** Job `webhooks.deliver`. `manual`: POST /webhook-deliveries/{id}/retry (runs whatever the delivery's state). */
export async function deliver(svc: AppServices, p: { tenantId: number; deliveryId: string; manual?: boolean }): Promise<void> {
  const got = await withTenant(svc.db.app, p.tenantId, (trx) => load(trx, p.tenantId, p.deliveryId));
  if (!got) return; // endpoint or delivery deleted
  const { d, ep } = got;
  if (!p.manual && d.status !== 'pending') return; // done already (a duplicate job)
  if (!p.manual && !ep.is_enabled) {
    await withTenant(svc.db.app, p.tenantId, (trx) => cancelPending(trx, p.tenantId, ep.id, 'endpoint disabled'));
    return;
  }
  // Per-endpoint limits: attempts per minute (all processes) and at once (this process).
  const busy = inFlight.get(ep.id) ?? 0;
  const recent = await withTenant(svc.db.app, p.tenantId, async (trx) => {
    const [{ n }] = await trx('webhook_attempts').where({ tenant_id: p.tenantId, endpoint_id: ep.id }).where('attempted_at', '>', new Date(clock.now().getTime() - 60_000)).count<{ n: string }[]>({ n: '*' });
    return Number(n);
  });
  if (busy >= IN_FLIGHT_PER_ENDPOINT || recent >= svc.cfg.webhooks.ratePerMinute) {
    const wait = busy >= IN_FLIGHT_PER_ENDPOINT ? 1000 : Math.ceil(60_000 / svc.cfg.webhooks.ratePerMinute);
    await svc.queue.send('webhooks.deliver', p, { startAfter: new Date(Date.now() + wait + Math.floor(Math.random() * wait)) });
    return;
  }
  inFlight.set(ep.id, busy + 1);
  let out: Outcome;
  // when the next attempt is due if this one fails (null: this is the last one)
  const attempt = d.attempt_count + 1;
  const retryAt = retries(p, d.status) && attempt < maxAttemptsOf(d.envelope) ? new Date(clock.now().getTime() + retryDelayMs(attempt, svc.cfg.webhooks.retryScale)) : null;
  try {
    out = await post(svc, ep, d, attemptBody(d, attempt, retryAt));
  } finally {
    const left = (inFlight.get(ep.id) ?? 1) - 1;
    if (left > 0) inFlight.set(ep.id, left);
    else inFlight.delete(ep.id);
  }
  const disabled = await withTenant(svc.db.app, p.tenantId, (trx) => record(trx, svc, p, out, retryAt));
  if (disabled) await mailAdmins(svc, p.tenantId, disabled).catch((err) => svc.log.warn({ err, tenantId: p.tenantId }, 'webhook disabled: e-mail to admins failed'));
}

/** Whether a failed attempt schedules another: automatic attempts do, a manual one only while the delivery is still pending. */
function retries(p: { manual?: boolean }, status: string): boolean {
  return !p.manual || status === 'pending';
}

/** Records the attempt and its consequences; returns the endpoint when this attempt disabled it. */
async function record(trx: Trx, svc: AppServices, p: { tenantId: number; deliveryId: string; manual?: boolean }, out: Outcome, retryAt: Date | null) {
  const d = await trx('webhook_deliveries').where({ tenant_id: p.tenantId, id: p.deliveryId }).forUpdate().first();
  if (!d) return null;
  const now = clock.now();
  const attempt = d.attempt_count + 1;
  await trx('webhook_attempts').insert({
    tenant_id: p.tenantId, delivery_id: d.id, endpoint_id: d.endpoint_id, attempt, attempted_at: now,
    status_code: out.statusCode, latency_ms: out.latencyMs, response_body: out.responseBody, error: out.error, success: out.success,
  });
  const base = { attempt_count: attempt, last_status_code: out.statusCode, last_error: out.error, updated_at: now };
  if (out.success) {
    await trx('webhook_deliveries').where({ tenant_id: p.tenantId, id: d.id }).update({ ...base, status: 'success', delivered_at: now, next_attempt_at: null });
    await trx('webhook_endpoints').where({ tenant_id: p.tenantId, id: d.endpoint_id }).update({ failing_since: null });
    return null;
  }
  if (!p.manual && d.status !== 'pending') {
    // cancelled (the endpoint was turned off) while this attempt was in flight: it stays cancelled
    await trx('webhook_deliveries').where({ tenant_id: p.tenantId, id: d.id }).update(base);
  } else if (retries(p, d.status) && attempt < maxAttemptsOf(d.envelope) && d.status !== 'success') {
    const at = retryAt && retryAt > now ? retryAt : new Date(now.getTime() + retryDelayMs(attempt, svc.cfg.webhooks.retryScale));
    await trx('webhook_deliveries').where({ tenant_id: p.tenantId, id: d.id }).update({ ...base, status: 'pending', next_attempt_at: at });
    await svc.queue.send('webhooks.deliver', { tenantId: p.tenantId, deliveryId: d.id }, { trx, startAfter: at });
  } else {
    await trx('webhook_deliveries').where({ tenant_id: p.tenantId, id: d.id }).update({ ...base, status: d.status === 'success' ? 'success' : out.timedOut ? 'timeout' : 'failed', next_attempt_at: null });
  }
  const [ep] = await trx('webhook_endpoints')
    .where({ tenant_id: p.tenantId, id: d.endpoint_id })
    .update({ failing_since: trx.raw('COALESCE(failing_since, ?)', [now]) })
    .returning('*');
  if (!ep?.is_enabled || now.getTime() - new Date(ep.failing_since).getTime() < svc.cfg.webhooks.disableAfterSeconds * 1000) return null;
  const reason = `every delivery failed since ${new Date(ep.failing_since).toISOString()}; last: ${out.error}`;
  await trx('webhook_endpoints').where({ tenant_id: p.tenantId, id: ep.id }).update({ is_enabled: false, disabled_at: now, disabled_reason: reason, updated_at: now });
  await cancelPending(trx, p.tenantId, ep.id, 'endpoint disabled');
  const admins = await activeAdmins(trx, p.tenantId);
  for (const a of admins) {
    await notify(trx, {
      tenantId: p.tenantId, tenantUserId: a.id, type: 'webhook.endpoint.disabled', title: `Webhook endpoint disabled: ${ep.url}`, content: reason,
      resourceType: 'webhook', resourceId: ep.id, actionUrl: `/webhooks/${ep.id}`, isImportant: true, metadata: { url: ep.url },
    });
  }
  return { url: ep.url as string, reason, userIds: admins.map((a) => a.user_id as string) };
}

async function mailAdmins(svc: AppServices, tenantId: number, e: { url: string; reason: string; userIds: string[] }): Promise<void> {
  if (!e.userIds.length) return;
  const users = await svc.db.owner('users').whereIn('id', e.userIds).select('email');
  const workspace = (await svc.db.owner('tenants').where({ id: tenantId }).first('name'))?.name ?? 'your workspace';
  const link = `${svc.cfg.publicUrl.replace(/\/+$/, '')}/app/settings`;
  const text = `Deliveries to ${e.url} kept failing, so Rondo stopped sending events of ${workspace} there.\n\n${e.reason}\n\nFix the receiver, then turn the webhook on again in Rondo's settings, under Webhooks:\n\n${link}`;
  for (const u of users) {
    await svc.mailer.send({ to: u.email, subject: `Rondo: webhook endpoint disabled (${e.url})`, text, html: htmlFromText(text) });
  }
}
