/**
 * The workspace's payment-processor integration (`/integrations/*`: its secret, never
 * returned) and the signed inbound webhook `POST /processor/webhook`
 * (x-processor-signature = hex HMAC-SHA512 of the raw body with the workspace's secret).
 * Handlers: parsed input and the caller → one service call → the answer's shape. The webhook's
 * body is read by the same receiver as every streamed body (src/http/upload.ts): oversized or
 * aborted is a 400, never a 500.
 */
import type Router from '@koa/router';
import { defineRoutes, route } from '../../http/route';
import { ok } from '../../http/crud';
import { receiveBuffer } from '../../http/upload';
import type { AppServices } from '../../services';
import * as S from './schemas';
import * as proc from './processor';
import * as Res from './responses';
import { StatusAnswer, Type } from '../../http/schema';

/** Largest webhook body read (bytes). */
const WEBHOOK_MAX_BYTES = 1024 * 1024;

export function registerProcessorRoutes(router: Router, svc: AppServices): void {
  defineRoutes(router, svc, { tag: 'Integration', errorShape: 'status', scope: 'workspace' }, [
    route({ method: 'get', path: '/integrations/all', responses: { 200: Res.GetIntegrationsAll }, summary: "The workspace's integrations and their state (secrets masked)", access: 'admin',
      async handler({ trx }) {
        return ok('Integrations', [await proc.integrationStatus(trx, svc)]);
      } }),
    route({ method: 'get', path: '/integrations/info', responses: { 200: Res.GetIntegrationsInfo }, summary: 'Integrations this installation offers', access: 'user',
      async handler() {
        return ok('Available integrations', proc.availableIntegrations(svc));
      } }),
    route({ method: 'get', path: '/integrations/workspace/info', responses: { 200: StatusAnswer(Type.Record(Type.String(), Type.Unknown(), { description: 'Webhook URL, signature scheme and reference format' })) }, summary: 'How to connect the processor to this workspace: webhook URL, signature, reference format', access: 'admin',
      async handler({ trx }) {
        return ok('Processor connection', await proc.connectionInfo(trx, svc));
      } }),
    route({ method: 'post', path: '/integrations/workspace', responses: { 201: Res.GetIntegrationsWorkspace }, summary: "Store (or replace) the workspace's processor secret (admin); never returned", access: 'admin', status: 201, body: S.IntegrationBody,
      async handler({ trx, body }) {
        return ok('Processor integration saved', await proc.setIntegration(trx, svc, body, 'create'));
      } }),
    route({ method: 'get', path: '/integrations/workspace', responses: { 200: Res.GetIntegrationsWorkspace }, summary: 'Processor integration status (masked: hasSecret, secretHint, secretUpdatedAt)', access: 'admin',
      async handler({ trx }) {
        return ok('Processor integration', await proc.integrationStatus(trx, svc));
      } }),
    route({ method: 'put', path: '/integrations/workspace', responses: { 200: Res.GetIntegrationsWorkspace }, summary: 'Rotate the secret or enable/disable the integration (admin)', access: 'admin', body: S.IntegrationPatch,
      async handler({ trx, body }) {
        return ok('Processor integration updated', await proc.setIntegration(trx, svc, body, 'update'));
      } }),
    route({ method: 'delete', path: '/integrations/workspace', responses: { 200: StatusAnswer(Type.Null()) }, summary: 'Remove the processor integration and its secret (admin)', access: 'admin',
      async handler({ trx }) {
        await proc.deleteIntegration(trx);
        return ok('Processor integration removed', null);
      } }),
  ]);

  defineRoutes(router, svc, { tag: 'Processor', errorShape: 'processor' }, [
    route({ method: 'post', path: '/processor/webhook', responses: { 200: Type.Object({ status: Type.Literal('success'), event: Type.String() }) }, summary: 'Inbound processor events, signed: x-processor-signature = hex HMAC-SHA512(raw body, workspace secret)', access: 'public', rawBody: true,
      async handler({ ctx }) {
        const raw = await receiveBuffer({ stream: ctx.req, headers: ctx.req.headers }, WEBHOOK_MAX_BYTES);
        const r = await proc.handleProcessorEvent(svc, raw, ctx.get('x-processor-signature') || undefined);
        return { status: 'success', event: r.event };
      } }),
  ]);
}
