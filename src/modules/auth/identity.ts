/**
 * The e-mailed flows around a person's identity: password reset, sign-in links and
 * accepting invitations (sending them: src/modules/users/invitations.ts). The rules (docs/security.md):
 * - a person's password, e-mail, name and sign-in methods are theirs: a workspace admin
 *   invites and adds memberships, never sets any of them for a person who already exists;
 * - a membership made by an invitation stays `invited` until its recipient accepts through
 *   the e-mailed link (POST /auth/setpassword for a first password, /auth/acceptinvite else);
 * - tokens travel only by e-mail, to Rondo's own URL or an origin a workspace registered.
 */
import type { AppServices } from '../../services';
import { UnauthorizedError, ValidationError } from '../../lib/errors';
import type { AuthService } from './service';
import { checkRedirect, linkBase, withParams } from './origins';
import { sendPersonMail } from '../email/service';

export const RESET_TTL = 3600;
export const INVITE_TTL = 7 * 24 * 3600;
export const LOGIN_LINK_TTL = 15 * 60;

/** What the flows use: the app's services with the auth module's own service (authOf). */
export type IdentityDeps = Pick<AppServices, 'db' | 'mailer' | 'cfg' | 'secrets'> & { auth: AuthService };
type Deps = IdentityDeps;

/**
 * What the two e-mailed-link requests share: the redirect checked before anything is counted,
 * the per-address and per-account limits, and the link's base. `userId` is null for an
 * unknown address: the caller then sends nothing and answers the same.
 */
async function linkRequest(d: Deps, kind: 'forgot' | 'loginlink', email: string, redirect: string | undefined, ip: string, page: string) {
  await checkRedirect(d.db.owner, d.cfg, redirect, 'body.redirect_url'); // a refused target sends nothing, so it is not counted
  await d.auth.limits.hitAddressAndAccountLimits(kind, ip, email, d.cfg.recipientRateLimit);
  const userId = await d.auth.userIdByEmail(email);
  const base = await linkBase(d.db.owner, d.cfg, redirect, `${d.cfg.publicUrl}/app/${page}`, { recipientUserId: userId }, 'body.redirect_url');
  return { userId, base };
}

/** POST /auth/forgotpassword: the same answer whether or not the address is known; token and code go only by e-mail. */
export async function requestPasswordReset(d: Deps, email: string, redirect: string | undefined, ip: string): Promise<void> {
  const { userId, base } = await linkRequest(d, 'forgot', email, redirect, ip, 'reset-password');
  if (!userId) return;
  const { token, code } = await d.auth.issueOneTime('reset', userId, RESET_TTL, { withCode: true });
  const link = withParams(base, { token, code: code!, email });
  await sendPersonMail(d, userId, 'password_reset', { email }, { reset: { code: code!, token, link } });
}

/** PATCH /auth/resetpassword: reset token (Bearer) + e-mailed code → new password; every session ends. */
export async function resetPassword(d: Deps, token: string | undefined, code: string, email: string, newPassword: string, ip: string): Promise<void> {
  await d.auth.limits.hit(`reset:${ip}`, d.cfg.loginRateLimit.max, d.cfg.loginRateLimit.windowSeconds);
  if (!token) throw new UnauthorizedError('Missing reset token', 'MISSING_TOKEN');
  const person = await d.auth.person(await d.auth.oneTimeSubject('reset', token));
  if (!person || person.email.toLowerCase() !== email.trim().toLowerCase()) throw new ValidationError('The e-mail does not match the reset request', ['body.email does not match'], 'EMAIL_MISMATCH');
  const { userId } = await d.auth.consumeOneTime('reset', token, code);
  await d.auth.changePassword(userId, newPassword);
}

/**
 * Accepting an invitation through its e-mailed link. With `password` (POST /auth/setpassword)
 * the recipient chooses a first password; a person who already has one accepts without
 * (POST /auth/acceptinvite) and keeps it.
 */
export async function acceptInvitation(d: Deps, token: string | undefined, password?: string, meta: { ip?: string; userAgent?: string } = {}) {
  if (!token) throw new UnauthorizedError('Missing verification token', 'MISSING_TOKEN');
  const person = await d.auth.person(await d.auth.oneTimeSubject('invite', token));
  if (!person) throw new UnauthorizedError('This link or token is no longer valid', 'TOKEN_USED');
  if (password !== undefined && person.hasPassword) {
    throw new ValidationError('You already have a password: accept the invitation with POST /auth/acceptinvite, or reset the password', [], 'PASSWORD_ALREADY_SET');
  }
  if (password === undefined && !person.hasPassword) throw new ValidationError('Choose a password with POST /auth/setpassword to accept', ['body.password is required'], 'PASSWORD_REQUIRED');
  const { userId, tenantId } = await d.auth.consumeOneTime('invite', token);
  if (password !== undefined) await d.auth.changePassword(userId, password);
  if (tenantId) await d.auth.activateMembership(tenantId, userId);
  // the e-mailed token proved the address, as a sign-in link does: accepting signs the person in
  const refreshToken = await d.auth.openSession(userId, 'invitation', meta);
  const workspaces = await d.auth.workspacesOf(userId);
  return { refreshToken, workspaces, workspaceId: workspaces.find((w) => w.tenantId === tenantId)?.workspaceId ?? null };
}

/** POST /auth/loginlink: a one-time, 15-minute link by e-mail; the same answer whether or not the address is known. */
export async function requestLoginLink(d: Deps, email: string, redirect: string | undefined, ip: string): Promise<void> {
  const { userId, base } = await linkRequest(d, 'loginlink', email, redirect, ip, 'login-link');
  if (!userId) return;
  const { token } = await d.auth.issueOneTime('login_link', userId, LOGIN_LINK_TTL);
  await sendPersonMail(d, userId, 'login_link', { email }, { login: { link: withParams(base, { token }) } });
}

/** GET /auth/?token=: the sign-in link's token → a session. */
export async function signInWithLink(d: Deps, token: string, meta: { ip: string; userAgent?: string }) {
  const { userId } = await d.auth.consumeOneTime('login_link', token);
  const refreshToken = await d.auth.openSession(userId, 'login_link', meta);
  return { refreshToken, workspaces: await d.auth.workspacesOf(userId) };
}
