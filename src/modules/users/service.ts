/**
 * Workspaces and their members. A person is one global `users` row (e-mail, password);
 * inside a workspace they are known by their tenant user id (`tenant_users.id`), which is
 * what every API response calls `id` and what splits and payments name.
 */
import type { Knex } from 'knex';
import { clock } from '../../lib/clock';
import { assertOneLine, ForbiddenError, NotFoundError, ValidationError } from '../../lib/errors';
import type { RoleName } from '../../http/schema';
import { ROLE_RANK } from '../../domain/roles';
import type { AuthContext } from '../../lib/identity';
import type { Trx } from '../../db';
import { assertMemberRoom } from '../../domain/quota';
import { orderSql, resolveSort, sortColumns } from '../../http/list-sort';
import { changesOf, emitEvent } from '../webhooks/events';

export interface UserView {
  id: string;
  userId: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
  role: RoleName;
  status: string;
  isSuperAdmin: boolean;
  createdAt: string;
  updatedAt: string;
}

export const USER_COLUMNS = [
  'tu.id',
  'tu.user_id',
  'u.email',
  'u.first_name',
  'u.last_name',
  'tu.role',
  'tu.status',
  'u.is_super_admin',
  'tu.created_at',
  'tu.updated_at',
] as const;

export function toUserView(r: Record<string, unknown>): UserView {
  return {
    id: r.id as string,
    userId: r.user_id as string,
    email: r.email as string,
    firstName: (r.first_name as string) ?? null,
    lastName: (r.last_name as string) ?? null,
    role: r.role as RoleName,
    status: r.status as string,
    isSuperAdmin: !!r.is_super_admin,
    createdAt: new Date(r.created_at as string).toISOString(),
    updatedAt: new Date(r.updated_at as string).toISOString(),
  };
}

/** Find or create the global user (owner pool: a new user is in no tenant yet, so RLS would hide it). */
export async function ensureGlobalUser(
  owner: Knex,
  p: { email: string; passwordHash?: string | null; firstName?: string | null; lastName?: string | null; superAdmin?: boolean },
): Promise<{ id: string; created: boolean; hasPassword: boolean }> {
  const email = p.email.trim();
  const existing = await owner('users').whereRaw('lower(email) = lower(?)', [email]).first();
  if (existing) {
    const patch: Record<string, unknown> = {};
    if (p.superAdmin && !existing.is_super_admin) patch.is_super_admin = true;
    if (p.passwordHash && !existing.password_hash) patch.password_hash = p.passwordHash;
    if (Object.keys(patch).length) await owner('users').where({ id: existing.id }).update({ ...patch, updated_at: clock.now() });
    return { id: existing.id, created: false, hasPassword: !!(existing.password_hash || p.passwordHash) };
  }
  const [row] = await owner('users')
    .insert({
      email,
      password_hash: p.passwordHash ?? null,
      first_name: p.firstName ?? null,
      last_name: p.lastName ?? null,
      is_super_admin: !!p.superAdmin,
      created_at: clock.now(),
      updated_at: clock.now(),
    })
    .onConflict(owner.raw('(lower(email))'))
    .ignore()
    .returning('id');
  if (!row) return ensureGlobalUser(owner, p); // lost a race with a concurrent insert
  return { id: row.id, created: true, hasPassword: !!p.passwordHash };
}

/**
 * The person with this e-mail, created (with the names given) when new. An existing person
 * is returned untouched: whoever invites them never sets their password, e-mail or names.
 */
export async function findOrCreatePerson(owner: Knex, p: { email: string; firstName?: string | null; lastName?: string | null }): Promise<{ id: string; created: boolean; hasPassword: boolean }> {
  const email = p.email.trim();
  const [row] = await owner('users')
    .insert({ email, password_hash: null, first_name: p.firstName ?? null, last_name: p.lastName ?? null, is_super_admin: false, created_at: clock.now(), updated_at: clock.now() })
    .onConflict(owner.raw('(lower(email))'))
    .ignore()
    .returning('id');
  if (row) return { id: row.id, created: true, hasPassword: false };
  const existing = await owner('users').whereRaw('lower(email) = lower(?)', [email]).first('id', 'password_hash');
  return { id: existing.id, created: false, hasPassword: !!existing.password_hash };
}

/** The workspace as GET /user shows it. */
export async function workspaceSummary(trx: Trx, tenantId: number): Promise<{ workspaceId: string; tenantId: number; name: string }> {
  const ws = await trx('tenants').where({ id: tenantId }).first('uuid', 'name');
  if (!ws) throw new NotFoundError('Workspace');
  return { workspaceId: ws.uuid, tenantId, name: ws.name };
}

/** The tenant user id of the member with this e-mail (case-insensitive). */
export async function memberIdByEmail(trx: Trx, email: string): Promise<string> {
  const row = await usersQuery(trx).whereRaw('lower(u.email) = lower(?)', [email]).first('tu.id');
  if (!row) throw new NotFoundError('User', 'USER_NOT_FOUND');
  return row.id;
}

export async function createTenant(owner: Knex, p: { name: string; baseCurrency?: string }): Promise<{ id: number; uuid: string }> {
  assertOneLine(p.name, 'name', 'workspace name');
  const [row] = await owner('tenants')
    .insert({ name: p.name, base_currency: (p.baseCurrency ?? 'USD').toUpperCase(), created_at: clock.now(), updated_at: clock.now() })
    .returning(['id', 'uuid']);
  return row;
}

/** Adds (or updates the role of) a member; owner pool, for the CLI and provisioning. */
export async function upsertMembership(owner: Knex | Trx, tenantId: number, userId: string, role: RoleName, status = 'active'): Promise<string> {
  const [row] = await owner('tenant_users')
    .insert({ tenant_id: tenantId, user_id: userId, role, status, created_at: clock.now(), updated_at: clock.now() })
    .onConflict(['tenant_id', 'user_id'])
    .merge({ role, updated_at: clock.now() })
    .returning('id');
  return row.id;
}

export function usersQuery(trx: Trx) {
  return trx('tenant_users as tu').join('users as u', 'u.id', 'tu.user_id');
}

export async function getUser(trx: Trx, id: string): Promise<UserView> {
  const row = await usersQuery(trx).where('tu.id', id).first(...USER_COLUMNS);
  if (!row) throw new NotFoundError('User', 'USER_NOT_FOUND');
  return toUserView(row);
}

/** The member list; `only` (a member below admin, see ownOnly) narrows it to that member. */
/** The fields the member list sorts by (the names its items show) and their columns. */
export const USER_SORT = sortColumns({ email: 'u.email', firstName: 'u.first_name', lastName: 'u.last_name', role: 'tu.role', status: 'tu.status', createdAt: 'tu.created_at', updatedAt: 'tu.updated_at', userId: 'tu.user_id', isSuperAdmin: 'u.is_super_admin' });

/** Members, oldest first unless `sort`/`order` say otherwise; `search` in e-mail, first and last name. */
export async function listUsers(trx: Trx, q: { page: number; size: number; search?: string; role?: string; status?: string; only?: string | null; sort?: string; order?: 'asc' | 'desc' }) {
  const sort = resolveSort(q, USER_SORT, 'createdAt', 'asc');
  const base = usersQuery(trx).modify((b) => {
    if (q.only) b.where('tu.id', q.only);
    const like = q.search ? `%${q.search.replace(/[\\%_]/g, (c) => '\\' + c)}%` : null;
    if (like) b.where((w) => w.whereILike('u.email', like).orWhereILike('u.first_name', like).orWhereILike('u.last_name', like));
    if (q.role) b.where('tu.role', q.role);
    if (q.status) b.where('tu.status', q.status);
  });
  const [{ count }] = await base.clone().count<{ count: string }[]>({ count: '*' });
  const rows = await base.clone().select(...USER_COLUMNS).orderByRaw(orderSql(sort)).orderBy('tu.id', sort.order).limit(q.size).offset((q.page - 1) * q.size);
  return { data: rows.map(toUserView), pagination: { page: q.page, size: q.size, total: Number(count) } };
}

function assertCanManage(actor: AuthContext, target: UserView | null, newRole?: RoleName) {
  const actorRank = actor.isSuperAdmin ? ROLE_RANK.super_admin : ROLE_RANK[actor.role ?? 'guest'];
  if (actorRank < ROLE_RANK.admin) throw new ForbiddenError('Only admins and owners manage members', 'INSUFFICIENT_ROLE');
  // Admins manage guests, users and admins; only owners touch owners or make new ones.
  if (actorRank < ROLE_RANK.owner && (target?.role === 'owner' || newRole === 'owner')) {
    throw new ForbiddenError('Only an owner can grant, change or remove the owner role', 'INSUFFICIENT_ROLE');
  }
}

async function assertNotLastOwner(trx: Trx, target: UserView) {
  if (target.role !== 'owner') return;
  const [{ count }] = await trx('tenant_users').where({ role: 'owner', status: 'active' }).count<{ count: string }[]>({ count: '*' });
  if (Number(count) <= 1) throw new ValidationError('A workspace keeps at least one owner', [], 'LAST_OWNER');
}

export async function updateUser(trx: Trx, actor: AuthContext, id: string, patch: { role?: RoleName; status?: 'active' | 'disabled'; firstName?: string | null; lastName?: string | null }): Promise<UserView> {
  const target = await getUser(trx, id);
  const self = actor.tenantUserId === id;
  if (patch.role !== undefined || patch.status !== undefined) {
    assertCanManage(actor, target, patch.role);
    // Only the recipient accepts an invitation (through the e-mailed link); a workspace withdraws it by removing the membership.
    if (patch.status !== undefined && (target.status === 'invited' || target.status === 'not_invited')) {
      throw new ValidationError('An invitation is accepted only by its recipient; remove the membership to withdraw it', ['body.status cannot change while the invitation is pending'], 'INVITATION_PENDING');
    }
    if ((patch.role && patch.role !== 'owner') || patch.status === 'disabled') await assertNotLastOwner(trx, target);
    if (patch.status === 'active' && target.status === 'disabled') await assertMemberRoom(trx, actor.tenantId!); // re-enabling takes a seat
  }
  // A profile belongs to its owner: no workspace role reaches another person's names.
  if ((patch.firstName !== undefined || patch.lastName !== undefined) && !self && !actor.isSuperAdmin) {
    throw new ForbiddenError("Only the person (or a super-admin) edits their profile; a workspace manages the membership only", 'PROFILE_OWNER_ONLY');
  }
  const tu: Record<string, unknown> = {};
  if (patch.role) tu.role = patch.role;
  if (patch.status) tu.status = patch.status;
  if (Object.keys(tu).length) await trx('tenant_users').where({ id }).update({ ...tu, updated_at: clock.now() });
  const u: Record<string, unknown> = {};
  if (patch.firstName !== undefined) u.first_name = patch.firstName;
  if (patch.lastName !== undefined) u.last_name = patch.lastName;
  if (Object.keys(u).length) await trx('users').where({ id: target.userId }).update({ ...u, updated_at: clock.now() });
  const after = await getUser(trx, id);
  await emitEvent(trx, null, 'user.updated', { userId: id, email: after.email, ...changesOf(target, after) });
  return after;
}

export async function removeUser(trx: Trx, actor: AuthContext, id: string): Promise<void> {
  const target = await getUser(trx, id);
  assertCanManage(actor, target);
  await assertNotLastOwner(trx, target);
  await trx('tenant_users').where({ id }).delete();
  await emitEvent(trx, null, 'user.deleted', { userId: id, email: target.email, role: target.role, status: target.status });
}

export { assertCanManage };

/** POST /user/bulk/delete: a savepoint per id, so one failure never undoes the others. */
export async function removeUsers(trx: Trx, actor: AuthContext, ids: string[]) {
  const failedDeletions: { id: string; error: string }[] = [];
  let processedCount = 0;
  for (const id of ids) {
    try {
      await trx.transaction((sp) => removeUser(sp, actor, id));
      processedCount++;
    } catch (err) {
      failedDeletions.push({ id, error: (err as Error).message });
    }
  }
  return { processedCount, failedDeletions };
}
