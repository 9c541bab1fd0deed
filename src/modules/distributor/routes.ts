/**
 * Distributor credentials (docs/partners.md, "Distributor credentials"): `PUT` sets or rotates them, `GET` answers the
 * masked status. Admin or higher; errors `{status:"error", message}`. The distributor's signed
 * delivery events come in at `POST /ddex/distributor/webhook/{workspaceId}` (webhook.ts).
 */
import type Router from '@koa/router';
import { defineRoutes, route } from '../../http/route';
import { ok } from '../../http/crud';
import { Type, Strict, StatusError } from '../../http/schema';
import type { AppServices } from '../../services';
import * as dist from './service';
import { handleDistributorWebhook } from './webhook';
import { receiveBuffer } from '../../http/upload';

const Secret = Type.String({ minLength: 8, maxLength: 2000, pattern: '^\\S+$' });
const CredentialsBody = Strict({ token: Secret, webhookSecret: Type.Optional(Secret) });
const Status = Type.Object({
  providerSeeded: Type.Boolean(),
  configured: Type.Boolean(),
  isEnabled: Type.Boolean(),
  credentialState: Type.String({ examples: ['valid'] }),
  hasToken: Type.Boolean(),
  tokenHint: Type.Union([Type.String({ maxLength: 4, examples: ['9f2c'] }), Type.Null()]),
  tokenUpdatedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  hasWebhookSecret: Type.Boolean(),
  webhookSecretUpdatedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});
const Answer = Type.Object({ status: Type.Literal('success'), message: Type.String(), data: Status });
const errs = { 400: StatusError, 401: StatusError, 403: StatusError, 404: StatusError, 500: StatusError };

export function registerDistributorRoutes(router: Router, svc: AppServices): void {
  defineRoutes(router, svc, { tag: 'Distributor', errorShape: 'status' }, [
    route({ method: 'get', path: '/ddex/distributor/credentials', summary: 'Distributor credential status, masked (tokenHint: at most the last 4 characters)', access: 'admin', responses: { 200: Answer, ...errs },
      async handler({ trx }) {
        return ok('Distributor credentials', await dist.credentialStatus(trx, svc));
      } }),
    route({ method: 'put', path: '/ddex/distributor/credentials', summary: 'Set or rotate the distributor token and webhook secret (stored encrypted, never returned)', access: 'admin', body: CredentialsBody, noTransaction: true, responses: { 200: Answer, ...errs },
      async handler({ tenantId, body }) {
        return ok('Distributor credentials saved', await dist.setCredentials(svc, tenantId, body));
      } }),
  ]);

  defineRoutes(router, svc, { tag: 'Distributor', errorShape: 'status' }, [
    route({ method: 'post', path: '/ddex/distributor/webhook/:workspaceId', summary: 'Signed delivery events from the distributor: x-distributor-signature = hex HMAC-SHA256 of the raw body with the workspace webhookSecret', description: 'Types release.delivered, release.live, release.failed, release.taken_down set the delivery state of the release named by data.releaseId or data.upc. Idempotent on the event id; an event older than the last applied one is recorded, not applied. A bad or missing signature, or a workspace without a webhook secret: 401.', access: 'public', rawBody: true, params: Type.Object({ workspaceId: Type.String({ format: 'uuid' }) }),
      responses: { 200: Type.Object({ status: Type.Literal('success'), applied: Type.Boolean(), duplicate: Type.Boolean() }), 400: StatusError, 401: StatusError },
      async handler({ ctx, params }) {
        const raw = await receiveBuffer({ stream: ctx.req, headers: ctx.req.headers }, 256 * 1024);
        return { status: 'success', ...(await handleDistributorWebhook(svc, params.workspaceId, raw, ctx.get('x-distributor-signature') || undefined)) };
      } }),
  ]);
}
