/**
 * Split operations the routes call: the paged list and history, the split a sale would
 * use, a dry-run validation, and writes that record the caller in the split history.
 * Each takes the tenant transaction and plain arguments and returns data.
 */
import { whereSearch } from '../../http/list-sort';
import type { Knex, Trx } from '../../db';
import type { AuthContext } from '../../lib/identity';
import { NotFoundError, ValidationError } from '../../lib/errors';
import { pageList, setActor, type ListQuery } from './common';
import { normaliseIsrc, parseUpc } from './identifiers';
import { bulkDelete } from './service';
import { SPLIT_HISTORY_SORT, SPLIT_SORT } from './sorts';
import { deleteSplits, getSplit, historyView, shareProblems, updateSplit, upsertSplit, viewsOf, SPLIT_TYPES, type Conditions, type ShareInput, type SplitInput } from './splits';
import { resolveEffectiveSplit } from './effective-split';

type TargetName = 'asset' | 'product' | 'artist';
interface TargetRefs { asset?: string; product?: string; artist?: string }

/** The one target a split body names; 400 unless exactly one of asset, product, artist. */
export function targetOf(b: TargetRefs): { target: TargetName; targetId: string } {
  const set = (['asset', 'product', 'artist'] as const).filter((k) => b[k]);
  if (set.length !== 1) throw new ValidationError('Invalid split', ['name exactly one of asset, product or artist'], 'INVALID_SPLIT_TARGET');
  return { target: set[0]!, targetId: b[set[0]!]! };
}

/** Create (or replace, same target + type + conditions) a split, recording the caller. */
export async function saveSplit(trx: Trx, tenantId: number, auth: AuthContext, input: SplitInput) {
  await setActor(trx, auth);
  return upsertSplit(trx, tenantId, auth.tenantUserId, input);
}

/** Change the shares, type or conditions of a split, recording the caller. */
export async function changeSplit(trx: Trx, tenantId: number, auth: AuthContext, id: string, patch: Parameters<typeof updateSplit>[3]) {
  await setActor(trx, auth);
  return updateSplit(trx, tenantId, id, patch);
}

/** Delete one split; 404 when it does not exist. */
export async function removeSplit(trx: Trx, auth: AuthContext, id: string): Promise<void> {
  await setActor(trx, auth, 'split deleted');
  if (!(await deleteSplits(trx, [id]))) throw new NotFoundError('Split', 'SPLIT_NOT_FOUND');
}

/** Delete splits by id; each missing id lands in failedDeletions. */
export async function removeSplits(trx: Trx, auth: AuthContext, ids: string[]) {
  await setActor(trx, auth, 'split deleted');
  return bulkDelete(trx, 'splits', ids, 'Split');
}

/** Narrow rows of `alias` (splits or split history) to the named recording, product and artist. */
function whereTargets(b: Knex.QueryBuilder, alias: string, q: TargetRefs): void {
  if (q.asset) b.where(`${alias}.asset_id`, q.asset);
  if (q.product) b.where(`${alias}.product_id`, q.product);
  if (q.artist) b.where(`${alias}.artist_id`, q.artist);
}

export interface SplitListQuery extends ListQuery, TargetRefs {
  target?: TargetName;
  type?: string;
  user?: string;
  /** ownScope(…, 'split', 's'): what the caller sees (null: everything). */
  visible?: Knex.Raw | null;
}

/** Paged splits, filtered by target, type, member; search over recording, product and artist. */
export async function listSplits(trx: Trx, query: SplitListQuery) {
  const base = trx('splits as s').modify((b) => {
    if (query.visible) b.whereRaw(query.visible);
    whereTargets(b, 's', query);
    if (query.target) b.where('s.target', query.target);
    if (query.type) b.where('s.type', query.type);
    if (query.user) b.whereExists((e) => e.select(trx.raw('1')).from('split_shares as x').whereRaw('x.split_id = s.id').where('x.tenant_user_id', query.user!));
    if (query.search) {
      const like = `%${query.search}%`;
      const isrc = normaliseIsrc(query.search);
      const u = parseUpc(query.search);
      const upc = u && 'upc' in u ? u.upc : '';
      b.where((w) =>
        w
          .whereExists((e) => e.select(trx.raw('1')).from('assets as a').whereRaw('a.id = s.asset_id').where((x) => x.whereILike('a.title', like).orWhere('a.isrc', isrc ?? '')))
          .orWhereExists((e) => e.select(trx.raw('1')).from('products as p').whereRaw('p.id = s.product_id').where((x) => x.whereILike('p.title', like).orWhere('p.upc', upc)))
          .orWhereExists((e) => e.select(trx.raw('1')).from('artists as r').whereRaw('r.id = s.artist_id').whereILike('r.name', like)),
      );
    }
  });
  const page = await pageList(base, query, SPLIT_SORT, 'createdAt', (b) => b.select('s.*'), 's.id', (r) => r);
  return { data: await viewsOf(trx, page.data), pagination: page.pagination };
}

/** Share changes, newest first by default; filter by split, target or member. */
export async function splitHistory(trx: Trx, query: ListQuery & TargetRefs & { split?: string; user?: string }) {
  const base = trx('split_history as h').modify((b) => {
    if (query.split) b.where('h.split_id', query.split);
    whereTargets(b, 'h', query);
    if (query.user) b.where('h.tenant_user_id', query.user);
    whereSearch(b, query.search, ['h.action', 'h.note', 'h.type']);
  });
  return pageList(base, query, SPLIT_HISTORY_SORT, 'changedAt', (b) => b.select('h.*'), 'h.seq', historyView);
}

/** Share changes of one split, oldest first; 404 when it has none (no such split). */
export async function historyOfSplit(trx: Trx, id: string) {
  const rows = await trx('split_history').where({ split_id: id }).orderBy('seq');
  if (!rows.length) throw new NotFoundError('Split', 'SPLIT_NOT_FOUND');
  return rows.map(historyView);
}

export interface SaleRef {
  asset?: string; product?: string; isrc?: string; upc?: string;
  saleDate?: string; territory?: string; type?: string;
}

/** The split allocation would use for a sale: `level` and `split` are null when none applies. */
export async function matchSplit(trx: Trx, tenantId: number, body: SaleRef) {
  let assetId = body.asset ?? null;
  let productId = body.product ?? null;
  if (!assetId && body.isrc) assetId = (await trx('assets').where({ isrc: normaliseIsrc(body.isrc) ?? '' }).first('id'))?.id ?? null;
  if (!productId && body.upc) {
    const u = parseUpc(body.upc);
    productId = 'upc' in u ? ((await trx('products').where({ upc: u.upc }).first('id'))?.id ?? null) : null;
  }
  if (body.asset && !(await trx('assets').where({ id: body.asset }).first('id'))) throw new NotFoundError('Asset', 'ASSET_NOT_FOUND');
  if (body.product && !(await trx('products').where({ id: body.product }).first('id'))) throw new NotFoundError('Product', 'PRODUCT_NOT_FOUND');
  if (!assetId && !productId) throw new NotFoundError('Asset or product');
  if (body.type && !(SPLIT_TYPES as readonly string[]).includes(body.type)) throw new ValidationError('Invalid split type', [`type must be one of ${SPLIT_TYPES.join(', ')}`], 'INVALID_SPLIT_TYPE');
  const e = await resolveEffectiveSplit(trx, { tenantId, assetId, productId, saleDate: body.saleDate, territory: body.territory, type: body.type });
  return { asset: assetId, product: productId, level: e?.level ?? null, split: e ? await getSplit(trx, e.splitId) : null };
}

/** Check a split without saving it: {valid, total, errors}. */
export async function validateSplit(trx: Trx, body: TargetRefs & { type?: string; split: ShareInput[]; conditions?: Conditions | null }) {
  const { errors, total } = await shareProblems(trx, body.split);
  if (body.type && !(SPLIT_TYPES as readonly string[]).includes(body.type)) errors.push(`type must be one of ${SPLIT_TYPES.join(', ')}`);
  for (const [k, table] of [['asset', 'assets'], ['product', 'products'], ['artist', 'artists']] as const) {
    if (body[k] && !(await trx(table).where({ id: body[k] }).first('id'))) errors.push(`${k} ${body[k]} not found`);
  }
  const c = body.conditions;
  if (c?.validFrom && c.validTo && c.validFrom > c.validTo) errors.push('conditions.validFrom is after conditions.validTo');
  return { valid: errors.length === 0, total, errors };
}
