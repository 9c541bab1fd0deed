/**
 * API keys in the web app (docs/auth.md "API keys", docs/decisions.md). The spec obtains keys
 * "through support"; in a self-hosted install the workspace's admins are that support, so
 * these routes live outside the spec's paths, under `/settings/api-keys`:
 * - workspace keys (`RWAK_…`, admin rights, no person): admins list, create and revoke them;
 * - personal keys (`RUAK_…`, the person's own role in this workspace): every member lists,
 *   creates and revokes their own, and no one else's.
 * A key is shown once, when created; only its secret's hash is stored. A key is made by a
 * signed-in person, never by another key (the service: api-keys.ts).
 */
import type Router from '@koa/router';
import { dataRoute, defineRoutes, type HandlerArgs } from '../../http/route';
import { Strict, Type, Uuid } from '../../http/schema';
import type { AppServices } from '../../services';
import { createKey, listKeys, ownerOf, revokeKey } from './api-keys';

const Nullable = <T extends ReturnType<typeof Type.String>>(s: T) => Type.Union([s, Type.Null()]);
const ApiKey = Type.Object({
  id: Uuid,
  kind: Type.Union([Type.Literal('workspace'), Type.Literal('user')], { description: 'workspace: RWAK (admin rights, no person); user: RUAK (its person, with their role)' }),
  name: Nullable(Type.String({ examples: ['Accounting export'] })),
  prefix: Type.String({ description: 'the start of the key (not secret): tells keys apart', examples: ['RWAK_3fZk9QbL0aXw'] }),
  createdAt: Type.String({ format: 'date-time' }),
});
const CreatedKey = Type.Intersect([ApiKey, Type.Object({ key: Type.String({ description: 'the whole key: shown this once, never again' }) })]);
const Revoked = Type.Object({ id: Uuid, revoked: Type.Literal(true) });
const KeyBody = Strict({ name: Type.String({ minLength: 1, maxLength: 100, examples: ['Accounting export'] }) });
const KeyParams = Type.Object({ keyId: Uuid });

export function registerApiKeyRoutes(router: Router, svc: AppServices): void {
  const mine = (a: HandlerArgs<unknown, unknown, unknown>) => ownerOf(a.auth, 'user');
  const workspace = (a: HandlerArgs<unknown, unknown, unknown>) => ownerOf(a.auth, 'workspace');
  defineRoutes(router, svc, { tag: 'API keys', errorShape: 'catalogue' }, [
    dataRoute({
      method: 'get', path: '/settings/api-keys', access: 'admin', data: Type.Array(ApiKey),
      summary: "The workspace's active API keys (RWAK: admin rights, no person), newest first (admin). Not in the spec: docs/decisions.md",
      run: (a) => listKeys(svc, workspace(a)),
    }),
    dataRoute({
      method: 'post', path: '/settings/api-keys', access: 'admin', status: 201, body: KeyBody, data: CreatedKey,
      summary: 'Create a workspace API key (admin, signed in): the answer holds the whole key, shown this once',
      run: (a) => createKey(svc, a.auth, workspace(a), a.body.name),
    }),
    dataRoute({
      method: 'delete', path: '/settings/api-keys/:keyId', access: 'admin', params: KeyParams, data: Revoked,
      summary: 'Revoke a workspace API key (admin): it stops working at once',
      run: (a) => revokeKey(svc, workspace(a), a.params.keyId),
    }),
    dataRoute({
      method: 'get', path: '/settings/my-api-keys', access: 'guest', scope: 'own', data: Type.Array(ApiKey),
      summary: "The caller's own active personal API keys in this workspace (RUAK: acts as them, with their role), newest first",
      run: (a) => listKeys(svc, mine(a)),
    }),
    dataRoute({
      method: 'post', path: '/settings/my-api-keys', access: 'guest', scope: 'own', status: 201, body: KeyBody, data: CreatedKey,
      summary: 'Create a personal API key for oneself (signed in): the answer holds the whole key, shown this once',
      run: (a) => createKey(svc, a.auth, mine(a), a.body.name),
    }),
    dataRoute({
      method: 'delete', path: '/settings/my-api-keys/:keyId', access: 'guest', scope: 'own', params: KeyParams, data: Revoked,
      summary: 'Revoke one of your own personal API keys: it stops working at once',
      run: (a) => revokeKey(svc, mine(a), a.params.keyId),
    }),
  ]);
}
