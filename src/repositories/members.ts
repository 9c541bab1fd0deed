/**
 * The `tenant_users` table (a person's membership of a workspace: its role and status) and
 * its typed row. The table belongs to the users area (src/modules/users); every other area
 * reads and writes a membership through the functions below (docs/architecture.md, "Tables
 * and their owners"; test/ownership.test.ts). Read-only joins inside set-based SQL are listed
 * in that test.
 *
 * On a tenant transaction row-level security narrows every read to the workspace; on the
 * owner pool the functions that take a tenant name it.
 */
import type { Knex } from 'knex';
import type { RoleName } from '../lib/identity';

export type MemberStatus = 'active' | 'invited' | 'disabled' | 'not_invited';

export interface MemberRow {
  tenant_id: number;
  id: string;
  user_id: string;
  role: RoleName;
  status: MemberStatus;
  created_at: Date;
  updated_at: Date;
}

/** A member with the person's name and e-mail (from `users`). */
export interface MemberPerson {
  id: string;
  email: string | null;
  first_name: string | null;
  last_name: string | null;
}

type Db = Knex | Knex.Transaction;

/** The membership of a workspace by its id or by the person's user id. */
export async function membershipOf(db: Db, tenantId: number, by: { id: string } | { userId: string }): Promise<MemberRow | undefined> {
  return db('tenant_users').where({ tenant_id: tenantId, ...('id' in by ? { id: by.id } : { user_id: by.userId }) }).first();
}

/** Which of `ids` are memberships (of the transaction's workspace, under row-level security). */
export async function memberIdsAmong(db: Db, ids: readonly string[]): Promise<string[]> {
  if (!ids.length) return [];
  return db('tenant_users').whereIn('id', ids).pluck('id');
}

/** The workspace's first owner (else its first admin), under row-level security: who a label's own costs are recorded for. */
export async function firstOwnerId(db: Db): Promise<string | undefined> {
  const r = await db('tenant_users').whereIn('role', ['owner', 'admin']).orderByRaw(`role = 'owner' DESC`).orderBy('created_at').first('id');
  return r?.id;
}

/** The members `ids` with their names and e-mail addresses (the ones that exist). */
export async function memberPeople(db: Db, ids: readonly string[]): Promise<MemberPerson[]> {
  if (!ids.length) return [];
  return db('tenant_users as tu').join('users as u', 'u.id', 'tu.user_id').whereIn('tu.id', ids).select('tu.id', 'u.email', 'u.first_name', 'u.last_name');
}

/** The workspace's active admins and owners, by membership id. */
export async function activeAdmins(db: Db, tenantId: number): Promise<Pick<MemberRow, 'id' | 'user_id'>[]> {
  return db('tenant_users').where({ tenant_id: tenantId, status: 'active' }).whereIn('role', ['admin', 'owner']).orderBy('id').select('id', 'user_id');
}

/** The ids of the workspace's active members. */
export async function activeMemberIds(db: Db, tenantId: number): Promise<string[]> {
  return db('tenant_users').where({ tenant_id: tenantId, status: 'active' }).pluck('id');
}

/** The workspaces a person is an active member of (at most `limit`). */
export async function activeWorkspacesOf(db: Db, userId: string, limit: number): Promise<number[]> {
  return db('tenant_users').where({ user_id: userId, status: 'active' }).limit(limit).pluck('tenant_id');
}

/** Every membership id of a person, in every workspace (owner pool). */
export async function membershipIdsOfUser(db: Db, userId: string): Promise<string[]> {
  return db('tenant_users').where({ user_id: userId }).pluck('id');
}

/** Seats a plan counts: active and invited members. */
export async function seatsHeld(db: Db, tenantId: number): Promise<number> {
  const [{ n }] = await db('tenant_users').where({ tenant_id: tenantId }).whereIn('status', ['active', 'invited']).select(db.raw('count(*)::int AS n'));
  return Number(n);
}

/** Accepting an invitation: the membership it names becomes active. */
export async function activateMembership(db: Db, tenantId: number, userId: string, at: Date): Promise<void> {
  await db('tenant_users').where({ tenant_id: tenantId, user_id: userId, status: 'invited' }).update({ status: 'active', updated_at: at });
}
