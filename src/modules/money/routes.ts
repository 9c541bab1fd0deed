/**
 * The five money resource areas (docs/money.md, "Routes"): expenses, revenues, payments, payment
 * requests, payment settings. Their list/get/create/update/delete/bulk-delete routes, and
 * the summaries and bulk creates of the areas that have them, come from one factory
 * (src/http/crud.ts) given each area's service object; the payment requests' approve and
 * decline are listed in `extra`. Handlers: parsed input and the caller → one service call
 * → the answer's shape.
 *
 * Scoping: admins and owners see the whole workspace (and may name a payee with `user`);
 * other members see only their own records; guests are refused. Another workspace's
 * record answers 404, as if absent.
 */
import type Router from '@koa/router';
import { route } from '../../http/route';
import { defineCrudRoutes, IdParams, ok } from '../../http/crud';
import type { AppServices } from '../../services';
import * as S from './schemas';
import * as exp from './expenses';
import * as rev from './revenues';
import * as pay from './payments';
import * as reqs from './requests';
import * as sets from './settings';
import * as Res from './responses';

const ADMIN_WRITES = { read: 'user', write: 'admin' } as const;
const OWN_RECORDS = { read: 'user', write: 'user' } as const;

/** What the routes of each area say about it (OpenAPI description). */
const ABOUT = {
  expense:
    'Admins record and change expenses; members read their own. A recoupable expense is taken from its payee’s earnings (on its target first); ' +
    'a change re-derives recoupment and a delete reverses it in the ledger. There is no DELETE of one expense: use bulk delete.',
  revenue:
    'Admins record revenues split between members (shares sum to exactly 100); members read those they share in, with their own share. ' +
    'A change re-posts the shares; a delete reverses them in the ledger.',
  payment:
    'Payments made to members (admins write, members read their own). Bulk create reports an invalid currency, an unknown user ' +
    'or an amountUSD/conversionRate contradiction per item. A change to a payment recorded by hand posts the difference to the ledger; ' +
    'a delete (refused while the processor has the payment) returns the money to the balance.',
  request:
    'Members request payouts of what is due to them (amount ≤ due − their other pending requests) and change or delete their own; admins any. ' +
    'Only pending requests change; approved or paid ones are not deleted.',
  setting: 'Payout methods: members manage their own, admins any. Details are encrypted at rest, shown masked, and replaced as a whole on change.',
};

export function registerMoneyResourceRoutes(router: Router, svc: AppServices): void {
  defineCrudRoutes(router, svc, { noun: 'Expense', path: '/expense/', access: ADMIN_WRITES, service: exp.expenseCrud, about: ABOUT.expense,
    schemas: { list: S.ExpenseListQuery, create: S.ExpenseBody, update: S.ExpensePatch }, bulk: { key: 'expenses', item: S.ExpenseBody }, answers: { view: Res.ExpenseView, summary: Res.ExpenseSummary, bulk: Res.ExpensesCreated } });
  defineCrudRoutes(router, svc, { noun: 'Revenue', path: '/revenue/', access: ADMIN_WRITES, service: rev.revenueCrud, about: ABOUT.revenue,
    schemas: { list: S.RevenueListQuery, create: S.RevenueBody, update: S.RevenuePatch }, bulk: { key: 'revenues', item: S.RevenueBody }, answers: { view: Res.RevenueView, summary: Res.RevenueSummary, bulk: Res.RevenuesCreated } });
  defineCrudRoutes(router, svc, { noun: 'Payment', path: '/payment/', access: ADMIN_WRITES, service: pay.paymentCrud, about: ABOUT.payment,
    schemas: { list: S.PaymentListQuery, create: S.PaymentBody, update: S.PaymentPatch }, bulk: { key: 'payments', item: S.PaymentItem }, answers: { view: Res.PaymentView, summary: Res.PaymentSummary, bulk: Res.PaymentsCreated } });
  defineCrudRoutes(router, svc, { noun: 'Payment setting', path: '/payment-setting', access: OWN_RECORDS, service: sets.settingCrud(svc.secrets), about: ABOUT.setting,
    schemas: { list: S.SettingListQuery, create: S.SettingBody, update: S.SettingPatch }, answers: { view: Res.PaymentSettingView } });
  defineCrudRoutes(router, svc, {
    noun: 'Payment request', path: '/payment-request/', access: OWN_RECORDS, service: reqs.requestCrud, about: ABOUT.request,
    schemas: { list: S.RequestListQuery, create: S.RequestBody, update: S.RequestPatch }, answers: { view: Res.PaymentRequestView },
    extra: [
      route({ method: 'patch', path: '/payment-request/:id/approve', responses: { 200: Res.PatchPaymentRequestByIdApprove }, summary: 'Approve (admin): amount checked against what is due now, payment created and sent to the processor', access: 'admin', params: IdParams, body: S.ApproveBody, noTransaction: true,
        async handler({ auth, tenantId, params, body }) {
          return ok('Payment request approved', await reqs.approveRequest(svc, auth, tenantId, params.id, body.memo ?? null));
        } }),
      route({ method: 'patch', path: '/payment-request/:id/decline', responses: { 200: Res.PatchPaymentRequestByIdDecline }, summary: 'Decline a pending request (admin)', access: 'admin', params: IdParams, body: S.DeclineBody,
        async handler({ trx, auth, params, body }) {
          return ok('Payment request declined', await reqs.declineRequest(trx, auth, params.id, body.reason ?? null));
        } }),
    ],
  });
}
