/**
 * Split routes (spec 4.3 Split, POST /splits/validate). Catalogue error shape.
 * Reads: guest and up; writes: admin and up; match/validate: user and up.
 */
import type Router from '@koa/router';
import { defineRoutes, route } from '../../http/route';
import { PageQuery, Strict, Type, Uuid } from '../../http/schema';
import type { AppServices } from '../../services';
import { ValidationError, NotFoundError } from '../../lib/errors';
import { ShareList, SplitTypeField, Conditions, IdsBody, IdParams } from '../catalogue/schemas';
import { pageList, setActor } from '../catalogue/common';
import { normaliseIsrc, parseUpc } from '../catalogue/identifiers';
import { bulkDelete } from '../catalogue/service';
import { deleteSplits, getSplit, historyView, shareProblems, updateSplit, upsertSplit, viewsOf, SPLIT_TYPES } from './service';
import { resolveEffectiveSplit } from './effective';

const TargetFields = {
  asset: Type.Optional(Uuid),
  product: Type.Optional(Uuid),
  artist: Type.Optional(Uuid),
};
const SplitBody = Strict({
  ...TargetFields,
  type: Type.Optional(SplitTypeField),
  split: ShareList,
  conditions: Type.Optional(Conditions),
  name: Type.Optional(Type.String({ maxLength: 200 })),
});

function targetOf(b: { asset?: string; product?: string; artist?: string }): { target: 'asset' | 'product' | 'artist'; targetId: string } {
  const set = (['asset', 'product', 'artist'] as const).filter((k) => b[k]);
  if (set.length !== 1) throw new ValidationError('Invalid split', ['name exactly one of asset, product or artist'], 'INVALID_SPLIT_TARGET');
  return { target: set[0]!, targetId: b[set[0]!]! };
}

export function registerSplitRoutes(router: Router, svc: AppServices): void {
  defineRoutes(router, svc, { tag: 'Split', errorShape: 'catalogue' }, [
    route({
      method: 'post', path: '/split/', summary: 'Create (or replace, same target+type+conditions) a split; shares must sum to 100 (admin)', access: 'admin', status: 201, body: SplitBody,
      async handler({ trx, tenantId, auth, body }) {
        await setActor(trx, auth);
        const { target, targetId } = targetOf(body);
        const r = await upsertSplit(trx, tenantId, auth.tenantUserId, { target, targetId, type: body.type, split: body.split, conditions: body.conditions, name: body.name });
        return { success: true, message: r.created ? 'Split created' : 'Split updated', data: r.split };
      },
    }),
    route({
      method: 'get', path: '/split/', summary: 'List splits (paged; filter by target, type, user)', access: 'guest',
      query: Type.Object({ ...PageQuery, ...TargetFields, target: Type.Optional(Type.Union([Type.Literal('asset'), Type.Literal('product'), Type.Literal('artist')])), type: Type.Optional(SplitTypeField), user: Type.Optional(Uuid) }),
      async handler({ trx, query }) {
        const base = trx('splits as s').modify((b) => {
          if (query.asset) b.where('s.asset_id', query.asset);
          if (query.product) b.where('s.product_id', query.product);
          if (query.artist) b.where('s.artist_id', query.artist);
          if (query.target) b.where('s.target', query.target);
          if (query.type) b.where('s.type', query.type);
          if (query.user) b.whereExists((e) => e.select(trx.raw('1')).from('split_shares as x').whereRaw('x.split_id = s.id').where('x.tenant_user_id', query.user!));
          if (query.search) {
            const like = `%${query.search}%`;
            const isrc = normaliseIsrc(query.search);
            b.where((w) =>
              w
                .whereExists((e) => e.select(trx.raw('1')).from('assets as a').whereRaw('a.id = s.asset_id').where((x) => x.whereILike('a.title', like).orWhere('a.isrc', isrc ?? '')))
                .orWhereExists((e) => e.select(trx.raw('1')).from('products as p').whereRaw('p.id = s.product_id').where((x) => x.whereILike('p.title', like).orWhere('p.upc', parseUpc(query.search!) && 'upc' in parseUpc(query.search!) ? (parseUpc(query.search!) as { upc: string }).upc : '')))
                .orWhereExists((e) => e.select(trx.raw('1')).from('artists as r').whereRaw('r.id = s.artist_id').whereILike('r.name', like)),
            );
          }
        });
        const page = await pageList(base, query, { createdAt: 's.created_at', updatedAt: 's.updated_at', type: 's.type', target: 's.target', validFrom: 's.valid_from' }, 'createdAt', (b) => b.select('s.*'), 's.id', (r) => r);
        return { success: true, message: 'Splits', data: await viewsOf(trx, page.data), pagination: page.pagination };
      },
    }),
    route({
      method: 'post', path: '/split/default', summary: "Set an artist's default split (artist required; type default all) (admin)", access: 'admin', status: 201,
      body: Strict({ artist: Uuid, type: Type.Optional(SplitTypeField), split: ShareList, conditions: Type.Optional(Conditions), name: Type.Optional(Type.String({ maxLength: 200 })) }),
      async handler({ trx, tenantId, auth, body }) {
        await setActor(trx, auth);
        const r = await upsertSplit(trx, tenantId, auth.tenantUserId, { target: 'artist', targetId: body.artist, type: body.type, split: body.split, conditions: body.conditions, name: body.name });
        return { success: true, message: r.created ? 'Default split created' : 'Default split updated', data: r.split };
      },
    }),
    route({
      method: 'post', path: '/split/bulk/delete', summary: 'Delete splits by id; each failure in failedDeletions (admin)', access: 'admin', body: IdsBody,
      async handler({ trx, auth, body }) {
        await setActor(trx, auth, 'split deleted');
        const r = await bulkDelete(trx, 'splits', body.ids, 'Split');
        return { message: `${r.processedCount} of ${body.ids.length} splits deleted`, ...r };
      },
    }),
    route({
      method: 'post', path: '/split/match', summary: 'The split allocation would use for a sale (asset/ISRC and/or product/UPC, date, territory, type)', access: 'user',
      body: Strict({
        asset: Type.Optional(Uuid), product: Type.Optional(Uuid), isrc: Type.Optional(Type.String({ maxLength: 40 })), upc: Type.Optional(Type.String({ maxLength: 40 })),
        saleDate: Type.Optional(Type.String({ format: 'date' })), territory: Type.Optional(Type.String({ minLength: 2, maxLength: 2 })), type: Type.Optional(SplitTypeField),
      }),
      async handler({ trx, tenantId, body }) {
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
        if (!e) return { success: true, message: 'No split applies', data: { asset: assetId, product: productId, level: null, split: null } };
        return { success: true, message: `Split found at ${e.level} level`, data: { asset: assetId, product: productId, level: e.level, split: await getSplit(trx, e.splitId) } };
      },
    }),
    route({
      method: 'get', path: '/split/history', summary: 'Share changes (who changed what share when), newest first; filter by split, target or user', access: 'user',
      query: Type.Object({ ...PageQuery, split: Type.Optional(Uuid), ...TargetFields, user: Type.Optional(Uuid) }),
      async handler({ trx, query }) {
        const base = trx('split_history as h').modify((b) => {
          if (query.split) b.where('h.split_id', query.split);
          if (query.asset) b.where('h.asset_id', query.asset);
          if (query.product) b.where('h.product_id', query.product);
          if (query.artist) b.where('h.artist_id', query.artist);
          if (query.user) b.where('h.tenant_user_id', query.user);
        });
        const page = await pageList(base, { ...query, order: query.order ?? 'desc' }, { changedAt: 'h.seq' }, 'changedAt', (b) => b.select('h.*'), 'h.seq', historyView);
        return { success: true, message: 'Split history', ...page };
      },
    }),
    route({
      method: 'get', path: '/split/:id', summary: 'One split', access: 'guest', params: IdParams,
      async handler({ trx, params }) {
        return { success: true, message: 'Split', data: await getSplit(trx, params.id) };
      },
    }),
    route({
      method: 'get', path: '/split/:id/history', summary: 'Share changes of one split, oldest first', access: 'user', params: IdParams,
      async handler({ trx, params }) {
        const rows = await trx('split_history').where({ split_id: params.id }).orderBy('seq');
        if (!rows.length) throw new NotFoundError('Split', 'SPLIT_NOT_FOUND');
        return { success: true, message: 'Split history', data: rows.map(historyView) };
      },
    }),
    route({
      method: 'put', path: '/split/:id', summary: 'Change the shares, type or conditions of a split (admin)', access: 'admin', params: IdParams,
      body: Strict({ split: Type.Optional(ShareList), type: Type.Optional(SplitTypeField), conditions: Type.Optional(Conditions), name: Type.Optional(Type.String({ maxLength: 200 })) }, { minProperties: 1 }),
      async handler({ trx, tenantId, auth, params, body }) {
        await setActor(trx, auth);
        return { success: true, message: 'Split updated', data: await updateSplit(trx, tenantId, params.id, body) };
      },
    }),
    route({
      method: 'delete', path: '/split/:id', summary: 'Delete a split (admin)', access: 'admin', params: IdParams,
      async handler({ trx, auth, params }) {
        await setActor(trx, auth, 'split deleted');
        if (!(await deleteSplits(trx, [params.id]))) throw new NotFoundError('Split', 'SPLIT_NOT_FOUND');
        return { success: true, message: 'Split deleted', data: { id: params.id } };
      },
    }),
    route({
      method: 'post', path: '/splits/validate', summary: 'Check a split without saving it: {valid, total, errors}', access: 'user',
      body: Strict({ ...TargetFields, type: Type.Optional(SplitTypeField), split: ShareList, conditions: Type.Optional(Conditions) }),
      async handler({ trx, body }) {
        const { errors, total } = await shareProblems(trx, body.split);
        if (body.type && !(SPLIT_TYPES as readonly string[]).includes(body.type)) errors.push(`type must be one of ${SPLIT_TYPES.join(', ')}`);
        for (const [k, table] of [['asset', 'assets'], ['product', 'products'], ['artist', 'artists']] as const) {
          if (body[k] && !(await trx(table).where({ id: body[k] }).first('id'))) errors.push(`${k} ${body[k]} not found`);
        }
        const c = body.conditions;
        if (c?.validFrom && c.validTo && c.validFrom > c.validTo) errors.push('conditions.validFrom is after conditions.validTo');
        return { success: true, message: errors.length ? 'Split is not valid' : 'Split is valid', data: { valid: errors.length === 0, total, errors } };
      },
    }),
  ]);
}
