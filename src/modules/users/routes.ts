import type Router from '@koa/router';
import { defineRoutes, route, rankOf, ROLE_RANK } from '../../http/route';
import { Email, itemProblems, PageQuery, Role, Strict, Type, Uuid, type Static } from '../../http/schema';
import type { AppServices } from '../../services';
import { ForbiddenError, NotFoundError } from '../../lib/errors';
import { getUser, listUsers, removeUser, updateUser } from './service';
import { inviteMember } from '../auth/routes';
import { userEntityRoutes } from './entities';

const IdParams = Type.Object({ id: Uuid });

const BulkUser = Strict({
  email: Email,
  role: Role,
  firstName: Type.Optional(Type.String({ maxLength: 200 })),
  lastName: Type.Optional(Type.String({ maxLength: 200 })),
});

export function registerUserRoutes(router: Router, svc: AppServices): void {
  userEntityRoutes(router, svc);
  defineRoutes(router, svc, { tag: 'Users', errorShape: 'catalogue' }, [
    route({
      method: 'get',
      path: '/user',
      summary: 'The signed-in user in the current workspace (data.id is the tenant user id)',
      access: 'guest',
      async handler({ auth, trx, tenantId }) {
        const ws = await trx('tenants').where({ id: tenantId }).first('uuid', 'name');
        const workspace = { workspaceId: ws.uuid, tenantId, name: ws.name };
        if (!auth.tenantUserId) {
          return { status: 'success', message: 'Current user', data: { id: null, kind: auth.kind, role: auth.role, isSuperAdmin: auth.isSuperAdmin, workspace } };
        }
        return { status: 'success', message: 'Current user', data: { ...(await getUser(trx, auth.tenantUserId)), workspace } };
      },
    }),
    route({
      method: 'get',
      path: '/user/',
      summary: 'Members of the workspace (paged; search by name or e-mail; filter by role)',
      access: 'user',
      query: Type.Object({ ...PageQuery, role: Type.Optional(Role) }),
      async handler({ trx, query }) {
        const r = await listUsers(trx, { page: query.page ?? 1, size: query.size ?? 20, search: query.search, role: query.role });
        return { success: true, message: 'Users', ...r };
      },
    }),
    route({
      method: 'post',
      path: '/user/',
      summary: 'Add a member (admin). Without a password the person gets an invitation e-mail',
      access: 'admin',
      status: 201,
      body: Strict({
        email: Email,
        role: Role,
        firstName: Type.Optional(Type.String({ maxLength: 200 })),
        lastName: Type.Optional(Type.String({ maxLength: 200 })),
        password: Type.Optional(Type.String({ minLength: 8, maxLength: 200 })),
      }),
      async handler({ body, auth, trx, tenantId }) {
        if (body.role === 'owner' && rankOf(auth) < ROLE_RANK.owner) throw new ForbiddenError('Only an owner can add an owner', 'INSUFFICIENT_ROLE');
        return { success: true, message: 'User added', data: await inviteMember(svc, trx, tenantId, body) };
      },
    }),
    route({
      method: 'post',
      path: '/user/bulk',
      summary: 'Add several members at once (admin); each failure is reported, the rest are added',
      access: 'admin',
      body: Strict({ users: Type.Array(Type.Object({}, { additionalProperties: true }), { minItems: 1, maxItems: 500 }) }),
      items: { field: 'users', schema: BulkUser },
      async handler({ body, auth, trx, tenantId }) {
        const created: string[] = [];
        const errors: string[] = [];
        for (const [i, item] of body.users.entries()) {
          // each item checked on its own: a bad one is reported, the others go on (spec part 7)
          const problems = itemProblems(BulkUser, item, `users[${i}]`);
          if (problems.length) {
            errors.push(...problems);
            continue;
          }
          const u = item as Static<typeof BulkUser>;
          if (u.role === 'owner' && rankOf(auth) < ROLE_RANK.owner) {
            errors.push(`users[${i}] ${u.email}: only an owner can add an owner`);
            continue;
          }
          try {
            // a savepoint per item: one bad item never undoes the others
            await trx.transaction(async (sp) => {
              await inviteMember(svc, sp, tenantId, u);
            });
            created.push(u.email);
          } catch (err) {
            errors.push(`users[${i}] ${u.email}: ${(err as Error).message}`);
          }
        }
        return { success: true, message: `${created.length} user(s) added`, createdUsers: created, processedCount: body.users.length, errors };
      },
    }),
    route({
      method: 'post',
      path: '/user/bulk/delete',
      summary: 'Remove several members (admin); failures reported per id',
      access: 'admin',
      body: Strict({ ids: Type.Array(Uuid, { minItems: 1, maxItems: 500 }) }),
      async handler({ body, auth, trx }) {
        const failedDeletions: { id: string; error: string }[] = [];
        let processedCount = 0;
        for (const id of body.ids) {
          try {
            await trx.transaction((sp) => removeUser(sp, auth, id));
            processedCount++;
          } catch (err) {
            failedDeletions.push({ id, error: (err as Error).message });
          }
        }
        return { success: true, message: `${processedCount} user(s) removed`, processedCount, failedDeletions };
      },
    }),
    route({
      method: 'delete',
      path: '/user/remove/email',
      summary: 'Remove a member by e-mail address (admin)',
      access: 'admin',
      body: Strict({ email: Email }),
      async handler({ body, auth, trx }) {
        const row = await trx('tenant_users as tu').join('users as u', 'u.id', 'tu.user_id').whereRaw('lower(u.email) = lower(?)', [body.email]).first('tu.id');
        if (!row) throw new NotFoundError('User', 'USER_NOT_FOUND');
        await removeUser(trx, auth, row.id);
        return { success: true, message: 'User removed from the workspace' };
      },
    }),
    route({
      method: 'put',
      path: '/user/:id/aut',
      summary: "Change a member's authorisation: role and/or access status (admin; owner rules as PATCH)",
      access: 'admin',
      params: IdParams,
      body: Strict({ role: Type.Optional(Role), status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('disabled')])) }, { minProperties: 1 }),
      async handler({ params, body, auth, trx }) {
        return { success: true, message: 'Authorisation updated', data: await updateUser(trx, auth, params.id, body) };
      },
    }),
    route({
      method: 'get',
      path: '/user/:id',
      summary: 'One member by tenant user id (guests may read only themselves)',
      access: 'guest',
      params: IdParams,
      async handler({ params, auth, trx }) {
        if (rankOf(auth) < ROLE_RANK.user && auth.tenantUserId !== params.id) throw new ForbiddenError('Guests can only see themselves', 'INSUFFICIENT_ROLE');
        return { success: true, message: 'User', data: await getUser(trx, params.id) };
      },
    }),
    route({
      method: 'patch',
      path: '/user/:id',
      summary: 'Update a member: names (self or admin), role and status (admins and owners only)',
      access: 'guest',
      params: IdParams,
      body: Strict(
        {
          role: Type.Optional(Role),
          status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('disabled')])),
          firstName: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])),
          lastName: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])),
        },
        { minProperties: 1 },
      ),
      async handler({ params, body, auth, trx }) {
        return { success: true, message: 'User updated', data: await updateUser(trx, auth, params.id, body) };
      },
    }),
    route({
      method: 'delete',
      path: '/user/:id',
      summary: 'Remove a member from the workspace (admin; only owners remove owners; never the last owner)',
      access: 'admin',
      params: IdParams,
      async handler({ params, auth, trx }) {
        await removeUser(trx, auth, params.id);
        return { success: true, message: 'User removed from the workspace' };
      },
    }),
  ]);
}
