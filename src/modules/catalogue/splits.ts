/**
 * Splits: validation (shares sum to exactly 100), create-or-replace by target + type +
 * conditions, reads, deletes, copies of artist defaults, history. The database enforces
 * the sum again at commit (constraint trigger) and records history (trigger), so no path
 * can skip either.
 */
import Decimal from 'decimal.js';
import type { Knex } from 'knex';
import type { Trx } from '../../db';
import { NotFoundError, ValidationError } from '../../lib/errors';
import { dateOnly, iso } from './common';
import { normaliseTerritory } from './identifiers';
import { emitEvent, emitEvents } from '../webhooks/events';
import { memberIdsAmong } from '../../repositories/members';

export const SPLIT_TYPES = ['all', 'stream', 'download', 'ugc', 'physical', 'return', 'radio', 'sync', 'ringtone', 'other'] as const;
export type SplitType = (typeof SPLIT_TYPES)[number];
export type SplitTarget = 'asset' | 'product' | 'artist';
const TARGET_COL = { asset: 'asset_id', product: 'product_id', artist: 'artist_id' } as const;
const TARGET_TABLE = { asset: 'assets', product: 'products', artist: 'artists' } as const;

export interface ShareInput {
  user: string;
  share: number | string;
}
export interface Conditions {
  validFrom?: string | null;
  validTo?: string | null;
  territories?: string[] | null;
}
export interface SplitInput {
  target: SplitTarget;
  targetId: string;
  type?: string;
  split: ShareInput[];
  conditions?: Conditions | null;
  name?: string | null;
}

export interface SplitView {
  id: string;
  target: SplitTarget;
  asset: string | null;
  product: string | null;
  artist: string | null;
  type: string;
  name: string | null;
  conditions: { validFrom: string | null; validTo: string | null; territories: string[] | null };
  split: { user: string; share: number }[];
  createdAt: string;
  updatedAt: string;
}

/**
 * Walks a list of shares, pushing onto `errors`: a share that is no number, what `range`
 * says of each number, a user named twice, then what `each` says of the item. Returns the
 * sum and the users named.
 */
export function walkShares(
  split: ShareInput[],
  errors: string[],
  range: (i: number, d: Decimal) => string[],
  each: (s: ShareInput) => string[] = () => [],
): { total: Decimal; seen: Set<string> } {
  let total = new Decimal(0);
  const seen = new Set<string>();
  for (const [i, s] of split.entries()) {
    let d: Decimal;
    try {
      d = new Decimal(String(s.share));
    } catch {
      errors.push(`split[${i}].share is not a number`);
      continue;
    }
    errors.push(...range(i, d));
    total = total.plus(d);
    if (seen.has(s.user)) errors.push(`split[${i}].user ${s.user} appears twice`);
    seen.add(s.user);
    errors.push(...each(s));
  }
  return { total, seen };
}

/** Problems with a list of shares, as messages (empty = valid). The sum must be exactly 100. */
export async function shareProblems(trx: Trx, split: ShareInput[]): Promise<{ errors: string[]; total: string }> {
  const errors: string[] = [];
  if (!split.length) errors.push('split must name at least one user');
  const { total, seen } = walkShares(split, errors, (i, d) => [
    ...(d.lte(0) || d.gt(100) ? [`split[${i}].share must be above 0 and at most 100`] : []),
    ...(d.decimalPlaces() > 6 ? [`split[${i}].share has more than 6 decimal places`] : []),
  ]);
  const ids = [...seen].filter((u) => /^[0-9a-f-]{36}$/i.test(u));
  const bad = [...seen].filter((u) => !/^[0-9a-f-]{36}$/i.test(u));
  const known = new Set(await memberIdsAmong(trx, ids));
  for (const u of [...bad, ...ids.filter((u) => !known.has(u))]) errors.push(`user ${u} is not a member of this workspace`);
  if (!total.eq(100)) errors.unshift(`Split shares must sum to 100, got ${total.toString()}`);
  return { errors, total: total.toString() };
}

export async function assertShares(trx: Trx, split: ShareInput[]): Promise<void> {
  const { errors, total } = await shareProblems(trx, split);
  if (errors.length) {
    const sumErr = !new Decimal(total).eq(100);
    throw new ValidationError(sumErr ? `Split shares must sum to 100, got ${total}` : 'Invalid split', errors, sumErr ? 'SPLIT_SUM' : 'INVALID_SPLIT');
  }
}

export function normaliseConditions(c: Conditions | null | undefined): { valid_from: string | null; valid_to: string | null; territories: string[] | null } {
  const valid_from = c?.validFrom ?? null;
  const valid_to = c?.validTo ?? null;
  if (valid_from && valid_to && valid_from > valid_to) throw new ValidationError('Invalid conditions', ['conditions.validFrom is after conditions.validTo']);
  let territories: string[] | null = null;
  if (c?.territories && c.territories.length) {
    const t = c.territories.map((x) => normaliseTerritory(x));
    const bad = c.territories.filter((_, i) => !t[i]);
    if (bad.length) throw new ValidationError('Invalid conditions', bad.map((b) => `territory "${b}" is not an ISO 3166-1 alpha-2 code`));
    territories = [...new Set(t as string[])].sort();
  }
  return { valid_from, valid_to, territories };
}

function toView(s: Record<string, unknown>, shares: { tenant_user_id: string; share: string }[]): SplitView {
  return {
    id: s.id as string,
    target: s.target as SplitTarget,
    asset: (s.asset_id as string) ?? null,
    product: (s.product_id as string) ?? null,
    artist: (s.artist_id as string) ?? null,
    type: s.type as string,
    name: (s.name as string) ?? null,
    conditions: { validFrom: dateOnly(s.valid_from), validTo: dateOnly(s.valid_to), territories: (s.territories as string[]) ?? null },
    split: shares.map((r) => ({ user: r.tenant_user_id, share: Number(r.share) })),
    createdAt: iso(s.created_at)!,
    updatedAt: iso(s.updated_at)!,
  };
}

export async function viewsOf(trx: Trx, rows: Record<string, unknown>[]): Promise<SplitView[]> {
  if (!rows.length) return [];
  const shares = await trx('split_shares').whereIn('split_id', rows.map((r) => r.id as string)).orderBy([{ column: 'share', order: 'desc' }, 'tenant_user_id']);
  const by = new Map<string, { tenant_user_id: string; share: string }[]>();
  for (const s of shares) (by.get(s.split_id) ?? by.set(s.split_id, []).get(s.split_id)!).push(s);
  return rows.map((r) => toView(r, by.get(r.id as string) ?? []));
}

export async function getSplit(trx: Trx, id: string): Promise<SplitView> {
  const row = await trx('splits').where({ id }).first();
  if (!row) throw new NotFoundError('Split', 'SPLIT_NOT_FOUND');
  return (await viewsOf(trx, [row]))[0]!;
}

/** Delete the shares `q` selects, each member's removal emitted (`split.user.removed`). */
export async function removeShares(trx: Trx, q: Knex.QueryBuilder): Promise<void> {
  const gone = await q.delete().returning(['split_id', 'tenant_user_id', 'share']);
  await emitEvents(trx, null, 'split.user.removed', gone.map((g: Record<string, string>) => ({ splitId: g.split_id, userId: g.tenant_user_id, share: new Decimal(g.share).toFixed() })));
}

/** Replace the shares of a split with `split`, touching only what changed (history stays meaningful). */
async function writeShares(trx: Trx, tenantId: number, splitId: string, split: ShareInput[]): Promise<void> {
  const current = await trx('split_shares').where({ split_id: splitId }).select('tenant_user_id', 'share');
  const want = new Map(split.map((s) => [s.user, new Decimal(String(s.share))]));
  const gone = current.filter((c) => !want.has(c.tenant_user_id)).map((c) => c.tenant_user_id);
  if (gone.length) await trx('split_shares').where({ split_id: splitId }).whereIn('tenant_user_id', gone).delete();
  await emitEvents(trx, tenantId, 'split.user.removed', current.filter((c) => !want.has(c.tenant_user_id)).map((c) => ({ splitId, userId: c.tenant_user_id, share: new Decimal(c.share).toFixed() })));
  const have = new Map(current.map((c) => [c.tenant_user_id as string, new Decimal(c.share)]));
  for (const [user, share] of want) {
    const old = have.get(user);
    if (!old) await trx('split_shares').insert({ tenant_id: tenantId, split_id: splitId, tenant_user_id: user, share: share.toFixed(6) });
    if (!old) await emitEvent(trx, tenantId, 'split.user.added', { splitId, userId: user, share: share.toFixed() });
    else if (!old.eq(share)) await trx('split_shares').where({ split_id: splitId, tenant_user_id: user }).update({ share: share.toFixed(6) });
  }
}

/**
 * Create the split of a target for a type and conditions, or replace the shares of the
 * one that exists with the same target, type and conditions. Returns it and whether it was new.
 */
export async function upsertSplit(trx: Trx, tenantId: number, createdBy: string | null, input: SplitInput): Promise<{ split: SplitView; created: boolean }> {
  const type = input.type ?? 'all';
  if (!(SPLIT_TYPES as readonly string[]).includes(type)) throw new ValidationError('Invalid split type', [`type must be one of ${SPLIT_TYPES.join(', ')}`], 'INVALID_SPLIT_TYPE');
  const col = TARGET_COL[input.target];
  if (!(await trx(TARGET_TABLE[input.target]).where({ id: input.targetId }).first('id'))) {
    throw new NotFoundError(input.target[0]!.toUpperCase() + input.target.slice(1));
  }
  await assertShares(trx, input.split);
  const cond = normaliseConditions(input.conditions);
  const existing = await trx('splits')
    .where({ target: input.target, [col]: input.targetId, type })
    .whereRaw(`COALESCE(valid_from, '-infinity'::date) = COALESCE(?::date, '-infinity'::date)`, [cond.valid_from])
    .whereRaw(`COALESCE(valid_to, 'infinity'::date) = COALESCE(?::date, 'infinity'::date)`, [cond.valid_to])
    .whereRaw(`COALESCE(territories, '{}'::text[]) = COALESCE(?::text[], '{}'::text[])`, [cond.territories])
    .first('id');
  let id: string;
  if (existing) {
    id = existing.id;
    await trx('splits').where({ id }).update({ updated_at: trx.fn.now(), ...(input.name !== undefined ? { name: input.name } : {}) });
  } else {
    [{ id }] = await trx('splits')
      .insert({ tenant_id: tenantId, target: input.target, [col]: input.targetId, type, ...cond, name: input.name ?? null, created_by: createdBy })
      .returning('id');
  }
  await writeShares(trx, tenantId, id, input.split);
  return { split: await getSplit(trx, id), created: !existing };
}

/** Change a split's shares, type or conditions. */
export async function updateSplit(trx: Trx, tenantId: number, id: string, patch: { split?: ShareInput[]; type?: string; conditions?: Conditions | null; name?: string | null }): Promise<SplitView> {
  const row = await trx('splits').where({ id }).first();
  if (!row) throw new NotFoundError('Split', 'SPLIT_NOT_FOUND');
  const upd: Record<string, unknown> = { updated_at: trx.fn.now() };
  if (patch.type !== undefined) {
    if (!(SPLIT_TYPES as readonly string[]).includes(patch.type)) throw new ValidationError('Invalid split type', [`type must be one of ${SPLIT_TYPES.join(', ')}`], 'INVALID_SPLIT_TYPE');
    upd.type = patch.type;
  }
  if (patch.conditions !== undefined) Object.assign(upd, normaliseConditions(patch.conditions));
  if (patch.name !== undefined) upd.name = patch.name;
  await trx('splits').where({ id }).update(upd);
  if (patch.split) {
    await assertShares(trx, patch.split);
    await writeShares(trx, tenantId, id, patch.split);
  }
  return getSplit(trx, id);
}

/** Delete splits (shares first, so the history trigger still sees the split). */
export async function deleteSplits(trx: Trx, ids: string[]): Promise<number> {
  if (!ids.length) return 0;
  await removeShares(trx, trx('split_shares').whereIn('split_id', ids));
  return trx('splits').whereIn('id', ids).delete();
}

export async function splitsOf(trx: Trx, target: SplitTarget, id: string, type?: string): Promise<SplitView[]> {
  const rows = await trx('splits')
    .where({ target, [TARGET_COL[target]]: id })
    .modify((b) => {
      if (type) b.where({ type });
    })
    .orderBy([{ column: 'type' }, { column: 'valid_from', order: 'asc', nulls: 'first' }, { column: 'created_at' }]);
  return viewsOf(trx, rows);
}

/** The primary artist (lowest position) of an asset or product. */
export async function primaryArtist(trx: Trx, target: 'asset' | 'product', id: string): Promise<string | null> {
  const table = target === 'asset' ? 'asset_artists' : 'product_artists';
  const r = await trx(table).where({ [TARGET_COL[target]]: id }).orderBy(['position', 'artist_id']).first('artist_id');
  return r?.artist_id ?? null;
}

/**
 * Copy the primary artist's default splits (every type and condition) onto an asset or
 * product. Throws a ValidationError naming the reason when there is nothing to copy.
 */
export async function applyArtistDefault(trx: Trx, tenantId: number, createdBy: string | null, target: 'asset' | 'product', id: string): Promise<SplitView[]> {
  if (!(await trx(TARGET_TABLE[target]).where({ id }).first('id'))) throw new NotFoundError(target === 'asset' ? 'Asset' : 'Product');
  const artist = await primaryArtist(trx, target, id);
  if (!artist) throw new ValidationError(`${id}: ${target} has no artist`, [], 'NO_ARTIST');
  const defaults = await splitsOf(trx, 'artist', artist);
  if (!defaults.length) throw new ValidationError(`${id}: artist default split is not set`, [], 'NO_DEFAULT_SPLIT');
  const out: SplitView[] = [];
  for (const d of defaults) {
    out.push(
      (
        await upsertSplit(trx, tenantId, createdBy, {
          target,
          targetId: id,
          type: d.type,
          conditions: d.conditions,
          split: d.split.map((s) => ({ user: s.user, share: String(s.share) })),
        })
      ).split,
    );
  }
  return out;
}

export interface HistoryView {
  seq: number;
  splitId: string;
  target: string | null;
  asset: string | null;
  product: string | null;
  artist: string | null;
  type: string | null;
  action: string;
  user: string | null;
  oldShare: string | null;
  newShare: string | null;
  changedBy: string | null;
  note: string | null;
  changedAt: string;
}

export function historyView(r: Record<string, unknown>): HistoryView {
  return {
    seq: Number(r.seq),
    splitId: r.split_id as string,
    target: (r.target as string) ?? null,
    asset: (r.asset_id as string) ?? null,
    product: (r.product_id as string) ?? null,
    artist: (r.artist_id as string) ?? null,
    type: (r.type as string) ?? null,
    action: r.action as string,
    user: (r.tenant_user_id as string) ?? null,
    oldShare: (r.old_share as string) ?? null,
    newShare: (r.new_share as string) ?? null,
    changedBy: (r.changed_by as string) ?? null,
    note: (r.note as string) ?? null,
    changedAt: iso(r.changed_at)!,
  };
}
