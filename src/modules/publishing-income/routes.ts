/**
 * Publishing income and publisher statements (docs/publishing.md): unmatched society lines,
 * title + writers suggestions, re-deciding the shares, and the publisher statements with their
 * state machine, adjustments, PDF and CSV. Admin only; plan feature `publishing`.
 */
import { sortQuery } from '../../http/list-sort';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { defineRoutes, route } from '../../http/route';
import { IdParams, ok, pagedList } from '../../http/crud';
import { DateIn, Money, PageQuery, Strict, Text, Type, Uuid } from '../../http/schema';
import type { AppServices } from '../../services';
import { allocatePublishing } from './allocate';
import * as income from './income';
import { publisherStatementPdf, statementCsv } from './render';
import { objectStore } from '../../lib/storage';
import * as st from './statements';
import * as Res from './responses';

const answer = (data: ReturnType<typeof Type.Object> | ReturnType<typeof Type.Array>) => Type.Object({ status: Type.Literal('success'), message: Type.String(), data });
const Str = Type.String();
const Nullable = (t: ReturnType<typeof Type.String>) => Type.Union([t, Type.Null()]);
const StatusLit = Type.Union(st.STATUSES.map((s) => Type.Literal(s)));
const Head = {
  id: Uuid, status: StatusLit, payee: Type.Object({ kind: Type.Union([Type.Literal('writer'), Type.Literal('publisher')]), id: Uuid, name: Str }),
  periodStart: Str, periodEnd: Str, currency: Str, incomeExact: Str, incomeTotal: Str, adjustmentsTotal: Str, total: Str, createdAt: Str, updatedAt: Str,
};
const Statement = Type.Object({
  ...Head,
  lines: Type.Array(Type.Object({ position: Type.Integer(), work: Type.Object({ id: Nullable(Uuid), title: Str, iswc: Nullable(Str) }), rightType: Str, source: Str, lines: Type.Integer(), exact: Str, amount: Str })),
  adjustments: Type.Array(Type.Object({ id: Uuid, amount: Str, memo: Str, createdAt: Str })),
});
const Paged = (item: ReturnType<typeof Type.Object>) => Type.Object({ success: Type.Boolean(), message: Str, data: Type.Array(item), pagination: Type.Object({ page: Type.Integer(), size: Type.Integer(), total: Type.Integer() }) });
const Allocation = Type.Object({ lines: Type.Integer(), matched: Type.Integer(), paid: Type.Integer(), suggestions: Type.Integer() });

function sendFile(ctx: Context, type: string, filename: string, body: string | Buffer) {
  ctx.type = type;
  ctx.set('Content-Disposition', `attachment; filename="${filename}"`);
  ctx.body = body;
}

export function registerPublishingIncomeRoutes(router: Router, svc: AppServices): void {
  const common = { access: 'admin' as const, feature: 'publishing' as const };
  defineRoutes(router, svc, { tag: 'Publishing income', errorShape: 'status' }, [
    route({ ...common, method: 'get', path: '/publishing/income/unmatched', summary: 'Publishing income lines matched to no work, grouped by title, writers, ISWC and right (largest amount first)',
      query: Type.Object({ page: PageQuery.page, size: PageQuery.size, ...sortQuery(income.UNMATCHED_SORT, 'amount', 'Part of the title, the writers, the ISWC or the society work id') }),
      responses: { 200: Paged(Type.Object({ title: Nullable(Str), writers: Nullable(Str), iswc: Nullable(Str), societyWorkId: Nullable(Str), rightType: Str, lines: Type.Integer(), amount: Str, currency: Nullable(Str), files: Type.Integer() })) },
      async handler({ trx, tenantId, query }) {
        return pagedList('Unmatched publishing income', query, async (page, size) => {
          const r = await income.unmatched(trx, tenantId, { ...query, page, size });
          return { data: r.rows, total: r.total };
        });
      } }),
    route({ ...common, method: 'get', path: '/publishing/income/suggestions', summary: 'Title + writers suggestions of works for unmatched publishing income (never applied until accepted)',
      query: Type.Object({ page: PageQuery.page, size: PageQuery.size, ...sortQuery(income.INCOME_SUGGESTION_SORT, 'score', "Part of the title, the writers or the work's title"), status: Type.Optional(Type.Union([Type.Literal('open'), Type.Literal('accepted'), Type.Literal('rejected')])) }),
      responses: { 200: Paged(Type.Object({ id: Uuid, title: Str, writers: Nullable(Str), work: Type.Object({ id: Uuid, title: Str, iswc: Nullable(Str) }), score: Str, status: Str, createdAt: Str })) },
      async handler({ trx, query }) {
        return pagedList('Publishing income suggestions', query, async (page, size) => {
          const r = await income.listSuggestions(trx, query.status ?? 'open', { ...query, page, size });
          return { data: r.rows, total: r.total };
        });
      } }),
    route({ ...common, method: 'post', path: '/publishing/income/suggestions/:id/accept', summary: 'Accept a suggestion: a rule (this title + writers → the work) for this and later statements; the lines are matched and shared again',
      params: IdParams, responses: { 200: answer(Type.Object({ ...Allocation.properties, ruleId: Uuid })) },
      async handler({ trx, tenantId, auth, params }) {
        return ok('Suggestion accepted', await income.acceptSuggestion(trx, tenantId, params.id, auth.tenantUserId ?? null));
      } }),
    route({ ...common, method: 'post', path: '/publishing/income/suggestions/:id/reject', summary: 'Reject a suggestion', params: IdParams,
      responses: { 200: answer(Type.Object({ id: Uuid })) },
      async handler({ trx, auth, params }) {
        await income.rejectSuggestion(trx, params.id, auth.tenantUserId ?? null);
        return ok('Suggestion rejected', { id: params.id });
      } }),
    route({ ...common, method: 'post', path: '/publishing/income/reallocate', summary: 'Match every publishing line again (ISWC, accepted rules) and decide its shares from the works and the agreements in force',
      responses: { 200: answer(Allocation) },
      async handler({ trx, tenantId }) {
        return ok('Publishing income allocated', await allocatePublishing(trx, tenantId));
      } }),
  ]);

  defineRoutes(router, svc, { tag: 'Publisher statements', errorShape: 'status' }, [
    route({ ...common, method: 'post', path: '/publisher-statements', summary: 'Create a draft publisher statement for a writer or a publisher, computed from the publishing income of the period (files whose accounting period falls in it)',
      body: Strict({ writer: Type.Optional(Uuid), publisher: Type.Optional(Uuid), periodStart: DateIn(), periodEnd: DateIn() }), status: 201, responses: { 201: answer(Statement) },
      async handler({ trx, tenantId, auth, body }) {
        return ok('Publisher statement created', await st.createStatement(trx, tenantId, body, auth.tenantUserId ?? null));
      } }),
    route({ ...common, method: 'get', path: '/publisher-statements', summary: 'Publisher statements, newest period first',
      query: Type.Object({ page: PageQuery.page, size: PageQuery.size, ...sortQuery(st.PUBLISHER_STATEMENT_SORT, 'periodStart', "Part of the writer's or the publisher's name"), status: Type.Optional(StatusLit), writer: Type.Optional(Uuid), publisher: Type.Optional(Uuid) }),
      responses: { 200: Paged(Type.Object(Head)) },
      async handler({ trx, query }) {
        return pagedList('Publisher statements', query, async (page, size) => {
          const r = await st.listStatements(trx, { ...query, page, size });
          return { data: r.rows, total: r.total };
        });
      } }),
    route({ ...common, method: 'get', path: '/publisher-statements/:id', summary: 'One publisher statement with its lines and adjustments', params: IdParams, responses: { 200: answer(Statement) },
      async handler({ trx, params }) {
        return ok('Publisher statement', await st.getStatement(trx, params.id));
      } }),
    route({ ...common, method: 'patch', path: '/publisher-statements/:id/status', summary: 'Move a statement: draft→pending, pending→approved, pending→draft, approved→paid, approved→pending; any other move is refused (400)',
      params: IdParams, body: Strict({ status: StatusLit }), responses: { 200: answer(Statement) },
      async handler({ trx, params, body }) {
        return ok('Publisher statement status changed', await st.setStatus(trx, params.id, body.status));
      } }),
    route({ ...common, method: 'post', path: '/publisher-statements/:id/adjustments', summary: 'A manual adjustment (in the statement currency\'s minor unit) on a draft or pending statement; refused (400) once approved or paid',
      params: IdParams, body: Strict({ amount: Money(), memo: Text(500, { minLength: 1 }) }), status: 201, responses: { 201: answer(Statement) },
      async handler({ trx, tenantId, auth, params, body }) {
        return ok('Adjustment added', await st.addAdjustment(trx, tenantId, params.id, body, auth.tenantUserId ?? null));
      } }),
    route({ ...common, method: 'get', path: '/publisher-statements/:id/pdf', responses: { 200: Res.GetPublisherStatementsByIdPdf }, summary: 'The statement as PDF (the same rounded figures as the CSV)', params: IdParams,
      async handler({ trx, params, ctx, tenantId }) {
        const { statement: s, pdf } = await publisherStatementPdf(trx, objectStore(svc.cfg), tenantId, params.id);
        sendFile(ctx, 'application/pdf', `publisher-statement-${s.periodStart}-${s.id}.pdf`, pdf);
        return undefined;
      } }),
    route({ ...common, method: 'get', path: '/publisher-statements/:id/csv', responses: { 200: Res.GetPublisherStatementsByIdCsv }, summary: 'The statement as CSV: work lines, income total, adjustments, total', params: IdParams,
      async handler({ trx, params, ctx }) {
        const s = await st.getStatement(trx, params.id);
        sendFile(ctx, 'text/csv; charset=utf-8', `publisher-statement-${s.periodStart}-${s.id}.csv`, statementCsv(s));
        return undefined;
      } }),
  ]);
}
