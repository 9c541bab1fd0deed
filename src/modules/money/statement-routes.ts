/**
 * Statement runs and frozen statements (docs/statements.md): runs per accounting period
 * (admin), issuing, the issued statements (members: their own) with their stored PDF and
 * CSV, and closing/reopening accounting periods.
 */
import { sortQuery } from '../../http/list-sort';
import { STATEMENT_SORT } from './sorts';
import crypto from 'node:crypto';
import { once } from 'node:events';
import type { ZipArchive } from 'archiver';
import { withTenant } from '../../db';
import { pdfBrand } from '../branding/service';
import { objectStore } from '../../lib/storage';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { defineRoutes, route } from '../../http/route';
import { IdParams, ok, pagedList } from '../../http/crud';
import { PageQuery, Type, Uuid } from '../../http/schema';
import type { AppServices } from '../../services';
import { scopeUser } from './common';
import { UserQuery } from './schemas';
import * as runs from './statement-runs';
import * as Res from './responses';

const PeriodLabel = Type.String({ maxLength: 7, pattern: '^\\d{4}-(0[1-9]|1[0-2]|Q[1-4]|H[12])$', description: 'YYYY-MM, YYYY-Qn or YYYY-Hn' });
const RunBody = Type.Object({ period: PeriodLabel, payees: Type.Optional(Type.Array(Uuid, { minItems: 1, maxItems: 10000 })) }, { additionalProperties: false });
const StatementRow = Type.Object({ id: Uuid, user: Uuid, number: Type.Union([Type.Integer(), Type.Null()]), contentHash: Type.String(), openingBalance: Type.String(), royaltiesTotal: Type.String(), adjustmentsTotal: Type.String(), closingBalance: Type.String() });
const DiffRow = Type.Object({
  user: Uuid, status: Type.Union(['added', 'removed', 'changed', 'unchanged'].map((s) => Type.Literal(s))),
  previousHash: Type.Union([Type.String(), Type.Null()]), contentHash: Type.Union([Type.String(), Type.Null()]),
  previousClosingBalance: Type.Union([Type.String(), Type.Null()]), closingBalance: Type.Union([Type.String(), Type.Null()]),
  change: Type.Object({ royaltiesTotal: Type.String(), adjustmentsTotal: Type.String(), closingBalance: Type.String() }),
});
const Run = Type.Object({
  id: Uuid, period: Type.String(), periodStart: Type.String(), periodEnd: Type.String(), status: Type.Union(['draft', 'issued', 'superseded'].map((s) => Type.Literal(s))),
  previousRunId: Type.Union([Uuid, Type.Null()]), createdAt: Type.String(), issuedAt: Type.Union([Type.String(), Type.Null()]),
  sentAt: Type.Union([Type.String(), Type.Null()]), sent: Type.Optional(Type.Integer()),
  statements: Type.Array(StatementRow), diff: Type.Union([Type.Array(DiffRow), Type.Null()]), skipped: Type.Optional(Type.Array(Uuid)),
});
const Meta = Type.Object({ id: Uuid, number: Type.Union([Type.Integer(), Type.Null()]), user: Uuid, period: Type.String(), runId: Uuid, contentHash: Type.String(), issuedAt: Type.Union([Type.String(), Type.Null()]), currency: Type.String(), closingBalance: Type.String() });
const PeriodView = Type.Object({ period: Type.String(), periodStart: Type.String(), periodEnd: Type.String(), closed: Type.Boolean(), closedAt: Type.Union([Type.String(), Type.Null()]), issuedStatements: Type.Integer() });
const answer = (data: ReturnType<typeof Type.Object> | ReturnType<typeof Type.Array>) => Type.Object({ status: Type.Literal('success'), message: Type.String(), data });

/** The ETag is the SHA-256 of the bytes served (the stored body with the payee's details joined in). */
function sendFile(ctx: Context, type: string, filename: string, body: string | Buffer) {
  ctx.type = type;
  ctx.set('Content-Disposition', `attachment; filename="${filename}"`);
  ctx.set('ETag', `"${crypto.createHash('sha256').update(body).digest('hex')}"`);
  ctx.body = body;
}

/** A payee's name as a file name's part: letters, digits, dots and dashes. */
const fileSafe = (s: string) => s.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').replace(/[^A-Za-z0-9.]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'payee';

/**
 * A run's statements as one ZIP, streamed: each statement read in a short transaction of its
 * own (the PDF drawn as GET /statements/{id}/pdf draws it) and added once the archive has taken
 * the previous one, so memory stays at one statement whatever the run's size.
 */
function streamRunArchive(svc: AppServices, tenantId: number, label: string, statements: { id: string; number: number | null }[], archive: ZipArchive): void {
  void (async () => {
    try {
      for (const [i, st] of statements.entries()) {
        const f = await withTenant(svc.db.app, tenantId, async (t) => {
          const s = await runs.getStatement(t, st.id, null);
          return { name: String((s.figures as { payee?: { name?: string } }).payee?.name ?? ''), csv: s.csv, pdf: await s.pdf() };
        });
        const base = `statement-${label}-${st.number ?? `draft-${i + 1}`}-${fileSafe(f.name)}`;
        archive.append(f.pdf, { name: `${base}.pdf` });
        archive.append(f.csv, { name: `${base}.csv` });
        await once(archive, 'entry');
        await once(archive, 'entry');
      }
      await archive.finalize();
    } catch (e) {
      archive.destroy(e as Error);
    }
  })();
}

export function registerStatementRoutes(router: Router, svc: AppServices): void {
  defineRoutes(router, svc, { tag: 'Statements', errorShape: 'status', scope: 'own' }, [
    route({ method: 'post', path: '/statements/runs', summary: 'Statement run for an accounting period (admin): draft statements for all payees or a selection; a re-run supersedes the previous draft and shows a per-payee diff', access: 'admin', body: RunBody, status: 201, responses: { 201: answer(Run) },
      async handler({ trx, auth, body, tenantId }) {
        return ok('Statement run created', await runs.createRun(trx, body, auth.tenantUserId, await pdfBrand(trx, objectStore(svc.cfg), tenantId)));
      } }),
    route({ method: 'get', path: '/statements/runs/:id', summary: 'A statement run: its statements and the diff against the run it superseded (admin)', access: 'admin', params: IdParams, responses: { 200: answer(Run) },
      async handler({ trx, params }) {
        return ok('Statement run', await runs.getRun(trx, params.id));
      } }),
    route({ method: 'post', path: '/statements/runs/:id/issue', summary: "Issue a draft run (admin): number and freeze its statements (figures, PDF, CSV, content hash never change)", access: 'admin', params: IdParams, responses: { 200: answer(Run) },
      async handler({ trx, params, tenantId }) {
        return ok('Statement run issued', await runs.issueRun(trx, params.id, await pdfBrand(trx, objectStore(svc.cfg), tenantId)));
      } }),
    route({ method: 'post', path: '/statements/runs/:id/send', summary: "Send an issued run's statements to their payees (admin): each is told by e-mail and in Rondo that theirs is ready, as their notification settings say; the run records when (sentAt)", access: 'admin', params: IdParams, responses: { 200: answer(Run) },
      async handler({ trx, params }) {
        return ok('Statements sent', await runs.sendRun(trx, params.id));
      } }),
    route({ method: 'get', path: '/statements/runs/:id/zip', summary: "Every statement of a run in one ZIP archive (admin): each payee's PDF and CSV, streamed", access: 'admin', params: IdParams,
      responses: { 200: Type.String({ contentMediaType: 'application/zip', format: 'binary', description: 'A ZIP archive: statement-<period>-<number>-<payee>.pdf and .csv for each statement of the run (drafts: draft-<n>)' }) },
      async handler({ trx, params, tenantId, ctx }) {
        const { run, statements } = await runs.runStatementIds(trx, params.id);
        const { ZipArchive } = await import('archiver'); // on first use (docs/operations.md)
        const archive = new ZipArchive({ zlib: { level: 6 } });
        ctx.type = 'application/zip';
        ctx.set('Content-Disposition', `attachment; filename="statements-${run.label}.zip"`);
        ctx.body = archive;
        streamRunArchive(svc, tenantId, run.label, statements, archive);
        return undefined;
      } }),
    route({ method: 'get', path: '/statements', responses: { 200: Res.GetStatements }, summary: 'Issued statements, newest number first (admins: all or ?userId=; members: their own)', access: 'user',
      query: Type.Object({ page: PageQuery.page, size: PageQuery.size, ...sortQuery(STATEMENT_SORT, 'number', "Part of the period's label"), ...UserQuery, period: Type.Optional(PeriodLabel) }),
      async handler({ trx, auth, query }) {
        const payee = scopeUser(auth, query.userId);
        return pagedList('Statements', query, async (page, size) => {
          const r = await runs.listStatements(trx, { payee, period: query.period, search: query.search, sort: query.sort, order: query.order, page, size });
          return { data: r.rows, total: r.total };
        });
      } }),
    route({ method: 'get', path: '/statements/:id', summary: 'One statement with its frozen figures (members: their own issued statements)', access: 'user', params: IdParams,
      responses: { 200: answer(Type.Object({ statement: Meta, figures: Type.Object({}, { additionalProperties: true }) })) },
      async handler({ trx, auth, params }) {
        const s = await runs.getStatement(trx, params.id, scopeUser(auth, undefined));
        return ok('Statement', { statement: s.meta, figures: s.figures });
      } }),
    route({ method: 'get', path: '/statements/:id/pdf', responses: { 200: Res.GetStatementsByIdPdf }, summary: "The PDF of a statement: its stored bytes (unchanged once issued) and the payee's name and e-mail appended", access: 'user', params: IdParams,
      async handler({ trx, auth, params, ctx }) {
        const s = await runs.getStatement(trx, params.id, scopeUser(auth, undefined));
        sendFile(ctx, 'application/pdf', `statement-${s.meta.period}-${String(s.meta.number ?? 'draft')}.pdf`, await s.pdf());
        return undefined;
      } }),
    route({ method: 'get', path: '/statements/:id/csv', responses: { 200: Res.GetStatementsByIdCsv }, summary: "The CSV of a statement: its stored bytes (unchanged once issued) with the payee's name", access: 'user', params: IdParams,
      async handler({ trx, auth, params, ctx }) {
        const s = await runs.getStatement(trx, params.id, scopeUser(auth, undefined));
        sendFile(ctx, 'text/csv; charset=utf-8', `statement-${s.meta.period}-${String(s.meta.number ?? 'draft')}.csv`, s.csv);
        return undefined;
      } }),
    route({ method: 'get', path: '/accounting/periods/:period', summary: 'An accounting period: closed or open, and how many statements it has issued (admin)', access: 'admin',
      params: Type.Object({ period: PeriodLabel }), responses: { 200: answer(PeriodView) },
      async handler({ trx, params }) {
        return ok('Period', await runs.getPeriod(trx, params.period));
      } }),
    route({ method: 'post', path: '/accounting/periods/:period/close', summary: 'Close an accounting period (admin): no new statement run or issue for it; later changes reach the next statement as adjustments', access: 'admin',
      params: Type.Object({ period: PeriodLabel }), responses: { 200: answer(PeriodView) },
      async handler({ trx, auth, params }) {
        return ok('Period closed', await runs.closePeriod(trx, params.period, auth.tenantUserId));
      } }),
    route({ method: 'post', path: '/accounting/periods/:period/reopen', summary: 'Reopen a closed period (admin): refused (409) once it has issued statements', access: 'admin',
      params: Type.Object({ period: PeriodLabel }), responses: { 200: answer(PeriodView) },
      async handler({ trx, params }) {
        return ok('Period reopened', await runs.reopenPeriod(trx, params.period));
      } }),
  ]);
}
