/**
 * Webhook endpoints of a workspace (docs/webhooks.md): create (the signing secret is shown
 * once), list, read, change, delete, rotate the secret (the old one stays valid 24 h), send a
 * test event; deliveries with every attempt, listed and counted across endpoints; manual
 * re-delivery (docs/webhooks.md, "Deliveries"); the workspace webhook of the settings routes. The secret,
 * custom header values and basic/bearer credentials are sealed (SecretBox) and never answered.
 */
import { sortColumns, sortedPage, whereSearch } from '../../http/list-sort';
import crypto from 'node:crypto';
import type { Trx } from '../../db';
import type { AppServices } from '../../services';
import { clock } from '../../lib/clock';
import { AppError, NotFoundError, ValidationError } from '../../lib/errors';
import { assertPublicHost } from '../../lib/outbound';
import { REFERENCE_NAMES, rondoType, SUBSCRIPTION_PATTERNS, TEST_EVENT } from './events';
import { referenceEnvelope, workspaceFacts, type Envelope } from './reference';

export const ROTATION_GRACE_SECONDS = 24 * 3600;

/** Header names a custom header may not set (the delivery's own headers). */
const RESERVED_HEADERS = /^(rondo-.*|content-type|content-length|host|connection|transfer-encoding|authorization|user-agent)$/i;

export type WebhookAuth = { type: 'basic'; username: string; password: string } | { type: 'bearer'; token: string };

export interface EndpointInput {
  url?: string;
  events?: string[];
  description?: string | null;
  headers?: Record<string, string> | null;
  auth?: WebhookAuth | null;
  isEnabled?: boolean;
  envelope?: Envelope;
}

export function newSecret(): string {
  return 'whsec_' + crypto.randomBytes(32).toString('hex');
}

async function checkInput(svc: AppServices, b: EndpointInput): Promise<void> {
  if (b.url !== undefined) {
    let u: URL;
    try {
      u = new URL(b.url);
    } catch {
      throw new ValidationError('Invalid url', ['url is not a valid URL']);
    }
    if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new ValidationError('Invalid url', ['url must use http or https']);
    if (u.username || u.password) throw new ValidationError('Invalid url', ['url must not hold credentials (use auth)']);
    await assertPublicHost(u, svc.cfg.allowPrivateOutbound);
  }
  if (b.events) {
    const bad = b.events.filter((e) => !SUBSCRIPTION_PATTERNS.includes(e));
    if (bad.length) {
      throw new ValidationError('Unknown event type', bad.map((e) => `events: ${e} is not an event type, a family wildcard or *`));
    }
  }
  for (const name of Object.keys(b.headers ?? {})) {
    if (RESERVED_HEADERS.test(name)) throw new ValidationError('Reserved header', [`headers: ${name} is set by Rondo`]);
    if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(name)) throw new ValidationError('Invalid header name', [`headers: ${name} is not a valid header name`]);
  }
  for (const [name, v] of Object.entries(b.headers ?? {})) {
    if (/[\r\n\0]/.test(v)) throw new ValidationError('Invalid header value', [`headers: ${name} holds a line break`]);
  }
}

function toView(r: Record<string, any>) {
  const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);
  return {
    id: r.id as string,
    url: r.url as string,
    events: r.events as string[],
    description: (r.description ?? null) as string | null,
    headerNames: (r.header_names ?? []) as string[],
    authType: (r.auth_type ?? null) as 'basic' | 'bearer' | null,
    isEnabled: !!r.is_enabled,
    envelope: (r.envelope ?? 'rondo') as Envelope,
    managedBySettings: !!r.settings_managed,
    failingSince: iso(r.failing_since),
    disabledAt: iso(r.disabled_at),
    disabledReason: (r.disabled_reason ?? null) as string | null,
    previousSecretValidUntil: r.previous_secret_expires_at && new Date(r.previous_secret_expires_at) > clock.now() ? iso(r.previous_secret_expires_at) : null,
    createdAt: iso(r.created_at)!,
    updatedAt: iso(r.updated_at)!,
  };
}
export type EndpointView = ReturnType<typeof toView>;

function sealHeaders(svc: AppServices, h: Record<string, string> | null | undefined) {
  return h && Object.keys(h).length ? { headers_sealed: svc.secrets.seal(JSON.stringify(h)), header_names: Object.keys(h) } : { headers_sealed: null, header_names: [] };
}

async function row(trx: Trx, tenantId: number, id: string) {
  const r = await trx('webhook_endpoints').where({ tenant_id: tenantId, id }).first();
  if (!r) throw new NotFoundError('Webhook endpoint');
  return r;
}

/** Header names are kept readable (values sealed): they are read back from the sealed blob. */
function withNames(svc: AppServices, r: Record<string, any>) {
  return { ...r, header_names: r.headers_sealed ? Object.keys(JSON.parse(svc.secrets.open(r.headers_sealed))) : [] };
}

export async function createEndpoint(trx: Trx, svc: AppServices, tenantId: number, by: string | null, b: EndpointInput & { url: string; events: string[] }) {
  await checkInput(svc, b);
  const secret = newSecret();
  const { headers_sealed } = sealHeaders(svc, b.headers);
  const [r] = await trx('webhook_endpoints')
    .insert({
      tenant_id: tenantId,
      url: b.url,
      events: JSON.stringify([...new Set(b.events)]),
      description: b.description ?? null,
      secret_sealed: svc.secrets.seal(secret),
      headers_sealed,
      auth_sealed: b.auth ? svc.secrets.seal(JSON.stringify(b.auth)) : null,
      auth_type: b.auth?.type ?? null,
      is_enabled: b.isEnabled ?? true,
      envelope: b.envelope ?? 'rondo',
      created_by: by,
    })
    .returning('*');
  return { ...toView(withNames(svc, r)), secret };
}

export async function listEndpoints(trx: Trx, svc: AppServices, tenantId: number) {
  const rows = await trx('webhook_endpoints').where({ tenant_id: tenantId }).orderBy('created_at').orderBy('id');
  return rows.map((r) => toView(withNames(svc, r)));
}

export async function getEndpoint(trx: Trx, svc: AppServices, tenantId: number, id: string) {
  return toView(withNames(svc, await row(trx, tenantId, id)));
}

export async function updateEndpoint(trx: Trx, svc: AppServices, tenantId: number, id: string, b: EndpointInput) {
  await row(trx, tenantId, id);
  await checkInput(svc, b);
  const patch: Record<string, unknown> = { updated_at: clock.now() };
  if (b.url !== undefined) patch.url = b.url;
  if (b.events !== undefined) patch.events = JSON.stringify([...new Set(b.events)]);
  if (b.description !== undefined) patch.description = b.description;
  if (b.envelope !== undefined) patch.envelope = b.envelope;
  if (b.headers !== undefined) patch.headers_sealed = sealHeaders(svc, b.headers).headers_sealed;
  if (b.auth !== undefined) Object.assign(patch, { auth_sealed: b.auth ? svc.secrets.seal(JSON.stringify(b.auth)) : null, auth_type: b.auth?.type ?? null });
  if (b.isEnabled !== undefined) {
    patch.is_enabled = b.isEnabled;
    // re-enabling starts the failure clock over
    if (b.isEnabled) Object.assign(patch, { disabled_at: null, disabled_reason: null, failing_since: null });
    else Object.assign(patch, { disabled_at: clock.now(), disabled_reason: 'disabled by an admin' });
  }
  const [r] = await trx('webhook_endpoints').where({ tenant_id: tenantId, id }).update(patch).returning('*');
  if (b.isEnabled === false) await cancelPending(trx, tenantId, id, 'endpoint disabled');
  return toView(withNames(svc, r));
}

export async function deleteEndpoint(trx: Trx, tenantId: number, id: string): Promise<void> {
  const n = await trx('webhook_endpoints').where({ tenant_id: tenantId, id }).delete();
  if (!n) throw new NotFoundError('Webhook endpoint');
}

/** New secret now; the current one keeps signing (as a second v1) for ROTATION_GRACE_SECONDS. */
export async function rotateSecret(trx: Trx, svc: AppServices, tenantId: number, id: string) {
  const r = await row(trx, tenantId, id);
  const secret = newSecret();
  const until = new Date(clock.now().getTime() + ROTATION_GRACE_SECONDS * 1000);
  const [u] = await trx('webhook_endpoints')
    .where({ tenant_id: tenantId, id })
    .update({ secret_sealed: svc.secrets.seal(secret), previous_secret_sealed: r.secret_sealed, previous_secret_expires_at: until, updated_at: clock.now() })
    .returning('*');
  return { ...toView(withNames(svc, u)), secret };
}

/** The signing secrets in force: the current one first, then the previous one during its grace period. */
export function signingSecrets(svc: AppServices, r: Record<string, any>, now = clock.now()): string[] {
  const out = [svc.secrets.open(r.secret_sealed)];
  if (r.previous_secret_sealed && r.previous_secret_expires_at && new Date(r.previous_secret_expires_at) > now) out.push(svc.secrets.open(r.previous_secret_sealed));
  return out;
}

/** Pending deliveries of an endpoint that will not be attempted: `cancelled`. */
export async function cancelPending(trx: Trx, tenantId: number, endpointId: string, why: string): Promise<void> {
  await trx('webhook_deliveries').where({ tenant_id: tenantId, endpoint_id: endpointId, status: 'pending' }).update({ status: 'cancelled', last_error: why, next_attempt_at: null, updated_at: clock.now() });
}

/**
 * A delivery row for the endpoint with the event in the endpoint's envelope as its body, and
 * its first job (in `trx`). `ws`: the workspace facts of the reference envelope, when the
 * caller has them already (one read per dispatch sweep).
 */
export async function queueDelivery(
  trx: Trx, svc: AppServices, tenantId: number, endpoint: { id: string; envelope?: string | null },
  ev: { id: string; type: string; createdAt: string; workspaceId: string; data: unknown }, ws?: () => Promise<Awaited<ReturnType<typeof workspaceFacts>>>,
) {
  const id = crypto.randomUUID();
  const envelope: Envelope = endpoint.envelope === 'reference' ? 'reference' : 'rondo';
  const body = envelope === 'reference'
    ? JSON.stringify(referenceEnvelope(id, ev, await (ws ?? (() => workspaceFacts(trx, tenantId)))(), svc.cfg.production ? 'production' : 'development'))
    : JSON.stringify({ id: ev.id, type: ev.type, createdAt: ev.createdAt, workspaceId: ev.workspaceId, data: ev.data });
  const [d] = await trx('webhook_deliveries')
    .insert({ tenant_id: tenantId, id, endpoint_id: endpoint.id, event_id: ev.id, event_type: ev.type, envelope, body, next_attempt_at: clock.now() })
    .onConflict(['tenant_id', 'endpoint_id', 'event_id'])
    .ignore()
    .returning('id');
  if (!d) return null;
  const jobId = await svc.queue.send('webhooks.deliver', { tenantId, deliveryId: d.id }, { trx });
  return { deliveryId: d.id as string, jobId };
}

export async function sendTestEvent(trx: Trx, svc: AppServices, tenantId: number, id: string) {
  const ep = await row(trx, tenantId, id);
  const ws = await trx('tenants').where({ id: tenantId }).first('uuid');
  const ev = { id: crypto.randomUUID(), type: TEST_EVENT, createdAt: clock.now().toISOString(), workspaceId: ws.uuid, data: { endpointId: id, message: 'This is a test event from Rondo.' } };
  const q = await queueDelivery(trx, svc, tenantId, ep, ev);
  return { eventId: ev.id, deliveryId: q!.deliveryId, jobId: q!.jobId };
}

/** Delivery statuses (the reference service's): `timeout` when the last attempt got no answer in time, `cancelled` when the endpoint was disabled or deleted first. */
export const DELIVERY_STATUSES = ['pending', 'success', 'failed', 'timeout', 'cancelled'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

function deliveryView(d: Record<string, any>) {
  const iso = (x: Date | null) => (x ? new Date(x).toISOString() : null);
  return {
    id: d.id as string,
    endpointId: d.endpoint_id as string,
    eventId: d.event_id as string,
    eventType: d.event_type as string,
    event: (REFERENCE_NAMES[d.event_type] ?? d.event_type) as string,
    envelope: d.envelope as Envelope,
    status: d.status as DeliveryStatus,
    attemptCount: d.attempt_count as number,
    nextAttemptAt: d.status === 'pending' ? iso(d.next_attempt_at) : null,
    lastStatusCode: (d.last_status_code ?? null) as number | null,
    lastError: (d.last_error ?? null) as string | null,
    deliveredAt: iso(d.delivered_at),
    createdAt: iso(d.created_at)!,
  };
}

export const DELIVERY_SORT = sortColumns({
  createdAt: 'created_at', eventId: 'event_id', eventType: 'event_type', status: 'status', attemptCount: 'attempt_count', nextAttemptAt: 'next_attempt_at',
  lastStatusCode: 'last_status_code', lastError: 'last_error', deliveredAt: 'delivered_at', endpointId: 'endpoint_id',
  event: 'event_type', envelope: 'envelope', // `event` is the type's reference name: sorted as the type
});

export async function listDeliveries(trx: Trx, tenantId: number, endpointId: string, q: { page: number; size: number; search?: string; sort?: string; order?: 'asc' | 'desc' }) {
  await row(trx, tenantId, endpointId);
  const base = whereSearch(trx('webhook_deliveries').where({ tenant_id: tenantId, endpoint_id: endpointId }), q.search, ['event_type', 'status', 'last_error']);
  const { rows, total } = await sortedPage(base, q, DELIVERY_SORT, 'createdAt');
  return { data: rows.map(deliveryView), total };
}

export interface DeliveryFilter { status?: DeliveryStatus; eventType?: string; endpointId?: string; start?: string; end?: string }

/** The workspace's deliveries that pass the filter (an event type is Rondo's or its reference name; dates are UTC days, both ends included). */
function filteredDeliveries(trx: Trx, tenantId: number, f: DeliveryFilter) {
  const type = f.eventType === undefined ? undefined : f.eventType in REFERENCE_NAMES ? f.eventType : rondoType(f.eventType);
  if (f.eventType !== undefined && !type) throw new ValidationError('Unknown event type', [`eventType: ${f.eventType} is not an event Rondo sends`]);
  if (f.start && f.end && f.start > f.end) throw new ValidationError('Invalid date range', [`start ${f.start} is after end ${f.end}`]);
  return trx('webhook_deliveries as d').where('d.tenant_id', tenantId).modify((b) => {
    if (f.status) b.where('d.status', f.status);
    if (type) b.where('d.event_type', type);
    if (f.endpointId) b.where('d.endpoint_id', f.endpointId);
    if (f.start) b.where('d.created_at', '>=', `${f.start}T00:00:00Z`);
    if (f.end) b.whereRaw(`d.created_at < (?::date + 1)::timestamp AT TIME ZONE 'UTC'`, [f.end]);
  });
}

/** GET /webhook-deliveries: every endpoint's deliveries, filtered, sorted and paged like the other lists. */
export async function listAllDeliveries(trx: Trx, tenantId: number, q: DeliveryFilter & { page?: number; size?: number; sort?: string; order?: 'asc' | 'desc'; search?: string }) {
  const page = q.page ?? 1;
  const size = q.size ?? 20;
  const base = whereSearch(filteredDeliveries(trx, tenantId, q), q.search, ['event_type', 'status', 'last_error']);
  const { rows, total } = await sortedPage(base, { ...q, page, size }, DELIVERY_SORT, 'createdAt');
  return { data: rows.map(deliveryView), pagination: { page, size, total } };
}

/** GET /webhook-deliveries/summary: counts by status, by Rondo event type and by reference event name, under the same filter. */
export async function deliverySummary(trx: Trx, tenantId: number, f: DeliveryFilter) {
  const rows = await filteredDeliveries(trx, tenantId, f).select('d.status', 'd.event_type').count<{ status: string; event_type: string; n: string }[]>({ n: '*' }).groupBy('d.status', 'd.event_type');
  const byStatus = Object.fromEntries(DELIVERY_STATUSES.map((st) => [st, 0])) as Record<DeliveryStatus, number>;
  const byType: Record<string, number> = {};
  const byEvent: Record<string, number> = {};
  let total = 0;
  for (const r of rows) {
    const n = Number(r.n);
    total += n;
    byStatus[r.status as DeliveryStatus] += n;
    byType[r.event_type] = (byType[r.event_type] ?? 0) + n;
    const ev = REFERENCE_NAMES[r.event_type] ?? r.event_type;
    byEvent[ev] = (byEvent[ev] ?? 0) + n;
  }
  return { total, byStatus, byType, byEvent };
}

export async function getDelivery(trx: Trx, tenantId: number, id: string) {
  const d = await trx('webhook_deliveries').where({ tenant_id: tenantId, id }).first();
  if (!d) throw new NotFoundError('Webhook delivery');
  const attempts = await trx('webhook_attempts').where({ tenant_id: tenantId, delivery_id: id }).orderBy('attempted_at').orderBy('attempt');
  return {
    ...deliveryView(d),
    payload: JSON.parse(d.body),
    attempts: attempts.map((a) => ({
      attempt: a.attempt as number,
      attemptedAt: new Date(a.attempted_at).toISOString(),
      statusCode: (a.status_code ?? null) as number | null,
      latencyMs: a.latency_ms as number,
      responseBody: (a.response_body ?? null) as string | null,
      error: (a.error ?? null) as string | null,
      success: !!a.success,
    })),
  };
}

/** POST /webhook-deliveries/{id}/retry: one more attempt now with the same event (id and body). */
export async function retryDelivery(trx: Trx, svc: AppServices, tenantId: number, id: string) {
  const d = await trx('webhook_deliveries').where({ tenant_id: tenantId, id }).first('id');
  if (!d) throw new NotFoundError('Webhook delivery');
  const jobId = await svc.queue.send('webhooks.deliver', { tenantId, deliveryId: id, manual: true }, { trx });
  return { jobId, deliveryId: id };
}

// ------------------------------------------------------------------ the settings routes' endpoint
/*
 * The reference service has one webhook url per workspace; Rondo has many endpoints. The
 * routes PUT /tenant/settings/webhook-url, -isActive and -enabledEvents manage one of them,
 * "the settings endpoint" (`settings_managed`), created by the first webhook-url with the
 * reference envelope and every event; the other endpoints are left alone (docs/webhooks.md,
 * "One webhook url").
 */
const urlNotSet = () => new AppError(404, 'WEBHOOK_URL_NOT_SET', 'No webhook url is set for this workspace: set the webhook url first');

function settingsView(v: EndpointView, secret?: string) {
  return { endpointId: v.id, webhookUrl: v.url, isActive: v.isEnabled, enabledEvents: v.events, envelope: v.envelope, ...(secret ? { secret } : {}) };
}

async function settingsEndpoint(trx: Trx, tenantId: number) {
  return trx('webhook_endpoints').where({ tenant_id: tenantId, settings_managed: true }).first('id');
}

/** PUT /tenant/settings/webhook-url: creates the settings endpoint (its secret answered this once), changes its url, or (null) deletes it. */
export async function setWebhookUrl(trx: Trx, svc: AppServices, tenantId: number, by: string | null, url: string | null) {
  const cur = await settingsEndpoint(trx, tenantId);
  if (url === null) {
    if (cur) await deleteEndpoint(trx, tenantId, cur.id);
    return null;
  }
  if (cur) return settingsView(await updateEndpoint(trx, svc, tenantId, cur.id, { url }));
  const created = await createEndpoint(trx, svc, tenantId, by, { url, events: ['*'], envelope: 'reference', description: 'The workspace webhook url' });
  await trx('webhook_endpoints').where({ tenant_id: tenantId, id: created.id }).update({ settings_managed: true });
  return settingsView({ ...created, managedBySettings: true }, created.secret);
}

/** PUT /tenant/settings/webhook-isActive. */
export async function setWebhookActive(trx: Trx, svc: AppServices, tenantId: number, isActive: boolean) {
  const cur = await settingsEndpoint(trx, tenantId);
  if (!cur) throw urlNotSet();
  return settingsView(await updateEndpoint(trx, svc, tenantId, cur.id, { isEnabled: isActive }));
}

/** PUT /tenant/settings/webhook-enabledEvents (an empty list: the endpoint receives nothing until events are enabled again). */
export async function setWebhookEvents(trx: Trx, svc: AppServices, tenantId: number, events: string[]) {
  const cur = await settingsEndpoint(trx, tenantId);
  if (!cur) throw urlNotSet();
  return settingsView(await updateEndpoint(trx, svc, tenantId, cur.id, { events }));
}
