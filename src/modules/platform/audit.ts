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

export function actorOf(auth: AuthContext): { kind: string; id: string | null } {
  if (auth.kind === 'god_key') return { kind: 'god_key', id: auth.keyId };
  return { kind: 'user', id: auth.userId };
}

export async function writeAudit(trx: Knex, auth: AuthContext, e: AuditEntry): Promise<void> {
  const actor = actorOf(auth);
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

export async function listAudit(owner: Knex, q: { page: number; limit: number; action?: string; tenantId?: number }) {
  const base = owner('platform_audit');
  if (q.action) base.where({ action: q.action });
  if (q.tenantId) base.where({ workspace_id: q.tenantId });
  const [{ total }] = await base.clone().count({ total: '*' });
  const rows = await base.orderBy('id', 'desc').limit(q.limit).offset((q.page - 1) * q.limit).select('*');
  return {
    total: Number(total),
    items: rows.map((r) => ({
      id: String(r.id),
      at: new Date(r.at).toISOString(),
      actorKind: r.actor_kind,
      actorId: r.actor_id,
      action: r.action,
      tenantId: r.workspace_id,
      targetType: r.target_type,
      targetId: r.target_id,
      details: r.details,
    })),
  };
}
