/**
 * The FX payout partner: `/integrations/fxpartner/*` and its signed callback
 * `POST /integrations/fxpartner/webhook/{workspaceId}`. Roles: admin or higher for every route
 * except `GET …/info` (user); every route but the callback needs the plan feature `fxpartner`
 * (the callback keeps applying to payouts already sent when a plan loses it); routes that call the partner open no transaction of their own
 * (the service keeps its transactions short and never spans an HTTP call).
 */
import type Router from '@koa/router';
import { defineRoutes, route } from '../../http/route';
import { ok, paged } from '../../http/crud';
import { Type, StatusError } from '../../http/schema';
import type { AppServices } from '../../services';
import { receiveBuffer } from '../../http/upload';
import { ValidationError } from '../../lib/errors';
import * as S from './schemas';
import * as fx from './fxpartner';
import * as pay from './fx-payouts';
import { pageArgs } from './common';

const errs = { 400: StatusError, 401: StatusError, 403: StatusError, 404: StatusError, 500: StatusError };
const IDEMPOTENCY = /^[A-Za-z0-9_.:-]{8,200}$/;

function idempotencyKey(header: string, fromBody?: string): string | null {
  const k = fromBody ?? (header || null);
  if (k !== null && !IDEMPOTENCY.test(k)) throw new ValidationError('Invalid request', ['Idempotency-Key must be 8–200 characters of A-Z a-z 0-9 _ . : -']);
  return k;
}

export function registerFxPartnerRoutes(router: Router, svc: AppServices): void {
  const base = '/integrations/fxpartner';
  /** A page of a list the partner holds (page default 1, size default 10). */
  const partnerPage = <T>(title: string, list: (svc: AppServices, tenantId: number, page: number, size: number) => Promise<{ data: T[]; total: number }>) =>
    async ({ tenantId, query }: { tenantId: number; query: { page?: number; size?: number } }) => {
      const { page, size } = pageArgs(query, 10);
      const r = await list(svc, tenantId, page, size);
      return paged(title, r.data, page, size, r.total);
    };
  defineRoutes(router, svc, { tag: 'Payout partner', errorShape: 'status' }, [
    route({ method: 'get', path: `${base}/all`, summary: "The workspace's FX payout integration (API key masked)", access: 'admin', feature: 'fxpartner', responses: { 200: S.Success(Type.Array(S.FxStatus)), ...errs },
      async handler({ trx }) {
        return ok('FX payout integrations', [await fx.fxStatus(trx, svc)]);
      } }),
    route({ method: 'get', path: `${base}/info`, summary: 'The FX payout partner: availability, callback URL and signature, payout statuses', access: 'user', scope: 'workspace', feature: 'fxpartner', responses: { 200: S.Success(Type.Object({ provider: Type.Literal('fxpartner'), available: Type.Boolean(), connected: Type.Boolean(), webhookUrl: Type.String() })), ...errs },
      async handler({ trx }) {
        return ok('FX payout partner', await fx.fxInfo(trx, svc));
      } }),
    route({ method: 'post', path: base, summary: 'Connect the FX payout partner: the key is checked with the partner, then stored encrypted (never returned)', access: 'admin', feature: 'fxpartner', status: 201, body: S.FxConnect, noTransaction: true, responses: { 201: S.Success(S.FxStatus), ...errs },
      async handler({ tenantId, body }) {
        return ok('FX payout integration saved', await fx.connectFx(svc, tenantId, body, 'create'));
      } }),
    route({ method: 'put', path: base, summary: 'Rotate the API key, rename, enable or disable the FX payout integration', access: 'admin', feature: 'fxpartner', body: S.FxUpdate, noTransaction: true, responses: { 200: S.Success(S.FxStatus), ...errs },
      async handler({ tenantId, body }) {
        return ok('FX payout integration updated', await fx.connectFx(svc, tenantId, body, 'update'));
      } }),
    route({ method: 'delete', path: base, summary: 'Disconnect the FX payout partner and forget its key', access: 'admin', feature: 'fxpartner', responses: { 200: S.Success(Type.Null()), ...errs },
      async handler({ trx }) {
        await fx.disconnectFx(trx);
        return ok('FX payout integration removed', null);
      } }),
    route({ method: 'get', path: `${base}/wallets`, summary: 'Wallets at the partner (page default 1; size default 10, at most 50: a larger size is refused)', access: 'admin', feature: 'fxpartner', query: S.WalletQuery, noTransaction: true, responses: { 200: S.WalletList, ...errs },
      handler: partnerPage('Wallets', fx.listWallets) }),
    route({ method: 'get', path: `${base}/purpose-codes`, summary: 'Payment purpose codes the partner accepts', access: 'admin', feature: 'fxpartner', noTransaction: true, responses: { 200: S.Success(Type.Array(Type.Object({ code: Type.String(), description: Type.String() }))), ...errs },
      async handler({ tenantId }) {
        return ok('Purpose codes', await fx.purposeCodes(svc, tenantId));
      } }),
    route({ method: 'post', path: `${base}/beneficiaries/link`, summary: 'Link a beneficiary to a member: payouts to it post to that member’s ledger', access: 'admin', feature: 'fxpartner', body: S.LinkBody, noTransaction: true, responses: { 200: S.Success(Type.Object({ beneficiaryId: Type.String(), userId: Type.String() })), ...errs },
      async handler({ tenantId, body }) {
        return ok('Beneficiary linked', await fx.linkBeneficiary(svc, tenantId, body.beneficiaryId, body.userId));
      } }),
    route({ method: 'delete', path: `${base}/beneficiaries/:beneficiaryId/unlink`, summary: 'Remove the link of a beneficiary to a member', access: 'admin', feature: 'fxpartner', params: S.BeneficiaryIdParam, responses: { 200: S.Success(Type.Null()), ...errs },
      async handler({ trx, params }) {
        await fx.unlinkBeneficiary(trx, params.beneficiaryId);
        return ok('Beneficiary unlinked', null);
      } }),
    route({ method: 'get', path: `${base}/beneficiaries`, summary: 'Beneficiaries at the partner, with the member each is linked to', access: 'admin', feature: 'fxpartner', query: S.WalletQuery, noTransaction: true, responses: { 200: S.BeneficiaryList, ...errs },
      handler: partnerPage('Beneficiaries', fx.listBeneficiaries) }),
    route({ method: 'post', path: `${base}/beneficiaries`, summary: 'Create a beneficiary at the partner', access: 'admin', feature: 'fxpartner', status: 201, body: S.BeneficiaryBody, noTransaction: true, responses: { 201: S.Success(S.Beneficiary), ...errs },
      async handler({ tenantId, body }) {
        return ok('Beneficiary created', await fx.saveBeneficiary(svc, tenantId, body));
      } }),
    route({ method: 'get', path: `${base}/beneficiaries/:id`, summary: 'One beneficiary', access: 'admin', feature: 'fxpartner', params: S.IdParam, noTransaction: true, responses: { 200: S.Success(S.Beneficiary), ...errs },
      async handler({ tenantId, params }) {
        return ok('Beneficiary', await fx.getBeneficiary(svc, tenantId, params.id));
      } }),
    route({ method: 'put', path: `${base}/beneficiaries/:id`, summary: 'Update a beneficiary at the partner', access: 'admin', feature: 'fxpartner', params: S.IdParam, body: S.BeneficiaryPatch, noTransaction: true, responses: { 200: S.Success(S.Beneficiary), ...errs },
      async handler({ tenantId, params, body }) {
        return ok('Beneficiary updated', await fx.saveBeneficiary(svc, tenantId, body as Record<string, unknown>, params.id));
      } }),
    route({ method: 'delete', path: `${base}/beneficiaries/:id`, summary: 'Delete a beneficiary at the partner (and its link)', access: 'admin', feature: 'fxpartner', params: S.IdParam, noTransaction: true, responses: { 200: S.Success(Type.Null()), ...errs },
      async handler({ tenantId, params }) {
        await fx.deleteBeneficiary(svc, tenantId, params.id);
        return ok('Beneficiary deleted', null);
      } }),
    route({ method: 'post', path: `${base}/payment-requests`, summary: 'Pay a beneficiary (v1): created pending; optional Idempotency-Key header makes a retry answer the same request', access: 'admin', feature: 'fxpartner', status: 201, body: S.PaymentRequestV1, noTransaction: true, responses: { 201: S.PaymentRequestCreated, ...errs },
      async handler({ ctx, tenantId, auth, body }) {
        const r = await pay.createFxPaymentRequest(svc, tenantId, auth, { ...body, walletId: String(body.walletId) }, 1, idempotencyKey(ctx.get('idempotency-key')));
        return r;
      } }),
    route({ method: 'post', path: `${base}/payment-requests/v2`, summary: 'Pay a beneficiary (v2): adds purposeCode (required) and idempotencyKey (body or Idempotency-Key header)', access: 'admin', feature: 'fxpartner', status: 201, body: S.PaymentRequestV2, noTransaction: true, responses: { 201: S.PaymentRequestCreated, ...errs },
      async handler({ ctx, tenantId, auth, body }) {
        const { idempotencyKey: k, ...input } = body;
        const r = await pay.createFxPaymentRequest(svc, tenantId, auth, { ...input, walletId: String(input.walletId) }, 2, idempotencyKey(ctx.get('idempotency-key'), k));
        return r;
      } }),
    route({ method: 'get', path: `${base}/payment-requests`, summary: "The workspace's payout requests, newest first", access: 'admin', feature: 'fxpartner', query: S.FxRequestQuery, responses: { 200: S.FxRequestList, ...errs },
      async handler({ trx, query }) {
        const page = query.page ?? 1;
        const size = query.size ?? 10;
        const r = await pay.listFxRequests(trx, page, size, query.status);
        return paged('Payment requests', r.data, page, size, r.total);
      } }),
    route({ method: 'get', path: `${base}/payment-requests/:id`, summary: 'One payout request and its status', access: 'admin', feature: 'fxpartner', params: Type.Object({ id: Type.String({ format: 'uuid' }) }), responses: { 200: S.Success(S.FxRequest), ...errs },
      async handler({ trx, params }) {
        return ok('Payment request', await pay.getFxRequest(trx, params.id));
      } }),
  ]);

  defineRoutes(router, svc, { tag: 'Payout partner', errorShape: 'status' }, [
    route({ method: 'post', path: `${base}/webhook/:workspaceId`, summary: 'Signed payout callbacks: x-fxpartner-signature t=<unix>,v1=<hex HMAC-SHA256("<t>.<raw body>", workspace API key)>', access: 'public', rawBody: true, params: S.WorkspaceParam,
      responses: { 200: Type.Object({ status: Type.Literal('success'), applied: Type.Boolean() }), 400: StatusError, 401: StatusError, 404: StatusError },
      async handler({ ctx, params }) {
        const raw = await receiveBuffer({ stream: ctx.req, headers: ctx.req.headers }, 1024 * 1024);
        const r = await pay.handleFxCallback(svc, params.workspaceId, raw, ctx.get('x-fxpartner-signature') || undefined);
        return { status: 'success', applied: r.applied };
      } }),
  ]);
}
