/**
 * The `content` defaults feed new catalogue items: when an asset, product or release is
 * created without a field a content setting covers, the effective value (resolved along the
 * new item's own chain, with the creating member as the user level) fills it. Only values
 * some level sets are written; built-in defaults are not copied into items.
 */
import type { Trx } from '../../db';
import { chainForItem, resolveChain } from './chain';

async function contentFor(trx: Trx, tenantId: number, kind: 'asset' | 'product' | 'release', id: string, userId: string | null): Promise<Record<string, unknown>> {
  const eff = await resolveChain(trx, await chainForItem(trx, tenantId, kind, id, userId));
  return Object.fromEntries(Object.entries(eff.content).filter(([, v]) => v.level !== 'default').map(([k, v]) => [k, v.value]));
}

const empty = (v: unknown) => v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0);

export async function fillNewAsset(trx: Trx, tenantId: number, userId: string | null, id: string, given: { mainGenre?: string[]; subGenre?: string[] }): Promise<void> {
  const c = await contentFor(trx, tenantId, 'asset', id, userId);
  const upd: Record<string, unknown> = {};
  if (empty(given.mainGenre) && typeof c.genre === 'string') upd.main_genre = [c.genre];
  if (empty(given.subGenre) && typeof c.subGenre === 'string') upd.sub_genre = [c.subGenre];
  if (Object.keys(upd).length) await trx('assets').where({ id }).update(upd);
}

export async function fillNewProduct(trx: Trx, tenantId: number, userId: string | null, id: string, given: { mainGenre?: string[]; label?: string | null }): Promise<void> {
  const c = await contentFor(trx, tenantId, 'product', id, userId);
  const upd: Record<string, unknown> = {};
  if (empty(given.mainGenre) && typeof c.genre === 'string') upd.main_genre = [c.genre];
  if (empty(given.label) && typeof c.labelName === 'string') upd.label = c.labelName;
  if (Object.keys(upd).length) await trx('products').where({ id }).update(upd);
}

export async function fillNewRelease(trx: Trx, tenantId: number, userId: string | null, id: string, given: { genre?: string[]; label?: string | null; metadata?: Record<string, unknown> }): Promise<void> {
  const c = await contentFor(trx, tenantId, 'release', id, userId);
  const upd: Record<string, unknown> = {};
  if (empty(given.genre) && typeof c.genre === 'string') upd.genre = [c.genre];
  if (empty(given.label) && typeof c.labelName === 'string') upd.label = c.labelName;
  const meta: Record<string, unknown> = {};
  for (const k of ['language', 'pLine', 'cLine', 'subGenre'] as const) if (empty(given.metadata?.[k]) && typeof c[k] === 'string') meta[k] = c[k];
  if (Object.keys(meta).length) upd.metadata = trx.raw(`metadata || ?::jsonb`, [JSON.stringify(meta)]);
  if (Object.keys(upd).length) await trx('releases').where({ id }).update(upd);
}
