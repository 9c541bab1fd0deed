/**
 * Money routes (spec 4.1–4.3: Accounting, Expense, Revenue, Payment, Payment request,
 * Payment setting, Integration (processor), POST /processor/webhook, summaries 4.2).
 * Thin edges: validate, call one service function, shape the answer.
 *
 * Scoping: admins and owners see the whole workspace (and may name a payee with
 * `userId`/`user`); other members see only their own figures (payee = themselves);
 * guests are refused. Another workspace's record answers 404, as if absent.
 */
import type Router from '@koa/router';
import { defineRoutes, route } from '../../http/route';
import { itemProblems, PageQuery, Share, Strict, Type, Uuid, type TSchema } from '../../http/schema';
import type { AppServices } from '../../services';
import { CurrencyIn, isAdmin, MoneyIn, pagedList, PeriodIn, periodBounds, PositiveMoneyIn, scopeUser } from './common';
import * as acct from './accounting';
import * as exp from './expenses';
import * as rev from './revenues';
import * as pay from './payments';
import * as reqs from './requests';
import * as sets from './settings';
import * as proc from './processor';
import { refreshLedger } from './ledger';
import { NotFoundError, ValidationError } from '../../lib/errors';
import { buildStatement, statementCsv, statementPdf } from './statements';

const IdParams = Type.Object({ id: Uuid });
const Ids = Strict({ ids: Type.Array(Uuid, { minItems: 1, maxItems: 1000 }) });
const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
const Text = (max = 500) => Type.String({ maxLength: max });
const DateIn = Type.String({ format: 'date' });
const ok = (message: string, data: unknown) => ({ status: 'success', message, data });
const Period = { from: Type.Optional(PeriodIn), to: Type.Optional(PeriodIn) };
/** ?from=2026-01&to=2026-03 → [2026-01-01, 2026-04-01) */
const range = (q: { from?: string; to?: string }) => ({ from: q.from ? periodBounds(q.from).start : undefined, to: q.to ? periodBounds(q.to).end : undefined });

/** Validate each bulk item on its own: a bad item is reported, the others go on. */
function splitItems<T>(schema: TSchema, items: unknown[], name: string): { valid: { i: number; item: T }[]; errors: string[] } {
  const valid: { i: number; item: T }[] = [];
  const errors: string[] = [];
  items.forEach((item, i) => {
    const problems = itemProblems(schema, item, `${name}[${i}]`);
    if (!problems.length) valid.push({ i, item: item as T });
    else errors.push(...problems);
  });
  return { valid, errors };
}

/** Bulk create: items validated one by one, the valid ones created; every error, in item order. */
async function bulkCreate<T, R extends { errors: string[] }>(
  schema: TSchema, items: unknown[], name: string, create: (valid: { i: number; item: T }[]) => Promise<R>,
): Promise<R> {
  const { valid, errors } = splitItems<T>(schema, items, name);
  const r = await create(valid);
  const at = (e: string) => Number(/\[(\d+)\]/.exec(e)?.[1]);
  return { ...r, errors: [...errors, ...r.errors].sort((x, y) => at(x) - at(y)) };
}


// ---------------------------------------------------------------- schemas
const TargetType = Type.Union([Type.Literal('artist'), Type.Literal('product'), Type.Literal('asset')]);
const ExpenseFields = {
  user: Uuid,
  title: Type.String({ minLength: 1, maxLength: 300 }),
  description: Type.Optional(Nullable(Text(5000))),
  category: Type.Optional(Nullable(Text(100))),
  amount: PositiveMoneyIn,
  currency: CurrencyIn,
  conversionRate: Type.Optional(PositiveMoneyIn),
  date: Type.Optional(DateIn),
  recoupable: Type.Optional(Type.Boolean()),
  targetType: Type.Optional(Nullable(TargetType)),
  targetId: Type.Optional(Nullable(Uuid)),
};
const ExpenseBody = Strict(ExpenseFields, { $id: 'ExpenseInput' });
const ExpensePatch = Strict(Object.fromEntries(Object.entries(ExpenseFields).map(([k, v]) => [k, Type.Optional(v)])), { minProperties: 1 });

const Splits = Type.Array(Strict({ user: Uuid, share: Share() }), { minItems: 1, maxItems: 100 });
const RevenueFields = {
  title: Type.String({ minLength: 1, maxLength: 300 }),
  description: Type.Optional(Nullable(Text(5000))),
  source: Type.Optional(Nullable(Text(100))),
  amount: PositiveMoneyIn,
  currency: CurrencyIn,
  conversionRate: Type.Optional(PositiveMoneyIn),
  date: Type.Optional(DateIn),
  accountingPeriod: Type.Optional(PeriodIn),
  splits: Splits,
};
const RevenueBody = Strict(RevenueFields, { $id: 'RevenueInput' });
const RevenuePatch = Strict(Object.fromEntries(Object.entries(RevenueFields).map(([k, v]) => [k, Type.Optional(v)])), { minProperties: 1 });

/** Spec 2.3 payment item (numbers may also be sent as decimal strings). */
const PaymentItem = Strict(
  {
    firstName: Type.Optional(Nullable(Text(200))),
    lastName: Type.Optional(Nullable(Text(200))),
    user: Type.String({ maxLength: 100 }),
    title: Type.Optional(Nullable(Text(300))),
    transactionDate: Type.Optional(Type.String({ format: 'date-time' })),
    currency: CurrencyIn,
    amount: MoneyIn,
    amountUSD: Type.Optional(Nullable(MoneyIn)),
    conversionRate: Type.Optional(Nullable(MoneyIn)),
    memo: Type.Optional(Nullable(Text(2000))),
  },
  { $id: 'PaymentItem' },
);
const PaymentStatus = Type.Union(['pending', 'processing', 'completed', 'failed', 'reversed'].map((s) => Type.Literal(s)));
const PaymentBody = Strict({ ...PaymentItem.properties, user: Uuid, status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('completed')])) });
const PaymentPatch = Strict(
  {
    ...Object.fromEntries(Object.entries(PaymentItem.properties).map(([k, v]) => [k, Type.Optional(v as TSchema)])),
    user: Type.Optional(Uuid),
    status: Type.Optional(PaymentStatus),
  },
  { minProperties: 1 },
);

const RequestBody = Strict({ amount: PositiveMoneyIn, memo: Type.Optional(Nullable(Text(2000))), paymentSettingId: Type.Optional(Nullable(Uuid)), user: Type.Optional(Uuid) });
const RequestPatch = Strict({ amount: Type.Optional(PositiveMoneyIn), memo: Type.Optional(Nullable(Text(2000))), paymentSettingId: Type.Optional(Nullable(Uuid)) }, { minProperties: 1 });

const Method = Type.Union([Type.Literal('processor'), Type.Literal('bank_transfer'), Type.Literal('paypal'), Type.Literal('other')]);
const Details = Type.Record(Type.String({ pattern: '^[A-Za-z][A-Za-z0-9_]{0,63}$' }), Type.String({ maxLength: 500 }), { maxProperties: 20 });
const SettingBody = Strict({ user: Type.Optional(Uuid), method: Method, label: Type.Optional(Nullable(Text(200))), currency: Type.Optional(Nullable(CurrencyIn)), details: Details, isDefault: Type.Optional(Type.Boolean()) });
const SettingPatch = Strict({ method: Type.Optional(Method), label: Type.Optional(Nullable(Text(200))), currency: Type.Optional(Nullable(CurrencyIn)), details: Type.Optional(Details), isDefault: Type.Optional(Type.Boolean()) }, { minProperties: 1 });

const IntegrationBody = Strict({ secretKey: Type.String({ minLength: 8, maxLength: 500 }), isEnabled: Type.Optional(Type.Boolean()) });
const IntegrationPatch = Strict({ secretKey: Type.Optional(Type.String({ minLength: 8, maxLength: 500 })), isEnabled: Type.Optional(Type.Boolean()) }, { minProperties: 1 });

const UserQuery = { userId: Type.Optional(Uuid) };
const Sort = (cols: string[]) => Type.Optional(Type.Union(cols.map((c) => Type.Literal(c))));

export function registerMoneyRoutes(router: Router, svc: AppServices): void {
  // ------------------------------------------------------------ accounting
  defineRoutes(router, svc, { tag: 'Accounting', errorShape: 'status' }, [
    route({
      method: 'get',
      path: '/accounting/getcurrentdue',
      summary: "What is due to a payee now (the ledger's sum), their pending requests and what they may still request",
      access: 'user',
      query: Type.Object(UserQuery),
      async handler({ trx, auth, query }) {
        const payee = scopeUser(auth, query.userId) ?? auth.tenantUserId;
        if (!payee) throw new ValidationError('userId is required for a workspace key', [], 'USER_REQUIRED');
        return ok('Current due', await acct.currentDue(trx, payee));
      },
    }),
    route({
      method: 'get',
      path: '/accounting/gettotaldue',
      summary: 'Total due: tenant-wide for admins (sum of every payee balance, and of the positive ones), own for members',
      access: 'user',
      query: Type.Object(UserQuery),
      async handler({ trx, auth, query }) {
        return ok('Total due', await acct.totalDue(trx, scopeUser(auth, query.userId)));
      },
    }),
    route({
      method: 'get',
      path: '/accounting/transactions/summary',
      summary: 'Ledger totals by kind and the due they add up to (optionally within periods)',
      access: 'user',
      query: Type.Object({ ...UserQuery, ...Period }),
      async handler({ trx, auth, query }) {
        return ok('Transaction summary', await acct.transactionSummary(trx, { payee: scopeUser(auth, query.userId), ...range(query) }));
      },
    }),
    route({
      method: 'get',
      path: '/accounting/transactions/monthly',
      summary: 'Per accounting period: totals by kind, net and running (closing) balance',
      access: 'user',
      query: Type.Object({ ...UserQuery, ...Period }),
      async handler({ trx, auth, query }) {
        return ok('Monthly transactions', await acct.monthly(trx, { payee: scopeUser(auth, query.userId), ...range(query) }));
      },
    }),
    route({
      method: 'get',
      path: '/accounting/transactions',
      summary: 'Ledger entries (paged, newest first)',
      access: 'user',
      query: Type.Object({
        page: PageQuery.page,
        size: PageQuery.size,
        order: PageQuery.order,
        ...UserQuery,
        ...Period,
        kind: Type.Optional(Type.Union(['royalty', 'expense_recoup', 'revenue_share', 'payment', 'reversal', 'adjustment'].map((k) => Type.Literal(k)))),
      }),
      async handler({ trx, auth, query }) {
        return pagedList('Transactions', query, (page, size) => acct.transactions(trx, { payee: scopeUser(auth, query.userId), page, size, kind: query.kind, order: query.order, ...range(query) }));
      },
    }),
    route({
      method: 'get',
      path: '/accounting/refresh',
      summary: 'Re-derive the ledger from source rows (admin): posts only differences; nothing when nothing changed',
      access: 'admin',
      async handler({ trx }) {
        const posted = await refreshLedger(trx);
        return ok('Ledger refreshed', { posted, totals: await acct.transactionSummary(trx, { payee: null }) });
      },
    }),
    route({
      method: 'get',
      path: '/accounting/refreshstats',
      summary: 'Reconciliation check (admin): what a refresh would post, and the identities',
      access: 'admin',
      async handler({ trx }) {
        return ok('Reconciliation', await acct.reconciliation(trx));
      },
    }),
    route({
      method: 'get',
      path: '/accounting/statement/:userId',
      summary: 'Payee statement for one accounting period (json, csv or pdf)',
      access: 'user',
      params: Type.Object({ userId: Uuid }),
      query: Type.Object({ period: PeriodIn, format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('csv'), Type.Literal('pdf')])) }),
      async handler({ trx, auth, params, query, ctx }) {
        scopeUser(auth, params.userId);
        const s = await buildStatement(trx, params.userId, query.period);
        const name = `statement-${query.period}-${params.userId.slice(0, 8)}`;
        if (query.format === 'csv') {
          ctx.type = 'text/csv; charset=utf-8';
          ctx.set('Content-Disposition', `attachment; filename="${name}.csv"`);
          ctx.body = statementCsv(s);
          return undefined;
        }
        if (query.format === 'pdf') {
          ctx.type = 'application/pdf';
          ctx.set('Content-Disposition', `attachment; filename="${name}.pdf"`);
          ctx.body = await statementPdf(s);
          return undefined;
        }
        return ok('Statement', s);
      },
    }),
    route({
      method: 'get',
      path: '/accounting/:id/stats',
      summary: "A payee's figures: earnings, recouped, payments, reversals, due, available, periods",
      access: 'user',
      params: IdParams,
      async handler({ trx, auth, params }) {
        scopeUser(auth, params.id);
        return ok('Payee stats', await acct.payeeStats(trx, params.id));
      },
    }),
  ]);

  // ------------------------------------------------------------ expenses
  defineRoutes(router, svc, { tag: 'Expense', errorShape: 'status' }, [
    route({
      method: 'get',
      path: '/expense/summary',
      summary: 'Expense counts and totals, recouped and unrecouped (own for members)',
      access: 'user',
      async handler({ trx, auth }) {
        return { message: 'Expense summary', summary: await exp.expenseSummary(trx, isAdmin(auth) ? null : auth.tenantUserId) };
      },
    }),
    route({
      method: 'post',
      path: '/expense/bulk',
      summary: 'Create many expenses (admin); invalid items are reported in errors, the rest created',
      access: 'admin',
      errorShape: 'catalogue',
      body: Strict({ expenses: Type.Array(Type.Unknown(), { minItems: 1, maxItems: 1000 }) }),
      items: { field: 'expenses', schema: ExpenseBody },
      async handler({ trx, auth, body }) {
        return bulkCreate<exp.ExpenseInput, Awaited<ReturnType<typeof exp.bulkCreateExpenses>>>(ExpenseBody, body.expenses, 'expenses', (valid) => exp.bulkCreateExpenses(trx, auth, valid));
      },
    }),
    route({
      method: 'post',
      path: '/expense/bulk/delete',
      summary: 'Delete expenses (admin); their recoupment is reversed in the ledger',
      access: 'admin',
      errorShape: 'catalogue',
      body: Ids,
      async handler({ trx, body }) {
        return exp.bulkDeleteExpenses(trx, body.ids);
      },
    }),
    route({
      method: 'post',
      path: '/expense/',
      summary: 'Record an expense (admin); recoupable ones are taken from the payee earnings on their target first',
      access: 'admin',
      status: 201,
      body: ExpenseBody,
      async handler({ trx, auth, body }) {
        return ok('Expense created', await exp.createExpense(trx, auth, body as exp.ExpenseInput));
      },
    }),
    route({
      method: 'get',
      path: '/expense/',
      summary: 'Expenses (paged; members see their own)',
      access: 'user',
      query: Type.Object({ ...PageQuery, sort: Sort(['createdAt', 'date', 'amount', 'title']), user: Type.Optional(Uuid), recoupable: Type.Optional(Type.Boolean()) }),
      async handler({ trx, auth, query }) {
        return pagedList('Expenses', query, (page, size) => exp.listExpenses(trx, auth, { ...query, page, size }));
      },
    }),
    route({
      method: 'get',
      path: '/expense/:id',
      summary: 'One expense with what has been recouped of it',
      access: 'user',
      params: IdParams,
      async handler({ trx, auth, params }) {
        return ok('Expense', await exp.getExpense(trx, auth, params.id));
      },
    }),
    route({
      method: 'put',
      path: '/expense/:id',
      summary: 'Change an expense (admin); recoupment is re-derived',
      access: 'admin',
      params: IdParams,
      body: ExpensePatch,
      async handler({ trx, auth, params, body }) {
        return ok('Expense updated', await exp.updateExpense(trx, auth, params.id, body as Partial<exp.ExpenseInput>));
      },
    }),
  ]);

  // ------------------------------------------------------------ revenues
  defineRoutes(router, svc, { tag: 'Revenue', errorShape: 'status' }, [
    route({
      method: 'get',
      path: '/revenue/summary',
      summary: 'Revenue totals (members: their shares)',
      access: 'user',
      async handler({ trx, auth }) {
        return { message: 'Revenue summary', summary: await rev.revenueSummary(trx, isAdmin(auth) ? null : auth.tenantUserId) };
      },
    }),
    route({
      method: 'post',
      path: '/revenue/bulk',
      summary: 'Create many revenues (admin); invalid items are reported in errors',
      access: 'admin',
      errorShape: 'catalogue',
      body: Strict({ revenues: Type.Array(Type.Unknown(), { minItems: 1, maxItems: 1000 }) }),
      items: { field: 'revenues', schema: RevenueBody },
      async handler({ trx, auth, body }) {
        return bulkCreate<rev.RevenueInput, Awaited<ReturnType<typeof rev.bulkCreateRevenues>>>(RevenueBody, body.revenues, 'revenues', (valid) => rev.bulkCreateRevenues(trx, auth, valid));
      },
    }),
    route({
      method: 'post',
      path: '/revenue/bulk/delete',
      summary: 'Delete revenues (admin); their shares are reversed in the ledger',
      access: 'admin',
      errorShape: 'catalogue',
      body: Ids,
      async handler({ trx, body }) {
        return rev.deleteRevenues(trx, body.ids);
      },
    }),
    route({
      method: 'post',
      path: '/revenue/',
      summary: 'Record a revenue split between members (shares sum to exactly 100) (admin)',
      access: 'admin',
      status: 201,
      body: RevenueBody,
      async handler({ trx, auth, body }) {
        return ok('Revenue created', await rev.createRevenue(trx, auth, body as rev.RevenueInput));
      },
    }),
    route({
      method: 'get',
      path: '/revenue/',
      summary: 'Revenues (paged; members see those they share in)',
      access: 'user',
      query: Type.Object({ ...PageQuery, sort: Sort(['createdAt', 'date', 'amount', 'title']), user: Type.Optional(Uuid) }),
      async handler({ trx, auth, query }) {
        return pagedList('Revenues', query, (page, size) => rev.listRevenues(trx, auth, { ...query, page, size }));
      },
    }),
    route({
      method: 'get',
      path: '/revenue/:id',
      summary: 'One revenue',
      access: 'user',
      params: IdParams,
      async handler({ trx, auth, params }) {
        return ok('Revenue', await rev.getRevenue(trx, auth, params.id));
      },
    }),
    route({
      method: 'put',
      path: '/revenue/:id',
      summary: 'Change a revenue (admin); its shares are re-posted',
      access: 'admin',
      params: IdParams,
      body: RevenuePatch,
      async handler({ trx, auth, params, body }) {
        return ok('Revenue updated', await rev.updateRevenue(trx, auth, params.id, body as Partial<rev.RevenueInput>));
      },
    }),
    route({
      method: 'delete',
      path: '/revenue/:id',
      summary: 'Delete a revenue (admin)',
      access: 'admin',
      params: IdParams,
      async handler({ trx, params }) {
        const r = await rev.deleteRevenues(trx, [params.id]);
        if (!r.processedCount) throw new NotFoundError('Revenue');
        return ok('Revenue deleted', null);
      },
    }),
  ]);

  // ------------------------------------------------------------ payments
  defineRoutes(router, svc, { tag: 'Payment', errorShape: 'status' }, [
    route({
      method: 'get',
      path: '/payment/summary',
      summary: 'Payment counts and totals by status and currency, pending requests (own for members)',
      access: 'user',
      async handler({ trx, auth }) {
        return { message: 'Payment summary', summary: await pay.paymentSummary(trx, isAdmin(auth) ? null : auth.tenantUserId) };
      },
    }),
    route({
      method: 'post',
      path: '/payment/bulk',
      summary: 'Create many payments (spec 2.3/4.1, admin): invalid currency, unknown user or amountUSD/conversionRate contradiction reported per item',
      access: 'admin',
      errorShape: 'catalogue',
      body: Strict({ payments: Type.Array(Type.Unknown(), { minItems: 1, maxItems: 1000 }) }),
      items: { field: 'payments', schema: PaymentItem },
      async handler({ trx, auth, body }) {
        const r = await bulkCreate<pay.PaymentInput, Awaited<ReturnType<typeof pay.bulkCreatePayments>>>(PaymentItem, body.payments, 'payments', (valid) => pay.bulkCreatePayments(trx, auth, valid));
        return { message: `${r.createdPayments.length} payment(s) created, ${body.payments.length - r.createdPayments.length} failed`, createdPayments: r.createdPayments, errors: r.errors };
      },
    }),
    route({
      method: 'post',
      path: '/payment/bulk/delete',
      summary: 'Delete payments (admin); the money returns to the balance (reversal entries)',
      access: 'admin',
      errorShape: 'catalogue',
      body: Ids,
      async handler({ trx, body }) {
        return pay.deletePayments(trx, body.ids);
      },
    }),
    route({
      method: 'post',
      path: '/payment/',
      summary: 'Record a payment made to a member (admin)',
      access: 'admin',
      status: 201,
      body: PaymentBody,
      async handler({ trx, auth, body }) {
        return ok('Payment created', await pay.createPayment(trx, auth, body as pay.PaymentInput));
      },
    }),
    route({
      method: 'get',
      path: '/payment/',
      summary: 'Payments (paged; members see their own)',
      access: 'user',
      query: Type.Object({ ...PageQuery, sort: Sort(['createdAt', 'transactionDate', 'amount', 'status']), user: Type.Optional(Uuid), status: Type.Optional(PaymentStatus) }),
      async handler({ trx, auth, query }) {
        return pagedList('Payments', query, (page, size) => pay.listPayments(trx, auth, { ...query, page, size }));
      },
    }),
    route({
      method: 'get',
      path: '/payment/:id',
      summary: 'One payment',
      access: 'user',
      params: IdParams,
      async handler({ trx, auth, params }) {
        return ok('Payment', await pay.getPayment(trx, auth, params.id));
      },
    }),
    route({
      method: 'put',
      path: '/payment/:id',
      summary: 'Change a payment recorded by hand (admin); the ledger gets the difference',
      access: 'admin',
      params: IdParams,
      body: PaymentPatch,
      async handler({ trx, auth, params, body }) {
        return ok('Payment updated', await pay.updatePayment(trx, auth, params.id, body as Partial<pay.PaymentInput> & { status?: pay.PaymentStatus }));
      },
    }),
    route({
      method: 'delete',
      path: '/payment/:id',
      summary: 'Delete a payment (admin; not while the processor has it)',
      access: 'admin',
      params: IdParams,
      async handler({ trx, auth, params }) {
        await pay.deletePayment(trx, auth, params.id);
        return ok('Payment deleted', null);
      },
    }),
  ]);

  // ------------------------------------------------------------ payment requests
  defineRoutes(router, svc, { tag: 'Payment request', errorShape: 'status' }, [
    route({
      method: 'post',
      path: '/payment-request/bulk/delete',
      summary: 'Delete pending or declined requests (own; admins any)',
      access: 'user',
      errorShape: 'catalogue',
      body: Ids,
      async handler({ trx, auth, body }) {
        return reqs.deleteRequests(trx, auth, body.ids);
      },
    }),
    route({
      method: 'post',
      path: '/payment-request/',
      summary: 'Request a payout of what is due (amount ≤ due − other pending requests)',
      access: 'user',
      status: 201,
      body: RequestBody,
      async handler({ trx, auth, body }) {
        return ok('Payment request created', await reqs.createRequest(trx, auth, body));
      },
    }),
    route({
      method: 'get',
      path: '/payment-request/',
      summary: 'Payment requests (paged; members see their own)',
      access: 'user',
      query: Type.Object({ page: PageQuery.page, size: PageQuery.size, order: PageQuery.order, user: Type.Optional(Uuid), status: Type.Optional(Type.Union(['pending', 'approved', 'declined', 'paid'].map((s) => Type.Literal(s)))) }),
      async handler({ trx, auth, query }) {
        return pagedList('Payment requests', query, (page, size) => reqs.listRequests(trx, auth, { ...query, page, size }));
      },
    }),
    route({
      method: 'get',
      path: '/payment-request/:id',
      summary: 'One payment request',
      access: 'user',
      params: IdParams,
      async handler({ trx, auth, params }) {
        return ok('Payment request', await reqs.getRequest(trx, auth, params.id));
      },
    }),
    route({
      method: 'put',
      path: '/payment-request/:id',
      summary: 'Change a pending request (own; admins any)',
      access: 'user',
      params: IdParams,
      body: RequestPatch,
      async handler({ trx, auth, params, body }) {
        return ok('Payment request updated', await reqs.updateRequest(trx, auth, params.id, body));
      },
    }),
    route({
      method: 'delete',
      path: '/payment-request/:id',
      summary: 'Delete a pending or declined request (own; admins any)',
      access: 'user',
      params: IdParams,
      async handler({ trx, auth, params }) {
        const r = await reqs.deleteRequests(trx, auth, [params.id]);
        const f = r.failedDeletions[0];
        if (f) {
          throw f.error.includes('not found') ? new NotFoundError('Payment request') : new ValidationError(f.error, [], 'REQUEST_NOT_DELETABLE');
        }
        return ok('Payment request deleted', null);
      },
    }),
    route({
      method: 'patch',
      path: '/payment-request/:id/approve',
      summary: 'Approve (admin): amount checked against what is due now, payment created and sent to the processor',
      access: 'admin',
      params: IdParams,
      body: Strict({ memo: Type.Optional(Nullable(Text(2000))) }),
      noTransaction: true,
      async handler({ auth, tenantId, params, body }) {
        return ok('Payment request approved', await reqs.approveRequest(svc, auth, tenantId, params.id, body.memo ?? null));
      },
    }),
    route({
      method: 'patch',
      path: '/payment-request/:id/decline',
      summary: 'Decline a pending request (admin)',
      access: 'admin',
      params: IdParams,
      body: Strict({ reason: Type.Optional(Nullable(Text(2000))) }),
      async handler({ trx, auth, params, body }) {
        return ok('Payment request declined', await reqs.declineRequest(trx, auth, params.id, body.reason ?? null));
      },
    }),
  ]);

  // ------------------------------------------------------------ payment settings
  defineRoutes(router, svc, { tag: 'Payment setting', errorShape: 'status' }, [
    route({
      method: 'post',
      path: '/payment-setting/bulk/delete',
      summary: 'Delete payment settings (own; admins any)',
      access: 'user',
      errorShape: 'catalogue',
      body: Ids,
      async handler({ trx, auth, body }) {
        return sets.deleteSettings(trx, auth, body.ids);
      },
    }),
    route({
      method: 'post',
      path: '/payment-setting',
      summary: 'Add a payout method; details are encrypted at rest and shown masked',
      access: 'user',
      status: 201,
      body: SettingBody,
      async handler({ trx, auth, body }) {
        return ok('Payment setting created', await sets.createSetting(trx, svc.secrets, auth, body as sets.SettingInput));
      },
    }),
    route({
      method: 'get',
      path: '/payment-setting',
      summary: 'Payment settings (own; admins any, masked)',
      access: 'user',
      query: Type.Object({ page: PageQuery.page, size: PageQuery.size, user: Type.Optional(Uuid) }),
      async handler({ trx, auth, query }) {
        return pagedList('Payment settings', query, (page, size) => sets.listSettings(trx, svc.secrets, auth, { page, size, user: query.user }));
      },
    }),
    route({
      method: 'get',
      path: '/payment-setting/:id',
      summary: 'One payment setting (masked)',
      access: 'user',
      params: IdParams,
      async handler({ trx, auth, params }) {
        return ok('Payment setting', await sets.getSetting(trx, svc.secrets, auth, params.id));
      },
    }),
    route({
      method: 'put',
      path: '/payment-setting/:id',
      summary: 'Change a payment setting (details replaced as a whole)',
      access: 'user',
      params: IdParams,
      body: SettingPatch,
      async handler({ trx, auth, params, body }) {
        return ok('Payment setting updated', await sets.updateSetting(trx, svc.secrets, auth, params.id, body as Partial<sets.SettingInput>));
      },
    }),
    route({
      method: 'delete',
      path: '/payment-setting/:id',
      summary: 'Delete a payment setting',
      access: 'user',
      params: IdParams,
      async handler({ trx, auth, params }) {
        const r = await sets.deleteSettings(trx, auth, [params.id]);
        if (!r.processedCount) throw new NotFoundError('Payment setting');
        return ok('Payment setting deleted', null);
      },
    }),
  ]);

  // ------------------------------------------------------------ processor integration
  defineRoutes(router, svc, { tag: 'Integration', errorShape: 'status' }, [
    route({
      method: 'get',
      path: '/integrations/all',
      summary: "The workspace's integrations and their state (secrets masked)",
      access: 'admin',
      async handler({ trx }) {
        return ok('Integrations', [await proc.integrationStatus(trx, svc)]);
      },
    }),
    route({
      method: 'get',
      path: '/integrations/info',
      summary: 'Integrations this installation offers',
      access: 'user',
      async handler() {
        return ok('Available integrations', [
          {
            provider: 'processor',
            name: 'Payment processor',
            description: 'Sends approved payouts as transfers; signed events report their outcome',
            available: !!svc.cfg.processorApiUrl,
            configureWith: 'POST /integrations/workspace {secretKey}',
          },
        ]);
      },
    }),
    route({
      method: 'get',
      path: '/integrations/workspace/info',
      summary: 'How to connect the processor to this workspace: webhook URL, signature, reference format',
      access: 'admin',
      async handler({ trx }) {
        const ws = await trx('tenants').whereRaw('id = app_tenant_id()').first('uuid');
        return ok('Processor connection', {
          webhookUrl: `${svc.cfg.publicUrl}/processor/webhook`,
          signatureHeader: 'x-processor-signature',
          signature: 'hex HMAC-SHA512 of the raw request body, keyed with the workspace processor secret',
          referenceFormat: 'rondo_<workspace uuid without dashes>_<payment uuid without dashes>',
          referencePrefix: `rondo_${String(ws.uuid).replace(/-/g, '')}_`,
          events: ['transfer.success', 'transfer.failed', 'transfer.reversed'],
          processorApiConfigured: !!svc.cfg.processorApiUrl,
        });
      },
    }),
    route({
      method: 'post',
      path: '/integrations/workspace',
      summary: "Store (or replace) the workspace's processor secret (admin); never returned",
      access: 'admin',
      status: 201,
      body: IntegrationBody,
      async handler({ trx, body }) {
        return ok('Processor integration saved', await proc.setIntegration(trx, svc, body, 'create'));
      },
    }),
    route({
      method: 'get',
      path: '/integrations/workspace',
      summary: 'Processor integration status (masked: hasSecret, secretHint, secretUpdatedAt)',
      access: 'admin',
      async handler({ trx }) {
        return ok('Processor integration', await proc.integrationStatus(trx, svc));
      },
    }),
    route({
      method: 'put',
      path: '/integrations/workspace',
      summary: 'Rotate the secret or enable/disable the integration (admin)',
      access: 'admin',
      body: IntegrationPatch,
      async handler({ trx, body }) {
        return ok('Processor integration updated', await proc.setIntegration(trx, svc, body, 'update'));
      },
    }),
    route({
      method: 'delete',
      path: '/integrations/workspace',
      summary: 'Remove the processor integration and its secret (admin)',
      access: 'admin',
      async handler({ trx }) {
        await proc.deleteIntegration(trx);
        return ok('Processor integration removed', null);
      },
    }),
  ]);

  defineRoutes(router, svc, { tag: 'Processor', errorShape: 'processor' }, [
    route({
      method: 'post',
      path: '/processor/webhook',
      summary: 'Inbound processor events, signed: x-processor-signature = hex HMAC-SHA512(raw body, workspace secret)',
      access: 'public',
      rawBody: true,
      async handler({ ctx }) {
        const raw = await proc.readRawBody(ctx.req);
        const r = await proc.handleProcessorEvent(svc, raw, ctx.get('x-processor-signature') || undefined);
        return { status: 'success', event: r.event };
      },
    }),
  ]);
}
