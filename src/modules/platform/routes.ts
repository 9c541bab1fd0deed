/** Billing (plans, subscription) and custom domains. Super-admin routes: godmin-routes.ts. */
import type Router from '@koa/router';
import { dataRoute, defineRoutes, route } from '../../http/route';
import { Strict, Type, Uuid } from '../../http/schema';
import type { AppServices } from '../../services';
import { addDomain, listDomains, removeDomain, verifyDomain } from './domains';
import { listPlans, subscriptionOf } from './plans';
import { DomainSchema, PlanSchema, SubscriptionSchema } from './schemas';

const DomainParams = Type.Object({ domainId: Uuid });

export function registerPlatformRoutes(router: Router, svc: AppServices): void {
  defineRoutes(router, svc, { tag: 'Billing', errorShape: 'catalogue' }, [
    dataRoute({
      method: 'get',
      path: '/billing/plans',
      summary: 'The plan catalogue: each plan with its features and limits (null: unlimited)',
      access: 'public',
      data: Type.Array(PlanSchema),
      run: () => listPlans(svc.db.owner),
    }),
    dataRoute({
      method: 'get',
      path: '/billing/subscription',
      summary: "The workspace's subscription: plan, state, period, features, and usage against each limit",
      access: 'admin',
      data: SubscriptionSchema,
      run: ({ trx, tenantId }) => subscriptionOf(trx, tenantId),
    }),
  ]);
  defineRoutes(router, svc, { tag: 'Custom domains', errorShape: 'catalogue' }, [
    dataRoute({
      method: 'post',
      path: '/domains',
      summary: 'Add a custom domain: the answer names the TXT record to publish, then POST /domains/{domainId}/verify',
      access: 'admin',
      feature: 'custom_domains',
      body: Strict({ domain: Type.String({ minLength: 1, maxLength: 253 }) }),
      status: 201,
      data: DomainSchema,
      run: ({ trx, tenantId, body }) => addDomain(svc.db.owner, trx, tenantId, body.domain),
    }),
    dataRoute({
      method: 'get',
      path: '/domains',
      summary: "The workspace's custom domains (at most one active)",
      access: 'admin',
      feature: 'custom_domains',
      data: Type.Array(DomainSchema),
      run: ({ trx, tenantId }) => listDomains(trx, tenantId),
    }),
    dataRoute({
      method: 'post',
      path: '/domains/:domainId/verify',
      summary: 'Check the TXT record; found: the domain becomes the active one (GET /auth/authtoken on it needs no currentWorkspace)',
      description: 'A workspace has one active custom domain: remove the active one before verifying another (400 ONE_ACTIVE_DOMAIN). Record missing: 400 DOMAIN_NOT_VERIFIED naming the record expected.',
      access: 'admin',
      feature: 'custom_domains',
      params: DomainParams,
      data: DomainSchema,
      run: ({ trx, tenantId, params }) => verifyDomain(trx, tenantId, params.domainId, svc.dns),
    }),
    route({
      method: 'delete',
      path: '/domains/:domainId',
      summary: 'Remove a custom domain (the active one stops resolving the workspace at once)',
      access: 'admin',
      feature: 'custom_domains',
      params: DomainParams,
      responses: { 200: Type.Object({ success: Type.Literal(true), message: Type.String() }) },
      async handler({ trx, tenantId, params }) {
        await removeDomain(trx, tenantId, params.domainId);
        return { success: true, message: 'Domain removed' };
      },
    }),
  ]);
}
