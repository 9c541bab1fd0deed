/**
 * Super-admin operations (owner pool: they cross tenants). Every action that changes
 * something writes its audit record in the same transaction.
 */
import type { Knex } from 'knex';
import type { AppServices } from '../../services';
import type { AuthContext } from '../../lib/identity';
import { signImpersonation } from '../auth/service';
import { clock } from '../../lib/clock';
import { randomToken, sha256 } from '../../lib/crypto';
import { ForbiddenError, NotFoundError } from '../../lib/errors';
import { pageOf, writeAudit } from './audit';
import { setSubscription, type SubscriptionState } from './plans';
import { emitEvent } from '../webhooks/events';

/** Impersonation sessions are short: one hour, read-only. */
export const IMPERSONATION_TTL_SECONDS = 3600;

const like = (q: string) => `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export async function listTenants(owner: Knex, q: { q?: string; status?: string; page: number; limit: number }) {
  const base = owner('tenants as t');
  if (q.q) base.where((w) => w.whereILike('t.name', like(q.q!)).orWhereILike('t.custom_domain', like(q.q!)).orWhereRaw('t.uuid::text = ?', [q.q!.toLowerCase()]));
  if (q.status) base.where('t.status', q.status);
  const columns = ['t.id', 't.uuid', 't.name', 't.status', 't.plan', 't.subscription_state', 't.custom_domain', 't.created_at', owner.raw(`(SELECT count(*)::int FROM tenant_users tu WHERE tu.tenant_id = t.id) AS members`)];
  return pageOf(base, q, (b) => b.orderBy('t.id').select(columns), (r) => ({
      tenantId: r.id,
      workspaceId: r.uuid,
      name: r.name,
      status: r.status,
      plan: r.plan,
      subscriptionState: r.subscription_state,
      customDomain: r.custom_domain,
      members: r.members,
      createdAt: new Date(r.created_at).toISOString(),
    }));
}

export async function listUsers(owner: Knex, q: { q?: string; tenantId?: number; page: number; limit: number }) {
  const base = owner('users as u');
  if (q.q) base.where((w) => w.whereILike('u.email', like(q.q!)).orWhereILike('u.first_name', like(q.q!)).orWhereILike('u.last_name', like(q.q!)));
  if (q.tenantId) base.whereExists(owner('tenant_users as tu').whereRaw('tu.user_id = u.id').where('tu.tenant_id', q.tenantId));
  const memberships = owner.raw(
    `coalesce((SELECT json_agg(json_build_object('tenantId', tu.tenant_id, 'tenantUserId', tu.id, 'role', tu.role, 'status', tu.status) ORDER BY tu.tenant_id) FROM tenant_users tu WHERE tu.user_id = u.id), '[]') AS memberships`,
  );
  return pageOf(base, q, (b) => b.orderBy('u.created_at').orderBy('u.id').select('u.id', 'u.email', 'u.first_name', 'u.last_name', 'u.is_super_admin', 'u.created_at', memberships), (r) => ({
      id: r.id,
      email: r.email,
      firstName: r.first_name,
      lastName: r.last_name,
      isSuperAdmin: r.is_super_admin,
      memberships: r.memberships,
      createdAt: new Date(r.created_at).toISOString(),
    }));
}

/** Suspend (inactive) or reactivate (active) a workspace: its members then get WORKSPACE_INACTIVE (docs/platform.md, "Super-admin"). */
export async function setTenantStatus(owner: Knex, auth: AuthContext, tenantId: number, status: 'active' | 'inactive', reason?: string) {
  return owner.transaction(async (trx) => {
    const t = await trx('tenants').where({ id: tenantId }).forUpdate().first('status');
    if (!t) throw new NotFoundError('Workspace', 'WORKSPACE_NOT_FOUND');
    await trx('tenants').where({ id: tenantId }).update({ status, updated_at: clock.now() });
    if (t.status !== status) await emitEvent(trx, tenantId, status === 'inactive' ? 'billing.workspace.suspended' : 'billing.workspace.reactivated', { status, previousStatus: t.status, reason: reason ?? null });
    await writeAudit(trx, auth, { action: status === 'inactive' ? 'tenant.suspend' : 'tenant.reactivate', tenantId, targetType: 'tenant', targetId: String(tenantId), details: { from: t.status, to: status, ...(reason ? { reason } : {}) } });
    return { tenantId, status };
  });
}

export async function updateSubscription(owner: Knex, auth: AuthContext, tenantId: number, patch: { plan?: string; state?: SubscriptionState }) {
  return owner.transaction(async (trx) => {
    const r = await setSubscription(trx, tenantId, patch);
    await writeAudit(trx, auth, { action: 'tenant.subscription', tenantId, targetType: 'tenant', targetId: String(tenantId), details: { before: r.before, after: r.after } });
    return r.after;
  });
}

/**
 * A read-only access token as a member of a workspace: a session of that person (marked
 * `impersonation`, one hour), a token flagged `ro` that every non-GET route refuses.
 */
export async function impersonate(svc: AppServices, auth: AuthContext, p: { tenantId: number; userId: string; reason?: string }) {
  return svc.db.owner.transaction(async (trx) => {
    const m = await trx('tenant_users as tu').join('tenants as t', 't.id', 'tu.tenant_id').where({ 'tu.tenant_id': p.tenantId, 'tu.user_id': p.userId }).first('tu.id', 'tu.status', 't.status as tenant_status');
    if (!m) throw new NotFoundError('Membership', 'NOT_A_MEMBER');
    if (m.status !== 'active' || m.tenant_status !== 'active') throw new ForbiddenError('Only an active member of an active workspace can be impersonated', 'NOT_IMPERSONABLE');
    const expires = new Date(clock.now().getTime() + IMPERSONATION_TTL_SECONDS * 1000);
    const [{ id: sid }] = await trx('sessions')
      .insert({ user_id: p.userId, refresh_hash: sha256(randomToken()), via: 'impersonation', created_at: clock.now(), expires_at: expires })
      .returning('id');
    await writeAudit(trx, auth, { action: 'user.impersonate', tenantId: p.tenantId, targetType: 'user', targetId: p.userId, details: { sessionId: sid, readOnly: true, ...(p.reason ? { reason: p.reason } : {}) } });
    const token = await signImpersonation(svc, { sub: p.userId, sid, tid: p.tenantId, tuid: m.id }, IMPERSONATION_TTL_SECONDS);
    return { access_token: token, readOnly: true, expiresAt: expires.toISOString() };
  });
}
