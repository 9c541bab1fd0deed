/**
 * Authentication: passwords, sessions (refresh tokens stored hashed), access tokens,
 * API keys and one-time tokens (reset, invite, login link); the rate limits are rate-limit.ts.
 * Identity tables are global (a user may belong to many workspaces), so this service uses
 * the owner pool; it never returns tenant data beyond a user's own memberships.
 */
import { hash as argonHash, verify as argonVerify } from '@node-rs/argon2';
import type { Knex } from 'knex';
import type { Config } from '../../config';
import { clock } from '../../lib/clock';
import { randomToken, safeEqual, sha256 } from '../../lib/crypto';
import { ForbiddenError, NotFoundError, UnauthorizedError, ValidationError } from '../../lib/errors';
import type { Access, Authenticator, RequestCredentials, RoleName } from '../../lib/identity';
import type { AppServices } from '../../services';
import { preparedQuery } from '../../db';
import { effectivePlanSql } from '../../domain/features';
import { RateLimits } from './rate-limit';
import {
  ANONYMOUS,
  type AccessClaims,
  type AuthContext,
  detectTokenKind,
  type KeyKind,
  newApiKey,
  REFRESH_TTL_SECONDS,
  type RefreshClaims,
  splitApiKey,
  TokenSigner,
} from './tokens';
import { activateMembership, membershipOf } from '../../repositories/members';

export { REFRESH_COOKIE } from './tokens';

/** Wrong verification codes a reset token survives; the next one kills it. */
export const MAX_CODE_ATTEMPTS = 5;

export type { RequestCredentials };

/** The token of an `Authorization: Bearer …` header, if any. */
export function bearerToken(authorization: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
}

export type OneTimePurpose = 'reset' | 'invite' | 'login_link';

export interface Workspace {
  workspaceId: string;
  tenantId: number;
  name: string;
  status: string;
  userType: string[][];
  role: RoleName;
}

interface MemberRow {
  tenant_id: number;
  tenant_user_id: string;
  role: RoleName;
  member_status: string;
  tenant_status: string;
  is_super_admin: boolean;
  user_id: string;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An access token's session and its workspace membership (AuthService.fromAccess). */
const ACCESS_CHECK_SQL = `SELECT s.revoked_at, s.expires_at, m.*
     FROM sessions s
     LEFT JOIN (SELECT tu.tenant_id, tu.id AS tenant_user_id, tu.role, tu.status AS member_status, t.status AS tenant_status,
                       u.is_super_admin, u.id AS user_id
                  FROM tenant_users tu JOIN tenants t ON t.id = tu.tenant_id JOIN users u ON u.id = tu.user_id
                 WHERE tu.tenant_id = $1 AND tu.id = $2) m ON true
    WHERE s.id = $3 AND s.user_id = $4`;

export class AuthService implements Authenticator {
  constructor(
    private readonly owner: Knex,
    private readonly signer: TokenSigner,
    private readonly cfg: Config,
  ) {
    this.limits = new RateLimits(owner, cfg);
  }

  /** The sliding-window rate limits (rate-limit.ts). */
  readonly limits: RateLimits;

  // ---- passwords -------------------------------------------------------------------
  hashPassword(password: string): Promise<string> {
    return argonHash(password, { memoryCost: this.cfg.passwordHashMemoryKiB, timeCost: 2 });
  }
  async verifyPassword(hash: string | null, password: string): Promise<boolean> {
    if (!hash) return false;
    try {
      return await argonVerify(hash, password);
    } catch {
      return false;
    }
  }

  /** Id of the person with this e-mail (case-insensitive), if any. */
  async userIdByEmail(email: string): Promise<string | undefined> {
    return (await this.owner('users').whereRaw('lower(email) = lower(?)', [email]).first('id'))?.id;
  }

  // ---- login and sessions ---------------------------------------------------------------
  /**
   * POST /auth/login: the limits per address (every request) and per account, then login().
   * The per-account limit counts failed sign-ins only: the attempt holds its place in the
   * window while the password is checked (so parallel guesses cannot pass the limit), and gives
   * it back unless the answer is a wrong e-mail or password.
   */
  async passwordSignIn(email: string, password: string, meta: { ip: string; userAgent?: string; host?: string }) {
    const [, byAccount] = await this.limits.hitAddressAndAccountLimits('login', meta.ip, email, this.cfg.accountRateLimit);
    try {
      const signedIn = await this.login(email, password, meta);
      await this.limits.refund([byAccount!]);
      return signedIn;
    } catch (err) {
      if (!(err instanceof UnauthorizedError && err.code === 'INVALID_CREDENTIALS')) await this.limits.refund([byAccount!]);
      throw err;
    }
  }

  /**
   * The workspace a request's host stands for (docs/platform.md, "Sign-in by host"): a custom domain verified by its
   * DNS TXT record and active (POST /domains/{id}/verify), of a workspace whose plan includes
   * `custom_domains`. Anything else (an unverified or removed domain, a value typed into a
   * settings field, a downgraded plan) resolves nothing.
   */
  async workspaceByHost(host: string | undefined): Promise<{ id: number; status: string } | undefined> {
    const domain = host?.trim().toLowerCase().replace(/:\d+$/, '').replace(/\.$/, '');
    if (!domain || domain.length > 253) return undefined;
    return this.owner('custom_domains as d')
      .join('tenants as t', 't.id', 'd.tenant_id')
      .join('plans as p', 'p.code', this.owner.raw(effectivePlanSql()))
      .where('d.status', 'active')
      .whereRaw('lower(d.domain) = ?', [domain])
      .whereRaw(`'custom_domains' = ANY (p.features)`)
      .first('t.id', 't.status');
  }

  private dummyHash: Promise<string> | null = null;

  /**
   * E-mail and password → a session. On a workspace's custom domain (`meta.host`, docs/platform.md "Sign-in by host")
   * the answer lists that workspace only, and a person who is not an active member of it, or a
   * suspended workspace, gets the invalid-workspace 403 (after the password check, no session).
   */
  async login(email: string, password: string, meta: { ip?: string; userAgent?: string; host?: string }) {
    const user = await this.owner('users').whereRaw('lower(email) = lower(?)', [email]).first();
    // An unknown address costs the same hash check as a known one: no timing oracle for accounts.
    this.dummyHash ??= this.hashPassword(randomToken(16));
    const ok = await this.verifyPassword(user?.password_hash ?? (await this.dummyHash), password);
    if (!user || !ok) throw new UnauthorizedError('Invalid email or password', 'INVALID_CREDENTIALS');
    let workspaces = await this.workspacesOf(user.id);
    const site = await this.workspaceByHost(meta.host);
    if (site) {
      if (site.status !== 'active') throw new ForbiddenError('Workspace is inactive', 'WORKSPACE_INACTIVE');
      workspaces = workspaces.filter((w) => w.tenantId === site.id);
      if (!workspaces.length) throw new ForbiddenError('You are not a member of this workspace', 'NOT_A_MEMBER');
    }
    const refreshToken = await this.openSession(user.id, 'password', meta);
    return { workspaces, refreshToken, userId: user.id as string };
  }

  async openSession(userId: string, via: string, meta: { ip?: string; userAgent?: string } = {}): Promise<string> {
    const [{ id }] = await this.owner('sessions')
      .insert({
        user_id: userId,
        refresh_hash: sha256(randomToken()), // placeholder until the token (which names the session) exists
        via,
        ip: meta.ip ?? null,
        user_agent: meta.userAgent?.slice(0, 500) ?? null,
        created_at: clock.now(),
        expires_at: new Date(clock.now().getTime() + REFRESH_TTL_SECONDS * 1000),
      })
      .returning('id');
    const token = await this.signer.signRefresh({ sub: userId, sid: id });
    await this.owner('sessions').where({ id }).update({ refresh_hash: sha256(token) });
    return token;
  }

  async workspacesOf(userId: string): Promise<Workspace[]> {
    const rows = await this.owner('tenant_users as tu')
      .join('tenants as t', 't.id', 'tu.tenant_id')
      .where('tu.user_id', userId)
      .where('tu.status', 'active')
      .orderBy('t.id')
      .select('t.id as tenant_id', 't.uuid', 't.name', 't.status', 'tu.role');
    return rows.map((r) => ({
      workspaceId: r.uuid,
      tenantId: r.tenant_id,
      name: r.name,
      status: r.status,
      userType: [[r.role]],
      role: r.role,
    }));
  }

  /** GET /auth/authtoken: refresh token + workspace → access token. */
  async accessTokenFor(auth: AuthContext, currentWorkspace: string | undefined, host: string | undefined): Promise<string> {
    let tenant: { id: number; status: string } | undefined;
    if (currentWorkspace) {
      const q = this.owner('tenants').select('id', 'status');
      tenant = await (UUID_RE.test(currentWorkspace) ? q.where('uuid', currentWorkspace) : /^\d+$/.test(currentWorkspace) ? q.where('id', Number(currentWorkspace)) : q.whereRaw('false')).first();
      if (!tenant) throw new NotFoundError('Workspace', 'WORKSPACE_NOT_FOUND');
    } else {
      tenant = await this.workspaceByHost(host);
      if (!tenant) throw new ValidationError('currentWorkspace is required (no custom domain matches this host)', ['query.currentWorkspace is required'], 'WORKSPACE_REQUIRED');
    }
    if (tenant.status !== 'active') throw new ForbiddenError('Workspace is inactive', 'WORKSPACE_INACTIVE');
    const member = auth.userId ? await membershipOf(this.owner, tenant.id, { userId: auth.userId }) : undefined;
    // a payee the workspace listed without inviting (`not_invited`) has no access until invited and accepted
    if (!member || member.status === 'disabled' || member.status === 'not_invited') throw new ForbiddenError('You are not a member of this workspace', 'NOT_A_MEMBER');
    // An invitation is accepted only through the e-mailed link (POST /auth/setpassword or /auth/acceptinvite).
    if (member.status !== 'active') throw new ForbiddenError('Accept the invitation from the e-mail first', 'INVITATION_PENDING');
    return this.signer.signAccess({ sub: auth.userId!, sid: auth.sessionId!, tid: tenant.id, tuid: member.id });
  }

  async logout(sessionId: string): Promise<void> {
    await this.owner('sessions').where({ id: sessionId }).update({ revoked_at: clock.now() });
  }

  /** An access token for a read-only impersonation session (GET routes only). */
  signReadOnlyAccess(claims: { sub: string; sid: string; tid: number; tuid: string }, ttlSeconds: number): Promise<string> {
    return this.signer.signAccess({ ...claims, ro: true }, ttlSeconds);
  }

  // ---- authenticating a request ------------------------------------------------------
  async authenticate(creds: RequestCredentials, access: Access): Promise<AuthContext> {
    if (access === 'public') return ANONYMOUS;
    const bearer = bearerToken(creds.authorization);
    // After a social login the refresh token lives in an httpOnly cookie (docs/auth.md, "Social login").
    const cookie = access === 'refresh' || access === 'session' ? creds.refreshCookie : undefined;
    const token = bearer ?? cookie;
    if (!token) throw new UnauthorizedError('Missing bearer token', 'MISSING_TOKEN');
    const kind = detectTokenKind(token);
    if (!kind) throw new UnauthorizedError('Unrecognised token', 'INVALID_TOKEN');
    if (access === 'refresh') {
      if (kind !== 'jwt') throw new UnauthorizedError('A refresh token is required', 'WRONG_TOKEN_KIND');
      return this.fromRefresh(token);
    }
    if (kind === 'jwt') {
      if (access !== 'session') return this.fromAccess(token);
      // Logout and "who am I" accept either JWT kind.
      try {
        return await this.fromAccess(token);
      } catch (err) {
        if ((err as { code?: string }).code === 'WRONG_TOKEN_KIND') return this.fromRefresh(token);
        throw err;
      }
    }
    return this.fromApiKey(kind, token, creds.workspaceHeader || undefined);
  }

  private async liveSession(sid: string, userId: string) {
    const s = await this.owner('sessions').where({ id: sid, user_id: userId }).first();
    if (!s || s.revoked_at || new Date(s.expires_at) <= clock.now()) throw new UnauthorizedError('Session is not active', 'SESSION_NOT_FOUND');
    return s;
  }

  async fromRefresh(token: string): Promise<AuthContext> {
    const claims = await this.signer.verify<RefreshClaims>(token, 'refresh');
    const s = await this.liveSession(claims.sid, claims.sub);
    if (!safeEqual(s.refresh_hash, sha256(token))) throw new UnauthorizedError('Refresh token is not stored', 'SESSION_NOT_FOUND');
    const user = await this.owner('users').where({ id: claims.sub }).first('is_super_admin');
    return { ...ANONYMOUS, kind: 'refresh', userId: claims.sub, sessionId: claims.sid, isSuperAdmin: !!user?.is_super_admin };
  }

  private async member(tenantId: number, tenantUserId: string): Promise<MemberRow | undefined> {
    return this.owner('tenant_users as tu')
      .join('tenants as t', 't.id', 'tu.tenant_id')
      .join('users as u', 'u.id', 'tu.user_id')
      .where({ 'tu.tenant_id': tenantId, 'tu.id': tenantUserId })
      .first(
        'tu.tenant_id',
        'tu.id as tenant_user_id',
        'tu.role',
        'tu.status as member_status',
        't.status as tenant_status',
        'u.is_super_admin',
        'u.id as user_id',
      );
  }

  private checkMember(m: MemberRow | undefined): MemberRow {
    if (!m || m.member_status !== 'active') throw new UnauthorizedError('User is no longer a member of this workspace', 'NOT_A_MEMBER');
    if (m.tenant_status !== 'active') throw new ForbiddenError('Workspace is inactive', 'WORKSPACE_INACTIVE');
    return m;
  }

  private async fromAccess(token: string): Promise<AuthContext> {
    const claims = await this.signer.verify<AccessClaims>(token, 'access');
    // The session and the membership in ONE round trip (every API request comes through
    // here); the same checks, in the same order, as liveSession() then member(). A prepared
    // statement: planning was 0.28 ms of its 0.32 ms.
    const rows = await preparedQuery<Record<string, any>>(this.owner, 'rondo_access_check', ACCESS_CHECK_SQL, [claims.tid, claims.tuid, claims.sid, claims.sub]);
    const s = rows[0];
    if (!s || s.revoked_at || new Date(s.expires_at) <= clock.now()) throw new UnauthorizedError('Session is not active', 'SESSION_NOT_FOUND');
    const m = this.checkMember(s.tenant_user_id ? (s as MemberRow) : undefined);
    return {
      kind: 'access',
      userId: m.user_id,
      tenantId: m.tenant_id,
      tenantUserId: m.tenant_user_id,
      role: m.role,
      isSuperAdmin: claims.ro ? false : m.is_super_admin,
      ...(claims.ro ? { readOnly: true } : {}),
      sessionId: claims.sid,
      keyId: null,
    };
  }

  private async fromApiKey(kind: KeyKind, token: string, workspaceHeader: string | undefined): Promise<AuthContext> {
    const parts = splitApiKey(token);
    const row = parts ? await this.owner('api_keys').where({ key_id: parts.keyId }).first() : undefined;
    if (!row || !parts || row.kind !== kind || row.revoked_at || !safeEqual(row.secret_hash, sha256(parts.secret))) {
      throw new UnauthorizedError('Invalid API key', 'INVALID_API_KEY');
    }
    if (kind === 'god') {
      let tenantId: number | null = null;
      if (workspaceHeader) {
        const q = this.owner('tenants').select('id');
        const t = await (UUID_RE.test(workspaceHeader) ? q.where('uuid', workspaceHeader) : /^\d+$/.test(workspaceHeader) ? q.where('id', Number(workspaceHeader)) : q.whereRaw('false')).first();
        if (!t) throw new NotFoundError('Workspace', 'WORKSPACE_NOT_FOUND');
        tenantId = t.id;
      }
      return { ...ANONYMOUS, kind: 'god_key', isSuperAdmin: true, tenantId, role: tenantId ? 'owner' : null, keyId: row.id };
    }
    const tenant = await this.owner('tenants').where({ id: row.tenant_id }).first('status');
    if (!tenant || tenant.status !== 'active') throw new ForbiddenError('Workspace is inactive', 'WORKSPACE_INACTIVE');
    if (kind === 'workspace') {
      // A workspace key acts for the workspace itself, with admin rights.
      return { ...ANONYMOUS, kind: 'workspace_key', tenantId: row.tenant_id, role: 'admin', keyId: row.id };
    }
    const m = this.checkMember(await this.member(row.tenant_id, row.tenant_user_id));
    return {
      kind: 'user_key',
      userId: m.user_id,
      tenantId: m.tenant_id,
      tenantUserId: m.tenant_user_id,
      role: m.role,
      isSuperAdmin: m.is_super_admin,
      sessionId: null,
      keyId: row.id,
    };
  }

  // ---- API keys (the CLI, and the web app's key routes in ./api-key-routes; docs/auth.md "API keys") 
  async createApiKey(kind: KeyKind, opts: { tenantId?: number; tenantUserId?: string; name?: string }): Promise<{ id: string; token: string }> {
    if (kind !== 'god' && !opts.tenantId) throw new ValidationError(`a ${kind} key needs --tenant`);
    if (kind === 'user' && !opts.tenantUserId) throw new ValidationError('a user key needs --user (the tenant user id)');
    if (kind === 'user') {
      const m = await membershipOf(this.owner, opts.tenantId!, { id: opts.tenantUserId! }) // both checked above;
      if (!m) throw new NotFoundError('Tenant user');
    }
    if (kind === 'workspace') {
      const t = await this.owner('tenants').where({ id: opts.tenantId }).first();
      if (!t) throw new NotFoundError('Workspace');
    }
    const key = newApiKey(kind);
    const [{ id }] = await this.owner('api_keys')
      .insert({
        kind,
        key_id: key.keyId,
        secret_hash: sha256(key.secret),
        tenant_id: kind === 'god' ? null : opts.tenantId,
        tenant_user_id: kind === 'user' ? opts.tenantUserId : null,
        name: opts.name ?? null,
        created_at: clock.now(),
      })
      .returning('id');
    return { id, token: key.token };
  }

  async revokeApiKey(id: string): Promise<boolean> {
    return (await this.owner('api_keys').where({ id }).whereNull('revoked_at').update({ revoked_at: clock.now() })) > 0;
  }

  // ---- one-time tokens ------------------------------------------------------------------
  async issueOneTime(purpose: OneTimePurpose, userId: string, ttlSeconds: number, opts: { tenantId?: number; withCode?: boolean } = {}) {
    const token = await this.signer.signPurpose(purpose, userId, ttlSeconds, opts.tenantId ? { tid: opts.tenantId } : {});
    const code = opts.withCode ? randomToken(6).replace(/[^A-Za-z0-9]/g, 'x').slice(0, 8).toUpperCase() : null;
    await this.owner('one_time_tokens').insert({
      purpose,
      user_id: userId,
      tenant_id: opts.tenantId ?? null,
      token_hash: sha256(token),
      code_hash: code ? sha256(code) : null,
      created_at: clock.now(),
      expires_at: new Date(clock.now().getTime() + ttlSeconds * 1000),
    });
    return { token, code };
  }

  /** The person a live one-time token names, checked (signature, kind, expiry, unused) but not consumed. */
  async oneTimeSubject(purpose: OneTimePurpose, token: string): Promise<string> {
    const { sub } = await this.signer.verify(token, purpose);
    const row = await this.owner('one_time_tokens').where({ token_hash: sha256(token), purpose }).first('user_id', 'used_at', 'expires_at', 'code_hash', 'attempts');
    if (row?.code_hash && row.attempts >= MAX_CODE_ATTEMPTS) throw new UnauthorizedError('Too many wrong codes; request a new one', 'TOKEN_LOCKED');
    if (!row || row.user_id !== sub || row.used_at || new Date(row.expires_at) <= clock.now()) throw new UnauthorizedError('This link or token is no longer valid', 'TOKEN_USED');
    return sub;
  }

  /**
   * Checks and consumes a one-time token (and its code, when it has one). A wrong code counts
   * (committed, whatever happens next); after MAX_CODE_ATTEMPTS wrong codes the token is dead.
   */
  async consumeOneTime(purpose: OneTimePurpose, token: string, code?: string): Promise<{ userId: string; tenantId: number | null }> {
    const claims = await this.signer.verify<{ tid?: number }>(token, purpose);
    const outcome = await this.owner.transaction(async (trx) => {
      const row = await trx('one_time_tokens').where({ token_hash: sha256(token), purpose }).forUpdate().first();
      if (!row || row.user_id !== claims.sub) return { fail: 'used' as const };
      if (row.code_hash && row.attempts >= MAX_CODE_ATTEMPTS) return { fail: 'locked' as const };
      if (row.used_at || new Date(row.expires_at) <= clock.now()) return { fail: 'used' as const };
      if (row.code_hash && !safeEqual(row.code_hash, sha256((code ?? '').trim().toUpperCase()))) {
        await trx('one_time_tokens').where({ id: row.id }).update({ attempts: row.attempts + 1 });
        return { fail: 'wrong' as const, left: MAX_CODE_ATTEMPTS - row.attempts - 1 };
      }
      await trx('one_time_tokens').where({ id: row.id }).update({ used_at: clock.now() });
      return { userId: claims.sub, tenantId: row.tenant_id as number | null };
    });
    if (outcome.userId !== undefined) return { userId: outcome.userId, tenantId: outcome.tenantId ?? null };
    if (outcome.fail === 'locked') throw new UnauthorizedError('Too many wrong codes; request a new one', 'TOKEN_LOCKED');
    if (outcome.fail === 'wrong') {
      const detail = outcome.left > 0 ? `query.code does not match (${outcome.left} tries left)` : 'query.code does not match; no tries left, request a new code';
      throw new ValidationError('The verification code is wrong', [detail], 'INVALID_CODE');
    }
    throw new UnauthorizedError('This link or token is no longer valid', 'TOKEN_USED');
  }

  /**
   * The owner set a new password (reset link or invitation): every session ends, and every
   * reset and sign-in link still out for the person stops working.
   */
  async changePassword(userId: string, password: string): Promise<void> {
    await this.setPassword(userId, password);
    await this.revokeAllSessions(userId);
    await this.owner('one_time_tokens').where({ user_id: userId }).whereIn('purpose', ['reset', 'login_link']).whereNull('used_at').update({ used_at: clock.now() });
  }

  async setPassword(userId: string, password: string): Promise<void> {
    await this.owner('users').where({ id: userId }).update({ password_hash: await this.hashPassword(password), password_changed_at: clock.now(), updated_at: clock.now() });
  }

  /** The person's e-mail and whether they have chosen a password. */
  async person(userId: string): Promise<{ email: string; hasPassword: boolean } | undefined> {
    const u = await this.owner('users').where({ id: userId }).first('email', 'password_hash');
    return u ? { email: u.email, hasPassword: !!u.password_hash } : undefined;
  }

  /** Accepting an invitation: the membership it names becomes active. */
  async activateMembership(tenantId: number, userId: string): Promise<void> {
    await activateMembership(this.owner, tenantId, userId, clock.now());
  }

  /** After a password reset every existing session ends. */
  async revokeAllSessions(userId: string): Promise<void> {
    await this.owner('sessions').where({ user_id: userId }).whereNull('revoked_at').update({ revoked_at: clock.now() });
  }
}

/**
 * The auth module's own service behind the `svc.auth` port (the composition root puts an
 * AuthService there): the auth routes and identity flows need more of it than the port shows.
 */
/** A super-admin's read-only impersonation token (an access token with `ro`, for the session given). */
export async function signImpersonation(svc: Pick<AppServices, 'auth'>, claims: { sub: string; sid: string; tid: number; tuid: string }, ttlSeconds: number): Promise<string> {
  return authOf(svc).signReadOnlyAccess(claims, ttlSeconds);
}

export function authOf(svc: Pick<AppServices, 'auth'>): AuthService {
  if (!(svc.auth instanceof AuthService)) throw new Error('svc.auth is not an AuthService');
  return svc.auth;
}
