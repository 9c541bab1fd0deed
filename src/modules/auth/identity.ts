/**
 * The e-mailed flows around a person's identity: password reset, sign-in links and
 * invitations. The rules (docs/security.md):
 * - a person's password, e-mail, name and sign-in methods are theirs: a workspace admin
 *   invites and adds memberships, never sets any of them for a person who already exists;
 * - a membership made by an invitation stays `invited` until its recipient accepts through
 *   the e-mailed link (POST /auth/setpassword for a first password, /auth/acceptinvite else);
 * - tokens travel only by e-mail, to Rondo's own URL or an origin a workspace registered.
 */
import type { AppServices } from '../../services';
import type { Trx } from '../../db';
import type { RoleName } from '../../http/schema';
import { UnauthorizedError, ValidationError } from '../../lib/errors';
import { findOrCreatePerson, getUser, upsertMembership } from '../users/service';
import { checkRedirect, linkBase, withParams } from './origins';

export const RESET_TTL = 3600;
export const INVITE_TTL = 7 * 24 * 3600;
export const LOGIN_LINK_TTL = 15 * 60;

type Deps = Pick<AppServices, 'db' | 'auth' | 'mailer' | 'cfg'>;

/** POST /auth/forgotpassword: the same answer whether or not the address is known; token and code go only by e-mail. */
export async function requestPasswordReset(d: Deps, email: string, redirect: string | undefined, ip: string): Promise<void> {
  await checkRedirect(d.db.owner, d.cfg, redirect, 'body.redirect_url'); // a refused target sends nothing, so it is not counted
  await d.auth.hitAddressAndAccountLimits('forgot', ip, email, d.cfg.recipientRateLimit);
  const userId = await d.auth.userIdByEmail(email);
  const base = await linkBase(d.db.owner, d.cfg, redirect, `${d.cfg.publicUrl}/app/reset-password`, { recipientUserId: userId }, 'body.redirect_url');
  if (!userId) return;
  const { token, code } = await d.auth.issueOneTime('reset', userId, RESET_TTL, { withCode: true });
  const link = withParams(base, { token, code: code!, email });
  await d.mailer.send({
    to: email,
    subject: 'Reset your Rondo password',
    text: `Your verification code is ${code}\n\nReset token: ${token}\n\nOr open: ${link}\n\nIt expires in one hour and allows five wrong codes. If you did not ask for this, ignore this e-mail.`,
  });
}

/** PATCH /auth/resetpassword: reset token (Bearer) + e-mailed code → new password; every session ends. */
export async function resetPassword(d: Deps, token: string | undefined, code: string, email: string, newPassword: string, ip: string): Promise<void> {
  await d.auth.hitRateLimit(`reset:${ip}`, d.cfg.loginRateLimit.max, d.cfg.loginRateLimit.windowSeconds);
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
export async function acceptInvitation(d: Deps, token: string | undefined, password?: string): Promise<void> {
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
}

/** POST /auth/loginlink: a one-time, 15-minute link by e-mail; the same answer whether or not the address is known. */
export async function requestLoginLink(d: Deps, email: string, redirect: string | undefined, ip: string): Promise<void> {
  await checkRedirect(d.db.owner, d.cfg, redirect, 'body.redirect_url'); // a refused target sends nothing, so it is not counted
  await d.auth.hitAddressAndAccountLimits('loginlink', ip, email, d.cfg.recipientRateLimit);
  const userId = await d.auth.userIdByEmail(email);
  const base = await linkBase(d.db.owner, d.cfg, redirect, `${d.cfg.publicUrl}/app/login-link`, { recipientUserId: userId }, 'body.redirect_url');
  if (!userId) return;
  const { token } = await d.auth.issueOneTime('login_link', userId, LOGIN_LINK_TTL);
  await d.mailer.send({ to: email, subject: 'Your Rondo sign-in link', text: `Sign in: ${withParams(base, { token })}\n\nThe link works once, for 15 minutes.` });
}

/** GET /auth/?token=: the sign-in link's token → a session. */
export async function signInWithLink(d: Deps, token: string, meta: { ip: string; userAgent?: string }) {
  const { userId } = await d.auth.consumeOneTime('login_link', token);
  const refreshToken = await d.auth.openSession(userId, 'login_link', meta);
  return { refreshToken, workspaces: await d.auth.workspacesOf(userId) };
}

export interface Invitation {
  email: string;
  role: RoleName;
  firstName?: string;
  lastName?: string;
  /** Refused: a person chooses their own password through the invitation e-mail. */
  password?: string;
  redirect_url?: string;
}

/**
 * Adds a membership (creating the person when new, with the names given) and e-mails the
 * invitation; POST /auth/invite, POST /user/ and /user/bulk. The membership is `invited`
 * until the recipient accepts through the link; an existing person's password, names and
 * sign-in methods are never touched.
 */
export async function inviteMember(d: Deps, trx: Trx, tenantId: number, p: Invitation) {
  if (p.password !== undefined) {
    throw new ValidationError('A workspace cannot choose a password for someone: they choose it through the invitation e-mail', ['body.password is not accepted'], 'PASSWORD_NOT_ALLOWED');
  }
  // the redirect is checked before anything is written
  const chosen = p.redirect_url ? await linkBase(d.db.owner, d.cfg, p.redirect_url, d.cfg.publicUrl, { tenantId }, 'body.redirect_url') : null;
  const person = await findOrCreatePerson(d.db.owner, { email: p.email, firstName: p.firstName, lastName: p.lastName });
  const existing = await trx('tenant_users').where({ user_id: person.id }).first('id');
  if (existing) throw new ValidationError('This person is already a member of the workspace', [`email ${p.email}`], 'ALREADY_MEMBER');
  const base = chosen ?? new URL(person.hasPassword ? `${d.cfg.publicUrl}/app/accept-invitation` : `${d.cfg.publicUrl}/app/set-password`);
  const id = await upsertMembership(trx, tenantId, person.id, p.role, 'invited');
  const tenant = await trx('tenants').where({ id: tenantId }).first('name');
  const { token } = await d.auth.issueOneTime('invite', person.id, INVITE_TTL, { tenantId });
  const link = withParams(base, { token });
  const how = person.hasPassword
    ? 'Accept it (POST /auth/acceptinvite with this token as Bearer) and sign in with your existing password'
    : 'Choose a password to accept it (POST /auth/setpassword with this token as Bearer)';
  await d.mailer.send({
    to: p.email,
    subject: `You are invited to ${tenant?.name ?? 'a workspace'} on Rondo`,
    text: `You have been invited as ${p.role}. ${how}: ${link}\n\nThe invitation is valid for 7 days.`,
  });
  return getUser(trx, id);
}

/** POST /user/bulk: a savepoint per item, so one bad item never undoes the others. */
/** POST /user/bulk: `items` are the schema-valid ones with their index in the request; each failure is reported, the rest added. */
export async function inviteMembers(d: Deps, trx: Trx, tenantId: number, items: { i: number; item: Invitation }[], mayAddOwners: boolean) {
  const created: string[] = [];
  const errors: string[] = [];
  for (const { i, item: u } of items) {
    if (u.role === 'owner' && !mayAddOwners) {
      errors.push(`users[${i}] ${u.email}: only an owner can add an owner`);
      continue;
    }
    try {
      await trx.transaction((sp) => inviteMember(d, sp, tenantId, u));
      created.push(u.email);
    } catch (err) {
      errors.push(`users[${i}] ${u.email}: ${(err as Error).message}`);
    }
  }
  return { created, errors };
}
