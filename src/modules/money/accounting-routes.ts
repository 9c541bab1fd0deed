/**
 * Accounting (docs/money.md, "Routes"): dues, ledger transactions, summaries, refresh, statements,
 * payee stats. Handlers: parsed input and the caller → one service call → the answer's shape.
 *
 * Scoping: admins and owners see the whole workspace (and may name a payee with
 * `userId`); other members see only their own figures; guests are refused.
 */
import { pdfBrand } from '../branding/service';
import { objectStore } from '../../lib/storage';
import type Router from '@koa/router';
import { defineRoutes, route } from '../../http/route';
import { IdParams, ok, pagedList } from '../../http/crud';
import { OpenObject, OrFile, StatusAnswer, Type, type TSchema } from '../../http/schema';
import { XLSX_TYPE } from '../../http/export';
import type { AppServices } from '../../services';
import type { Trx } from '../../db';
import { NotFoundError, ValidationError } from '../../lib/errors';
import { existingMembers, periodBounds, scopeUser } from './common';
import * as S from './schemas';
import * as acct from './accounting';
import { issuedFor, liveStatement } from './statement-runs';
import { statementXlsx } from './statement-build';
import { sendTable } from '../../http/export';
import * as Res from './responses';

/** ?from=2026-01&to=2026-03 → [2026-01-01, 2026-04-01) */
const range = (q: { from?: string; to?: string }) => ({ from: q.from ? periodBounds(q.from).start : undefined, to: q.to ? periodBounds(q.to).end : undefined });
const PayeeQuery = Type.Object(S.UserQuery);
const PayeePeriodQuery = Type.Object({ ...S.UserQuery, ...S.Period });

/** GET figures of the ledger for a payee (members: themselves; admins: anyone, or the whole workspace) within optional periods. */
function ledgerFigures(path: string, summary: string, message: string, figures: (trx: Trx, o: { payee: string | null; from?: string; to?: string }) => Promise<unknown>, answer: TSchema) {
  return route({
    method: 'get', path, summary, access: 'user', query: PayeePeriodQuery, responses: { 200: StatusAnswer(answer) },
    async handler({ trx, auth, query }) {
      return ok(message, await figures(trx, { payee: scopeUser(auth, query.userId), ...range(query) }));
    },
  });
}

export function registerAccountingRoutes(router: Router, svc: AppServices): void {
  defineRoutes(router, svc, { tag: 'Accounting', errorShape: 'status', scope: 'own' }, [
    route({ method: 'get', path: '/accounting/getcurrentdue', responses: { 200: Res.GetAccountingGetcurrentdue }, summary: "What is due to a payee now (the ledger's sum), their pending requests and what they may still request", access: 'user', query: PayeeQuery,
      async handler({ trx, auth, query }) {
        const payee = scopeUser(auth, query.userId) ?? auth.tenantUserId;
        if (!payee) throw new ValidationError('userId is required for a workspace key', [], 'USER_REQUIRED');
        return ok('Current due', await acct.currentDue(trx, payee));
      } }),
    route({ method: 'get', path: '/accounting/gettotaldue', responses: { 200: Res.GetAccountingGettotaldue }, summary: 'Total due: tenant-wide for admins (sum of every payee balance, and of the positive ones), own for members', access: 'user', query: PayeeQuery,
      async handler({ trx, auth, query }) {
        return ok('Total due', await acct.totalDue(trx, scopeUser(auth, query.userId)));
      } }),
    ledgerFigures('/accounting/transactions/summary', 'Ledger totals by kind and the due they add up to (optionally within periods)', 'Transaction summary', acct.transactionSummary, Res.LedgerSummary),
    ledgerFigures('/accounting/transactions/monthly', 'Per accounting period: totals by kind, net and running (closing) balance', 'Monthly transactions', acct.monthly, Res.LedgerMonthly),
    route({ method: 'get', path: '/accounting/transactions', responses: { 200: Res.GetAccountingTransactions }, summary: 'Ledger entries (paged, newest first)', access: 'user', query: S.TransactionsQuery,
      async handler({ trx, auth, query }) {
        const payee = scopeUser(auth, query.userId);
        return pagedList('Transactions', query, (page, size) => acct.transactions(trx, { payee, page, size, kind: query.kind, search: query.search, sort: query.sort, order: query.order, ...range(query) }));
      } }),
    route({ method: 'get', path: '/accounting/refresh', responses: { 200: Res.GetAccountingRefresh }, summary: 'Re-derive the ledger from source rows (admin): posts only differences; nothing when nothing changed', access: 'admin',
      async handler({ trx }) {
        return ok('Ledger refreshed', await acct.refresh(trx));
      } }),
    // The reference's spellings with no spec route of their own (docs/api.md "Coming from the reference service").
    route({ method: 'post', path: '/accounting/users/:id/recalculate', responses: { 200: Res.GetAccountingRefresh }, summary: "Recalculate one member's figures (admin): the workspace's ledger is re-derived, which covers the member (as GET /accounting/refresh); 404 for no such member", access: 'admin', params: IdParams,
      async handler({ trx, params }) {
        if (!(await existingMembers(trx, [params.id])).has(params.id)) throw new NotFoundError('User', 'USER_NOT_FOUND');
        return ok('Ledger refreshed', await acct.refresh(trx));
      } }),
    route({ method: 'get', path: '/accounting/queue/status', summary: "What stands between the workspace and current figures (admin): statement files not yet processed, catalogue and split changes waiting to be re-allocated, re-allocations queued or running; `idle` when none (files waiting for a person to confirm their source are counted apart)", access: 'admin',
      responses: { 200: StatusAnswer(Type.Object({
        idle: Type.Boolean(),
        files: Type.Object({ waiting: Type.Integer(), needsConfirmation: Type.Integer(), processing: Type.Integer() }),
        reallocation: Type.Object({ changesWaiting: Type.Integer(), queued: Type.Integer(), running: Type.Integer() }),
      })) },
      async handler({ trx, tenantId }) {
        return ok('Accounting queue', await acct.queueStatus(trx, svc.db.owner, tenantId));
      } }),
    route({ method: 'get', path: '/accounting/refreshstats', responses: { 200: Res.GetAccountingRefreshstats }, summary: 'Reconciliation check (admin): what a refresh would post, and the identities', access: 'admin',
      async handler({ trx }) {
        return ok('Reconciliation', await acct.reconciliation(trx));
      } }),
    route({ method: 'get', path: '/accounting/statement/:userId', responses: { 200: OrFile(StatusAnswer(OpenObject({ status: Type.Union([Type.Literal('issued'), Type.Literal('live')]), statementId: Type.Optional(Type.String()), number: Type.Optional(Type.Union([Type.Number(), Type.Null()])), contentHash: Type.Optional(Type.String()) }, "The statement's figures (as GET /statements/{id} `figures`), issued as stored or live")), { 'text/csv': 'format=csv: the statement as CSV', 'application/pdf': 'format=pdf: the statement as PDF', [XLSX_TYPE]: 'format=xlsx: the statement as a workbook' }) }, summary: 'Payee statement for one accounting period (json, csv, pdf or xlsx): the issued one as stored, else the live statement, marked as not issued', access: 'user', params: S.StatementParams, query: S.StatementQuery,
      async handler({ trx, auth, params, query, ctx, tenantId }) {
        scopeUser(auth, params.userId);
        // An issued (frozen) statement for the period is shown as stored.
        const frozen = await issuedFor(trx, params.userId, query.period);
        if (frozen && query.format === 'xlsx') {
          await sendTable(ctx, statementXlsx(frozen.csv, `statement-${query.period}-${String(frozen.meta.number)}`));
          return undefined;
        }
        if (frozen && query.format !== 'json' && query.format !== undefined) {
          ctx.type = query.format === 'pdf' ? 'application/pdf' : 'text/csv; charset=utf-8';
          ctx.set('Content-Disposition', `attachment; filename="statement-${query.period}-${String(frozen.meta.number)}.${query.format}"`);
          ctx.body = query.format === 'pdf' ? await frozen.pdf() : frozen.csv;
          return undefined;
        }
        if (frozen) return ok('Statement', { ...frozen.figures, status: 'issued', statementId: frozen.meta.id, number: frozen.meta.number, contentHash: frozen.meta.contentHash });
        // Nothing issued: the live statement, drawn by the same renderer, marked as not issued.
        const live = await liveStatement(trx, params.userId, query.period, query.format === 'pdf' ? await pdfBrand(trx, objectStore(svc.cfg), tenantId) : null);
        if (query.format === 'xlsx') {
          await sendTable(ctx, statementXlsx(live.csv(), `statement-${query.period}-${params.userId.slice(0, 8)}-not-issued`));
          return undefined;
        }
        if (query.format === 'csv' || query.format === 'pdf') {
          ctx.type = query.format === 'pdf' ? 'application/pdf' : 'text/csv; charset=utf-8';
          ctx.set('Content-Disposition', `attachment; filename="statement-${query.period}-${params.userId.slice(0, 8)}-not-issued.${query.format}"`);
          ctx.body = query.format === 'pdf' ? await live.pdf() : live.csv();
          return undefined;
        }
        return ok('Statement', { ...live.figures, status: 'live' });
      } }),
    route({ method: 'get', path: '/accounting/:id/stats', responses: { 200: Res.GetAccountingByIdStats }, summary: "A payee's figures: earnings, recouped, payments, reversals, due, available, periods", access: 'user', params: IdParams,
      async handler({ trx, auth, params }) {
        scopeUser(auth, params.id);
        return ok('Payee stats', await acct.payeeStats(trx, params.id));
      } }),
  ]);
}
