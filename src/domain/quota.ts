/**
 * Plan limits enforced where things are added (docs/platform.md): members (active or invited)
 * and stored bytes (statement files, catalogue media, the workspace logo). A limit reached is
 * 403 PLAN_LIMIT_REACHED naming the limit, the plan, what is allowed and what is used;
 * nothing is added or kept. The statement-line limit is checked by the ingest step
 * (src/modules/platform/plans.ts). Queries work on a tenant trx or the owner pool.
 */
import type { Knex } from 'knex';
import { AppError } from '../lib/errors';
import { effectivePlanSql } from './features';
import { seatsHeld } from '../repositories/members';

export type EnforcedLimit = 'members' | 'storageBytes';

export class PlanLimitError extends AppError {
  constructor(limit: EnforcedLimit, plan: string, allowed: number, used: number, adding: number | string) {
    const what = limit === 'members' ? `${allowed} members (active or invited)` : `${allowed} bytes of storage`;
    super(403, 'PLAN_LIMIT_REACHED', `Your plan (${plan}) allows ${what}; ${used} are used and this adds ${adding}. Upgrade the plan or make room first.`, [
      `limit: ${limit}`,
      `plan: ${plan}`,
      `allowed: ${allowed}`,
      `used: ${used}`,
      `adding: ${adding}`,
    ]);
  }
}

/** The effective plan's code and limits (null: unlimited). */
export async function planLimit(db: Knex, tenantId: number, limit: EnforcedLimit | 'statementLinesPerMonth'): Promise<{ plan: string; allowed: number | null }> {
  const row = await db('tenants as t').join('plans as p', 'p.code', db.raw(effectivePlanSql())).where('t.id', tenantId).first('p.code', 'p.limits');
  const v = row?.limits?.[limit];
  return { plan: row?.code ?? 'none', allowed: v == null ? null : Number(v) };
}

/** Bytes a workspace keeps in the object store: statement files, catalogue and release media, uploaded track files, its logo. */
export async function storageUsed(db: Knex, tenantId: number): Promise<number> {
  const { rows } = await db.raw(
    `SELECT ((SELECT coalesce(sum(size_bytes), 0) FROM files WHERE tenant_id = ?)
           + (SELECT coalesce(sum(size), 0) FROM catalogue_media WHERE tenant_id = ?)
           + (SELECT coalesce(sum((metadata->>'fileSize')::bigint), 0) FROM track_media WHERE tenant_id = ? AND storage_key IS NOT NULL)
           + (SELECT coalesce(sum(logo_size), 0) FROM workspace_branding WHERE tenant_id = ?))::text AS bytes`,
    [tenantId, tenantId, tenantId, tenantId],
  );
  return Number(rows[0].bytes);
}

/** Members counted against the limit: active or invited. */
export async function membersUsed(db: Knex, tenantId: number): Promise<number> {
  return seatsHeld(db, tenantId);
}

export interface StorageRoom {
  bytes: number;
  /** The refusal; `adding` is the size, or "more than N" when the body was cut off at the room left. */
  error: (adding: number | string) => AppError;
}

/**
 * Room left for an upload: `bytes` (null: unlimited) and the error to refuse with when a
 * body passes it (the receiver streams at most that much; src/http/upload.ts `quota`).
 */
export async function storageRoom(db: Knex, tenantId: number): Promise<StorageRoom | null> {
  const { plan, allowed } = await planLimit(db, tenantId, 'storageBytes');
  if (allowed === null) return null;
  const used = await storageUsed(db, tenantId);
  return { bytes: Math.max(0, allowed - used), error: (adding) => new PlanLimitError('storageBytes', plan, allowed, used, adding) };
}

/** Refuses a stored object of `size` bytes past the room left: `remove` deletes it first (nothing is kept). */
export async function assertStorageRoom(db: Knex, tenantId: number, size: number, remove: () => Promise<void>): Promise<void> {
  const room = await storageRoom(db, tenantId);
  if (!room || size <= room.bytes) return;
  await remove();
  throw room.error(size);
}

/**
 * Before a membership is added (or a disabled one re-enabled): 403 PLAN_LIMIT_REACHED when the
 * workspace is at its plan's member limit. Serialised per workspace (a transaction-scoped
 * advisory lock), so two invitations at once cannot both take the last seat.
 */
export async function assertMemberRoom(trx: Knex, tenantId: number, adding = 1): Promise<void> {
  await trx.raw(`SELECT pg_advisory_xact_lock(hashtext('rondo:members'), ?)`, [tenantId]);
  const { plan, allowed } = await planLimit(trx, tenantId, 'members');
  if (allowed === null) return;
  const used = await membersUsed(trx, tenantId);
  if (used + adding > allowed) throw new PlanLimitError('members', plan, allowed, used, adding);
}
