import type Router from '@koa/router';
import { defineRoutes, route } from '../../http/route';
import { StatusAnswer, Email, Strict, Type, Uuid } from '../../http/schema';
import type { AppServices } from '../../services';
import { ValidationError } from '../../lib/errors';
import { authOf, bearerToken, REFRESH_COOKIE } from './service';
import { RedirectUrl } from './origins';
import { acceptInvitation, requestLoginLink, requestPasswordReset, resetPassword, signInWithLink } from './identity';
import * as Res from './responses';

const Password = Type.String({ minLength: 8, maxLength: 200 });

export const WorkspaceSchema = Type.Object({
  workspaceId: Uuid,
  tenantId: Type.Integer(),
  name: Type.String(),
  status: Type.String(),
  userType: Type.Array(Type.Array(Type.String())),
  role: Type.String(),
});
const LoginResponse = Type.Object({ message: Type.String(), workspaces: Type.Array(WorkspaceSchema), refresh_token: Type.String() }, { $id: 'LoginResponse' });
/** Accepting an invitation signs the person in: a refresh token, their workspaces, and the one that invited them. */
const AcceptedResponse = Type.Object(
  { success: Type.Boolean(), message: Type.String(), workspaces: Type.Array(WorkspaceSchema), workspaceId: Type.Union([Uuid, Type.Null()]), refresh_token: Type.String() },
  { $id: 'InvitationAccepted' },
);

export function registerAuthRoutes(router: Router, svc: AppServices): void {
  const auth = authOf(svc);
  const d = { ...svc, auth };
  /** A public route that e-mails a link to an address: the same answer whether or not the address is known. */
  const emailLinkRoute = (path: string, summary: string, description: string, send: typeof requestLoginLink, message: string) =>
    route({
      method: 'post',
      path, responses: { 200: Type.Object({ success: Type.Literal(true), message: Type.String() }) },
      summary,
      description,
      access: 'public',
      body: Strict({ email: Email, redirect_url: RedirectUrl }),
      async handler({ ctx, body }) {
        await send(d, body.email, body.redirect_url, ctx.ip);
        return { success: true, message };
      },
    });
  defineRoutes(router, svc, { tag: 'Auth', errorShape: 'catalogue' }, [
    route({
      method: 'post',
      path: '/auth/login',
      summary: 'Sign in with e-mail and password: a refresh token and the workspaces you belong to',
      description: "Rate limited to 20 requests per 3 minutes per client address, and 10 failed sign-ins per 15 minutes per account (429 beyond; a successful sign-in is not counted against the account). On a workspace's verified custom domain (the Host header) the answer lists that workspace only; a person who is not a member of it gets 403 NOT_A_MEMBER, a suspended one 403 WORKSPACE_INACTIVE.",
      access: 'public',
      body: Strict({ email: Type.String({ minLength: 1, maxLength: 320 }), password: Type.String({ minLength: 1, maxLength: 200 }) }),
      responses: { 200: LoginResponse },
      async handler({ ctx, body }) {
        const r = await auth.passwordSignIn(body.email, body.password, { ip: ctx.ip, userAgent: ctx.get('user-agent'), host: ctx.host });
        return { message: 'Login successful', workspaces: r.workspaces, refresh_token: r.refreshToken };
      },
    }),
    route({
      method: 'get',
      path: '/auth/authtoken', responses: { 200: StatusAnswer(Type.Object({ access_token: Type.String() })) },
      summary: 'Exchange the refresh token for an access token to one workspace (call again to switch)',
      description: "currentWorkspace (workspace id or tenant id) names the workspace; on a workspace's verified, active custom domain (the Host header) it may be left out.",
      access: 'refresh',
      query: Type.Object({ currentWorkspace: Type.Optional(Type.String({ maxLength: 64 })) }),
      async handler({ ctx, auth: who, query }) {
        const token = await auth.accessTokenFor(who, query.currentWorkspace, ctx.host);
        return { status: 'success', message: 'Access token issued', data: { access_token: token } };
      },
    }),
    route({
      method: 'post',
      path: '/auth/logout', responses: { 200: Type.Object({ success: Type.Literal(true), message: Type.String() }) },
      summary: 'End the session: the stored refresh token is removed and its access tokens stop working',
      access: 'session',
      async handler({ ctx, auth: who }) {
        if (!who.sessionId) throw new ValidationError('API keys have no session to end; revoke the key instead', [], 'NO_SESSION');
        await auth.logout(who.sessionId);
        ctx.cookies.set(REFRESH_COOKIE, null);
        return { success: true, message: 'Logged out' };
      },
    }),
    emailLinkRoute(
      '/auth/forgotpassword',
      'Start a password reset: the reset link (token and verification code) goes by e-mail only',
      'Always answers the same way whether or not the address is known, so it cannot be used to probe for accounts. The token and code travel only by e-mail (never in this answer). Limited per client address and per recipient (429 beyond).',
      requestPasswordReset,
      'If the address is registered, a reset link and verification code have been sent',
    ),
    route({
      method: 'patch',
      path: '/auth/resetpassword', responses: { 200: Res.PatchAuthResetpassword },
      summary: 'Set a new password with the reset token (Bearer) and the e-mailed code (query `code`)',
      description: 'Five wrong codes kill the token. Every session of the person ends, and every other reset or sign-in link still out stops working.',
      access: 'public',
      query: Type.Object({ code: Type.String({ minLength: 1, maxLength: 64 }) }),
      body: Strict({ email: Email, new_password: Password }),
      async handler({ ctx, query, body }) {
        await resetPassword(d, bearerToken(ctx.get('authorization')), query.code, body.email, body.new_password, ctx.ip);
        return { success: true, message: 'Password has been reset; sign in again' };
      },
    }),
    route({
      method: 'post',
      path: '/auth/setpassword',
      summary: 'Accept an invitation by choosing a first password, with the invitation token (Bearer); signs the person in',
      description: 'Only for a person without a password; a person who has one accepts with POST /auth/acceptinvite.',
      access: 'public',
      body: Strict({ password: Password }),
      responses: { 200: AcceptedResponse },
      async handler({ ctx, body }) {
        const r = await acceptInvitation(d, bearerToken(ctx.get('authorization')), body.password, { ip: ctx.ip, userAgent: ctx.get('user-agent') });
        return { success: true, message: 'Password set; you are signed in', workspaces: r.workspaces, workspaceId: r.workspaceId, refresh_token: r.refreshToken };
      },
    }),
    route({
      method: 'post',
      path: '/auth/acceptinvite',
      summary: 'Accept an invitation with the invitation token (Bearer), keeping your existing password; signs the person in',
      access: 'public',
      responses: { 200: AcceptedResponse },
      async handler({ ctx }) {
        const r = await acceptInvitation(d, bearerToken(ctx.get('authorization')), undefined, { ip: ctx.ip, userAgent: ctx.get('user-agent') });
        return { success: true, message: 'Invitation accepted; you are signed in', workspaces: r.workspaces, workspaceId: r.workspaceId, refresh_token: r.refreshToken };
      },
    }),
    emailLinkRoute(
      '/auth/loginlink',
      'E-mail a one-time, 15-minute sign-in link (GET /auth/?token=…)',
      'Limited per client address and per recipient (429 beyond).',
      requestLoginLink,
      'If the address is registered, a sign-in link has been sent',
    ),
    route({
      method: 'get',
      path: '/auth', responses: { 200: Res.GetAuth },
      summary: 'With ?token= (from a sign-in link): sign in. With a bearer token: who am I',
      access: 'public',
      query: Type.Object({ token: Type.Optional(Type.String({ maxLength: 2000 })) }),
      async handler({ ctx, query }) {
        if (query.token) {
          const r = await signInWithLink(d, query.token, { ip: ctx.ip, userAgent: ctx.get('user-agent') });
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
  ]);
}
