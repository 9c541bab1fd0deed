/**
 * Artist, asset and product routes (docs/catalogue.md). Catalogue error shape. Reads: guest
 * and up; writes: admin and up. Static paths are registered before `/:id` ones.
 */
import { ARTIST_NAMES, ASSET_NAMES, PRODUCT_NAMES } from './reference-names';
import type Router from '@koa/router';
import { checkingOwnership, defineRoutes, route } from '../../http/route';
import { assertOwnItemOfPath, ownScope } from './common';
import { OpenObject, DataAnswer, Int32, PagedAnswer, Strict, Type, Uuid } from '../../http/schema';
import { BulkDeleteAnswer } from '../../http/crud';
import type { AppServices } from '../../services';
import * as S from './schemas';
import * as C from './service';
import * as O from './operations';
import { saveSplit } from './split-operations';
import * as Res from './responses';

/**
 * What differs between the recording and product routes that otherwise repeat each other.
 * The rest follows from the kind: its table and plural (`assets`), its name in messages
 * (`Asset`), its 404 code (`ASSET_NOT_FOUND`), its bulk body (`{assets: [...]}`).
 */
const ITEM = {
  asset: {
    noun: 'recording', referenceNames: ASSET_NAMES, collection: '/asset', bulkSplitsMethod: 'post', withIds: true, counts: 'products, splits, media, split changes', oneMessage: 'Asset retrieved successfully',
    summaries: { create: 'Create a recording (ISRC normalised, unique) (admin)', list: 'List recordings (paged; search title/ISRC/artist; filters)', bulk: 'Create many recordings; bad items reported in errors (admin)', one: 'One recording' },
    view: Res.AssetView, stats: Res.AssetStats, created: Res.AssetsCreated,
    body: S.AssetBody, patch: S.AssetPatch, query: S.AssetListQuery, create: O.createAsset, list: C.listAssets, get: C.getAsset, update: O.updateAsset,
  },
  product: {
    noun: 'product', referenceNames: PRODUCT_NAMES, collection: '/product/', bulkSplitsMethod: 'put', withIds: false, counts: 'tracks, splits, media, split changes', oneMessage: 'Product',
    summaries: { create: 'Create a product (UPC/EAN normalised, check digit, unique) (admin)', list: 'List products (paged; search title/UPC/artist; filters)', bulk: 'Create many products; duplicates and bad items reported in errors (admin)', one: 'One product' },
    view: Res.ProductView, stats: Res.ProductStats, created: Res.ProductsCreated,
    body: S.ProductBody, patch: S.ProductPatch, query: S.ProductListQuery, create: O.createProduct, list: C.listProducts, get: C.getProduct, update: O.updateProduct,
  },
} as const;

/**
 * The routes recordings and products share: create, list, bulk create, bulk split changes and
 * deletes (static paths, registered before `/:id`), then one item, its update, delete, artists,
 * counts and default split.
 */
function itemRoutes(kind: 'asset' | 'product') {
  const k = ITEM[kind];
  const base = `/${kind}`;
  const plural = `${kind}s` as const;
  const What = `${kind[0]!.toUpperCase()}${kind.slice(1)}`;
  const nouns = `${k.noun}s`;
  return [
    route({
      method: 'post', path: k.collection, responses: { 201: DataAnswer(k.view, true) }, summary: k.summaries.create, access: 'admin', status: 201, body: k.body, referenceNames: k.referenceNames,
      async handler({ trx, tenantId, auth, body }) {
        return { success: true, message: `${What} created`, data: await k.create(trx, tenantId, auth, body as never) };
      },
    }),
    route({
      method: 'get', path: k.collection, responses: { 200: PagedAnswer(k.view) }, summary: k.summaries.list, access: 'guest', query: k.query, referenceNames: k.referenceNames,
      async handler({ trx, auth, query }) {
        return { success: true, message: `${What}s`, ...(await k.list(trx, { ...(query as object), visible: ownScope(trx, auth, kind, kind === 'asset' ? 'a' : 'p') } as never)) };
      },
    }),
    route({
      method: 'post', path: `${base}/bulk`, responses: { 200: k.created }, summary: k.summaries.bulk, access: 'admin', body: S.bulkBody(plural), items: { field: plural, schema: k.body },
      async handler({ trx, tenantId, auth, body }) {
        const items = (body as Record<string, unknown[]>)[plural]!;
        const r = await O.bulkCreateItems(trx, tenantId, auth, kind, items);
        const ids = k.withIds ? { ids: r.ids } : {};
        return { message: `${r.created.length} of ${items.length} ${plural} created`, [`created${What}s`]: r.created, ...ids, processedCount: r.created.length, errors: r.errors };
      },
    }),
    route({
      method: k.bulkSplitsMethod, path: `${base}/bulksplits`, responses: { 200: Res.SplitsSaved }, summary: `Set splits on many ${nouns}: items [{id, type?, split, conditions?}] (admin)`, access: 'admin', body: S.BulkSplitItems,
      async handler({ trx, tenantId, auth, body }) {
        const { processed, errors } = await O.bulkSetSplits(trx, tenantId, auth, kind, body.items, `bulk ${kind} splits`);
        return { success: true, message: `${processed} of ${body.items.length} ${kind} splits saved`, processed, errors };
      },
    }),
    route({
      method: 'post', path: `${base}/bulk/delete`, responses: { 200: BulkDeleteAnswer }, summary: `Delete ${nouns} by id; each failure in failedDeletions (admin)`, access: 'admin', body: S.IdsBody,
      async handler({ trx, auth, body }) {
        const r = await O.deleteMany(trx, auth, plural, body.ids, What, `${kind} deleted`);
        return { message: `${r.processedCount} of ${body.ids.length} ${plural} deleted`, ...r };
      },
    }),
    route({
      method: 'put', path: `${base}/bulk/defaultsplit`, responses: { 201: Res.DefaultSplitsApplied }, summary: `Each ${k.noun} gets the default split of its primary artist (admin)`, access: 'admin', status: 201,
      body: Strict({ [plural]: Type.Array(Uuid, { minItems: 1, maxItems: S.BULK_MAX }) }),
      async handler({ trx, tenantId, auth, body }) {
        const ids = (body as Record<string, string[]>)[plural]!;
        const { processed, errors } = await O.bulkDefaultSplit(trx, tenantId, auth, kind, ids);
        return { message: `Default split applied to ${processed} of ${ids.length} ${plural}`, processed, errors };
      },
    }),
    route({
      method: 'post', path: `${base}/bulk/deletesplit`, responses: { 200: BulkDeleteAnswer }, summary: `Remove the splits (optionally of one type) of many ${nouns} (admin)`, access: 'admin', body: S.IdsTypeBody,
      async handler({ trx, auth, body }) {
        const r = await O.bulkDeleteSplits(trx, auth, kind, body.ids, body.type);
        return { message: `Splits removed from ${r.processedCount} ${plural}`, ...r };
      },
    }),
    route({
      method: 'get', path: `${base}/:id`, responses: { 200: DataAnswer(k.view, true) }, summary: k.summaries.one, access: 'guest', params: S.IdParams, referenceNames: k.referenceNames,
      async handler({ trx, params }) {
        return { success: true, message: k.oneMessage, data: await k.get(trx, params.id) };
      },
    }),
    route({
      method: 'put', path: `${base}/:id`, responses: { 200: DataAnswer(k.view, true) }, summary: `Update a ${k.noun} (admin)`, access: 'admin', params: S.IdParams, body: k.patch, referenceNames: k.referenceNames,
      async handler({ trx, tenantId, auth, params, body }) {
        return { success: true, message: `${What} updated`, data: await k.update(trx, tenantId, auth, params.id, body as never) };
      },
    }),
    route({
      method: 'delete', path: `${base}/:id`, responses: { 200: DataAnswer(Type.Object({ id: Uuid }), true) }, summary: `Delete a ${k.noun} with its links, splits and media (admin)`, access: 'admin', params: S.IdParams,
      async handler({ trx, auth, params }) {
        await O.deleteOne(trx, auth, plural, params.id, What, `${kind.toUpperCase()}_NOT_FOUND`);
        return { success: true, message: `${What} deleted`, data: { id: params.id } };
      },
    }),
    route({
      method: 'put', path: `${base}/:id/artists`, responses: { 200: DataAnswer(k.view, true) }, summary: `Replace the artists of a ${k.noun} (ids or names; first is primary) (admin)`, access: 'admin', params: S.IdParams,
      body: Strict({ artists: Type.Array(Type.String({ maxLength: 300 }), { maxItems: 100 }) }),
      async handler({ trx, tenantId, auth, params, body }) {
        return { success: true, message: `${What} artists updated`, data: await k.update(trx, tenantId, auth, params.id, { artists: body.artists }) };
      },
    }),
    route({
      method: 'get', path: `${base}/:id/stats`, responses: { 200: DataAnswer(k.stats, true) }, summary: `Counts of a ${k.noun}: ${k.counts}`, access: 'guest', params: S.IdParams,
      async handler({ trx, params }) {
        return { success: true, message: `${What} stats`, data: await O.entityStats(trx, kind, params.id) };
      },
    }),
    route({
      method: 'put', path: `${base}/:id/setdefaultsplit`, responses: { 200: DataAnswer(Res.DefaultSplitApplied, true) }, summary: `Copy the primary artist's default splits onto the ${k.noun} (admin)`, access: 'admin', params: S.IdParams,
      async handler({ trx, tenantId, auth, params }) {
        return { success: true, message: 'Default split applied', data: await O.setDefaultSplit(trx, tenantId, auth, kind, params.id) };
      },
    }),
  ];
}

export function registerCatalogueRoutes(router: Router, svc: AppServices): void {
  // ---------------------------------------------------------------- artists
  defineRoutes(router, svc, { tag: 'Artist', errorShape: 'catalogue', scope: 'own' }, checkingOwnership([
    route({
      method: 'post', path: '/artist/', responses: { 201: Res.PostArtist }, summary: 'Create an artist (admin)', access: 'admin', status: 201, body: S.ArtistBody, referenceNames: ARTIST_NAMES,
      async handler({ trx, tenantId, body }) {
        return { success: true, message: 'Artist created', data: await C.createArtist(trx, tenantId, body) };
      },
    }),
    route({
      method: 'get', path: '/artist/', responses: { 200: Res.GetArtist }, summary: 'List artists (paged; search by name; filter by member)', access: 'guest', query: S.ArtistListQuery, referenceNames: ARTIST_NAMES,
      async handler({ trx, auth, query }) {
        return { success: true, message: 'Artists', ...(await C.listArtists(trx, { ...query, visible: ownScope(trx, auth, 'artist', 'ar') })) };
      },
    }),
    route({
      method: 'post', path: '/artist/bulk', responses: { 200: Type.Object({ message: Type.String(), createdArtists: Type.Array(Type.Unknown()), processedCount: Type.Number(), errors: Type.Array(Type.String()) }) }, summary: 'Create many artists; bad items reported in errors (admin)', access: 'admin', body: S.BulkArtists, items: { field: 'artists', schema: S.ArtistBody },
      async handler({ trx, tenantId, body }) {
        const { createdArtists, errors } = await O.bulkCreateArtists(trx, tenantId, body.artists);
        return { message: `${createdArtists.length} of ${body.artists.length} artists created`, createdArtists, processedCount: createdArtists.length, errors };
      },
    }),
    route({
      method: 'post', path: '/artist/bulk/delete', responses: { 200: Res.PostArtistBulkDelete }, summary: 'Delete artists by id; each failure in failedDeletions (admin)', access: 'admin', body: S.IdsBody,
      async handler({ trx, auth, body }) {
        const r = await O.deleteMany(trx, auth, 'artists', body.ids, 'Artist', 'artist deleted');
        return { message: `${r.processedCount} of ${body.ids.length} artists deleted`, ...r };
      },
    }),
    route({
      method: 'post', path: '/artist/bulksplit', responses: { 200: Res.PostArtistBulksplit }, summary: 'Set the same default split on many artists (admin)', access: 'admin',
      body: Strict({ artists: Type.Array(Uuid, { minItems: 1, maxItems: S.BULK_MAX }), type: Type.Optional(S.SplitTypeField), split: S.ShareList, conditions: Type.Optional(S.Conditions) }),
      async handler({ trx, tenantId, auth, body }) {
        const items = body.artists.map((id) => ({ id, type: body.type, split: body.split, conditions: body.conditions }));
        const { processed, errors } = await O.bulkSetSplits(trx, tenantId, auth, 'artist', items, 'bulk artist default split');
        return { success: true, message: `Default split set on ${processed} of ${body.artists.length} artists`, processed, errors };
      },
    }),
    route({
      method: 'get', path: '/artist/stats/:id', responses: { 200: Res.GetArtistStatsById }, summary: 'Counts of an artist: recordings, products, splits, releases, members', access: 'guest', params: S.IdParams,
      async handler({ trx, params }) {
        return { success: true, message: 'Artist stats', data: await O.entityStats(trx, 'artist', params.id) };
      },
    }),
    route({
      method: 'get', path: '/artist/:id', responses: { 200: Res.GetArtistById }, summary: 'One artist', access: 'guest', params: S.IdParams, referenceNames: ARTIST_NAMES,
      async handler({ trx, params }) {
        return { success: true, message: 'Artist', data: await C.getArtist(trx, params.id) };
      },
    }),
    route({
      method: 'put', path: '/artist/:id', responses: { 200: Res.GetArtistById }, summary: 'Update an artist; `users` replaces the members tied to it (admin)', access: 'admin', params: S.IdParams, body: S.ArtistPatch, referenceNames: ARTIST_NAMES,
      async handler({ ctx, trx, tenantId, params, body }) {
        // the reference's descriptive fields without `metadata` change those keys only
        const sent = (ctx.request as unknown as { body?: Record<string, unknown> }).body ?? {};
        if (body.metadata && !('metadata' in sent)) body = { ...body, metadata: { ...(await C.getArtist(trx, params.id)).metadata, ...body.metadata } };
        return { success: true, message: 'Artist updated', data: await C.updateArtist(trx, tenantId, params.id, body) };
      },
    }),
    route({
      method: 'delete', path: '/artist/:id', responses: { 200: DataAnswer(Type.Object({ id: Uuid }), true) }, summary: 'Delete an artist with its links and default splits (admin)', access: 'admin', params: S.IdParams,
      async handler({ trx, auth, params }) {
        await O.deleteOne(trx, auth, 'artists', params.id, 'Artist', 'ARTIST_NOT_FOUND');
        return { success: true, message: 'Artist deleted', data: { id: params.id } };
      },
    }),
    route({
      method: 'put', path: '/artist/:id/merge', responses: { 200: Res.PutArtistByIdMerge }, summary: 'Merge the listed artists into this one: every link, release and split moves (admin)', access: 'admin', params: S.IdParams,
      body: Strict({ artists: Type.Array(Uuid, { minItems: 1, maxItems: 100 }) }),
      async handler({ trx, tenantId, auth, params, body }) {
        return { success: true, message: 'Artists merged', data: await O.mergeArtists(trx, tenantId, auth, params.id, body.artists) };
      },
    }),
    route({
      method: 'get', path: '/artist/:id/assets', responses: { 200: Res.GetArtistByIdAssets }, summary: 'Recordings of an artist (paged, same list conventions)', access: 'guest', params: S.IdParams, query: S.AssetListQuery, referenceNames: ASSET_NAMES,
      async handler({ trx, params, query }) {
        return { success: true, message: 'Artist assets', ...(await O.artistAssets(trx, params.id, query)) };
      },
    }),
    route({
      method: 'get', path: '/artist/:id/products', responses: { 200: PagedAnswer(OpenObject({ id: Uuid, title: Type.String() }, 'A product of the artist')) }, summary: 'Products of an artist (paged)', access: 'guest', params: S.IdParams, query: S.ProductListQuery, referenceNames: PRODUCT_NAMES,
      async handler({ trx, params, query }) {
        return { success: true, message: 'Artist products', ...(await O.artistProducts(trx, params.id, query)) };
      },
    }),
    route({
      method: 'get', path: '/artist/:id/splits', responses: { 200: Res.GetArtistByIdSplits }, summary: 'Default splits of an artist (every type and condition)', access: 'guest', params: S.IdParams,
      async handler({ trx, params }) {
        return { success: true, message: 'Artist default splits', data: await O.artistSplits(trx, params.id) };
      },
    }),
    route({
      method: 'post', path: '/artist/:id/splits', responses: { 201: Res.PostArtistByIdSplits }, summary: 'Set a default split of an artist (type default all) (admin)', access: 'admin', status: 201, params: S.IdParams,
      body: Strict({ type: Type.Optional(S.SplitTypeField), split: S.ShareList, conditions: Type.Optional(S.Conditions), name: Type.Optional(Type.String({ maxLength: 200 })) }),
      async handler({ trx, tenantId, auth, params, body }) {
        const r = await saveSplit(trx, tenantId, auth, { target: 'artist', targetId: params.id, ...body });
        return { success: true, message: r.created ? 'Default split created' : 'Default split updated', data: r.split };
      },
    }),
    route({
      method: 'get', path: '/artist/:id/splits/:type', responses: { 200: Res.GetArtistByIdSplitsByType }, summary: 'Default splits of an artist for one type', access: 'guest', params: Type.Object({ id: Uuid, type: S.SplitTypeField }),
      async handler({ trx, params }) {
        const data = await O.artistSplits(trx, params.id, params.type);
        return { success: true, message: 'Artist default split', data };
      },
    }),
    route({
      method: 'put', path: '/artist/:id/splits/:type', responses: { 200: Res.PutArtistByIdSplitsByType }, summary: 'Create or replace the default split of an artist for one type (admin)', access: 'admin', params: Type.Object({ id: Uuid, type: S.SplitTypeField }),
      body: Strict({ split: S.ShareList, conditions: Type.Optional(S.Conditions), name: Type.Optional(Type.String({ maxLength: 200 })) }),
      async handler({ trx, tenantId, auth, params, body }) {
        const r = await saveSplit(trx, tenantId, auth, { target: 'artist', targetId: params.id, type: params.type, ...body });
        return { success: true, message: r.created ? 'Default split created' : 'Default split updated', data: r.split };
      },
    }),
    route({
      method: 'delete', path: '/artist/:id/splits/:type', responses: { 200: Res.DeleteArtistByIdSplitsByType }, summary: 'Delete the default splits of an artist for one type (admin)', access: 'admin', params: Type.Object({ id: Uuid, type: S.SplitTypeField }),
      async handler({ trx, auth, params }) {
        const deleted = await O.deleteArtistSplitsOfType(trx, auth, params.id, params.type);
        return { success: true, message: 'Default split deleted', data: { deleted } };
      },
    }),
  ], assertOwnItemOfPath));

  // ---------------------------------------------------------------- assets
  // GET /asset/{assetId}/works is the publishing area's (publishing/routes.ts)
  defineRoutes(router, svc, { tag: 'Asset', errorShape: 'catalogue', scope: 'own' }, checkingOwnership(itemRoutes('asset'), assertOwnItemOfPath));

  // ---------------------------------------------------------------- products
  defineRoutes(router, svc, { tag: 'Product', errorShape: 'catalogue', scope: 'own' }, checkingOwnership([
    ...itemRoutes('product'),
    route({
      method: 'put', path: '/product/:id/assets', responses: { 200: Res.PutProductByIdAssets }, summary: 'Replace the tracks of a product, in order (admin)', access: 'admin', params: S.IdParams,
      body: Strict({ assets: Type.Array(Type.Union([Uuid, Strict({ id: Uuid, trackNumber: Type.Optional(Int32({ minimum: 1 })), discNumber: Type.Optional(Int32({ minimum: 1 })) })]), { maxItems: 500 }) }),
      async handler({ trx, tenantId, params, body }) {
        return { success: true, message: 'Product tracks updated', data: await O.replaceProductTracks(trx, tenantId, params.id, body.assets) };
      },
    }),
  ], assertOwnItemOfPath));
}
