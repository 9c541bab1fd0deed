/** Web Push: the VAPID public key and the caller's push subscriptions (docs/notifications.md). */
import type Router from '@koa/router';
import { defineRoutes, route } from '../../http/route';
import { Strict, Type, Uuid } from '../../http/schema';
import type { AppServices } from '../../services';
import { addPushSubscription, listPushSubscriptions, removePushSubscription } from './push';
import { ok, PushSubscription } from './schemas';
import { memberOf as me } from './service';

const B64 = Type.String({ minLength: 1, maxLength: 200 });

export function registerPushRoutes(router: Router, svc: AppServices): void {
  defineRoutes(router, svc, { tag: 'Notifications', errorShape: 'status', scope: 'own' }, [
    route({
      method: 'get',
      path: '/notifications/push-key',
      summary: "The VAPID public key a browser subscribes with (pushManager.subscribe's applicationServerKey); null: Web Push is not configured",
      access: 'user',
      responses: { 200: ok(Type.Object({ publicKey: Type.Union([Type.String(), Type.Null()]) })) },
      async handler() {
        return { status: 'success', message: 'Push key', data: { publicKey: svc.cfg.vapid?.publicKey ?? null } };
      },
    }),
    route({
      method: 'post',
      path: '/notifications/push-subscriptions',
      summary: "Register this browser's push subscription (the PushSubscription JSON: endpoint and keys)",
      access: 'user',
      status: 201,
      body: Strict({ endpoint: Type.String({ minLength: 1, maxLength: 2000 }), keys: Strict({ p256dh: B64, auth: B64 }), expirationTime: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }), Type.Null()])) }),
      responses: { 201: ok(PushSubscription) },
      async handler({ ctx, trx, tenantId, auth, body }) {
        const data = await addPushSubscription(svc, trx, tenantId, me(auth.tenantUserId), body, ctx.get('user-agent') || null);
        return { status: 'success', message: 'Push subscription saved', data };
      },
    }),
    route({
      method: 'get',
      path: '/notifications/push-subscriptions',
      summary: 'Your push subscriptions',
      access: 'user',
      responses: { 200: ok(Type.Array(PushSubscription)) },
      async handler({ trx, auth }) {
        return { status: 'success', message: 'Push subscriptions', data: await listPushSubscriptions(trx, me(auth.tenantUserId)) };
      },
    }),
    route({
      method: 'delete',
      path: '/notifications/push-subscriptions/:subscriptionId',
      summary: 'Remove one of your push subscriptions',
      access: 'user',
      params: Type.Object({ subscriptionId: Uuid }),
      responses: { 200: ok(Type.Null()) },
      async handler({ trx, auth, params }) {
        await removePushSubscription(trx, me(auth.tenantUserId), params.subscriptionId);
        return { status: 'success', message: 'Push subscription removed', data: null };
      },
    }),
  ]);
}
