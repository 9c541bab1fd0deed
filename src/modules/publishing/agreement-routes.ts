/**
 * Publisher-writer agreements (docs/publishing.md, "Agreement states"; docs/errors.md): errors in
 * the `{message, error}` shape; publishing feature; admins write, members read.
 *
 *   POST  /agreements                 {publisher, writer, territories, startDate, endDate?, writerShare, advance?, currency?} → 201, draft
 *   GET   /agreements                 paged; ?writer ?publisher ?status
 *   GET   /agreements/{id}
 *   PUT   /agreements/{id}            terms, while draft or pending
 *   PATCH /agreements/{id}/status     {status}: only the moves of AGREEMENT_MOVES
 */
import type Router from '@koa/router';
import { defineRoutes } from '../../http/route';
import { Type } from '../../http/schema';
import type { AppServices } from '../../services';
import * as A from './agreements';
import * as S from './schemas';
import { recordRoutes } from './answers';

const AgreementError = Type.Object({ message: Type.String(), error: Type.Optional(Type.String()) }, { description: 'The publishing error shape: {message, error?}' });
const errs = { 400: AgreementError, 401: AgreementError, 403: AgreementError, 404: AgreementError, 500: AgreementError };

export function registerAgreementRoutes(router: Router, _svc: AppServices): void {
  defineRoutes(router, _svc, { tag: 'Agreement', errorShape: 'agreement' }, recordRoutes({
    noun: 'Agreement', path: '/agreements', view: S.AgreementView, errs, list: { query: S.AgreementListQuery, run: A.listAgreements }, get: A.getAgreement,
    create: { summary: 'Create a publisher-writer agreement (status draft)', body: S.AgreementBody, run: A.createAgreement },
    update: { summary: 'Change the terms of a draft or pending agreement', body: S.AgreementPatch, run: A.updateAgreement },
    status: { summary: 'Move an agreement: draft→pending, pending→draft, pending→active, active→expired, active→terminated; any other move is a 400', body: S.AgreementStatusBody, run: A.setAgreementStatus },
  }));
}
