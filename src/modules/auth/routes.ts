import type Router from '@koa/router';
import { defineRoutes, route } from '../../http/route';
import { Email, Role, Strict, Type, Uuid } from '../../http/schema';
import type { AppServices } from '../../services';
import { ForbiddenError, UnauthorizedError, ValidationError } from '../../lib/errors';
import { clock } from '../../lib/clock';
import { ensureGlobalUser, getUser, upsertMembership } from '../users/service';
import { bearerToken, REFRESH_COOKIE } from './service';

const Password = Type.String({ minLength: 8, maxLength: 200 });
const RESET_TTL = 3600;
const INVITE_TTL = 7 * 24 * 3600;
const LOGIN_LINK_TTL = 15 * 60;

const WorkspaceSchema = Type.Object({
  workspaceId: Uuid,
  tenantId: Type.Integer(),
  name: Type.String(),
  status: Type.String(),
  userType: Type.Array(Type.Array(Type.String())),
  role: Type.String(),
});
const LoginResponse = Type.Object({ message: Type.String(), workspaces: Type.Array(WorkspaceSchema), refresh_token: Type.String() }, { $id: 'LoginResponse' });

function withRedirect(base: string | undefined, fallback: string, params: Record<string, string>): string {
  let url: URL;
  try {
    url = new URL(base || fallback);
  } catch {
    url = new URL(fallback);
  }
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return url.toString();
}

export function registerAuthRoutes(router: Router, svc: AppServices): void {
  const { auth, mailer, cfg } = svc;
  defineRoutes(router, svc, { tag: 'Auth', errorShape: 'catalogue' }, [
    route({
      method: 'post',
      path: '/auth/login',
      summary: 'Sign in with e-mail and password: a refresh token and the workspaces you belong to',
      description: 'Rate limited to 20 requests per 3 minutes per IP address (429 beyond).',
      access: 'public',
      body: Strict({ email: Type.String({ minLength: 1, maxLength: 320 }), password: Type.String({ minLength: 1, maxLength: 200 }) }),
      responses: { 200: LoginResponse },
      async handler({ ctx, body }) {
        await auth.hitRateLimit(`login:${ctx.ip}`, cfg.loginRateLimit.max, cfg.loginRateLimit.windowSeconds);
        const r = await auth.login(body.email, body.password, { ip: ctx.ip, userAgent: ctx.get('user-agent') });
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
        const token = await auth.accessTokenFor(who, query.currentWorkspace, ctx.get('x-forwarded-host') || ctx.host);
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
      summary: 'Start a password reset: returns a reset token; the verification code goes by e-mail',
      description: 'Always answers the same way whether or not the address is known, so it cannot be used to probe for accounts. PATCH /auth/resetpassword needs both the token (Bearer) and the code from the e-mail.',
      access: 'public',
      body: Strict({ email: Email, redirect_url: Type.Optional(Type.String({ maxLength: 2000 })) }),
      async handler({ ctx, body }) {
        await auth.hitRateLimit(`forgot:${ctx.ip}`, cfg.loginRateLimit.max, cfg.loginRateLimit.windowSeconds);
        const userId = await auth.userIdByEmail(body.email);
        let token: string;
        if (userId) {
          const issued = await auth.issueOneTime('reset', userId, RESET_TTL, { withCode: true });
          token = issued.token;
          const link = withRedirect(body.redirect_url, `${cfg.publicUrl}/app/reset-password`, { code: issued.code!, email: body.email });
          await mailer.send({
            to: body.email,
            subject: 'Reset your Rondo password',
            text: `Your verification code is ${issued.code}\n\nOr open: ${link}\n\nIt expires in one hour. If you did not ask for this, ignore this e-mail.`,
          });
        } else {
          token = await svc.signer.signPurpose('reset', '00000000-0000-0000-0000-000000000000', RESET_TTL);
        }
        return { success: true, message: 'If the address is registered, a verification code has been sent', data: { token } };
      },
    }),
    route({
      method: 'patch',
      path: '/auth/resetpassword',
      summary: 'Set a new password with the reset token (Bearer) and the e-mailed code (query `code`)',
      access: 'public',
      query: Type.Object({ code: Type.String({ minLength: 1, maxLength: 64 }) }),
      body: Strict({ email: Email, new_password: Password }),
      async handler({ ctx, query, body }) {
        const token = bearerToken(ctx);
        if (!token) throw new UnauthorizedError('Missing reset token', 'MISSING_TOKEN');
        const { userId } = await auth.consumeOneTime('reset', token, query.code);
        const user = await svc.db.owner('users').where({ id: userId }).first('email');
        if (!user || user.email.toLowerCase() !== body.email.toLowerCase()) throw new ValidationError('The e-mail does not match the reset request', [], 'EMAIL_MISMATCH');
        await auth.setPassword(userId, body.new_password);
        await auth.revokeAllSessions(userId);
        return { success: true, message: 'Password has been reset; sign in again' };
      },
    }),
    route({
      method: 'post',
      path: '/auth/setpassword',
      summary: 'Invited user sets a first password with the invitation token (Bearer)',
      access: 'public',
      body: Strict({ password: Password }),
      async handler({ ctx, body }) {
        const token = bearerToken(ctx);
        if (!token) throw new UnauthorizedError('Missing verification token', 'MISSING_TOKEN');
        const { userId, tenantId } = await auth.consumeOneTime('invite', token);
        await auth.setPassword(userId, body.password);
        if (tenantId) await svc.db.owner('tenant_users').where({ tenant_id: tenantId, user_id: userId, status: 'invited' }).update({ status: 'active', updated_at: clock.now() });
        return { success: true, message: 'Password set; you can sign in now' };
      },
    }),
    route({
      method: 'post',
      path: '/auth/loginlink',
      summary: 'E-mail a one-time, 15-minute sign-in link (GET /auth/?token=…)',
      access: 'public',
      body: Strict({ email: Email, redirect_url: Type.Optional(Type.String({ maxLength: 2000 })) }),
      async handler({ ctx, body }) {
        await auth.hitRateLimit(`loginlink:${ctx.ip}`, cfg.loginRateLimit.max, cfg.loginRateLimit.windowSeconds);
        const userId = await auth.userIdByEmail(body.email);
        if (userId) {
          const { token } = await auth.issueOneTime('login_link', userId, LOGIN_LINK_TTL);
          const link = withRedirect(body.redirect_url, `${cfg.publicUrl}/app/login-link`, { token });
          await mailer.send({ to: body.email, subject: 'Your Rondo sign-in link', text: `Sign in: ${link}\n\nThe link works once, for 15 minutes.` });
        }
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
          const { userId } = await auth.consumeOneTime('login_link', query.token);
          const refresh = await auth.openSession(userId, 'login_link', { ip: ctx.ip, userAgent: ctx.get('user-agent') });
          return { message: 'Login successful', workspaces: await auth.workspacesOf(userId), refresh_token: refresh };
        }
        const who = await auth.authenticate(ctx, 'session');
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
        redirect_url: Type.Optional(Type.String({ maxLength: 2000 })),
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

/** Adds a member (creating the person if new) and e-mails them; shared by POST /auth/invite and POST /user/. */
export async function inviteMember(
  svc: AppServices,
  trx: import('../../db').Trx,
  tenantId: number,
  p: { email: string; role: import('../../http/schema').RoleName; firstName?: string; lastName?: string; password?: string; redirect_url?: string },
) {
  const g = await ensureGlobalUser(svc.db.owner, {
    email: p.email,
    firstName: p.firstName,
    lastName: p.lastName,
    passwordHash: p.password ? await svc.auth.hashPassword(p.password) : null,
  });
  const existing = await trx('tenant_users').where({ user_id: g.id }).first('id');
  if (existing) throw new ValidationError('This person is already a member of the workspace', [`email ${p.email}`], 'ALREADY_MEMBER');
  const id = await upsertMembership(trx, tenantId, g.id, p.role, g.hasPassword ? 'active' : 'invited');
  const tenant = await trx('tenants').where({ id: tenantId }).first('name');
  if (!g.hasPassword) {
    const { token } = await svc.auth.issueOneTime('invite', g.id, INVITE_TTL, { tenantId });
    const link = withRedirect(p.redirect_url, `${svc.cfg.publicUrl}/app/set-password`, { token });
    await svc.mailer.send({
      to: p.email,
      subject: `You are invited to ${tenant?.name ?? 'a workspace'} on Rondo`,
      text: `You have been invited as ${p.role}. Choose a password: ${link}\n\n(POST /auth/setpassword with this token as Bearer.) The invitation is valid for 7 days.`,
    });
  } else if (!p.password) {
    await svc.mailer.send({ to: p.email, subject: `You were added to ${tenant?.name ?? 'a workspace'} on Rondo`, text: `Sign in with your existing password to reach it.` });
  }
  return getUser(trx, id);
}
