/**
 * The `content` defaults feed new catalogue items: when an asset, product or release is
 * created without a field a content setting covers, the effective value (resolved along the
 * new item's own chain, with the creating member as the user level) fills it. Only values
 * some level sets are written; built-in defaults are not copied into items.
 */
import type { Trx } from '../../db';
import { buildChain, chainForItem, labelsNamed, resolveChain, type ChainLink } from './chain';
import { fillAsset, fillProduct } from '../../repositories/catalogue';

type Content = Record<string, unknown>;

/** The content values some level sets (built-in defaults left out). */
async function contentOf(trx: Trx, chain: ChainLink[]): Promise<Content> {
  const eff = await resolveChain(trx, chain);
  return Object.fromEntries(Object.entries(eff.content).filter(([, v]) => v.level !== 'default').map(([k, v]) => [k, v.value]));
}

async function contentFor(trx: Trx, tenantId: number, kind: 'asset' | 'product' | 'release', id: string, userId: string | null): Promise<Content> {
  return contentOf(trx, await chainForItem(trx, tenantId, kind, id, userId));
}

const empty = (v: unknown) => v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0);

type AssetGiven = { mainGenre?: string[]; subGenre?: string[] };
type ProductGiven = { mainGenre?: string[]; label?: string | null };

/** The columns content defaults fill on a new asset or product (what was not given). */
function fillOf(kind: 'asset' | 'product', c: Content, given: AssetGiven & ProductGiven): Record<string, unknown> {
  const upd: Record<string, unknown> = {};
  if (empty(given.mainGenre) && typeof c.genre === 'string') upd.main_genre = [c.genre];
  if (kind === 'asset' && empty(given.subGenre) && typeof c.subGenre === 'string') upd.sub_genre = [c.subGenre];
  if (kind === 'product' && empty(given.label) && typeof c.labelName === 'string') upd.label = c.labelName;
  return upd;
}

export async function fillNewAsset(trx: Trx, tenantId: number, userId: string | null, id: string, given: AssetGiven): Promise<void> {
  const upd = fillOf('asset', await contentFor(trx, tenantId, 'asset', id, userId), given);
  if (Object.keys(upd).length) await fillAsset(trx, id, upd);
}

export async function fillNewProduct(trx: Trx, tenantId: number, userId: string | null, id: string, given: ProductGiven): Promise<void> {
  const upd = fillOf('product', await contentFor(trx, tenantId, 'product', id, userId), given);
  if (Object.keys(upd).length) await fillProduct(trx, id, upd);
}

/**
 * The same for a bulk create: every new item filled as a single create fills it. Items with the
 * same artists (in order) and label share one resolution, and items getting the same values
 * one UPDATE, so a large batch costs a few queries per distinct chain.
 */
export async function fillNewItems(
  trx: Trx,
  tenantId: number,
  userId: string | null,
  kind: 'asset' | 'product',
  items: { id: string; artistIds: string[]; given: AssetGiven & ProductGiven }[],
): Promise<void> {
  const contents = new Map<string, Content>();
  const updates = new Map<string, { upd: Record<string, unknown>; ids: string[] }>();
  for (const it of items) {
    const label = kind === 'product' && typeof it.given.label === 'string' ? it.given.label : null;
    const key = JSON.stringify([it.artistIds, label]);
    let c = contents.get(key);
    if (!c) {
      c = await contentOf(trx, await buildChain(trx, tenantId, { userId, artistIds: it.artistIds, labelIds: kind === 'product' ? await labelsNamed(trx, label) : undefined }));
      contents.set(key, c);
    }
    const upd = fillOf(kind, c, it.given);
    if (!Object.keys(upd).length) continue;
    const uk = JSON.stringify(upd);
    const u = updates.get(uk) ?? { upd, ids: [] };
    u.ids.push(it.id);
    updates.set(uk, u);
  }
  const table = kind === 'asset' ? 'assets' : 'products';
  for (const { upd, ids } of updates.values()) for (let i = 0; i < ids.length; i += 1000) await trx(table).whereIn('id', ids.slice(i, i + 1000)).update(upd);
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
