/**
 * Registrations with societies and claims on works (docs/publishing.md, "Registration states" and "Claims"):
 * publishing feature; errors `{status:"error", message}`; admins write, members read.
 *
 *   POST  /registrations                  {work, society} → 201, pending
 *   GET   /registrations                  paged; ?work ?society ?status
 *   GET   /registrations/export           ?format=cwr21|cwr22 [&society] [&sender]: the CWR file of the queued ones, which become submitted
 *   POST  /registrations/ack              {content}: a society's acknowledgement file → registered | rejected (and claims)
 *   GET   /registrations/submissions     the CWR files written so far; /registrations/submissions/{id} downloads one again
 *   GET   /registrations/{id}
 *   POST  /registrations/{id}/queue       pending | rejected → queued
 *   POST/GET /claims, GET/PUT /claims/{id}, PATCH /claims/{id}/status {status, note?}
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { IdParams, ok, pagedList } from '../../http/crud';
import { defineRoutes, route } from '../../http/route';
import { PageQuery, Strict, Type } from '../../http/schema';
import { sortQuery } from '../../http/list-sort';
import { SUBMISSION_SORT } from './sorts';
import { INTERFACE_VERSION } from '../../http/openapi';
import type { AppServices } from '../../services';
import * as R from './registrations';
import * as C from './claims';
import * as S from './schemas';
import { gate, many, one, recordRoutes, statusErrs as errs } from './answers';

const Submission = Type.Object({
  id: Type.String({ format: 'uuid' }), version: Type.String(), filename: Type.String(), transactionCount: Type.Integer(), recordCount: Type.Integer(), createdAt: Type.String({ format: 'date-time' }),
});

/** A CWR file as the answer, to save under its own name. */
function sendCwr(ctx: Context, f: { filename: string; content: string }): undefined {
  ctx.status = 200;
  ctx.type = 'text/plain; charset=us-ascii';
  ctx.attachment(f.filename);
  ctx.body = f.content;
  return undefined;
}

export function registerRegistrationRoutes(router: Router, svc: AppServices): void {
  const software = { name: 'RONDO', version: INTERFACE_VERSION };
  defineRoutes(router, svc, { tag: 'Registration', errorShape: 'status' }, recordRoutes({
    noun: 'Registration', path: '/registrations', view: S.RegistrationView, errs, list: { query: S.RegistrationListQuery, run: R.listRegistrations }, get: R.getRegistration,
    create: { summary: 'Register a work with a society: created pending', body: S.RegistrationBody, run: R.createRegistration },
    extra: [
      route({
        method: 'get', path: '/registrations/export', access: 'admin', ...gate, query: S.ExportQuery, responses: { 200: Type.String({ description: 'the CWR file (text/plain)', contentMediaType: 'text/plain', examples: ['HDRSO000012345MOONLIGHT MUSIC ...\r\nGRHNWR0000102.100000000000\r\n…'] }), ...errs },
        summary: 'Write the queued registrations as a CWR 2.1 or 2.2 file (kept; the registrations become submitted); 400 when none is queued',
        async handler({ ctx, trx, auth, query }) {
          const r = await R.exportRegistrations(trx, auth, query, software);
          ctx.set('X-Cwr-Submission', r.submission);
          return sendCwr(ctx, r);
        },
      }),
      route({ method: 'post', path: '/registrations/ack', summary: 'Read a society\'s CWR acknowledgement file: each acknowledged registration becomes registered or rejected', access: 'admin', ...gate,
        body: S.AckBody, responses: { 200: S.AckAnswer, ...errs },
        async handler({ trx, auth, body }) {
          return R.importAck(trx, auth, body.content);
        } }),
      route({ method: 'get', path: '/registrations/submissions', summary: 'The CWR files written by the export, newest first', access: 'admin', ...gate, query: Type.Object({ page: PageQuery.page, size: PageQuery.size, ...sortQuery(SUBMISSION_SORT, 'createdAt', 'Part of the file name') }),
        responses: { 200: many(Submission), ...errs },
        async handler({ trx, query }) {
          return pagedList('CWR files', query, (page, size) => R.listSubmissions(trx, { ...query, page, size }));
        } }),
      route({ method: 'get', path: '/registrations/submissions/:id', summary: 'Download a CWR file the export wrote, again', access: 'admin', ...gate, params: IdParams,
        responses: { 200: Type.String({ description: 'the CWR file (text/plain)', contentMediaType: 'text/plain', examples: ['HDRSO000012345MOONLIGHT MUSIC ...\r\nGRHNWR0000102.100000000000\r\n…'] }), ...errs },
        async handler({ ctx, trx, params }) {
          return sendCwr(ctx, await R.getSubmission(trx, params.id));
        } }),
    ],
    extraById: [
      route({ method: 'post', path: '/registrations/:id/queue', summary: 'Queue a pending (or rejected) registration for the next CWR export', access: 'admin', ...gate, params: IdParams, body: Strict({}),
        responses: { 200: one(S.RegistrationView), ...errs },
        async handler({ trx, params }) {
          return ok('Registration queued', await R.queueRegistration(trx, params.id));
        } }),
    ],
  }));
  defineRoutes(router, svc, { tag: 'Claim', errorShape: 'status' }, recordRoutes({
    noun: 'Claim', path: '/claims', view: S.ClaimView, errs, list: { query: S.ClaimListQuery, run: C.listClaims }, get: C.getClaim,
    create: { summary: 'Record a conflicting claim on a work (status open)', body: S.ClaimBody, run: C.createClaim },
    update: { summary: 'Change a claim\'s details', body: S.ClaimPatch, run: C.updateClaim },
    status: { summary: 'Move a claim: open→disputed|resolved|withdrawn, disputed→open|resolved|withdrawn; resolved and withdrawn are final', body: S.ClaimStatusBody, run: C.setClaimStatus },
  }));
}
