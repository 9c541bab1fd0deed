import type Router from '@koa/router';
import { defineRoutes, route } from '../../http/route';
import { Email, Role, Strict, Type } from '../../http/schema';
import type { AppServices } from '../../services';
import { ForbiddenError } from '../../lib/errors';
import { RedirectUrl } from '../auth/origins';
import { authOf } from '../auth/service';
import { inviteMember } from './invitations';

/** POST /auth/invite (tagged Auth; mounted right after the auth routes). */
export function registerInviteRoutes(router: Router, svc: AppServices): void {
  const d = { ...svc, auth: authOf(svc) };
  defineRoutes(router, svc, { tag: 'Auth', errorShape: 'catalogue' }, [
    route({
      method: 'post',
      path: '/auth/invite',
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
  ]);
}
