/**
 * Artist, asset and product routes (spec 4.1, 4.3). Catalogue error shape. Reads: guest
 * and up; writes: admin and up. Static paths are registered before `/:id` ones.
 */
import type Router from '@koa/router';
import { defineRoutes, route } from '../../http/route';
import { Strict, Type, Uuid } from '../../http/schema';
import type { AppServices } from '../../services';
import * as S from './schemas';
import * as C from './service';
import * as O from './operations';
import { saveSplit } from '../splits/operations';

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
      method: 'post', path: '/artist/bulk', summary: 'Create many artists; bad items reported in errors (admin)', access: 'admin', body: S.BulkArtists,
      async handler({ trx, tenantId, body }) {
        const { createdArtists, errors } = await O.bulkCreateArtists(trx, tenantId, body.artists);
        return { message: `${createdArtists.length} of ${body.artists.length} artists created`, createdArtists, processedCount: createdArtists.length, errors };
      },
    }),
    route({
      method: 'post', path: '/artist/bulk/delete', summary: 'Delete artists by id; each failure in failedDeletions (admin)', access: 'admin', body: S.IdsBody,
      async handler({ trx, auth, body }) {
        const r = await O.deleteMany(trx, auth, 'artists', body.ids, 'Artist', 'artist deleted');
        return { message: `${r.processedCount} of ${body.ids.length} artists deleted`, ...r };
      },
    }),
    route({
      method: 'post', path: '/artist/bulksplit', summary: 'Set the same default split on many artists (admin)', access: 'admin',
      body: Strict({ artists: Type.Array(Uuid, { minItems: 1, maxItems: S.BULK_MAX }), type: Type.Optional(S.SplitTypeField), split: S.ShareList, conditions: Type.Optional(S.Conditions) }),
      async handler({ trx, tenantId, auth, body }) {
        const items = body.artists.map((id) => ({ id, type: body.type, split: body.split, conditions: body.conditions }));
        const { processed, errors } = await O.bulkSetSplits(trx, tenantId, auth, 'artist', items, 'bulk artist default split');
        return { success: true, message: `Default split set on ${processed} of ${body.artists.length} artists`, processed, errors };
      },
    }),
    route({
      method: 'get', path: '/artist/stats/:id', summary: 'Counts of an artist: recordings, products, splits, releases, members', access: 'guest', params: S.IdParams,
      async handler({ trx, params }) {
        return { success: true, message: 'Artist stats', data: await O.entityStats(trx, 'artist', params.id) };
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
        await O.deleteOne(trx, auth, 'artists', params.id, 'Artist', 'ARTIST_NOT_FOUND');
        return { success: true, message: 'Artist deleted', data: { id: params.id } };
      },
    }),
    route({
      method: 'put', path: '/artist/:id/merge', summary: 'Merge the listed artists into this one: every link, release and split moves (admin)', access: 'admin', params: S.IdParams,
      body: Strict({ artists: Type.Array(Uuid, { minItems: 1, maxItems: 100 }) }),
      async handler({ trx, tenantId, auth, params, body }) {
        return { success: true, message: 'Artists merged', data: await O.mergeArtists(trx, tenantId, auth, params.id, body.artists) };
      },
    }),
    route({
      method: 'get', path: '/artist/:id/assets', summary: 'Recordings of an artist (paged, same list conventions)', access: 'guest', params: S.IdParams, query: S.AssetListQuery,
      async handler({ trx, params, query }) {
        return { success: true, message: 'Artist assets', ...(await O.artistAssets(trx, params.id, query)) };
      },
    }),
    route({
      method: 'get', path: '/artist/:id/products', summary: 'Products of an artist (paged)', access: 'guest', params: S.IdParams, query: S.ProductListQuery,
      async handler({ trx, params, query }) {
        return { success: true, message: 'Artist products', ...(await O.artistProducts(trx, params.id, query)) };
      },
    }),
    route({
      method: 'get', path: '/artist/:id/splits', summary: 'Default splits of an artist (every type and condition)', access: 'guest', params: S.IdParams,
      async handler({ trx, params }) {
        return { success: true, message: 'Artist default splits', data: await O.artistSplits(trx, params.id) };
      },
    }),
    route({
      method: 'post', path: '/artist/:id/splits', summary: 'Set a default split of an artist (type default all) (admin)', access: 'admin', status: 201, params: S.IdParams,
      body: Strict({ type: Type.Optional(S.SplitTypeField), split: S.ShareList, conditions: Type.Optional(S.Conditions), name: Type.Optional(Type.String({ maxLength: 200 })) }),
      async handler({ trx, tenantId, auth, params, body }) {
        const r = await saveSplit(trx, tenantId, auth, { target: 'artist', targetId: params.id, ...body });
        return { success: true, message: r.created ? 'Default split created' : 'Default split updated', data: r.split };
      },
    }),
    route({
      method: 'get', path: '/artist/:id/splits/:type', summary: 'Default splits of an artist for one type', access: 'guest', params: Type.Object({ id: Uuid, type: S.SplitTypeField }),
      async handler({ trx, params }) {
        const data = await O.artistSplits(trx, params.id, params.type);
        return { success: true, message: 'Artist default split', data };
      },
    }),
    route({
      method: 'put', path: '/artist/:id/splits/:type', summary: 'Create or replace the default split of an artist for one type (admin)', access: 'admin', params: Type.Object({ id: Uuid, type: S.SplitTypeField }),
      body: Strict({ split: S.ShareList, conditions: Type.Optional(S.Conditions), name: Type.Optional(Type.String({ maxLength: 200 })) }),
      async handler({ trx, tenantId, auth, params, body }) {
        const r = await saveSplit(trx, tenantId, auth, { target: 'artist', targetId: params.id, type: params.type, ...body });
        return { success: true, message: r.created ? 'Default split created' : 'Default split updated', data: r.split };
      },
    }),
    route({
      method: 'delete', path: '/artist/:id/splits/:type', summary: 'Delete the default splits of an artist for one type (admin)', access: 'admin', params: Type.Object({ id: Uuid, type: S.SplitTypeField }),
      async handler({ trx, auth, params }) {
        const deleted = await O.deleteArtistSplitsOfType(trx, auth, params.id, params.type);
        return { success: true, message: 'Default split deleted', data: { deleted } };
      },
    }),
  ]);

  // ---------------------------------------------------------------- assets
  defineRoutes(router, svc, { tag: 'Asset', errorShape: 'catalogue' }, [
    route({
      method: 'post', path: '/asset', summary: 'Create a recording (ISRC normalised, unique) (admin)', access: 'admin', status: 201, body: S.AssetBody,
      async handler({ trx, tenantId, auth, body }) {
        return { success: true, message: 'Asset created', data: await O.createAsset(trx, tenantId, auth, body) };
      },
    }),
    route({
      method: 'get', path: '/asset', summary: 'List recordings (paged; search title/ISRC/artist; filters)', access: 'guest', query: S.AssetListQuery,
      async handler({ trx, query }) {
        return { success: true, message: 'Assets', ...(await C.listAssets(trx, query)) };
      },
    }),
    route({
      method: 'post', path: '/asset/bulk', summary: 'Create many recordings; bad items reported in errors (admin)', access: 'admin', body: S.BulkAssets,
      async handler({ trx, tenantId, auth, body }) {
        const r = await O.bulkCreateAssets(trx, tenantId, auth, body.assets);
        return { message: `${r.created.length} of ${body.assets.length} assets created`, createdAssets: r.created, ids: r.ids, processedCount: r.created.length, errors: r.errors };
      },
    }),
    route({
      method: 'post', path: '/asset/bulksplits', summary: 'Set splits on many recordings: items [{id, type?, split, conditions?}] (admin)', access: 'admin', body: S.BulkSplitItems,
      async handler({ trx, tenantId, auth, body }) {
        const { processed, errors } = await O.bulkSetSplits(trx, tenantId, auth, 'asset', body.items, `bulk asset splits`);
        return { success: true, message: `${processed} of ${body.items.length} asset splits saved`, processed, errors };
      },
    }),
    route({
      method: 'post', path: '/asset/bulk/delete', summary: 'Delete recordings by id; each failure in failedDeletions (admin)', access: 'admin', body: S.IdsBody,
      async handler({ trx, auth, body }) {
        const r = await O.deleteMany(trx, auth, 'assets', body.ids, 'Asset', 'asset deleted');
        return { message: `${r.processedCount} of ${body.ids.length} assets deleted`, ...r };
      },
    }),
    route({
      method: 'put', path: '/asset/bulk/defaultsplit', summary: 'Each recording gets the default split of its primary artist (admin)', access: 'admin', status: 201,
      body: Strict({ assets: Type.Array(Uuid, { minItems: 1, maxItems: S.BULK_MAX }) }),
      async handler({ trx, tenantId, auth, body }) {
        const { processed, errors } = await O.bulkDefaultSplit(trx, tenantId, auth, 'asset', body.assets);
        return { message: `Default split applied to ${processed} of ${body.assets.length} assets`, processed, errors };
      },
    }),
    route({
      method: 'post', path: '/asset/bulk/deletesplit', summary: 'Remove the splits (optionally of one type) of many recordings (admin)', access: 'admin', body: S.IdsTypeBody,
      async handler({ trx, auth, body }) {
        const r = await O.bulkDeleteSplits(trx, auth, 'asset', body.ids, body.type);
        return { message: `Splits removed from ${r.processedCount} assets`, ...r };
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
        return { success: true, message: 'Asset updated', data: await O.updateAsset(trx, tenantId, auth, params.id, body) };
      },
    }),
    route({
      method: 'delete', path: '/asset/:id', summary: 'Delete a recording with its links, splits and media (admin)', access: 'admin', params: S.IdParams,
      async handler({ trx, auth, params }) {
        await O.deleteOne(trx, auth, 'assets', params.id, 'Asset', 'ASSET_NOT_FOUND');
        return { success: true, message: 'Asset deleted', data: { id: params.id } };
      },
    }),
    route({
      method: 'put', path: '/asset/:id/artists', summary: 'Replace the artists of a recording (ids or names; first is primary) (admin)', access: 'admin', params: S.IdParams,
      body: Strict({ artists: Type.Array(Type.String({ maxLength: 300 }), { maxItems: 100 }) }),
      async handler({ trx, tenantId, auth, params, body }) {
        return { success: true, message: 'Asset artists updated', data: await O.updateAsset(trx, tenantId, auth, params.id, { artists: body.artists }) };
      },
    }),
    route({
      method: 'get', path: '/asset/:id/stats', summary: 'Counts of a recording: products, splits, media, split changes', access: 'guest', params: S.IdParams,
      async handler({ trx, params }) {
        return { success: true, message: 'Asset stats', data: await O.entityStats(trx, 'asset', params.id) };
      },
    }),
    route({
      method: 'put', path: '/asset/:id/setdefaultsplit', summary: "Copy the primary artist's default splits onto the recording (admin)", access: 'admin', params: S.IdParams,
      async handler({ trx, tenantId, auth, params }) {
        return { success: true, message: 'Default split applied', data: await O.setDefaultSplit(trx, tenantId, auth, 'asset', params.id) };
      },
    }),
    route({
      method: 'get', path: '/asset/:assetId/works', summary: 'Musical works of a recording (publishing is not built yet: always empty)', access: 'guest', params: Type.Object({ assetId: Uuid }),
      async handler({ trx, params }) {
        return { success: true, message: 'Works', data: await O.assetWorks(trx, params.assetId) };
      },
    }),
  ]);

  // ---------------------------------------------------------------- products
  defineRoutes(router, svc, { tag: 'Product', errorShape: 'catalogue' }, [
    route({
      method: 'post', path: '/product/', summary: 'Create a product (UPC/EAN normalised, check digit, unique) (admin)', access: 'admin', status: 201, body: S.ProductBody,
      async handler({ trx, tenantId, auth, body }) {
        return { success: true, message: 'Product created', data: await O.createProduct(trx, tenantId, auth, body) };
      },
    }),
    route({
      method: 'get', path: '/product/', summary: 'List products (paged; search title/UPC/artist; filters)', access: 'guest', query: S.ProductListQuery,
      async handler({ trx, query }) {
        return { success: true, message: 'Products', ...(await C.listProducts(trx, query)) };
      },
    }),
    route({
      method: 'post', path: '/product/bulk', summary: 'Create many products (spec 2.2); duplicates and bad items reported in errors (admin)', access: 'admin', body: S.BulkProducts,
      async handler({ trx, tenantId, auth, body }) {
        const r = await O.bulkCreateProducts(trx, tenantId, auth, body.products);
        return { message: `${r.created.length} of ${body.products.length} products created`, createdProducts: r.created, processedCount: r.created.length, errors: r.errors };
      },
    }),
    route({
      method: 'put', path: '/product/bulk/defaultsplit', summary: 'Each product gets the default split of its primary artist (admin)', access: 'admin', status: 201,
      body: Strict({ products: Type.Array(Uuid, { minItems: 1, maxItems: S.BULK_MAX }) }),
      async handler({ trx, tenantId, auth, body }) {
        const { processed, errors } = await O.bulkDefaultSplit(trx, tenantId, auth, 'product', body.products);
        return { message: `Default split applied to ${processed} of ${body.products.length} products`, processed, errors };
      },
    }),
    route({
      method: 'put', path: '/product/bulksplits', summary: 'Set splits on many products: items [{id, type?, split, conditions?}] (admin)', access: 'admin', body: S.BulkSplitItems,
      async handler({ trx, tenantId, auth, body }) {
        const { processed, errors } = await O.bulkSetSplits(trx, tenantId, auth, 'product', body.items, `bulk product splits`);
        return { success: true, message: `${processed} of ${body.items.length} product splits saved`, processed, errors };
      },
    }),
    route({
      method: 'post', path: '/product/bulk/delete', summary: 'Delete products by id; each failure in failedDeletions (admin)', access: 'admin', body: S.IdsBody,
      async handler({ trx, auth, body }) {
        const r = await O.deleteMany(trx, auth, 'products', body.ids, 'Product', 'product deleted');
        return { message: `${r.processedCount} of ${body.ids.length} products deleted`, ...r };
      },
    }),
    route({
      method: 'post', path: '/product/bulk/deletesplit', summary: 'Remove the splits (optionally of one type) of many products (admin)', access: 'admin', body: S.IdsTypeBody,
      async handler({ trx, auth, body }) {
        const r = await O.bulkDeleteSplits(trx, auth, 'product', body.ids, body.type);
        return { message: `Splits removed from ${r.processedCount} products`, ...r };
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
        return { success: true, message: 'Product updated', data: await O.updateProduct(trx, tenantId, auth, params.id, body) };
      },
    }),
    route({
      method: 'delete', path: '/product/:id', summary: 'Delete a product with its links, splits and media (admin)', access: 'admin', params: S.IdParams,
      async handler({ trx, auth, params }) {
        await O.deleteOne(trx, auth, 'products', params.id, 'Product', 'PRODUCT_NOT_FOUND');
        return { success: true, message: 'Product deleted', data: { id: params.id } };
      },
    }),
    route({
      method: 'put', path: '/product/:id/artists', summary: 'Replace the artists of a product (ids or names; first is primary) (admin)', access: 'admin', params: S.IdParams,
      body: Strict({ artists: Type.Array(Type.String({ maxLength: 300 }), { maxItems: 100 }) }),
      async handler({ trx, tenantId, auth, params, body }) {
        return { success: true, message: 'Product artists updated', data: await O.updateProduct(trx, tenantId, auth, params.id, { artists: body.artists }) };
      },
    }),
    route({
      method: 'put', path: '/product/:id/assets', summary: 'Replace the tracks of a product, in order (admin)', access: 'admin', params: S.IdParams,
      body: Strict({ assets: Type.Array(Type.Union([Uuid, Strict({ id: Uuid, trackNumber: Type.Optional(Type.Integer({ minimum: 1 })), discNumber: Type.Optional(Type.Integer({ minimum: 1 })) })]), { maxItems: 500 }) }),
      async handler({ trx, tenantId, params, body }) {
        return { success: true, message: 'Product tracks updated', data: await O.replaceProductTracks(trx, tenantId, params.id, body.assets) };
      },
    }),
    route({
      method: 'get', path: '/product/:id/stats', summary: 'Counts of a product: tracks, splits, media, split changes', access: 'guest', params: S.IdParams,
      async handler({ trx, params }) {
        return { success: true, message: 'Product stats', data: await O.entityStats(trx, 'product', params.id) };
      },
    }),
    route({
      method: 'put', path: '/product/:id/setdefaultsplit', summary: "Copy the primary artist's default splits onto the product (admin)", access: 'admin', params: S.IdParams,
      async handler({ trx, tenantId, auth, params }) {
        return { success: true, message: 'Default split applied', data: await O.setDefaultSplit(trx, tenantId, auth, 'product', params.id) };
      },
    }),
  ]);
}
