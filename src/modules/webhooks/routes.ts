/**
 * Outbound webhooks (docs/webhooks.md): endpoints of the workspace, their
 * deliveries and attempts (per endpoint, or all with filters and a summary), manual
 * re-delivery, and the reference service's three settings routes for one workspace webhook.
 * Admin or higher.
 */
import { sortQuery } from '../../http/list-sort';
import type Router from '@koa/router';
import { defineRoutes, route } from '../../http/route';
import { ok } from '../../http/crud';
import { Type, StatusError } from '../../http/schema';
import type { AppServices } from '../../services';
import * as S from './schemas';
import * as wh from './service';

/** A delivery id as the reference envelope writes it (`whd_<uuid>`) or bare. */
const deliveryId = (id: string) => id.replace(/^whd_/, '');

const errs = { 400: StatusError, 401: StatusError, 403: StatusError, 404: StatusError, 500: StatusError };

export function registerWebhookRoutes(router: Router, svc: AppServices): void {
  defineRoutes(router, svc, { tag: 'Webhooks', errorShape: 'status' }, [
    route({ method: 'post', path: '/webhooks', summary: 'Add a webhook endpoint; the answer holds its signing secret, shown this once', access: 'admin', feature: 'webhooks', body: S.CreateBody, status: 201,
      responses: { 201: S.Success(S.EndpointWithSecret), ...errs },
      async handler({ trx, tenantId, auth, body }) {
        return ok('Webhook endpoint created', await wh.createEndpoint(trx, svc, tenantId, auth.tenantUserId ?? null, body));
      } }),
    route({ method: 'get', path: '/webhooks', summary: "The workspace's webhook endpoints (no secrets, no header values)", access: 'admin', feature: 'webhooks',
      responses: { 200: S.Success(Type.Array(S.Endpoint)), ...errs },
      async handler({ trx, tenantId }) {
        return ok('Webhook endpoints', await wh.listEndpoints(trx, svc, tenantId));
      } }),
    route({ method: 'get', path: '/webhooks/:id', summary: 'One webhook endpoint', access: 'admin', feature: 'webhooks', params: S.IdParam,
      responses: { 200: S.Success(S.Endpoint), ...errs },
      async handler({ trx, tenantId, params }) {
        return ok('Webhook endpoint', await wh.getEndpoint(trx, svc, tenantId, params.id));
      } }),
    route({ method: 'put', path: '/webhooks/:id', summary: 'Change an endpoint (fields sent replace; isEnabled: true re-enables a disabled one)', access: 'admin', feature: 'webhooks', params: S.IdParam, body: S.UpdateBody,
      responses: { 200: S.Success(S.Endpoint), ...errs },
      async handler({ trx, tenantId, params, body }) {
        return ok('Webhook endpoint updated', await wh.updateEndpoint(trx, svc, tenantId, params.id, body));
      } }),
    route({ method: 'delete', path: '/webhooks/:id', summary: 'Delete an endpoint with its deliveries', access: 'admin', feature: 'webhooks', params: S.IdParam,
      responses: { 200: S.Success(Type.Null()), ...errs },
      async handler({ trx, tenantId, params }) {
        await wh.deleteEndpoint(trx, tenantId, params.id);
        return ok('Webhook endpoint deleted', null);
      } }),
    route({ method: 'post', path: '/webhooks/:id/rotate-secret', summary: 'New signing secret (shown once); the old one also signs for 24 hours', access: 'admin', feature: 'webhooks', params: S.IdParam,
      responses: { 200: S.Success(S.EndpointWithSecret), ...errs },
      async handler({ trx, tenantId, params }) {
        return ok('Signing secret rotated', await wh.rotateSecret(trx, svc, tenantId, params.id));
      } }),
    route({ method: 'post', path: '/webhooks/:id/test', summary: 'Queue a webhook.test event to this endpoint', access: 'admin', feature: 'webhooks', params: S.IdParam,
      responses: { 200: S.Success(S.TestResult), ...errs },
      async handler({ trx, tenantId, params }) {
        return ok('Test event queued', await wh.sendTestEvent(trx, svc, tenantId, params.id));
      } }),
    route({ method: 'get', path: '/webhooks/:id/deliveries', summary: "The endpoint's deliveries, newest first", access: 'admin', feature: 'webhooks', params: S.IdParam, query: Type.Object({ ...S.PageQuery.properties, ...sortQuery(wh.DELIVERY_SORT, 'createdAt', 'Part of the event type, the status or the last error') }),
      responses: { 200: S.DeliveryList, ...errs },
      async handler({ trx, tenantId, params, query }) {
        const page = query.page ?? 1;
        const size = query.size ?? 20;
        const r = await wh.listDeliveries(trx, tenantId, params.id, { ...query, page, size });
        return { status: 'success', message: 'Webhook deliveries', data: r.data, pagination: { page, size, total: r.total } };
      } }),
    route({ method: 'get', path: '/webhook-deliveries', summary: "Every endpoint's deliveries, newest first; filters status, eventType (Rondo's or the reference name), endpointId, start and end (UTC days)", access: 'admin', feature: 'webhooks', query: S.DeliveryListQuery,
      responses: { 200: S.AllDeliveries, ...errs },
      async handler({ trx, tenantId, query }) {
        return { status: 'success', message: 'Webhook deliveries', ...(await wh.listAllDeliveries(trx, tenantId, query)) };
      } }),
    route({ method: 'get', path: '/webhook-deliveries/summary', summary: 'Deliveries counted by status, event type and reference event name, under the list\'s filters', access: 'admin', feature: 'webhooks', query: S.DeliverySummaryQuery,
      responses: { 200: S.DeliverySummary, ...errs },
      async handler({ trx, tenantId, query }) {
        return { status: 'success', message: 'Webhook delivery summary', summary: await wh.deliverySummary(trx, tenantId, query) };
      } }),
    route({ method: 'get', path: '/webhook-deliveries/:id', summary: 'One delivery with its payload and every attempt (time, status code, latency, first 1 KB of the answer, error)', access: 'admin', feature: 'webhooks', params: S.DeliveryIdParam,
      responses: { 200: S.Success(S.DeliveryDetail), ...errs },
      async handler({ trx, tenantId, params }) {
        return ok('Webhook delivery', await wh.getDelivery(trx, tenantId, deliveryId(params.id)));
      } }),
    route({ method: 'post', path: '/webhook-deliveries/:id/retry', summary: 'Deliver again now, with the same event id and body', access: 'admin', feature: 'webhooks', params: S.DeliveryIdParam,
      responses: { 200: S.Success(S.RetryResult), ...errs },
      async handler({ trx, tenantId, params }) {
        return ok('Webhook delivery queued', await wh.retryDelivery(trx, svc, tenantId, deliveryId(params.id)));
      } }),

    // The reference service's one webhook url per workspace, mapped onto one endpoint (docs/webhooks.md, "One webhook url").
    route({ method: 'put', path: '/tenant/settings/webhook-url', summary: 'Set the workspace webhook url: the first creates its endpoint (reference envelope, every event; the signing secret answered this once), later ones change its url; null removes it', access: 'admin', feature: 'webhooks', body: S.WebhookUrlBody,
      responses: { 200: S.Success(Type.Union([S.WebhookSettings, Type.Null()])), ...errs },
      async handler({ trx, tenantId, auth, body }) {
        const r = await wh.setWebhookUrl(trx, svc, tenantId, auth.tenantUserId ?? null, body.webhookUrl);
        return ok(r ? 'Webhook url set' : 'Webhook url removed', r);
      } }),
    route({ method: 'put', path: '/tenant/settings/webhook-isActive', summary: 'Turn the workspace webhook on or off (off: its pending deliveries are cancelled)', access: 'admin', feature: 'webhooks', body: S.WebhookActiveBody,
      responses: { 200: S.Success(S.WebhookSettings), ...errs },
      async handler({ trx, tenantId, body }) {
        return ok('Webhook updated', await wh.setWebhookActive(trx, svc, tenantId, body.isActive));
      } }),
    route({ method: 'put', path: '/tenant/settings/webhook-enabledEvents', summary: 'The events the workspace webhook receives (reference names or Rondo types); a name that is no event is refused, naming it', access: 'admin', feature: 'webhooks', body: S.WebhookEventsBody,
      responses: { 200: S.Success(S.WebhookSettings), ...errs },
      async handler({ trx, tenantId, body }) {
        return ok('Webhook updated', await wh.setWebhookEvents(trx, svc, tenantId, body.enabledEvents));
      } }),
  ]);
}
