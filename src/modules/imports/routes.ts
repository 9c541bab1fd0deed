/**
 * Catalogue import (docs/catalogue-import.md). Admin or higher; errors in the
 * catalogue shape `{success:false, error:{code, message, details}}`.
 *
 *   GET  /providers                 the providers and whether this workspace can use them
 *   GET  /search                    live search of a provider (stages nothing)
 *   POST /fetch {provider, query}   → {data:{jobId, batchId}}: a job stages the items (never writes assets or products)
 *   GET  /job/{jobId}               the fetch job's state
 *   GET  /batch/{batchId}           the batch, counts per status, a page of items
 *   GET  /batch/{batchId}/diff      staged vs current catalogue, field by field
 *   PUT  /items/{id}                edit a pending item's staged fields
 *   POST /apply {batchId | itemIds} → {data:{imported, failed}}; only pending items
 *   POST /reject {batchId | itemIds} → {data:{rejected}}
 */
import type Router from '@koa/router';
import { defineRoutes, route } from '../../http/route';
import { IdParams, ok } from '../../http/crud';
import { CatalogueError, PageQuery, Pagination, Strict, Type, Uuid } from '../../http/schema';
import type { AppServices } from '../../services';
import * as imp from './service';
import { MAX_DISTRIBUTOR_RELEASES, MAX_FILE_ROWS, PROVIDERS, searchDistributor } from './providers';
import { viaPartner } from '../partners/common';

const errs = { 400: CatalogueError, 401: CatalogueError, 403: CatalogueError, 404: CatalogueError, 500: CatalogueError };
const Answer = (data: ReturnType<typeof Type.Object> | ReturnType<typeof Type.Array>) => Type.Object({ status: Type.Literal('success'), message: Type.String(), data });
const Any = Type.Object({}, { additionalProperties: true });
const Str = (max = 500) => Type.Union([Type.String({ maxLength: max }), Type.Null()]);
const StrList = Type.Array(Type.String({ maxLength: 500 }), { maxItems: 100 });
const StagedFields = {
  title: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  isrc: Type.Optional(Type.String({ maxLength: 40 })),
  upc: Type.Optional(Type.String({ maxLength: 40 })),
  displayArtist: Type.Optional(Str()),
  artists: Type.Optional(StrList),
  version: Type.Optional(Str()),
  type: Type.Optional(Str(100)),
  format: Type.Optional(Str(100)),
  label: Type.Optional(Str()),
  releaseDate: Type.Optional(Type.Union([Type.String({ format: 'date' }), Type.Null()])),
  catalogNumber: Type.Optional(Str()),
  mainGenre: Type.Optional(StrList),
  tracks: Type.Optional(Type.Array(Type.String({ maxLength: 40 }), { maxItems: 500 })),
};
const FetchBody = Strict({
  provider: Type.Union(PROVIDERS.map((p) => Type.Literal(p.id))),
  query: Strict({
    csv: Type.Optional(Type.String({ maxLength: 10_000_000, description: 'file: a CSV catalogue with a header row' })),
    json: Type.Optional(Type.String({ maxLength: 10_000_000, description: 'file: a JSON array of rows, as text' })),
    rows: Type.Optional(Type.Array(Any, { maxItems: MAX_FILE_ROWS, description: 'file: the rows themselves' })),
    query: Type.Optional(Type.String({ maxLength: 200, description: 'distributor: text to match (title, artist, UPC); empty: everything' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_DISTRIBUTOR_RELEASES, description: 'distributor: releases to stage at most (default 200)' })),
  }),
});
const Selection = Strict({ batchId: Type.Optional(Uuid), itemIds: Type.Optional(Type.Array(Uuid, { minItems: 1, maxItems: 5000 })) }, { description: 'exactly one of batchId or itemIds' });
const BatchParams = Type.Object({ batchId: Uuid });
const ItemPage = { page: PageQuery.page, size: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })) };

export function registerCatalogueImportRoutes(router: Router, svc: AppServices): void {
  defineRoutes(router, svc, { tag: 'Catalogue import', errorShape: 'catalogue' }, [
    route({ method: 'get', path: '/providers', summary: 'Catalogue import providers and whether this workspace can use them', access: 'admin', responses: { 200: Answer(Type.Array(Any)), ...errs },
      async handler({ trx }) {
        return ok('Import providers', await imp.listProviders(svc, trx));
      } }),
    route({ method: 'get', path: '/search', summary: 'Search a provider\'s catalogue live (stages nothing); the distributor only', access: 'admin', noTransaction: true,
      query: Type.Object({ provider: Type.Literal('distributor'), query: Type.Optional(Type.String({ maxLength: 200 })), ...ItemPage }),
      responses: { 200: Type.Object({ success: Type.Literal(true), message: Type.String(), data: Type.Array(Any), pagination: Pagination }), ...errs },
      async handler({ tenantId, query }) {
        const page = query.page ?? 1;
        const size = Math.min(query.size ?? 20, 50);
        const r = await viaPartner('Distributor release', () => searchDistributor(svc, tenantId, query.query ?? '', page, size));
        return { success: true, message: 'Provider search', data: r.data, pagination: { page, size, total: r.total } };
      } }),
    route({ method: 'post', path: '/fetch', summary: 'Fetch from a provider into a new batch of staged items (a job); never writes assets or products', access: 'admin', body: FetchBody, noTransaction: true,
      responses: { 200: Answer(Type.Object({ jobId: Type.String(), batchId: Type.String({ format: 'uuid' }) })), ...errs },
      async handler({ tenantId, auth, body }) {
        return ok('Catalogue fetch queued', await imp.startFetch(svc, tenantId, auth.tenantUserId, body as imp.FetchInput));
      } }),
    route({ method: 'get', path: '/job/:jobId', summary: 'State of a fetch job: queued, fetching, staged or failed', access: 'admin', params: Type.Object({ jobId: Uuid }), responses: { 200: Answer(Any), ...errs },
      async handler({ trx, params }) {
        return ok('Import job', await imp.getJob(trx, params.jobId));
      } }),
    route({ method: 'get', path: '/batch/:batchId/diff', summary: 'Each staged item against the current catalogue (by ISRC / UPC), field by field', access: 'admin', params: BatchParams, query: Type.Object(ItemPage), responses: { 200: Answer(Any), ...errs },
      async handler({ trx, params, query }) {
        return ok('Import batch diff', await imp.batchDiff(trx, params.batchId, { page: query.page ?? 1, size: query.size ?? 100 }));
      } }),
    route({ method: 'get', path: '/batch/:batchId', summary: 'A batch: state, counts per item status, a page of its items', access: 'admin', params: BatchParams,
      query: Type.Object({ ...ItemPage, status: Type.Optional(Type.Union(['pending', 'imported', 'failed', 'rejected'].map((s) => Type.Literal(s)))) }), responses: { 200: Answer(Any), ...errs },
      async handler({ trx, params, query }) {
        return ok('Import batch', await imp.getBatch(trx, params.batchId, { page: query.page ?? 1, size: query.size ?? 100, status: query.status }));
      } }),
    route({ method: 'put', path: '/items/:id', summary: 'Edit the staged fields of a pending item', access: 'admin', params: IdParams, body: Strict(StagedFields, { minProperties: 1 }), responses: { 200: Answer(Any), ...errs },
      async handler({ trx, params, body }) {
        return ok('Import item updated', await imp.updateItem(trx, params.id, body as Record<string, unknown>));
      } }),
    route({ method: 'post', path: '/apply', summary: 'Write the pending items of a batch or item set into the catalogue (one transaction per item); re-applying reports 0/0', access: 'admin', body: Selection, noTransaction: true,
      responses: { 200: Answer(Type.Object({ imported: Type.Integer(), failed: Type.Integer() })), ...errs },
      async handler({ tenantId, auth, body }) {
        return ok('Import applied', await imp.apply(svc, tenantId, auth, body));
      } }),
    route({ method: 'post', path: '/reject', summary: 'Reject the pending items of a batch or item set', access: 'admin', body: Selection, responses: { 200: Answer(Type.Object({ rejected: Type.Integer() })), ...errs },
      async handler({ trx, body }) {
        return ok('Import rejected', await imp.reject(trx, body));
      } }),
  ]);
}
