/**
 * The five money resource areas (spec 4.1–4.3): expenses, revenues, payments, payment
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

export function registerMoneyResourceRoutes(router: Router, svc: AppServices): void {
  defineCrudRoutes(router, svc, {
    tag: 'Expense',
    path: '/expense/',
    noun: 'Expense',
    plural: 'Expenses',
    access: { read: 'user', write: 'admin' },
    schemas: { list: S.ExpenseListQuery, create: S.ExpenseBody, update: S.ExpensePatch },
    service: exp.expenseCrud,
    summaries: {
      list: 'Expenses (paged; members see their own)',
      get: 'One expense with what has been recouped of it',
      create: 'Record an expense (admin); recoupable ones are taken from the payee earnings on their target first',
      update: 'Change an expense (admin); recoupment is re-derived',
      bulkRemove: 'Delete expenses (admin); their recoupment is reversed in the ledger',
      summary: 'Expense counts and totals, recouped and unrecouped (own for members)',
      bulkCreate: 'Create many expenses (admin); invalid items are reported in errors, the rest created',
    },
    bulk: { key: 'expenses', item: S.ExpenseBody },
  });

  defineCrudRoutes(router, svc, {
    tag: 'Revenue',
    path: '/revenue/',
    noun: 'Revenue',
    plural: 'Revenues',
    access: { read: 'user', write: 'admin' },
    schemas: { list: S.RevenueListQuery, create: S.RevenueBody, update: S.RevenuePatch },
    service: rev.revenueCrud,
    summaries: {
      list: 'Revenues (paged; members see those they share in)',
      get: 'One revenue',
      create: 'Record a revenue split between members (shares sum to exactly 100) (admin)',
      update: 'Change a revenue (admin); its shares are re-posted',
      remove: 'Delete a revenue (admin)',
      bulkRemove: 'Delete revenues (admin); their shares are reversed in the ledger',
      summary: 'Revenue totals (members: their shares)',
      bulkCreate: 'Create many revenues (admin); invalid items are reported in errors',
    },
    bulk: { key: 'revenues', item: S.RevenueBody },
  });

  defineCrudRoutes(router, svc, {
    tag: 'Payment',
    path: '/payment/',
    noun: 'Payment',
    plural: 'Payments',
    access: { read: 'user', write: 'admin' },
    schemas: { list: S.PaymentListQuery, create: S.PaymentBody, update: S.PaymentPatch },
    service: pay.paymentCrud,
    summaries: {
      list: 'Payments (paged; members see their own)',
      get: 'One payment',
      create: 'Record a payment made to a member (admin)',
      update: 'Change a payment recorded by hand (admin); the ledger gets the difference',
      remove: 'Delete a payment (admin; not while the processor has it)',
      bulkRemove: 'Delete payments (admin); the money returns to the balance (reversal entries)',
      summary: 'Payment counts and totals by status and currency, pending requests (own for members)',
      bulkCreate: 'Create many payments (spec 2.3/4.1, admin): invalid currency, unknown user or amountUSD/conversionRate contradiction reported per item',
    },
    bulk: { key: 'payments', item: S.PaymentItem },
  });

  defineCrudRoutes(router, svc, {
    tag: 'Payment request',
    path: '/payment-request/',
    noun: 'Payment request',
    plural: 'Payment requests',
    access: { read: 'user', write: 'user' },
    schemas: { list: S.RequestListQuery, create: S.RequestBody, update: S.RequestPatch },
    service: reqs.requestCrud,
    summaries: {
      list: 'Payment requests (paged; members see their own)',
      get: 'One payment request',
      create: 'Request a payout of what is due (amount ≤ due − other pending requests)',
      update: 'Change a pending request (own; admins any)',
      remove: 'Delete a pending or declined request (own; admins any)',
      bulkRemove: 'Delete pending or declined requests (own; admins any)',
    },
    extra: [
      route({
        method: 'patch',
        path: '/payment-request/:id/approve',
        summary: 'Approve (admin): amount checked against what is due now, payment created and sent to the processor',
        access: 'admin',
        params: IdParams,
        body: S.ApproveBody,
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
        body: S.DeclineBody,
        async handler({ trx, auth, params, body }) {
          return ok('Payment request declined', await reqs.declineRequest(trx, auth, params.id, body.reason ?? null));
        },
      }),
    ],
  });

  defineCrudRoutes(router, svc, {
    tag: 'Payment setting',
    path: '/payment-setting',
    noun: 'Payment setting',
    plural: 'Payment settings',
    access: { read: 'user', write: 'user' },
    schemas: { list: S.SettingListQuery, create: S.SettingBody, update: S.SettingPatch },
    service: sets.settingCrud(svc.secrets),
    summaries: {
      list: 'Payment settings (own; admins any, masked)',
      get: 'One payment setting (masked)',
      create: 'Add a payout method; details are encrypted at rest and shown masked',
      update: 'Change a payment setting (details replaced as a whole)',
      remove: 'Delete a payment setting',
      bulkRemove: 'Delete payment settings (own; admins any)',
    },
  });
}
