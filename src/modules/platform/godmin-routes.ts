/**
 * /godmin: super-admin routes (a god key, or the JWT of a user flagged super-admin). Each
 * action that changes something, each search of people and each impersonation is recorded
 * in the audit log; the erasure preview writes nothing (docs/platform.md, "Account erasure").
 */
import type Router from '@koa/router';
import { defineRoutes, route } from '../../http/route';
import { Strict, Type, Uuid } from '../../http/schema';
import type { AppServices } from '../../services';
import { listAudit, writeAudit } from './audit';
import { previewErasure } from './erasure';
import { getErasure, requestErasure } from './erasure-jobs';
import { impersonate, listTenants, listUsers, setTenantStatus, updateSubscription } from './godmin';
import { subscriptionOf } from './plans';
import { AuditRow, ErasureJobSchema, ErasurePlanSchema, ok, paged, SubscriptionSchema, SubscriptionState, TenantRow, UserRow } from './schemas';

const TenantParams = Type.Object({ tenantId: Type.Integer({ minimum: 1, maximum: 2147483647 }) });
const PageQ = {
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100000, default: 1 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
};
const Reason = Type.Optional(Type.String({ minLength: 1, maxLength: 500 }));

/** page and limit with their defaults. */
const paging = (q: { page?: number; limit?: number }) => ({ page: q.page ?? 1, limit: q.limit ?? 20 });

export function registerGodminRoutes(router: Router, svc: AppServices): void {
  const owner = svc.db.owner;
  /** POST /godmin/tenants/{tenantId}/suspend | reactivate. */
  const statusRoute = (action: 'suspend' | 'reactivate', status: 'inactive' | 'active', summary: string) =>
    route({
      method: 'post',
      path: `/godmin/tenants/:tenantId/${action}`,
      summary,
      access: 'super_admin',
      params: TenantParams,
      body: Strict({ reason: Reason }),
      responses: { 200: ok(Type.Object({ tenantId: Type.Integer(), status: Type.Literal(status) })) },
      async handler({ params, body, auth }) {
        return { success: true, data: await setTenantStatus(owner, auth, params.tenantId, status, body.reason) };
      },
    });
  defineRoutes(router, svc, { tag: 'Super-admin', errorShape: 'catalogue' }, [
    route({
      method: 'get',
      path: '/godmin/tenants',
      summary: 'List and search workspaces (q: name, custom domain or workspace id; status)',
      access: 'super_admin',
      query: Type.Object({ q: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })), status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('inactive')])), ...PageQ }),
      responses: { 200: paged(TenantRow) },
      async handler({ query }) {
        const { page, limit } = paging(query);
        return { success: true, data: { ...(await listTenants(owner, { ...query, page, limit })), page, limit } };
      },
    }),
    route({
      method: 'get',
      path: '/godmin/users',
      summary: 'List and search people (q: e-mail or name; tenantId: members of one workspace). Audited.',
      access: 'super_admin',
      query: Type.Object({ q: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })), tenantId: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })), ...PageQ }),
      responses: { 200: paged(UserRow) },
      async handler({ query, auth }) {
        const { page, limit } = paging(query);
        return owner.transaction(async (trx) => {
          await writeAudit(trx, auth, { action: 'users.search', tenantId: query.tenantId ?? null, details: { q: query.q ?? null, page } });
          return { success: true, data: { ...(await listUsers(trx, { ...query, page, limit })), page, limit } };
        });
      },
    }),
    statusRoute('suspend', 'inactive', 'Suspend a workspace: its members and keys then get 403 WORKSPACE_INACTIVE. Audited.'),
    statusRoute('reactivate', 'active', 'Reactivate a suspended workspace. Audited.'),
    route({
      method: 'get',
      path: '/godmin/tenants/:tenantId/subscription',
      summary: "A workspace's subscription: plan, state, period, usage against limits",
      access: 'super_admin',
      params: TenantParams,
      responses: { 200: ok(SubscriptionSchema) },
      async handler({ params }) {
        return { success: true, data: await subscriptionOf(owner, params.tenantId) };
      },
    }),
    route({
      method: 'put',
      path: '/godmin/tenants/:tenantId/subscription',
      summary: "Set a workspace's plan and/or subscription state. Emits a billing event (webhook family billing). Audited.",
      access: 'super_admin',
      params: TenantParams,
      body: Strict({ plan: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })), state: Type.Optional(SubscriptionState) }, { minProperties: 1 }),
      responses: { 200: ok(SubscriptionSchema) },
      async handler({ params, body, auth }) {
        await updateSubscription(owner, auth, params.tenantId, body);
        return { success: true, data: await subscriptionOf(owner, params.tenantId) };
      },
    }),
    route({
      method: 'post',
      path: '/godmin/impersonate',
      summary: 'A read-only access token as a member of a workspace (one hour; every non-GET route answers 403 READ_ONLY_SESSION). Audited.',
      access: 'super_admin',
      body: Strict({ tenantId: Type.Integer({ minimum: 1, maximum: 2147483647 }), userId: Uuid, reason: Reason }),
      status: 201,
      responses: { 201: ok(Type.Object({ access_token: Type.String(), readOnly: Type.Literal(true), expiresAt: Type.String({ format: 'date-time' }) })) },
      async handler({ body, auth }) {
        return { success: true, data: await impersonate(svc, auth, body) };
      },
    }),
    route({
      method: 'get',
      path: '/godmin/audit',
      summary: 'The super-admin audit log, newest first (filters: action, tenantId)',
      access: 'super_admin',
      query: Type.Object({ action: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })), tenantId: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })), ...PageQ }),
      responses: { 200: paged(AuditRow) },
      async handler({ query }) {
        const { page, limit } = paging(query);
        return { success: true, data: { ...(await listAudit(owner, { ...query, page, limit })), page, limit } };
      },
    }),
    route({
      method: 'post',
      path: '/godmin/account-erasure/preview',
      summary: 'The ErasurePlan of a person: every table (row counts), cache key pattern, stored object, API key and external delivery an erasure would touch, and its planHash. Writes nothing.',
      access: 'super_admin',
      body: Strict({ userId: Uuid }),
      responses: { 200: ErasurePlanSchema },
      async handler({ body }) {
        return previewErasure(owner, body.userId);
      },
    }),
    route({
      method: 'post',
      path: '/godmin/account-erasure/execute',
      summary: 'Erase a person per the previewed plan (planHash) in one audited job: answers the job id at once (GET /godmin/account-erasure/jobs/{jobId}). 400 PLAN_CHANGED when the data moved since the preview.',
      description: 'The job deletes or anonymises per the plan in one transaction that also writes the `account.erase` audit record; financial records stay, anonymised. Data that moves between this request and the job fails the job with PLAN_CHANGED, nothing erased.',
      access: 'super_admin',
      body: Strict({ userId: Uuid, planHash: Type.String({ pattern: '^[0-9a-f]{64}$', maxLength: 64 }) }),
      status: 201,
      responses: { 201: ok(ErasureJobSchema) },
      async handler({ body, auth }) {
        return { success: true, data: await requestErasure(svc, auth, body.userId, body.planHash) };
      },
    }),
    route({
      method: 'get',
      path: '/godmin/account-erasure/jobs/:jobId',
      summary: 'An erasure job: queued, running, completed (rows erased per table, records retained) or failed (with the error)',
      access: 'super_admin',
      params: Type.Object({ jobId: Uuid }),
      responses: { 200: ok(ErasureJobSchema) },
      async handler({ params }) {
        return { success: true, data: await getErasure(owner, params.jobId) };
      },
    }),
  ]);
}
