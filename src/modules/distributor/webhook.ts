/**
 * Inbound distributor deliveries (docs/partners.md): `POST /ddex/distributor/webhook/{workspaceId}`.
 *
 *   x-distributor-signature: <hex HMAC-SHA256 of the raw body, keyed with the workspace's webhookSecret>
 *   {"id":"evt_…","type":"release.delivered","occurredAt":"2026-11-24T10:00:00Z",
 *    "data":{"upc":"0886440000011","releaseId":"<Rondo release id, optional>","store":"…","reason":"…"}}
 *
 * Types: release.delivered, release.live, release.failed, release.taken_down → the release's
 * `delivery_status` (delivered, live, failed, taken_down). Idempotent on the event id (a
 * duplicate changes nothing); an event older than the release's last delivery change is
 * recorded, not applied (out of order). Each applied change is a `delivery` release event.
 */
import crypto from 'node:crypto';
import type { AppServices } from '../../services';
import { safeEqual } from '../../lib/crypto';
import { clock } from '../../lib/clock';
import { UnauthorizedError, ValidationError } from '../../lib/errors';
import { tx } from '../partners/common';
import { callbackJson } from '../../http/limits';

export const DELIVERY_EVENTS = {
  'release.delivered': 'delivered',
  'release.live': 'live',
  'release.failed': 'failed',
  'release.taken_down': 'taken_down',
} as const;
type EventType = keyof typeof DELIVERY_EVENTS;

interface DeliveryEvent {
  id: string;
  type: EventType;
  occurredAt: Date;
  data: { upc?: string; releaseId?: string; store?: string; reason?: string };
}

function parseEvent(body: unknown): DeliveryEvent {
  const b = body as Record<string, any> | null;
  const problems: string[] = [];
  if (typeof b?.id !== 'string' || !/^[A-Za-z0-9_.:-]{1,200}$/.test(b.id)) problems.push('body.id must be the event id (1-200 of A-Z a-z 0-9 _ . : -)');
  if (!Object.hasOwn(DELIVERY_EVENTS, String(b?.type))) problems.push(`body.type must be one of ${Object.keys(DELIVERY_EVENTS).join(', ')}`);
  const at = new Date(typeof b?.occurredAt === 'string' ? b.occurredAt : NaN);
  if (Number.isNaN(at.getTime())) problems.push('body.occurredAt must be a date-time');
  const d = b?.data;
  if (typeof d !== 'object' || d === null) problems.push('body.data must be an object');
  else {
    if (d.upc !== undefined && (typeof d.upc !== 'string' || d.upc.length > 40)) problems.push('body.data.upc must be a string');
    if (d.releaseId !== undefined && (typeof d.releaseId !== 'string' || !/^[0-9a-f-]{36}$/i.test(d.releaseId))) problems.push('body.data.releaseId must be a uuid');
    if (d.upc === undefined && d.releaseId === undefined) problems.push('body.data needs upc or releaseId');
    for (const k of ['store', 'reason'] as const) if (d[k] !== undefined && (typeof d[k] !== 'string' || d[k].length > 500)) problems.push(`body.data.${k} must be a string of at most 500 characters`);
  }
  if (problems.length) throw new ValidationError('Invalid event', problems, 'INVALID_EVENT');
  return { id: b!.id, type: b!.type, occurredAt: at, data: d };
}

/** Verify, record once, apply in order. `applied`: the release's delivery state moved. */
export async function handleDistributorWebhook(svc: AppServices, workspaceId: string, raw: Buffer, signature: string | undefined): Promise<{ applied: boolean; duplicate: boolean }> {
  if (!signature) throw new UnauthorizedError('Missing x-distributor-signature header', 'MISSING_SIGNATURE');
  // an unknown workspace, or one without a webhook secret, answers like a bad signature
  const refuse = () => new UnauthorizedError('Invalid signature', 'INVALID_SIGNATURE');
  const tenant = await svc.db.owner('tenants').where({ uuid: workspaceId }).first('id');
  if (!tenant) throw refuse();
  return tx(svc, tenant.id, async (trx) => {
    const cred = await trx('distributor_credentials').first('webhook_secret_sealed');
    if (!cred?.webhook_secret_sealed) throw refuse();
    const expected = crypto.createHmac('sha256', svc.secrets.open(cred.webhook_secret_sealed)).update(raw).digest('hex');
    if (!safeEqual(expected, signature.trim().toLowerCase())) throw refuse();
    const ev = parseEvent(callbackJson(raw));
    const q = trx('releases');
    if (ev.data.releaseId) q.where({ id: ev.data.releaseId });
    else q.where({ upc: ev.data.upc }).orderBy('created_at', 'desc');
    const release = await q.first('id', 'status', 'delivery_status', 'delivery_at');
    const inOrder = !!release && (!release.delivery_at || new Date(release.delivery_at) <= ev.occurredAt);
    const fresh = await trx('distributor_events')
      .insert({ tenant_id: tenant.id, event_id: ev.id, type: ev.type, release_id: release?.id ?? null, occurred_at: ev.occurredAt, applied: inOrder, received_at: clock.now() })
      .onConflict(['tenant_id', 'event_id'])
      .ignore()
      .returning('event_id');
    if (!fresh.length) return { applied: false, duplicate: true };
    if (!release || !inOrder) return { applied: false, duplicate: false };
    const to = DELIVERY_EVENTS[ev.type];
    const message = [ev.data.store && `store: ${ev.data.store}`, ev.data.reason && `reason: ${ev.data.reason}`].filter(Boolean).join('; ') || null;
    await trx('releases').where({ id: release.id }).update({ delivery_status: to, delivery_message: message, delivery_at: ev.occurredAt, updated_at: clock.now() });
    await trx('release_events').insert({ tenant_id: tenant.id, release_id: release.id, kind: 'delivery', from_status: release.status, to_status: release.status, message: `${to}${message ? ` (${message})` : ''}`, author_id: null });
    return { applied: true, duplicate: false };
  });
}
