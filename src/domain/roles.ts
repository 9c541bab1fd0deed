/**
 * Role policy: the rank of each member role, and what a member below admin sees of a route
 * open to them (the role matrix, docs/auth.md). The route layer (src/http/route.ts) enforces
 * a route's `access` and `scope` with these; services narrow their answers with `ownOnly`.
 */
import type { AuthContext, RoleName } from '../lib/identity';

export const ROLE_RANK: Record<RoleName | 'super_admin', number> = { guest: 1, user: 2, admin: 3, owner: 4, super_admin: 5 };

export function rankOf(auth: AuthContext): number {
  if (auth.isSuperAdmin) return ROLE_RANK.super_admin;
  return auth.role ? ROLE_RANK[auth.role] : 0;
}

/**
 * What a member below admin sees of a tenant route they may call (the role matrix,
 * docs/auth.md). Admins and owners always see the whole workspace.
 * - `own`: only what is theirs: their member record, their notifications, what is tied to
 *   their own artists, and of the money only their own share, statements, balances,
 *   payments, requests and settings. The handler narrows its answer with `ownOnly(auth)`
 *   (or the area helpers built on it).
 * - `workspace`: the same answer for every member: the workspace's reference data
 *   (currencies, branding, settings, templates), holding no member's money or contact details.
 * A route open to guests or users must declare one (defineRoutes refuses to start otherwise);
 * anything else of the workspace needs admin.
 */
export type Scope = 'own' | 'workspace';

/** The one rule behind every `own` route: admins and owners (and super-admins) see the whole workspace. */
export function seesWorkspace(auth: AuthContext): boolean {
  return rankOf(auth) >= ROLE_RANK.admin;
}

/** The member an `own` route narrows its answer to: null for those who see the whole workspace. */
export function ownOnly(auth: AuthContext): string | null {
  if (seesWorkspace(auth)) return null;
  return auth.tenantUserId ?? NO_MEMBER;
}

/** Stands for "no member" (a workspace key below admin has none): matches no row. */
export const NO_MEMBER = '00000000-0000-0000-0000-000000000000';
