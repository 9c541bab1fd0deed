/**
 * Artist, asset and product routes (spec 4.1, 4.3). Catalogue error shape. Reads: guest
 * and up; writes: admin and up. Static paths are registered before `/:id` ones.
 */
import type Router from '@koa/router';
import type { TSchema } from '@sinclair/typebox';
import { defineRoutes, route } from '../../http/route';
import { Int32, itemProblems as checkItem, Strict, Type, Uuid } from '../../http/schema';
import type { AppServices } from '../../services';
import type { AuthContext } from '../auth/tokens';
import type { Trx } from '../../db';
import { NotFoundError } from '../../lib/errors';
import * as S from './schemas';
import * as C from './service';
import { setActor } from './common';
import { bulkInsertAssets, bulkInsertProducts } from './bulk';
import { applyArtistDefault, deleteSplits, splitsOf, upsertSplit } from '../splits/service';

/** Validate one bulk item against its schema: a list of problems, empty when fine. */
function itemProblems(schema: TSchema, item: unknown): string[] {
  return checkItem(schema, item, 'item');
}

async function bulkSplits(trx: Trx, tenantId: number, auth: AuthContext, target: 'asset' | 'product', items: { id: string; type?: string; split: { user: string; share: number | string }[]; conditions?: unknown }[]) {
  await setActor(trx, auth, `bulk ${target} splits`);
  let processed = 0;
  const errors: string[] = [];
  for (const it of items) {
    try {
      await trx.transaction((sp) => upsertSplit(sp, tenantId, auth.tenantUserId, { target, targetId: it.id, type: it.type, split: it.split, conditions: it.conditions as never }));
      processed++;
    } catch (err) {
      errors.push(`${it.id}: ${C.describe(err)}`);
    }
  }
  return { success: true, message: `${processed} of ${items.length} ${target} splits saved`, processed, errors };
}

async function bulkDefaultSplit(trx: Trx, tenantId: number, auth: AuthContext, target: 'asset' | 'product', ids: string[]) {
  await setActor(trx, auth, `default split applied to ${target}`);
  let processed = 0;
  const errors: string[] = [];
  for (const id of ids) {
    try {
      await trx.transaction((sp) => applyArtistDefault(sp, tenantId, auth.tenantUserId, target, id));
      processed++;
    } catch (err) {
      const msg = C.describe(err);
      errors.push(msg.startsWith(id) ? msg : `${id}: ${msg}`);
    }
  }
  return { message: `Default split applied to ${processed} of ${ids.length} ${target}s`, processed, errors };
}

async function bulkDeleteSplits(trx: Trx, auth: AuthContext, target: 'asset' | 'product', ids: string[], type?: string) {
  await setActor(trx, auth, `bulk delete ${target} splits`);
  const table = target === 'asset' ? 'assets' : 'products';
  const col = target === 'asset' ? 'asset_id' : 'product_id';
  const found = new Set((await trx(table).whereIn('id', ids).select('id')).map((r) => r.id as string));
  const failedDeletions: { id: string; error: string }[] = [];
  let processedCount = 0;
  for (const id of [...new Set(ids)]) {
    if (!found.has(id)) {
      failedDeletions.push({ id, error: `${target} not found` });
      continue;
    }
    const splitIds = (await trx('splits').where({ [col]: id }).modify((b) => (type ? b.where({ type }) : b)).select('id')).map((r: { id: string }) => r.id);
    if (!splitIds.length) {
      failedDeletions.push({ id, error: `${target} has no split${type ? ` of type ${type}` : ''}` });
      continue;
    }
    await deleteSplits(trx, splitIds);
    processedCount++;
  }
  return { message: `Splits removed from ${processedCount} ${target}s`, processedCount, failedDeletions };
}

export function registerCatalogueRoutes(router: Router, svc: AppServices): void {
  // ---------------------------------------------------------------- artists
  defineRoutes(router, svc, { tag: 'Artist', errorShape: 'catalogue' }, [
    route({
      method: 'post', path: '/artist/', summary: 'Create an artist (admin)', access: 'admin', status: 201, body: S.ArtistBody,
      async handler({ trx, tenantId, body }) {
        return { success: true, message: 'Artist created', data: await C.createArtist(trx, tenantId, body) };
      },
    }),
    route({
      method: 'get', path: '/artist/', summary: 'List artists (paged; search by name; filter by member)', access: 'guest', query: S.ArtistListQuery,
      async handler({ trx, query }) {
        return { success: true, message: 'Artists', ...(await C.listArtists(trx, query)) };
      },
    }),
    route({
      method: 'post', path: '/artist/bulk', summary: 'Create many artists; bad items reported in errors (admin)', access: 'admin', body: S.BulkArtists, items: { field: 'artists', schema: S.ArtistBody },
      async handler({ trx, tenantId, body }) {
        const createdArtists: string[] = [];
        const errors: string[] = [];
        for (const [i, item] of body.artists.entries()) {
          const problems = itemProblems(S.ArtistBody, item);
          if (problems.length) { errors.push(`artists[${i}]: ${problems.join('; ')}`); continue; }
          try {
            const a = await trx.transaction((sp) => C.createArtist(sp, tenantId, item as never));
            createdArtists.push(a.name);
          } catch (err) { errors.push(`artists[${i}]: ${C.describe(err)}`); }
        }
        return { message: `${createdArtists.length} of ${body.artists.length} artists created`, createdArtists, processedCount: createdArtists.length, errors };
      },
    }),
    route({
      method: 'post', path: '/artist/bulk/delete', summary: 'Delete artists by id; each failure in failedDeletions (admin)', access: 'admin', body: S.IdsBody,
      async handler({ trx, auth, body }) {
        await setActor(trx, auth, 'artist deleted');
        const r = await C.bulkDelete(trx, 'artists', body.ids, 'Artist');
        return { message: `${r.processedCount} of ${body.ids.length} artists deleted`, ...r };
      },
    }),
    route({
      method: 'post', path: '/artist/bulksplit', summary: 'Set the same default split on many artists (admin)', access: 'admin',
      body: Strict({ artists: Type.Array(Uuid, { minItems: 1, maxItems: S.BULK_MAX }), type: Type.Optional(S.SplitTypeField), split: S.ShareList, conditions: Type.Optional(S.Conditions) }),
      async handler({ trx, tenantId, auth, body }) {
        await setActor(trx, auth, 'bulk artist default split');
        let processed = 0;
        const errors: string[] = [];
        for (const id of body.artists) {
          try {
            await trx.transaction((sp) => upsertSplit(sp, tenantId, auth.tenantUserId, { target: 'artist', targetId: id, type: body.type, split: body.split, conditions: body.conditions }));
            processed++;
          } catch (err) { errors.push(`${id}: ${C.describe(err)}`); }
        }
        return { success: true, message: `Default split set on ${processed} of ${body.artists.length} artists`, processed, errors };
      },
    }),
    route({
      method: 'get', path: '/artist/stats/:id', summary: 'Counts of an artist: recordings, products, splits, releases, members', access: 'guest', params: S.IdParams,
      async handler({ trx, params }) {
        await C.getArtist(trx, params.id);
        const n = async (q: ReturnType<Trx>) => Number((await q.count<{ c: string }[]>({ c: '*' }))[0]!.c);
        const stats = {
          assets: await n(trx('asset_artists').where({ artist_id: params.id })),
          products: await n(trx('product_artists').where({ artist_id: params.id })),
          defaultSplits: await n(trx('splits').where({ artist_id: params.id })),
          releases: await n(trx('releases').where({ artist_id: params.id })),
          users: await n(trx('artist_users').where({ artist_id: params.id })),
        };
        return { success: true, message: 'Artist stats', data: stats };
      },
    }),
    route({
      method: 'get', path: '/artist/:id', summary: 'One artist', access: 'guest', params: S.IdParams,
      async handler({ trx, params }) {
        return { success: true, message: 'Artist', data: await C.getArtist(trx, params.id) };
      },
    }),
    route({
      method: 'put', path: '/artist/:id', summary: 'Update an artist; `users` replaces the members tied to it (admin)', access: 'admin', params: S.IdParams, body: S.ArtistPatch,
      async handler({ trx, tenantId, params, body }) {
        return { success: true, message: 'Artist updated', data: await C.updateArtist(trx, tenantId, params.id, body) };
      },
    }),
    route({
      method: 'delete', path: '/artist/:id', summary: 'Delete an artist with its links and default splits (admin)', access: 'admin', params: S.IdParams,
      async handler({ trx, auth, params }) {
        await setActor(trx, auth, 'artist deleted');
        const r = await C.bulkDelete(trx, 'artists', [params.id], 'Artist');
        if (!r.processedCount) throw new NotFoundError('Artist', 'ARTIST_NOT_FOUND');
        return { success: true, message: 'Artist deleted', data: { id: params.id } };
      },
    }),
    route({
      method: 'put', path: '/artist/:id/merge', summary: 'Merge the listed artists into this one: every link, release and split moves (admin)', access: 'admin', params: S.IdParams,
      body: Strict({ artists: Type.Array(Uuid, { minItems: 1, maxItems: 100 }) }),
      async handler({ trx, tenantId, auth, params, body }) {
        await setActor(trx, auth, 'artist merge');
        return { success: true, message: 'Artists merged', data: await C.mergeArtists(trx, tenantId, params.id, body.artists) };
      },
    }),
    route({
      method: 'get', path: '/artist/:id/assets', summary: 'Recordings of an artist (paged, same list conventions)', access: 'guest', params: S.IdParams, query: S.AssetListQuery,
      async handler({ trx, params, query }) {
        await C.getArtist(trx, params.id);
        return { success: true, message: 'Artist assets', ...(await C.listAssets(trx, { ...query, artist: params.id })) };
      },
    }),
    route({
      method: 'get', path: '/artist/:id/products', summary: 'Products of an artist (paged)', access: 'guest', params: S.IdParams, query: S.ProductListQuery,
      async handler({ trx, params, query }) {
        await C.getArtist(trx, params.id);
        return { success: true, message: 'Artist products', ...(await C.listProducts(trx, { ...query, artist: params.id })) };
      },
    }),
    route({
      method: 'get', path: '/artist/:id/splits', summary: 'Default splits of an artist (every type and condition)', access: 'guest', params: S.IdParams,
      async handler({ trx, params }) {
        await C.getArtist(trx, params.id);
        return { success: true, message: 'Artist default splits', data: await splitsOf(trx, 'artist', params.id) };
      },
    }),
    route({
      method: 'post', path: '/artist/:id/splits', summary: 'Set a default split of an artist (type default all) (admin)', access: 'admin', status: 201, params: S.IdParams,
      body: Strict({ type: Type.Optional(S.SplitTypeField), split: S.ShareList, conditions: Type.Optional(S.Conditions), name: Type.Optional(Type.String({ maxLength: 200 })) }),
      async handler({ trx, tenantId, auth, params, body }) {
        await setActor(trx, auth);
        const r = await upsertSplit(trx, tenantId, auth.tenantUserId, { target: 'artist', targetId: params.id, ...body });
        return { success: true, message: r.created ? 'Default split created' : 'Default split updated', data: r.split };
      },
    }),
    route({
      method: 'get', path: '/artist/:id/splits/:type', summary: 'Default splits of an artist for one type', access: 'guest', params: Type.Object({ id: Uuid, type: S.SplitTypeField }),
      async handler({ trx, params }) {
        await C.getArtist(trx, params.id);
        const data = await splitsOf(trx, 'artist', params.id, params.type);
        if (!data.length) throw new NotFoundError(`Default split of type ${params.type}`, 'SPLIT_NOT_FOUND');
        return { success: true, message: 'Artist default split', data };
      },
    }),
    route({
      method: 'put', path: '/artist/:id/splits/:type', summary: 'Create or replace the default split of an artist for one type (admin)', access: 'admin', params: Type.Object({ id: Uuid, type: S.SplitTypeField }),
      body: Strict({ split: S.ShareList, conditions: Type.Optional(S.Conditions), name: Type.Optional(Type.String({ maxLength: 200 })) }),
      async handler({ trx, tenantId, auth, params, body }) {
        await setActor(trx, auth);
        const r = await upsertSplit(trx, tenantId, auth.tenantUserId, { target: 'artist', targetId: params.id, type: params.type, ...body });
        return { success: true, message: r.created ? 'Default split created' : 'Default split updated', data: r.split };
      },
    }),
    route({
      method: 'delete', path: '/artist/:id/splits/:type', summary: 'Delete the default splits of an artist for one type (admin)', access: 'admin', params: Type.Object({ id: Uuid, type: S.SplitTypeField }),
      async handler({ trx, auth, params }) {
        await setActor(trx, auth);
        await C.getArtist(trx, params.id);
        const ids = (await trx('splits').where({ artist_id: params.id, type: params.type }).select('id')).map((r) => r.id);
        if (!ids.length) throw new NotFoundError(`Default split of type ${params.type}`, 'SPLIT_NOT_FOUND');
        await deleteSplits(trx, ids);
        return { success: true, message: 'Default split deleted', data: { deleted: ids.length } };
      },
    }),
  ]);

  // ---------------------------------------------------------------- assets
  defineRoutes(router, svc, { tag: 'Asset', errorShape: 'catalogue' }, [
    route({
      method: 'post', path: '/asset', summary: 'Create a recording (ISRC normalised, unique) (admin)', access: 'admin', status: 201, body: S.AssetBody,
      async handler({ trx, tenantId, auth, body }) {
        await setActor(trx, auth);
        return { success: true, message: 'Asset created', data: await C.createAsset(trx, tenantId, auth.tenantUserId, body) };
      },
    }),
    route({
      method: 'get', path: '/asset', summary: 'List recordings (paged; search title/ISRC/artist; filters)', access: 'guest', query: S.AssetListQuery,
      async handler({ trx, query }) {
        return { success: true, message: 'Assets', ...(await C.listAssets(trx, query)) };
      },
    }),
    route({
      method: 'post', path: '/asset/bulk', summary: 'Create many recordings; bad items reported in errors (admin)', access: 'admin', body: S.BulkAssets, items: { field: 'assets', schema: S.AssetBody },
      async handler({ trx, tenantId, auth, body }) {
        await setActor(trx, auth, 'bulk asset import');
        const good: C.AssetInput[] = [];
        const pre: string[] = [];
        const idx: number[] = [];
        body.assets.forEach((item, i) => {
          const p = itemProblems(S.AssetBody, item);
          if (p.length) pre.push(`assets[${i}]: ${p.join('; ')}`);
          else { good.push(item as unknown as C.AssetInput); idx.push(i); }
        });
        const r = await bulkInsertAssets(trx, tenantId, auth.tenantUserId, good);
        const errors = [...pre, ...r.errors.map((e) => e.replace(/^assets\[(\d+)\]/, (_, n) => `assets[${idx[Number(n)]}]`))];
        return { message: `${r.created.length} of ${body.assets.length} assets created`, createdAssets: r.created, ids: r.ids, processedCount: r.created.length, errors };
      },
    }),
    route({
      method: 'post', path: '/asset/bulksplits', summary: 'Set splits on many recordings: items [{id, type?, split, conditions?}] (admin)', access: 'admin', body: S.BulkSplitItems,
      async handler({ trx, tenantId, auth, body }) {
        return bulkSplits(trx, tenantId, auth, 'asset', body.items);
      },
    }),
    route({
      method: 'post', path: '/asset/bulk/delete', summary: 'Delete recordings by id; each failure in failedDeletions (admin)', access: 'admin', body: S.IdsBody,
      async handler({ trx, auth, body }) {
        await setActor(trx, auth, 'asset deleted');
        const r = await C.bulkDelete(trx, 'assets', body.ids, 'Asset');
        return { message: `${r.processedCount} of ${body.ids.length} assets deleted`, ...r };
      },
    }),
    route({
      method: 'put', path: '/asset/bulk/defaultsplit', summary: 'Each recording gets the default split of its primary artist (admin)', access: 'admin', status: 201,
      body: Strict({ assets: Type.Array(Uuid, { minItems: 1, maxItems: S.BULK_MAX }) }),
      async handler({ trx, tenantId, auth, body }) {
        return bulkDefaultSplit(trx, tenantId, auth, 'asset', body.assets);
      },
    }),
    route({
      method: 'post', path: '/asset/bulk/deletesplit', summary: 'Remove the splits (optionally of one type) of many recordings (admin)', access: 'admin', body: S.IdsTypeBody,
      async handler({ trx, auth, body }) {
        return bulkDeleteSplits(trx, auth, 'asset', body.ids, body.type);
      },
    }),
    route({
      method: 'get', path: '/asset/:id', summary: 'One recording (spec 2.1)', access: 'guest', params: S.IdParams,
      async handler({ trx, params }) {
        return { success: true, message: 'Asset retrieved successfully', data: await C.getAsset(trx, params.id) };
      },
    }),
    route({
      method: 'put', path: '/asset/:id', summary: 'Update a recording (admin)', access: 'admin', params: S.IdParams, body: S.AssetPatch,
      async handler({ trx, tenantId, auth, params, body }) {
        await setActor(trx, auth);
        return { success: true, message: 'Asset updated', data: await C.updateAsset(trx, tenantId, auth.tenantUserId, params.id, body) };
      },
    }),
    route({
      method: 'delete', path: '/asset/:id', summary: 'Delete a recording with its links, splits and media (admin)', access: 'admin', params: S.IdParams,
      async handler({ trx, auth, params }) {
        await setActor(trx, auth, 'asset deleted');
        const r = await C.bulkDelete(trx, 'assets', [params.id], 'Asset');
        if (!r.processedCount) throw new NotFoundError('Asset', 'ASSET_NOT_FOUND');
        return { success: true, message: 'Asset deleted', data: { id: params.id } };
      },
    }),
    route({
      method: 'put', path: '/asset/:id/artists', summary: 'Replace the artists of a recording (ids or names; first is primary) (admin)', access: 'admin', params: S.IdParams,
      body: Strict({ artists: Type.Array(Type.String({ maxLength: 300 }), { maxItems: 100 }) }),
      async handler({ trx, tenantId, auth, params, body }) {
        return { success: true, message: 'Asset artists updated', data: await C.updateAsset(trx, tenantId, auth.tenantUserId, params.id, { artists: body.artists }) };
      },
    }),
    route({
      method: 'get', path: '/asset/:id/stats', summary: 'Counts of a recording: products, splits, media, split changes', access: 'guest', params: S.IdParams,
      async handler({ trx, params }) {
        await C.getAsset(trx, params.id);
        const n = async (q: ReturnType<Trx>) => Number((await q.count<{ c: string }[]>({ c: '*' }))[0]!.c);
        return {
          success: true, message: 'Asset stats',
          data: {
            products: await n(trx('product_assets').where({ asset_id: params.id })),
            splits: await n(trx('splits').where({ asset_id: params.id })),
            media: await n(trx('catalogue_media').where({ asset_id: params.id })),
            splitChanges: await n(trx('split_history').where({ asset_id: params.id })),
          },
        };
      },
    }),
    route({
      method: 'put', path: '/asset/:id/setdefaultsplit', summary: "Copy the primary artist's default splits onto the recording (admin)", access: 'admin', params: S.IdParams,
      async handler({ trx, tenantId, auth, params }) {
        await setActor(trx, auth, 'default split applied');
        return { success: true, message: 'Default split applied', data: await applyArtistDefault(trx, tenantId, auth.tenantUserId, 'asset', params.id) };
      },
    }),
    route({
      method: 'get', path: '/asset/:assetId/works', summary: 'Musical works of a recording (publishing is not built yet: always empty)', access: 'guest', params: Type.Object({ assetId: Uuid }),
      async handler({ trx, params }) {
        await C.getAsset(trx, params.assetId);
        return { success: true, message: 'Works', data: [] };
      },
    }),
  ]);

  // ---------------------------------------------------------------- products
  defineRoutes(router, svc, { tag: 'Product', errorShape: 'catalogue' }, [
    route({
      method: 'post', path: '/product/', summary: 'Create a product (UPC/EAN normalised, check digit, unique) (admin)', access: 'admin', status: 201, body: S.ProductBody,
      async handler({ trx, tenantId, auth, body }) {
        await setActor(trx, auth);
        return { success: true, message: 'Product created', data: await C.createProduct(trx, tenantId, auth.tenantUserId, body) };
      },
    }),
    route({
      method: 'get', path: '/product/', summary: 'List products (paged; search title/UPC/artist; filters)', access: 'guest', query: S.ProductListQuery,
      async handler({ trx, query }) {
        return { success: true, message: 'Products', ...(await C.listProducts(trx, query)) };
      },
    }),
    route({
      method: 'post', path: '/product/bulk', summary: 'Create many products (spec 2.2); duplicates and bad items reported in errors (admin)', access: 'admin', body: S.BulkProducts, items: { field: 'products', schema: S.ProductBody },
      async handler({ trx, tenantId, auth, body }) {
        await setActor(trx, auth, 'bulk product import');
        const good: C.ProductInput[] = [];
        const idx: number[] = [];
        const pre: string[] = [];
        body.products.forEach((item, i) => {
          const p = itemProblems(S.ProductBody, item);
          if (p.length) pre.push(`products[${i}]: ${p.join('; ')}`);
          else { good.push(item as unknown as C.ProductInput); idx.push(i); }
        });
        const r = await bulkInsertProducts(trx, tenantId, auth.tenantUserId, good);
        const errors = [...pre, ...r.errors.map((e) => e.replace(/^products\[(\d+)\]/, (_, n) => `products[${idx[Number(n)]}]`))];
        return { message: `${r.created.length} of ${body.products.length} products created`, createdProducts: r.created, processedCount: r.created.length, errors };
      },
    }),
    route({
      method: 'put', path: '/product/bulk/defaultsplit', summary: 'Each product gets the default split of its primary artist (admin)', access: 'admin', status: 201,
      body: Strict({ products: Type.Array(Uuid, { minItems: 1, maxItems: S.BULK_MAX }) }),
      async handler({ trx, tenantId, auth, body }) {
        return bulkDefaultSplit(trx, tenantId, auth, 'product', body.products);
      },
    }),
    route({
      method: 'put', path: '/product/bulksplits', summary: 'Set splits on many products: items [{id, type?, split, conditions?}] (admin)', access: 'admin', body: S.BulkSplitItems,
      async handler({ trx, tenantId, auth, body }) {
        return bulkSplits(trx, tenantId, auth, 'product', body.items);
      },
    }),
    route({
      method: 'post', path: '/product/bulk/delete', summary: 'Delete products by id; each failure in failedDeletions (admin)', access: 'admin', body: S.IdsBody,
      async handler({ trx, auth, body }) {
        await setActor(trx, auth, 'product deleted');
        const r = await C.bulkDelete(trx, 'products', body.ids, 'Product');
        return { message: `${r.processedCount} of ${body.ids.length} products deleted`, ...r };
      },
    }),
    route({
      method: 'post', path: '/product/bulk/deletesplit', summary: 'Remove the splits (optionally of one type) of many products (admin)', access: 'admin', body: S.IdsTypeBody,
      async handler({ trx, auth, body }) {
        return bulkDeleteSplits(trx, auth, 'product', body.ids, body.type);
      },
    }),
    route({
      method: 'get', path: '/product/:id', summary: 'One product', access: 'guest', params: S.IdParams,
      async handler({ trx, params }) {
        return { success: true, message: 'Product', data: await C.getProduct(trx, params.id) };
      },
    }),
    route({
      method: 'put', path: '/product/:id', summary: 'Update a product (admin)', access: 'admin', params: S.IdParams, body: S.ProductPatch,
      async handler({ trx, tenantId, auth, params, body }) {
        await setActor(trx, auth);
        return { success: true, message: 'Product updated', data: await C.updateProduct(trx, tenantId, auth.tenantUserId, params.id, body) };
      },
    }),
    route({
      method: 'delete', path: '/product/:id', summary: 'Delete a product with its links, splits and media (admin)', access: 'admin', params: S.IdParams,
      async handler({ trx, auth, params }) {
        await setActor(trx, auth, 'product deleted');
        const r = await C.bulkDelete(trx, 'products', [params.id], 'Product');
        if (!r.processedCount) throw new NotFoundError('Product', 'PRODUCT_NOT_FOUND');
        return { success: true, message: 'Product deleted', data: { id: params.id } };
      },
    }),
    route({
      method: 'put', path: '/product/:id/artists', summary: 'Replace the artists of a product (ids or names; first is primary) (admin)', access: 'admin', params: S.IdParams,
      body: Strict({ artists: Type.Array(Type.String({ maxLength: 300 }), { maxItems: 100 }) }),
      async handler({ trx, tenantId, auth, params, body }) {
        return { success: true, message: 'Product artists updated', data: await C.updateProduct(trx, tenantId, auth.tenantUserId, params.id, { artists: body.artists }) };
      },
    }),
    route({
      method: 'put', path: '/product/:id/assets', summary: 'Replace the tracks of a product, in order (admin)', access: 'admin', params: S.IdParams,
      body: Strict({ assets: Type.Array(Type.Union([Uuid, Strict({ id: Uuid, trackNumber: Type.Optional(Int32({ minimum: 1 })), discNumber: Type.Optional(Int32({ minimum: 1 })) })]), { maxItems: 500 }) }),
      async handler({ trx, tenantId, params, body }) {
        await C.getProduct(trx, params.id);
        await C.setProductAssets(trx, tenantId, params.id, body.assets.map((a) => (typeof a === 'string' ? { id: a } : a)));
        return { success: true, message: 'Product tracks updated', data: await C.getProduct(trx, params.id) };
      },
    }),
    route({
      method: 'get', path: '/product/:id/stats', summary: 'Counts of a product: tracks, splits, media, split changes', access: 'guest', params: S.IdParams,
      async handler({ trx, params }) {
        await C.getProduct(trx, params.id);
        const n = async (q: ReturnType<Trx>) => Number((await q.count<{ c: string }[]>({ c: '*' }))[0]!.c);
        return {
          success: true, message: 'Product stats',
          data: {
            tracks: await n(trx('product_assets').where({ product_id: params.id })),
            splits: await n(trx('splits').where({ product_id: params.id })),
            media: await n(trx('catalogue_media').where({ product_id: params.id })),
            splitChanges: await n(trx('split_history').where({ product_id: params.id })),
          },
        };
      },
    }),
    route({
      method: 'put', path: '/product/:id/setdefaultsplit', summary: "Copy the primary artist's default splits onto the product (admin)", access: 'admin', params: S.IdParams,
      async handler({ trx, tenantId, auth, params }) {
        await setActor(trx, auth, 'default split applied');
        return { success: true, message: 'Default split applied', data: await applyArtistDefault(trx, tenantId, auth.tenantUserId, 'product', params.id) };
      },
    }),
  ]);
}
