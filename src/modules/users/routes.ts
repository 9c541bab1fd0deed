import type Router from '@koa/router';
import { defineRoutes, route } from '../../http/route';
import { ownOnly, rankOf, ROLE_RANK } from '../../domain/roles';
import { Email, itemProblems, PageQuery, Role, Strict, Type, Uuid, type Static } from '../../http/schema';
import type { AppServices } from '../../services';
import { ConflictError, ForbiddenError } from '../../lib/errors';
import { getUser, listUsers, memberIdByEmail, removeUser, removeUsers, updateUser, USER_SORT, workspaceSummary } from './service';
import { sortQuery } from '../../http/list-sort';
import { authOf } from '../auth/service';
import { inviteMember, inviteMembers, resendInvitation, withdrawInvitationLinks } from './invitations';
import { userEntityRoutes } from './entities';
import * as Res from './responses';

const IdParams = Type.Object({ id: Uuid });
const MemberStatus = Type.Union([Type.Literal('active'), Type.Literal('disabled')]);
/** The success envelope of the routes that answer one thing under `data`. */
const ok = (message: string, data: unknown) => ({ success: true, message, data });

/** One member of POST /user/bulk. `password` passes the schema only to be refused by name (PASSWORD_NOT_ALLOWED). */
const BulkUser = Strict({
  email: Email,
  role: Role,
  firstName: Type.Optional(Type.String({ maxLength: 200 })),
  lastName: Type.Optional(Type.String({ maxLength: 200 })),
  password: Type.Optional(Type.String({ maxLength: 200 })),
});

/** The member list's query (GET /user/, GET /user/invites) and the page it asks for. */
const MemberListQuery = Type.Object({ page: PageQuery.page, size: PageQuery.size, ...sortQuery(USER_SORT, 'createdAt', 'Part of the e-mail, first or last name'), role: Type.Optional(Role) });
const memberPage = (q: Static<typeof MemberListQuery>) => ({ page: q.page ?? 1, size: q.size ?? 20, search: q.search, sort: q.sort, order: q.order, role: q.role });

const AutBody = Strict({ role: Type.Optional(Role), status: Type.Optional(MemberStatus) }, { minProperties: 1 });
const MemberPatch = Strict(
  {
    role: Type.Optional(Role),
    status: Type.Optional(MemberStatus),
    firstName: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])),
    lastName: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])),
  },
  { minProperties: 1 },
);

/**
 * PUT /user/:id/aut and PATCH /user/:id: both change a member through updateUser (which holds
 * the owner and self rules); they differ in who may call, what the body may hold and the message.
 */
function updateMemberRoute(def: { method: 'put' | 'patch'; path: string; summary: string; access: 'admin' | 'guest'; body: typeof AutBody | typeof MemberPatch; message: string }) {
  return route({
    method: def.method,
    path: def.path,
    responses: { 200: Res.MemberUpdated },
    summary: def.summary,
    access: def.access,
    params: IdParams,
    body: def.body,
    async handler({ params, body, auth, trx }) {
      return ok(def.message, await updateUser(trx, auth, params.id, body));
    },
  });
}

export function registerUserRoutes(router: Router, svc: AppServices): void {
  userEntityRoutes(router, svc);
  const d = { ...svc, auth: authOf(svc) };
  defineRoutes(router, svc, { tag: 'Users', errorShape: 'catalogue', scope: 'own' }, [
    route({
      method: 'get',
      path: '/user', responses: { 200: Res.GetUser },
      summary: 'The signed-in user in the current workspace (data.id is the tenant user id)',
      access: 'guest',
      async handler({ auth, trx, tenantId }) {
        const workspace = await workspaceSummary(trx, tenantId);
        if (!auth.tenantUserId) {
          return { status: 'success', message: 'Current user', data: { id: null, kind: auth.kind, role: auth.role, isSuperAdmin: auth.isSuperAdmin, workspace } };
        }
        return { status: 'success', message: 'Current user', data: { ...(await getUser(trx, auth.tenantUserId)), workspace } };
      },
    }),
    route({
      method: 'get',
      path: '/user/', responses: { 200: Res.GetUserList },
      summary: 'Members of the workspace (paged; search by name or e-mail; filter by role); a member below admin gets only themselves',
      access: 'user',
      query: MemberListQuery,
      async handler({ trx, auth, query }) {
        const r = await listUsers(trx, { ...memberPage(query), only: ownOnly(auth) });
        return { success: true, message: 'Users', ...r };
      },
    }),
    // The reference service's invitation routes: its invitations are the members still `invited`.
    route({
      method: 'get',
      path: '/user/invites', responses: { 200: Res.GetUserList },
      summary: 'Invitations not yet accepted (admin): the members whose status is `invited`, paged like the member list',
      access: 'admin',
      query: MemberListQuery,
      async handler({ trx, query }) {
        const r = await listUsers(trx, { ...memberPage(query), status: 'invited' });
        return { success: true, message: 'Invitations', ...r };
      },
    }),
    route({
      method: 'post',
      path: '/user/invites/:id/cancel', responses: { 200: Res.DeleteUserById },
      summary: 'Cancel an invitation not yet accepted (admin): the invited member is removed and its link stops working; `{id}` is the member\'s id',
      description: 'Only while the member is `invited` (400 NOT_AN_INVITATION otherwise: a member who accepted is removed with DELETE /user/{id}).',
      access: 'admin',
      params: IdParams,
      async handler({ params, auth, trx, tenantId }) {
        const member = await getUser(trx, params.id);
        if (member.status !== 'invited') throw new ConflictError('This member has no invitation waiting', [`status: ${member.status}`], 'NOT_AN_INVITATION');
        await removeUser(trx, auth, params.id);
        await withdrawInvitationLinks(d, tenantId, member.userId);
        return { success: true, message: 'Invitation cancelled' };
      },
    }),
    route({
      method: 'post',
      path: '/user/', responses: { 201: Res.PostUser },
      summary: 'Add a member (admin): the person gets an invitation e-mail and is `invited` until they accept it; with `invite: false` a payee who does not sign in',
      description: 'A workspace never chooses a password for anyone: `password` is refused with 400 (PASSWORD_NOT_ALLOWED). An existing person keeps their password, names and sign-in methods.',
      access: 'admin',
      status: 201,
      body: Strict({
        email: Email,
        role: Role,
        firstName: Type.Optional(Type.String({ maxLength: 200 })),
        lastName: Type.Optional(Type.String({ maxLength: 200 })),
        password: Type.Optional(Type.String({ minLength: 8, maxLength: 200 })),
        invite: Type.Optional(Type.Boolean({ description: 'false: list a payee who does not sign in (status not_invited): no e-mail, no seat; invite later with POST /user/{id}/invitation' })),
      }),
      async handler({ body, auth, trx, tenantId }) {
        if (body.role === 'owner' && rankOf(auth) < ROLE_RANK.owner) throw new ForbiddenError('Only an owner can add an owner', 'INSUFFICIENT_ROLE');
        return ok('User added', await inviteMember(d, trx, tenantId, body));
      },
    }),
    route({
      method: 'post',
      path: '/user/bulk', responses: { 200: Res.PostUserBulk },
      summary: 'Add several members at once (admin); each failure is reported, the rest are added',
      access: 'admin',
      body: Strict({ users: Type.Array(Type.Object({}, { additionalProperties: true }), { minItems: 1, maxItems: 500 }) }),
      items: { field: 'users', schema: BulkUser },
      async handler({ body, auth, trx, tenantId }) {
        // each item checked on its own: a bad one is reported, the others go on (docs/errors.md, "Bulk routes")
        const valid: { i: number; item: Static<typeof BulkUser> }[] = [];
        const invalid: string[] = [];
        body.users.forEach((item, i) => {
          const problems = itemProblems(BulkUser, item, `users[${i}]`);
          if (problems.length) invalid.push(...problems);
          else valid.push({ i, item: item as Static<typeof BulkUser> });
        });
        const { created, errors } = await inviteMembers(d, trx, tenantId, valid, rankOf(auth) >= ROLE_RANK.owner);
        const at = (e: string) => Number(/\[(\d+)\]/.exec(e)?.[1]);
        return { success: true, message: `${created.length} user(s) added`, createdUsers: created, processedCount: body.users.length, errors: [...invalid, ...errors].sort((x, y) => at(x) - at(y)) };
      },
    }),
    route({
      method: 'post',
      path: '/user/bulk/delete', responses: { 200: Res.PostUserBulkDelete },
      summary: 'Remove several members (admin); failures reported per id',
      access: 'admin',
      body: Strict({ ids: Type.Array(Uuid, { minItems: 1, maxItems: 500 }) }),
      async handler({ body, auth, trx }) {
        const { processedCount, failedDeletions } = await removeUsers(trx, auth, body.ids);
        return { success: true, message: `${processedCount} user(s) removed`, processedCount, failedDeletions };
      },
    }),
    route({
      method: 'delete',
      path: '/user/remove/email', responses: { 200: Res.DeleteUserRemoveEmail },
      summary: 'Remove a member by e-mail address (admin)',
      access: 'admin',
      body: Strict({ email: Email }),
      async handler({ body, auth, trx }) {
        await removeUser(trx, auth, await memberIdByEmail(trx, body.email));
        return { success: true, message: 'User removed from the workspace' };
      },
    }),
    updateMemberRoute({
      method: 'put',
      path: '/user/:id/aut',
      summary: "Change a member's authorisation: role and/or access status (admin; owner rules as PATCH)",
      access: 'admin',
      body: AutBody,
      message: 'Authorisation updated',
    }),
    route({
      method: 'get',
      path: '/user/:id', responses: { 200: Res.GetUserById },
      summary: 'One member by tenant user id (guests and users may read only themselves)',
      access: 'guest',
      params: IdParams,
      async handler({ params, auth, trx }) {
        const own = ownOnly(auth);
        if (own !== null && own !== params.id) throw new ForbiddenError('You can only see your own member record', 'INSUFFICIENT_ROLE');
        return ok('User', await getUser(trx, params.id));
      },
    }),
    updateMemberRoute({
      method: 'patch',
      path: '/user/:id',
      summary: 'Update a member: names (the person themselves, or a super-admin), role and status (admins and owners only)',
      access: 'guest',
      body: MemberPatch,
      message: 'User updated',
    }),
    route({
      method: 'delete',
      path: '/user/:id', responses: { 200: Res.DeleteUserById },
      summary: 'Remove a member from the workspace (admin; only owners remove owners; never the last owner)',
      access: 'admin',
      params: IdParams,
      async handler({ params, auth, trx, tenantId }) {
        const member = await getUser(trx, params.id);
        await removeUser(trx, auth, params.id);
        // removing an invited member cancels the invitation: its link stops working
        if (member.status === 'invited') await withdrawInvitationLinks(d, tenantId, member.userId);
        return { success: true, message: 'User removed from the workspace' };
      },
    }),
    route({
      method: 'post',
      path: '/user/:id/invitation', responses: { 200: Type.Object({ success: Type.Literal(true), message: Type.String(), data: Type.Record(Type.String(), Type.Unknown(), { description: 'The invitation sent again' }) }) },
      summary: 'Send the invitation (again) (admin): a new link by e-mail, valid for 7 days; the earlier links stop working; a payee listed without an invitation becomes invited',
      description: 'Only while the member is `invited` or `not_invited` (400 NOT_AN_INVITATION once accepted). The membership, its role and the splits naming it stay as they are. To cancel an invitation: POST /user/invites/{id}/cancel (or remove the member, DELETE /user/{id}): its link then stops working.',
      access: 'admin',
      params: IdParams,
      async handler({ params, trx, tenantId }) {
        return ok('Invitation sent again', await resendInvitation(d, trx, tenantId, params.id));
      },
    }),
  ]);
}
