/**
 * Inviting someone into a workspace (POST /auth/invite, POST /user/ and /user/bulk): adds
 * the membership as `invited` and e-mails the link that accepts it (accepting:
 * src/modules/auth/identity.ts). An existing person's password, names and sign-in methods
 * are never touched (docs/security.md).
 */
import type { Trx } from '../../db';
import type { RoleName } from '../../lib/identity';
import { ConflictError, ValidationError } from '../../lib/errors';
import { clock } from '../../lib/clock';
import { assertMemberRoom } from '../../domain/quota';
import { INVITE_TTL, type IdentityDeps as Deps } from '../auth/identity';
import { linkBase, withParams } from '../auth/origins';
import { findOrCreatePerson, getUser, upsertMembership } from './service';
import { sendMail } from '../email/service';
import { ROLE_NAMES } from '../email/templates';
import { adminsOf, notifyEach } from '../notifications/service';
import { emitEvent } from '../webhooks/events';

export interface Invitation {
  email: string;
  role: RoleName;
  firstName?: string;
  lastName?: string;
  /** Refused: a person chooses their own password through the invitation e-mail. */
  password?: string;
  redirect_url?: string;
  /** false: a payee listed without an invitation (status `not_invited`), to be invited later or never. */
  invite?: boolean;
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
  if (p.invite === false) {
    // listed only: no seat taken, nothing e-mailed; inviting later keeps this membership
    if (chosen) throw new ValidationError('A payee who is not invited gets no link', ['body.redirect_url is only for invitations'], 'NOT_AN_INVITATION');
    return memberCreated(trx, tenantId, await upsertMembership(trx, tenantId, person.id, p.role, 'not_invited'));
  }
  await assertMemberRoom(trx, tenantId); // the plan's member limit: 403 PLAN_LIMIT_REACHED
  const id = await upsertMembership(trx, tenantId, person.id, p.role, 'invited');
  const name = [p.firstName, p.lastName].filter(Boolean).join(' ') || null;
  await mailInvitation(d, trx, tenantId, { userId: person.id, email: p.email, name, hasPassword: person.hasPassword, role: p.role }, chosen);
  await announceInvitation(trx, tenantId, id, p.email, p.role);
  return memberCreated(trx, tenantId, id);
}

/** `user.created` (and `user.invitation.sent` when invited) for a new membership; returns its view. */
async function memberCreated(trx: Trx, tenantId: number, id: string) {
  const m = await getUser(trx, id);
  await emitEvent(trx, tenantId, 'user.created', { userId: id, email: m.email, firstName: m.firstName, lastName: m.lastName, role: m.role, status: m.status });
  if (m.status === 'invited') await emitEvent(trx, tenantId, 'user.invitation.sent', { userId: id, email: m.email, role: m.role, resent: false });
  return m;
}

/** The admins' notification that someone was invited. */
async function announceInvitation(trx: Trx, tenantId: number, id: string, email: string, role: RoleName) {
  const tenant = await trx('tenants').where({ id: tenantId }).first('name');
  await notifyEach(trx, await adminsOf(trx, tenantId), {
    tenantId,
    type: 'invitation.sent',
    title: `${email} was invited to ${tenant?.name ?? 'the workspace'}`,
    content: `Invited as ${(ROLE_NAMES[role] ?? role).split(':')[0]}; the invitation is valid for ${INVITE_TTL / 86400} days.`,
    resourceType: 'user',
    resourceId: id,
    actionUrl: `/user/${id}`,
    metadata: { email, role },
  });
}

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

/**
 * The invitation e-mail with a new link: to the page that sets a first password, or (for someone
 * who has one) the page that accepts; `base` is a checked redirect given with the invitation.
 */
async function mailInvitation(d: Deps, trx: Trx, tenantId: number, p: { userId: string; email: string; name: string | null; hasPassword: boolean; role: RoleName }, base: URL | null) {
  const page = base ?? new URL(p.hasPassword ? `${d.cfg.publicUrl}/app/accept-invitation` : `${d.cfg.publicUrl}/app/set-password`);
  const { token } = await d.auth.issueOneTime('invite', p.userId, INVITE_TTL, { tenantId });
  const how = p.hasPassword
    ? 'You already have a Rondo account: open this link to accept, and you are signed in to the workspace'
    : 'Open this link and choose a password to accept it; you are then signed in';
  await sendMail(d, trx, tenantId, 'invitation', { email: p.email, name: p.name }, { invitation: { role: p.role, roleName: ROLE_NAMES[p.role] ?? p.role, link: withParams(page, { token }), instructions: how, validDays: INVITE_TTL / 86400 } });
}

/**
 * POST /user/{id}/invitation: the invitation e-mailed (again) with a new link, valid for another
 * INVITE_TTL; the links sent before stop working. For a membership still `invited`, or a payee
 * listed without an invitation (`not_invited`, who then becomes `invited` and takes a seat);
 * 400 NOT_AN_INVITATION once accepted. The membership, its role and whatever names it (splits,
 * payment settings, statements) stay.
 */
export async function resendInvitation(d: Deps, trx: Trx, tenantId: number, id: string) {
  const m = await getUser(trx, id);
  if (m.status !== 'invited' && m.status !== 'not_invited') throw new ConflictError('This member has already accepted the invitation', [], 'NOT_AN_INVITATION');
  if (m.status === 'not_invited') {
    await assertMemberRoom(trx, tenantId);
    await trx('tenant_users').where({ id }).update({ status: 'invited', updated_at: clock.now() });
    await announceInvitation(trx, tenantId, id, m.email, m.role as RoleName);
  }
  await withdrawInvitationLinks(d, tenantId, m.userId);
  const person = await d.auth.person(m.userId);
  const name = [m.firstName, m.lastName].filter(Boolean).join(' ') || null;
  await mailInvitation(d, trx, tenantId, { userId: m.userId, email: m.email, name, hasPassword: !!person?.hasPassword, role: m.role as RoleName }, null);
  await emitEvent(trx, tenantId, 'user.invitation.sent', { userId: id, email: m.email, role: m.role, resent: m.status === 'invited' });
  return getUser(trx, id);
}

/** The invitation links still out for a person into this workspace stop working (resent, or the invitation cancelled). */
export async function withdrawInvitationLinks(d: Pick<Deps, 'db'>, tenantId: number, userId: string): Promise<void> {
  await d.db.owner('one_time_tokens').where({ purpose: 'invite', user_id: userId, tenant_id: tenantId }).whereNull('used_at').update({ used_at: clock.now() });
}
