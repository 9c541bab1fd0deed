/**
 * Publisher-writer agreements (spec part 3 rule 4, part 7; docs/publishing.md): errors in
 * the `{message, error}` shape; publishing feature; admins write, members read.
 *
 *   POST  /agreements                 {publisher, writer, territories, startDate, endDate?, writerShare, advance?, currency?} → 201, draft
 *   GET   /agreements                 paged; ?writer ?publisher ?status
 *   GET   /agreements/{id}
 *   PUT   /agreements/{id}            terms, while draft or pending
 *   PATCH /agreements/{id}/status     {status}: only the moves of AGREEMENT_MOVES
 */
import type Router from '@koa/router';
import { IdParams, ok, pagedList } from '../../http/crud';
import { defineRoutes, route } from '../../http/route';
import { Pagination, Type } from '../../http/schema';
import type { AppServices } from '../../services';
import * as A from './agreements';
import * as S from './schemas';

const AgreementError = Type.Object({ message: Type.String(), error: Type.Optional(Type.String()) }, { description: 'spec part 7: {message, error?}' });
const errs = { 400: AgreementError, 401: AgreementError, 403: AgreementError, 404: AgreementError, 500: AgreementError };
const One = Type.Object({ status: Type.Literal('success'), message: Type.String(), data: S.AgreementView });
const List = Type.Object({ success: Type.Literal(true), message: Type.String(), data: Type.Array(S.AgreementView), pagination: Pagination });
const gate = { feature: 'publishing' as const };

export function registerAgreementRoutes(router: Router, _svc: AppServices): void {
  defineRoutes(router, _svc, { tag: 'Agreement', errorShape: 'agreement' }, [
    route({ method: 'post', path: '/agreements', summary: 'Create a publisher-writer agreement (status draft)', access: 'admin', ...gate, body: S.AgreementBody, status: 201, responses: { 201: One, ...errs },
      async handler({ trx, auth, body }) {
        return ok('Agreement created', await A.createAgreement(trx, auth, body));
      } }),
    route({ method: 'get', path: '/agreements', summary: 'List agreements (paged)', access: 'user', ...gate, query: S.AgreementListQuery, responses: { 200: List, ...errs },
      async handler({ trx, query }) {
        return pagedList('Agreements', query, (page, size) => A.listAgreements(trx, { ...query, page, size }));
      } }),
    route({ method: 'get', path: '/agreements/:id', summary: 'One agreement', access: 'user', ...gate, params: IdParams, responses: { 200: One, ...errs },
      async handler({ trx, params }) {
        return ok('Agreement', await A.getAgreement(trx, params.id));
      } }),
    route({ method: 'put', path: '/agreements/:id', summary: 'Change the terms of a draft or pending agreement', access: 'admin', ...gate, params: IdParams, body: S.AgreementPatch, responses: { 200: One, ...errs },
      async handler({ trx, params, body }) {
        return ok('Agreement updated', await A.updateAgreement(trx, params.id, body));
      } }),
    route({
      method: 'patch', path: '/agreements/:id/status', access: 'admin', ...gate, params: IdParams, body: S.AgreementStatusBody, responses: { 200: One, ...errs },
      summary: 'Move an agreement: draft→pending, pending→draft, pending→active, active→expired, active→terminated; any other move is a 400',
      async handler({ trx, params, body }) {
        return ok('Agreement status updated', await A.setAgreementStatus(trx, params.id, body.status));
      },
    }),
  ]);
}
