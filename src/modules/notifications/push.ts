/**
 * Web Push subscriptions, one per browser a member allowed notifications in (the
 * PushSubscription JSON a browser's `pushManager.subscribe()` answers). The endpoint is a URL
 * the server will POST to: the outbound guard applies when it is registered and when used.
 */
import type { Trx } from '../../db';
import type { AppServices } from '../../services';
import { clock } from '../../lib/clock';
import { NotFoundError, ValidationError } from '../../lib/errors';
import { assertPublicHost } from '../../lib/outbound';

export interface PushSubscriptionInput {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

function view(r: Record<string, any>) {
  return { id: r.id as string, endpoint: r.endpoint as string, userAgent: (r.user_agent as string | null) ?? null, createdAt: new Date(r.created_at).toISOString() };
}

const b64urlBytes = (s: string) => (/^[A-Za-z0-9_-]+={0,2}$/.test(s) ? Buffer.from(s, 'base64url').length : -1);

/** Registers (or refreshes) the caller's subscription; the same endpoint twice is one subscription. */
export async function addPushSubscription(svc: Pick<AppServices, 'cfg'>, trx: Trx, tenantId: number, me: string, p: PushSubscriptionInput, userAgent: string | null) {
  let url: URL;
  try {
    url = new URL(p.endpoint);
  } catch {
    throw new ValidationError('Invalid push endpoint', ['body.endpoint must be an absolute URL']);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && svc.cfg.allowPrivateOutbound)) throw new ValidationError('Invalid push endpoint', ['body.endpoint must be an https URL']);
  if (b64urlBytes(p.keys.p256dh) !== 65) throw new ValidationError('Invalid push subscription key', ['body.keys.p256dh must be an uncompressed P-256 public key (65 bytes, base64url)']);
  if (b64urlBytes(p.keys.auth) !== 16) throw new ValidationError('Invalid push subscription secret', ['body.keys.auth must be 16 bytes, base64url']);
  await assertPublicHost(url, svc.cfg.allowPrivateOutbound);
  const [row] = await trx('push_subscriptions')
    .insert({ tenant_id: tenantId, tenant_user_id: me, endpoint: p.endpoint, p256dh: p.keys.p256dh, auth: p.keys.auth, user_agent: userAgent?.slice(0, 300) ?? null, created_at: clock.now(), updated_at: clock.now() })
    .onConflict(['tenant_id', 'tenant_user_id', 'endpoint'])
    .merge(['p256dh', 'auth', 'user_agent', 'updated_at'])
    .returning('*');
  return view(row);
}

export async function listPushSubscriptions(trx: Trx, me: string) {
  return (await trx('push_subscriptions').where({ tenant_user_id: me }).orderBy('created_at').orderBy('id')).map(view);
}

export async function removePushSubscription(trx: Trx, me: string, id: string): Promise<void> {
  const n = await trx('push_subscriptions').where({ tenant_user_id: me, id }).delete();
  if (!n) throw new NotFoundError('Push subscription');
}
