/**
 * The invoicing partner: `/integrations/invoicer/*` (OAuth 2.0 authorization code with
 * refresh, the partner's invoices, their import as expenses and revenues). Admin or higher.
 */
import type Router from '@koa/router';
import { defineRoutes, route } from '../../http/route';
import { ok, paged } from '../../http/crud';
import { Type, StatusError } from '../../http/schema';
import type { AppServices } from '../../services';
import * as S from './schemas';
import * as inv from './invoicer';

const errs = { 400: StatusError, 401: StatusError, 403: StatusError, 404: StatusError, 500: StatusError };

export function registerInvoicerRoutes(router: Router, svc: AppServices): void {
  const base = '/integrations/invoicer';
  defineRoutes(router, svc, { tag: 'Invoicing partner', errorShape: 'status' }, [
    route({ method: 'get', path: `${base}/auth/url`, summary: "The partner's consent URL (OAuth 2.0 authorization code; state valid 10 minutes, single use)", access: 'admin',
      responses: { 200: S.Success(Type.Object({ url: Type.String(), state: Type.String(), redirectUri: Type.String() })), ...errs },
      async handler({ trx, auth }) {
        return ok('Authorization URL', await inv.authUrl(trx, svc, auth));
      } }),
    route({ method: 'post', path: `${base}/auth/token`, summary: 'Exchange the code the partner sent back (with its state) for tokens, stored encrypted', access: 'admin', body: S.InvoicerTokenBody, noTransaction: true,
      responses: { 200: S.Success(S.InvoicerStatus), ...errs },
      async handler({ tenantId, body }) {
        return ok('Invoicing partner connected', await inv.exchangeToken(svc, tenantId, body.code, body.state));
      } }),
    route({ method: 'get', path: `${base}/auth/refresh`, summary: 'Refresh the access token now (it is also refreshed on its own before expiry)', access: 'admin', noTransaction: true,
      responses: { 200: S.Success(S.InvoicerStatus), ...errs },
      async handler({ tenantId }) {
        return ok('Access token refreshed', await inv.refreshToken(svc, tenantId));
      } }),
    route({ method: 'get', path: `${base}/invoices`, summary: "The partner's invoices, with what each was imported as", access: 'admin', query: S.InvoiceListQuery, noTransaction: true,
      responses: { 200: S.InvoiceList, ...errs },
      async handler({ tenantId, query }) {
        const page = query.page ?? 1;
        const size = query.size ?? 20;
        const r = await inv.listInvoices(svc, tenantId, page, size);
        return paged('Invoices', r.data, page, size, r.total);
      } }),
    route({ method: 'get', path: `${base}/invoices/:uuid`, summary: 'One invoice at the partner', access: 'admin', params: S.UuidParam, noTransaction: true,
      responses: { 200: S.Success(S.Invoice), ...errs },
      async handler({ tenantId, params }) {
        return ok('Invoice', await inv.getInvoice(svc, tenantId, params.uuid));
      } }),
    route({ method: 'delete', path: `${base}/invoices/:uuid`, summary: 'Delete an invoice at the partner (what was imported from it stays)', access: 'admin', params: S.UuidParam, noTransaction: true,
      responses: { 200: S.Success(Type.Null()), ...errs },
      async handler({ tenantId, params }) {
        await inv.deleteInvoice(svc, tenantId, params.uuid);
        return ok('Invoice deleted', null);
      } }),
    route({ method: 'post', path: `${base}/sync-invoices`, summary: 'Import invoices: sales → revenues, purchase → expenses (userId, default the caller); drafts and void skipped; idempotent', access: 'admin', body: S.SyncBody, noTransaction: true,
      responses: { 200: S.Success(S.SyncResult), ...errs },
      async handler({ tenantId, auth, body }) {
        return ok('Invoices synced', await inv.syncInvoices(svc, tenantId, auth, body.userId));
      } }),
  ]);
}
