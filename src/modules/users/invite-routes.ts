import type Router from '@koa/router';
import { defineRoutes, route } from '../../http/route';
import { Email, Role, Strict, Type } from '../../http/schema';
import type { AppServices } from '../../services';
import { ForbiddenError } from '../../lib/errors';
import { RedirectUrl } from '../auth/origins';
import { authOf } from '../auth/service';
import { inviteMember } from './invitations';
import { receiveMultipartBuffer } from '../../http/upload';
import { dryRunOf, importMembersFile, IMPORT_MAX_BYTES, IMPORT_MAX_ROWS } from './import';
import * as Res from './responses';

const ImportRow = Type.Object({
  line: Type.Integer({ description: 'Line of the file where the row starts (the header is line 1)' }),
  email: Type.Union([Type.String(), Type.Null()]),
  status: Type.Union([Type.Literal('invited'), Type.Literal('existing'), Type.Literal('error')]),
  role: Type.Union([Role, Type.Null()]),
  artistsLinked: Type.Integer(),
  errors: Type.Array(Type.String()),
});
const ImportAnswer = Type.Object({
  success: Type.Literal(true),
  message: Type.String(),
  data: Type.Object({
    dryRun: Type.Boolean(),
    rows: Type.Integer(),
    invited: Type.Integer(),
    existing: Type.Integer(),
    failed: Type.Integer(),
    artistsLinked: Type.Integer(),
    ignoredColumns: Type.Array(Type.String()),
    results: Type.Array(ImportRow),
  }),
});

/** POST /auth/invite (tagged Auth; mounted right after the auth routes). */
export function registerInviteRoutes(router: Router, svc: AppServices): void {
  const d = { ...svc, auth: authOf(svc) };
  defineRoutes(router, svc, { tag: 'Auth', errorShape: 'catalogue' }, [
    route({
      method: 'post',
      path: '/auth/invite', responses: { 201: Res.PostAuthInvite },
      summary: 'Invite someone to this workspace by e-mail (admin)',
      access: 'admin',
      status: 201,
      body: Strict({
        email: Email,
        role: Type.Optional(Role),
        firstName: Type.Optional(Type.String({ maxLength: 200 })),
        lastName: Type.Optional(Type.String({ maxLength: 200 })),
        redirect_url: RedirectUrl,
      }),
      async handler({ body, auth: who, trx, tenantId }) {
        const role = body.role ?? 'user';
        if (role === 'owner' && who.role !== 'owner' && !who.isSuperAdmin) throw new ForbiddenError('Only an owner can invite an owner', 'INSUFFICIENT_ROLE');
        const data = await inviteMember(d, trx, tenantId, { ...body, role });
        return { success: true, message: 'Invitation sent', data };
      },
    }),
    route({
      method: 'post',
      path: '/auth/importdata',
      summary: `Import members and their artist links from a CSV (multipart, field "file", at most ${IMPORT_MAX_ROWS} rows): each good row is invited as POST /auth/invite does and linked to its artists; bad rows are reported by line, the good ones kept; a re-upload adds nothing twice. dryRun (field or query) checks without writing or e-mailing (admin)`,
      access: 'admin',
      rawBody: true,
      noTransaction: true,
      query: Type.Object({ dryRun: Type.Optional(Type.Union([Type.Boolean(), Type.Literal('true'), Type.Literal('false'), Type.Literal('1'), Type.Literal('0')])) }),
      responses: { 200: ImportAnswer },
      async handler({ ctx, query, auth: who, tenantId }) {
        const { data, fields } = await receiveMultipartBuffer({ stream: ctx.req, headers: ctx.req.headers }, IMPORT_MAX_BYTES, {
          requireFile: { code: 'FILE_REQUIRED', message: 'No "file" part in the request' },
        });
        const dryRun = dryRunOf(fields.dryRun, 'body.dryRun') || dryRunOf(query.dryRun, 'query.dryRun');
        const r = await importMembersFile(d, tenantId, data, { dryRun, mayAddOwners: who.role === 'owner' || who.isSuperAdmin });
        const message = `${dryRun ? 'Dry run: ' : ''}${r.invited} invited, ${r.existing} already members, ${r.failed} rows with errors, ${r.artistsLinked} artist links added`;
        return { success: true, message, data: r };
      },
    }),
  ]);
}
