/**
 * Summary, checklist and CSV download routes of the catalogue area (see reports.ts for
 * scope rules). Catalogue error shape. The CSV routes set the download headers and hand
 * the stream from `openCsv` to Koa.
 */
import { sortQuery } from '../../http/list-sort';
import { CHECKLIST_SORT } from './sorts';
import type Router from '@koa/router';
import { defineRoutes, route } from '../../http/route';
import { FileAnswer, OpenObject, PagedAnswer, PageQuery, Strict, Type, Uuid } from '../../http/schema';
import type { AppServices } from '../../services';
import { CHECKLISTS, checklist, openCsv, summary } from './reports';

const STATEMENT_CHECKLISTS = new Set<string>(['royaltyassets', 'royaltyproducts', 'missingroyaltysplits']);
/** A summary: counts (`total` and the entity's own, numbers), groups keyed by their value (`byType`…), and whose records they count. */
const SummaryAnswer = Type.Object({
  message: Type.String(),
  summary: OpenObject({ total: Type.Integer(), scope: Type.Union([Type.Literal('workspace'), Type.Literal('own artists')]) }, 'Counts (numbers) and groups (`byType`, `byRole`…: value → count) of the entity'),
});
/** A checklist's page: the records with what is missing. */
const ChecklistAnswer = PagedAnswer(Type.Object({ kind: Type.Union([Type.Literal('asset'), Type.Literal('product'), Type.Literal('artist')]), id: Uuid, title: Type.String(), code: Type.Union([Type.String(), Type.Null()]), issues: Type.Array(Type.String()) }));

export function registerReportRoutes(router: Router, svc: AppServices): void {
  const summaries = (['product', 'asset', 'artist', 'user', 'split'] as const).map((e) =>
    route({
      method: 'get', path: `/${e}/summary`, summary: `Counts and totals of ${e}s (admins: workspace; others: own artists)`, access: 'guest', responses: { 200: SummaryAnswer },
      async handler({ trx, auth }) {
        return { message: `${e[0]!.toUpperCase()}${e.slice(1)} summary`, summary: await summary(trx, auth, e) };
      },
    }),
  );
  // the statement-side checklists are served by the royalty area (catalogue items plus the
  // statement lines behind them, through `checklist` below); it registers those paths first
  const checklists = CHECKLISTS.filter((c) => !STATEMENT_CHECKLISTS.has(c)).map((c) =>
    route({
      method: 'get', path: `/checklist/${c}`, summary: `Checklist ${c} (admins: workspace; others: own artists)`, access: 'guest',
      query: Type.Object({ page: PageQuery.page, size: PageQuery.size, ...sortQuery(CHECKLIST_SORT, 'title', 'Part of the title or name') }), responses: { 200: ChecklistAnswer },
      async handler({ trx, auth, query }) {
        return { success: true, message: `Checklist ${c}`, ...(await checklist(trx, auth, c, query)) };
      },
    }),
  );
  const downloads = ([
    ['/asset/download/csv', 'asset', 'assets.csv', 'user'],
    ['/artist/download/csv', 'artist', 'artists.csv', 'user'],
    ['/product/download/csv', 'product', 'products.csv', 'user'],
    ['/product/download/metadata', 'metadata', 'product-metadata.csv', 'user'],
    ['/user/download/csv', 'user', 'users.csv', 'admin'],
  ] as const).map(([p, kind, file, access]) =>
    route({
      method: 'post', path: p, summary: `Stream ${file} (CSV; ${access === 'admin' ? 'admin' : 'admins: workspace; others: own artists'})`, access, noTransaction: true,
      body: Strict({}), responses: { 200: FileAnswer('text/csv', `${file}: RFC 4180 CSV, header row first (attachment)`) },
      async handler({ ctx, tenantId, auth }) {
        const out = openCsv(svc, tenantId, auth, kind);
        ctx.status = 200;
        ctx.type = 'text/csv; charset=utf-8';
        ctx.attachment(file);
        ctx.body = out;
        return undefined;
      },
    }),
  );
  defineRoutes(router, svc, { tag: 'Reports', errorShape: 'catalogue', scope: 'own' }, [...summaries, ...checklists, ...downloads]);
}
