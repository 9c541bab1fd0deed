/**
 * The super-admin audit log: one tenant-agnostic table, written in the same transaction as
 * the action it records (an action that rolls back leaves no record, and none is done unrecorded).
 */
import type { Knex } from 'knex';
import type { AuthContext } from '../auth/tokens';

export interface AuditEntry {
  action: string;
  tenantId?: number | null;
  targetType?: string;
  targetId?: string;
  details?: Record<string, unknown>;
}

/** Who did it: a god key or a user (kept on a job that acts later on their behalf). */
export interface Actor {
  kind: string;
  id: string | null;
}

export function actorOf(auth: AuthContext): Actor {
  if (auth.kind === 'god_key') return { kind: 'god_key', id: auth.keyId };
  return { kind: 'user', id: auth.userId };
}

/** The audit record of an action, by the caller (AuthContext) or by an actor recorded earlier. */
export async function writeAudit(trx: Knex, by: AuthContext | Actor, e: AuditEntry): Promise<void> {
  const actor = 'keyId' in by || 'userId' in by ? actorOf(by as AuthContext) : (by as Actor);
  await trx('platform_audit').insert({
    actor_kind: actor.kind,
    actor_id: actor.id,
    action: e.action,
    workspace_id: e.tenantId ?? null,
    target_type: e.targetType ?? null,
    target_id: e.targetId ?? null,
    details: JSON.stringify(e.details ?? {}),
  });
}

/** One page of the super-admin lists: the total, and the rows of `page` (1-based) in `order`, each mapped. */
export async function pageOf<T>(base: Knex.QueryBuilder, q: { page: number; limit: number }, order: (b: Knex.QueryBuilder) => Knex.QueryBuilder, map: (r: Record<string, any>) => T) {
  const [{ total }] = await base.clone().count({ total: '*' });
  const rows = await order(base).limit(q.limit).offset((q.page - 1) * q.limit);
  return { total: Number(total), items: rows.map(map) };
}

export async function listAudit(owner: Knex, q: { page: number; limit: number; action?: string; tenantId?: number }) {
  const base = owner('platform_audit');
  if (q.action) base.where({ action: q.action });
  if (q.tenantId) base.where({ workspace_id: q.tenantId });
  return pageOf(base, q, (b) => b.orderBy('id', 'desc').select('*'), (r) => ({
      id: String(r.id),
      at: new Date(r.at).toISOString(),
      actorKind: r.actor_kind,
      actorId: r.actor_id,
      action: r.action,
      tenantId: r.workspace_id,
      targetType: r.target_type,
      targetId: r.target_id,
      details: r.details,
    }));
}
