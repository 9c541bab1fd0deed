/**
 * Web Push (RFC 8030) with VAPID (RFC 8292) and the aes128gcm payload encryption (RFC 8291):
 * the `web-push` library builds the signed, encrypted request; it is sent through the
 * outbound guard (a subscription's endpoint is a URL a user handed us).
 */
import { guardedPost, type OutboundPolicy } from './outbound';

export interface PushSubscriptionKeys {
  endpoint: string;
  p256dh: string;
  auth: string;
}

export interface VapidKeys {
  publicKey: string;
  privateKey: string;
  subject: string;
}

export interface PushResult {
  status: number;
  /** The push service says the subscription is gone (404, 410): forget it. */
  gone: boolean;
  body: string;
}

export async function sendPush(vapid: VapidKeys, sub: PushSubscriptionKeys, payload: string, policy: OutboundPolicy | boolean, timeoutMs: number): Promise<PushResult> {
  const { default: webpush } = await import('web-push'); // on the first push, not at start (docs/operations.md)
  const req = webpush.generateRequestDetails({ endpoint: sub.endpoint, keys: { p256dh: sub.p256dh, auth: sub.auth } }, payload, {
    vapidDetails: { subject: vapid.subject, publicKey: vapid.publicKey, privateKey: vapid.privateKey },
    TTL: 24 * 3600,
    contentEncoding: 'aes128gcm',
  });
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) headers[k] = String(v);
  const res = await guardedPost(req.endpoint, { headers, body: req.body ?? undefined, signal: AbortSignal.timeout(timeoutMs) }, policy);
  const body = (await res.text()).slice(0, 500);
  return { status: res.status, gone: res.status === 404 || res.status === 410, body };
}

export async function generateVapidKeys(): Promise<{ publicKey: string; privateKey: string }> {
  const { default: webpush } = await import('web-push');
  return webpush.generateVAPIDKeys();
}
