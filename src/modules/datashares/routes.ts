/**
 * Data shares (docs/data-shares.md). Errors `{status:"error", message}`.
 *
 *   POST   /data-shares                      grant (admin); a link share's token is in this answer only
 *   GET    /data-shares, /data-shares/{id}   ours (admin)
 *   DELETE /data-shares/{id}                 permanent; 404 when absent
 *   GET    /data-shares/received             live shares granted to this workspace (admin)
 *   GET    /data-shares/received/{id}/data   their data, read-only
 *   GET    /data-shares/access/{token}       public: the data behind a signed link
 */
import { sortQuery } from '../../http/list-sort';
import type Router from '@koa/router';
import { defineRoutes, route } from '../../http/route';
import { IdParams, ok, paged } from '../../http/crud';
import { DateTimeIn, MonthIn, PageQuery, Pagination, StatusError, Strict, Type, Uuid } from '../../http/schema';
import type { AppServices } from '../../services';
import * as ds from './service';

const Resource = Type.Union(ds.RESOURCES.map((r) => Type.Literal(r)));
const Scope = Strict({
  userId: Type.Optional(Uuid),
  from: Type.Optional(MonthIn()),
  to: Type.Optional(MonthIn()),
  artists: Type.Optional(Type.Union([Type.Literal('all'), Type.Array(Uuid, { minItems: 1, maxItems: 500 })])),
}, { description: 'payee-analytics: userId (a member) and an optional from/to month; catalogue-export: artists (ids or "all", the default)' });
const CreateBody = Strict({
  resource: Resource,
  scope: Scope,
  expiresAt: Type.Optional(DateTimeIn()),
  granteeWorkspaceId: Type.Optional(Uuid),
});
const Grantee = Type.Union([
  Type.Object({ type: Type.Literal('workspace'), workspaceId: Type.String({ format: 'uuid' }) }),
  Type.Object({ type: Type.Literal('link') }),
]);
const Share = Type.Object({
  id: Type.String({ format: 'uuid' }),
  resource: Resource,
  scope: Type.Object({}, { additionalProperties: true }),
  grantee: Grantee,
  expiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  createdBy: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
});
const Created = Type.Object({ status: Type.Literal('success'), message: Type.String(), data: Type.Intersect([Share, Type.Object({ token: Type.Optional(Type.String({ description: 'link shares only; shown once' })) })]) });
const One = Type.Object({ status: Type.Literal('success'), message: Type.String(), data: Share });
const List = Type.Object({ success: Type.Literal(true), message: Type.String(), data: Type.Array(Share), pagination: Pagination });
const Received = Type.Object({ status: Type.Literal('success'), message: Type.String(), data: Type.Array(Type.Object({}, { additionalProperties: true })) });
const SharedData = Type.Object({
  status: Type.Literal('success'),
  message: Type.String(),
  data: Type.Object({ shareId: Type.String(), resource: Resource, scope: Type.Object({}, { additionalProperties: true }), from: Type.Object({ workspaceId: Type.String(), name: Type.String() }), expiresAt: Type.Union([Type.String(), Type.Null()]), data: Type.Object({}, { additionalProperties: true }) }),
});
const Deleted = Type.Object({ status: Type.Literal('success'), message: Type.String(), data: Type.Null() });
const errs = { 400: StatusError, 401: StatusError, 403: StatusError, 404: StatusError, 500: StatusError };

export function registerDataShareRoutes(router: Router, svc: AppServices): void {
  defineRoutes(router, svc, { tag: 'Data shares', errorShape: 'status' }, [
    // fixed paths before /data-shares/:id
    route({ method: 'get', path: '/data-shares/received', summary: 'Live shares other workspaces granted to this one', access: 'admin', noTransaction: true, responses: { 200: Received, ...errs },
      async handler({ tenantId }) {
        return ok('Received data shares', await ds.listReceived(svc, tenantId));
      } }),
    route({ method: 'get', path: '/data-shares/received/:id/data', summary: 'The data of a share granted to this workspace (read-only); 404 when absent, expired or revoked', access: 'admin', params: IdParams, noTransaction: true, responses: { 200: SharedData, ...errs },
      async handler({ tenantId, params }) {
        return ok('Shared data', await ds.receivedData(svc, tenantId, params.id));
      } }),
    route({ method: 'get', path: '/data-shares/access/:token', summary: 'The data behind a signed share link (no sign-in; the token is the credential)', access: 'public', params: Type.Object({ token: Type.String({ minLength: 8, maxLength: 200 }) }), responses: { 200: SharedData, ...errs },
      async handler({ params }) {
        return ok('Shared data', await ds.linkData(svc, params.token));
      } }),
    route({ method: 'post', path: '/data-shares', summary: 'Share read access to a resource with another workspace (granteeWorkspaceId) or by a signed link (token shown once)', access: 'admin', body: CreateBody, status: 201, responses: { 201: Created, ...errs },
      async handler({ trx, tenantId, auth, body }) {
        return ok('Data share created', await ds.createShare(trx, svc, tenantId, auth.tenantUserId, body as ds.ShareInput));
      } }),
    route({ method: 'get', path: '/data-shares', summary: 'Shares this workspace granted', access: 'admin', query: Type.Object({ page: PageQuery.page, size: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 20 })), ...sortQuery(ds.SHARE_SORT, 'createdAt', 'Part of the resource or of its scope') }), responses: { 200: List, ...errs },
      async handler({ trx, query }) {
        const q = { ...query, page: query.page ?? 1, size: query.size ?? 20 };
        const r = await ds.listShares(trx, svc, q);
        return paged('Data shares', r.data, q.page, q.size, r.total);
      } }),
    route({ method: 'get', path: '/data-shares/:id', summary: 'One share this workspace granted; 404 when absent or another workspace\'s', access: 'admin', params: IdParams, responses: { 200: One, ...errs },
      async handler({ trx, params }) {
        return ok('Data share', await ds.getShare(trx, svc, params.id));
      } }),
    route({ method: 'delete', path: '/data-shares/:id', summary: 'Revoke a share, permanently and at once; 404 when absent', access: 'admin', params: IdParams, responses: { 200: Deleted, ...errs },
      async handler({ trx, params }) {
        await ds.deleteShare(trx, params.id);
        return ok('Data share deleted', null);
      } }),
  ]);
}
