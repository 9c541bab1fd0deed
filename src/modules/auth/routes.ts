import type Router from '@koa/router';
import { defineRoutes, route } from '../../http/route';
import { Email, Role, Strict, Type, Uuid } from '../../http/schema';
import type { AppServices } from '../../services';
import { ForbiddenError, ValidationError } from '../../lib/errors';
import { bearerToken, REFRESH_COOKIE } from './service';
import { acceptInvitation, inviteMember, requestLoginLink, requestPasswordReset, resetPassword, signInWithLink } from './identity';

const Password = Type.String({ minLength: 8, maxLength: 200 });
const RedirectUrl = Type.Optional(Type.String({ maxLength: 2000, description: "Where the e-mailed link points: Rondo's own URL or an origin a workspace registered (PUT /settings/redirect-origins); anything else is refused with 400" }));

const WorkspaceSchema = Type.Object({
  workspaceId: Uuid,
  tenantId: Type.Integer(),
  name: Type.String(),
  status: Type.String(),
  userType: Type.Array(Type.Array(Type.String())),
  role: Type.String(),
});
const LoginResponse = Type.Object({ message: Type.String(), workspaces: Type.Array(WorkspaceSchema), refresh_token: Type.String() }, { $id: 'LoginResponse' });

export function registerAuthRoutes(router: Router, svc: AppServices): void {
  const { auth } = svc;
  defineRoutes(router, svc, { tag: 'Auth', errorShape: 'catalogue' }, [
    route({
      method: 'post',
      path: '/auth/login',
      summary: 'Sign in with e-mail and password: a refresh token and the workspaces you belong to',
      description: 'Rate limited to 20 requests per 3 minutes per client address, and 10 per 15 minutes per account (429 beyond).',
      access: 'public',
      body: Strict({ email: Type.String({ minLength: 1, maxLength: 320 }), password: Type.String({ minLength: 1, maxLength: 200 }) }),
      responses: { 200: LoginResponse },
      async handler({ ctx, body }) {
        const r = await auth.passwordSignIn(body.email, body.password, { ip: ctx.ip, userAgent: ctx.get('user-agent') });
        return { message: 'Login successful', workspaces: r.workspaces, refresh_token: r.refreshToken };
      },
    }),
    route({
      method: 'get',
      path: '/auth/authtoken',
      summary: 'Exchange the refresh token for an access token to one workspace (call again to switch)',
      access: 'refresh',
      query: Type.Object({ currentWorkspace: Type.Optional(Type.String({ maxLength: 64 })) }),
      async handler({ ctx, auth: who, query }) {
        const token = await auth.accessTokenFor(who, query.currentWorkspace, ctx.host);
        return { status: 'success', message: 'Access token issued', data: { access_token: token } };
      },
    }),
    route({
      method: 'post',
      path: '/auth/logout',
      summary: 'End the session: the stored refresh token is removed and its access tokens stop working',
      access: 'session',
      async handler({ ctx, auth: who }) {
        if (!who.sessionId) throw new ValidationError('API keys have no session to end; revoke the key instead', [], 'NO_SESSION');
        await auth.logout(who.sessionId);
        ctx.cookies.set(REFRESH_COOKIE, null);
        return { success: true, message: 'Logged out' };
      },
    }),
    route({
      method: 'post',
      path: '/auth/forgotpassword',
      summary: 'Start a password reset: the reset link (token and verification code) goes by e-mail only',
      description:
        'Always answers the same way whether or not the address is known, so it cannot be used to probe for accounts. The token and code travel only by e-mail (never in this answer). Limited per client address and per recipient (429 beyond).',
      access: 'public',
      body: Strict({ email: Email, redirect_url: RedirectUrl }),
      async handler({ ctx, body }) {
        await requestPasswordReset(svc, body.email, body.redirect_url, ctx.ip);
        return { success: true, message: 'If the address is registered, a reset link and verification code have been sent' };
      },
    }),
    route({
      method: 'patch',
      path: '/auth/resetpassword',
      summary: 'Set a new password with the reset token (Bearer) and the e-mailed code (query `code`)',
      description: 'Five wrong codes kill the token. Every session of the person ends, and every other reset or sign-in link still out stops working.',
      access: 'public',
      query: Type.Object({ code: Type.String({ minLength: 1, maxLength: 64 }) }),
      body: Strict({ email: Email, new_password: Password }),
      async handler({ ctx, query, body }) {
        await resetPassword(svc, bearerToken(ctx.get('authorization')), query.code, body.email, body.new_password, ctx.ip);
        return { success: true, message: 'Password has been reset; sign in again' };
      },
    }),
    route({
      method: 'post',
      path: '/auth/setpassword',
      summary: 'Accept an invitation by choosing a first password, with the invitation token (Bearer)',
      description: 'Only for a person without a password; a person who has one accepts with POST /auth/acceptinvite.',
      access: 'public',
      body: Strict({ password: Password }),
      async handler({ ctx, body }) {
        await acceptInvitation(svc, bearerToken(ctx.get('authorization')), body.password);
        return { success: true, message: 'Password set; you can sign in now' };
      },
    }),
    route({
      method: 'post',
      path: '/auth/acceptinvite',
      summary: 'Accept an invitation with the invitation token (Bearer), keeping your existing password',
      access: 'public',
      async handler({ ctx }) {
        await acceptInvitation(svc, bearerToken(ctx.get('authorization')));
        return { success: true, message: 'Invitation accepted; sign in to reach the workspace' };
      },
    }),
    route({
      method: 'post',
      path: '/auth/loginlink',
      summary: 'E-mail a one-time, 15-minute sign-in link (GET /auth/?token=…)',
      description: 'Limited per client address and per recipient (429 beyond).',
      access: 'public',
      body: Strict({ email: Email, redirect_url: RedirectUrl }),
      async handler({ ctx, body }) {
        await requestLoginLink(svc, body.email, body.redirect_url, ctx.ip);
        return { success: true, message: 'If the address is registered, a sign-in link has been sent' };
      },
    }),
    route({
      method: 'get',
      path: '/auth',
      summary: 'With ?token= (from a sign-in link): sign in. With a bearer token: who am I',
      access: 'public',
      query: Type.Object({ token: Type.Optional(Type.String({ maxLength: 2000 })) }),
      async handler({ ctx, query }) {
        if (query.token) {
          const r = await signInWithLink(svc, query.token, { ip: ctx.ip, userAgent: ctx.get('user-agent') });
          return { message: 'Login successful', workspaces: r.workspaces, refresh_token: r.refreshToken };
        }
        const who = await auth.authenticate({ authorization: ctx.get('authorization'), refreshCookie: ctx.cookies.get(REFRESH_COOKIE), workspaceHeader: ctx.get('x-workspace-id') }, 'session');
        return {
          success: true,
          message: 'Authenticated',
          data: {
            kind: who.kind,
            userId: who.userId,
            tenantId: who.tenantId,
            tenantUserId: who.tenantUserId,
            role: who.role,
            isSuperAdmin: who.isSuperAdmin,
            workspaces: who.userId ? await auth.workspacesOf(who.userId) : [],
          },
        };
      },
    }),
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
        const data = await inviteMember(svc, trx, tenantId, { ...body, role });
        return { success: true, message: 'Invitation sent', data };
      },
    }),
  ]);
}
