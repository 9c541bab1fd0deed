/**
 * Distributor credentials (spec 2.5, 4.1): `PUT` sets or rotates them, `GET` answers the
 * masked status. Admin or higher; errors `{status:"error", message}`.
 */
import type Router from '@koa/router';
import { defineRoutes, route } from '../../http/route';
import { ok } from '../../http/crud';
import { Type, Strict, StatusError } from '../../http/schema';
import type { AppServices } from '../../services';
import * as dist from './service';

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
}
