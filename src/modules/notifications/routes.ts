import type Router from '@koa/router';
import { defineRoutes, route } from '../../http/route';
import { Strict, Type, Uuid } from '../../http/schema';
import type { AppServices } from '../../services';
import { getPreferences, listNotifications, markAllRead, markRead, memberOf as me, setPreferences, unreadCount } from './service';
import { listDeliveries } from './deliveries';
import { Delivery, ok } from './schemas';
import * as Res from './responses';

const Channels = Strict({
  inApp: Type.Optional(Type.Boolean()),
  email: Type.Optional(Type.Boolean()),
  sms: Type.Optional(Type.Boolean()),
  push: Type.Optional(Type.Boolean()),
});
const PrefsBody = Strict(
  {
    channels: Type.Optional(Channels),
    types: Type.Optional(Type.Record(Type.String({ maxLength: 100 }), Channels)),
    smsNumber: Type.Optional(Type.Union([Type.String({ maxLength: 32, description: 'international format, e.g. +4512345678; null removes it' }), Type.Null()])),
  },
  { minProperties: 1 },
);

export function registerNotificationRoutes(router: Router, svc: AppServices): void {
  defineRoutes(router, svc, { tag: 'Notifications', errorShape: 'status', scope: 'own' }, [
    route({
      method: 'get',
      path: '/notifications', responses: { 200: Res.GetNotifications },
      summary: 'Your notifications, newest first (query: page, pageSize ≤ 100, unread, archived, type, important)',
      access: 'user',
      query: Type.Object({
        page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
        pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
        unread: Type.Optional(Type.Boolean()),
        archived: Type.Optional(Type.Boolean()),
        important: Type.Optional(Type.Boolean()),
        type: Type.Optional(Type.String({ maxLength: 100 })),
      }),
      async handler({ trx, auth, query }) {
        const data = await listNotifications(trx, me(auth.tenantUserId), { ...query, page: query.page ?? 1, pageSize: query.pageSize ?? 20 });
        return { status: 'success', message: 'Notifications', data };
      },
    }),
    route({
      method: 'get',
      path: '/notifications/unread/count', responses: { 200: Res.GetNotificationsUnreadCount },
      summary: 'How many of your notifications are unread',
      access: 'user',
      async handler({ trx, auth }) {
        return { status: 'success', message: 'Unread count', data: { count: await unreadCount(trx, me(auth.tenantUserId)) } };
      },
    }),
    route({
      method: 'patch',
      path: '/notifications/mark-all-read', responses: { 200: Res.PatchNotificationsMarkAllRead },
      summary: 'Mark all your notifications read',
      access: 'user',
      async handler({ trx, auth, tenantId }) {
        return { status: 'success', message: 'All notifications marked read', data: { updated: await markAllRead(trx, tenantId, me(auth.tenantUserId)) } };
      },
    }),
    route({
      method: 'patch',
      path: '/notifications/:notificationId/read', responses: { 200: Res.PatchNotificationsByNotificationIdRead },
      summary: 'Mark one notification read',
      access: 'user',
      params: Type.Object({ notificationId: Uuid }),
      async handler({ trx, auth, tenantId, params }) {
        await markRead(trx, tenantId, me(auth.tenantUserId), params.notificationId);
        return { status: 'success', message: 'Notification marked read', data: null };
      },
    }),
    route({
      method: 'get',
      path: '/notifications/:notificationId/deliveries',
      summary: "A notification's deliveries over e-mail, SMS and push: status, attempts, each attempt's time and error (admins: every recipient's; members: their own)",
      access: 'user',
      params: Type.Object({ notificationId: Uuid }),
      responses: { 200: ok(Type.Array(Delivery)) },
      async handler({ trx, auth, params }) {
        const isAdmin = auth.role === 'admin' || auth.role === 'owner' || auth.isSuperAdmin;
        return { status: 'success', message: 'Deliveries', data: await listDeliveries(trx, params.notificationId, auth.tenantUserId, !!isAdmin) };
      },
    }),
    route({
      method: 'get',
      path: '/notifications/preferences', responses: { 200: Res.GetNotificationsPreferences },
      summary: 'Your delivery preferences: channels (inApp, email, sms, push) overall and per notification type',
      access: 'user',
      async handler({ trx, auth }) {
        return { status: 'success', message: 'Notification preferences', data: await getPreferences(trx, me(auth.tenantUserId)) };
      },
    }),
    ...(['put', 'post'] as const).map((method) =>
      route({
        method,
        path: '/notifications/preferences', responses: { 200: Res.GetNotificationsPreferences },
        summary: 'Change your delivery preferences (merged into the current ones)',
        access: 'user',
        body: PrefsBody,
        async handler({ trx, auth, tenantId, body }) {
          return { status: 'success', message: 'Notification preferences saved', data: await setPreferences(trx, tenantId, me(auth.tenantUserId), body) };
        },
      }),
    ),
  ]);
}
