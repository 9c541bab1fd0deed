/**
 * Writers, publishers and works (docs/publishing.md), all behind the `publishing` plan
 * feature; errors `{status:"error", message}`, bulk routes the catalogue's shape.
 *
 *   POST/GET /writers, GET/PUT/DELETE /writers/{id}, POST /writers/bulk/delete     (admins write; members read)
 *   POST/GET /publishers, GET/PUT/DELETE /publishers/{id}, POST /publishers/bulk/delete
 *   POST/GET /works, GET/PUT/DELETE /works/{id}, POST /works/bulk, POST /works/bulk/delete, POST /works/download/csv
 *   GET /asset/{assetId}/works                                                     (no plan gate: an asset route)
 */
import type Router from '@koa/router';
import { crudRoutes, type CrudArea } from '../../http/crud';
import { defineRoutes, route, type RouteDef } from '../../http/route';
import { CatalogueError, Strict, Type, Uuid, type TSchema } from '../../http/schema';
import type { AppServices } from '../../services';
import { copyCsv } from '../catalogue/reports';
import { partyService } from './parties';
import { assetWorks, workCrud, worksCsvQuery } from './works';
import * as S from './schemas';
import { many, one, statusErrs as errs } from './answers';

const BulkDeleted = Type.Object({ message: Type.String(), processedCount: Type.Integer(), failedDeletions: Type.Array(Type.Object({ id: Type.String(), error: Type.String() })) });

/** The factory's routes of an area, behind the publishing feature, with their answers documented. */
export function gated(area: CrudArea, view: TSchema): RouteDef[] {
  const base = area.path.replace(/\/$/, '');
  return crudRoutes(area).map((d) => {
    const bulk = d.path.startsWith(`${base}/bulk`);
    const answer = d.path === `${base}/bulk/delete` ? BulkDeleted : d.path === `${base}/bulk` ? S.BulkWorksAnswer
      : d.method === 'get' && d.path === area.path ? many(view) : d.method === 'delete' ? one(Type.Null()) : one(view);
    const e = bulk ? { 400: CatalogueError, 401: CatalogueError, 403: CatalogueError, 500: CatalogueError } : errs;
    return d.responses ? d : { ...d, feature: 'publishing', responses: { [d.status ?? 200]: answer, ...e } };
  });
}

export function registerPublishingCatalogueRoutes(router: Router, svc: AppServices): void {
  const access = { read: 'admin', write: 'admin' } as const;
  defineRoutes(router, svc, { tag: 'Writer', errorShape: 'status' }, gated({
    noun: 'Writer', path: '/writers', access, service: partyService('writer'),
    about: 'Songwriters of the workspace (publishing feature). The IPI name number is checked (11 digits with check digits) and unique; a writer still on a work or an agreement is not deleted.',
    schemas: { list: S.WriterListQuery, create: S.WriterBody, update: S.WriterPatch },
  }, S.WriterView));
  defineRoutes(router, svc, { tag: 'Publisher', errorShape: 'status' }, gated({
    noun: 'Publisher', path: '/publishers', access, service: partyService('publisher'),
    about: 'Music publishers of the workspace (publishing feature). The IPI name number is checked and unique; a publisher still on a work or an agreement is not deleted.',
    schemas: { list: S.PublisherListQuery, create: S.PublisherBody, update: S.PublisherPatch },
  }, S.PublisherView));
  defineRoutes(router, svc, { tag: 'Work', errorShape: 'status' }, [
    route({
      method: 'post', path: '/works/download/csv', summary: 'Stream works.csv: every work with its writers, publishers, shares, alternate titles and recordings', access: 'admin', feature: 'publishing',
      noTransaction: true, body: Strict({}), responses: { 200: Type.String({ description: 'text/csv', contentMediaType: 'text/csv', examples: ['title,iswc,writers,publishers,recordings\r\nMidnight Tides,T-345246800-1,Ana Silva (50),Moonlight Music (50),GBAYE0601498\r\n'] }), ...errs },
      async handler({ ctx, tenantId }) {
        ctx.status = 200;
        ctx.type = 'text/csv; charset=utf-8';
        ctx.attachment('works.csv');
        ctx.body = copyCsv(svc, tenantId, worksCsvQuery);
        return undefined;
      },
    }),
    ...gated({
      noun: 'Work', path: '/works', access, service: workCrud, bulk: { key: 'works', item: S.WorkBody },
      about: 'Musical works (publishing feature): ISWC with its check digit, writers and publishers with their shares (docs/publishing.md, "Share rules"), alternate titles and linked recordings. ' +
        'A change replaces each list it names and re-checks the shares.',
      schemas: { list: S.WorkListQuery, create: S.WorkBody, update: S.WorkPatch },
    }, S.WorkView),
  ]);
  defineRoutes(router, svc, { tag: 'Asset', errorShape: 'catalogue' }, [
    route({
      method: 'get', path: '/asset/:assetId/works', summary: 'Musical works a recording is linked to (404 for an unknown recording)', access: 'admin', params: Type.Object({ assetId: Uuid }),
      responses: { 200: Type.Object({ success: Type.Literal(true), message: Type.String(), data: Type.Array(S.WorkView) }), 404: CatalogueError },
      async handler({ trx, params }) {
        return { success: true, message: 'Works', data: await assetWorks(trx, params.assetId) };
      },
    }),
  ]);
}
