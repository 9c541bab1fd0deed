import assert from 'node:assert/strict';
import { activateCustomDomain, startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { mailsTo } from '../helpers/mail';
import { clock } from '../../src/lib/clock';
import { createTenant, ensureGlobalUser, upsertMembership } from '../../src/modules/users/service';

describe('auth: tokens, sessions, keys (docs/auth.md)', () => {
  let app: TestApp;
  let a: TestTenant;
  let b: TestTenant;

  before(async () => {
    app = await startTestApp();
    a = await createTestTenant(app, 'Alpha');
    b = await createTestTenant(app, 'Beta', ['owner']);
  });
  after(async () => app.close());
  afterEach(() => clock.reset());

  async function login(email: string, password: string, ip?: string) {
    return app.request('POST', '/auth/login', { body: { email, password }, ip });
  }

  it('logs in, lists workspaces and exchanges the refresh token for an access token', async () => {
    const r = await login(a.users.admin!.email, a.users.admin!.password);
    assert.equal(r.status, 200);
    assert.equal(r.body.message, 'Login successful');
    assert.equal(typeof r.body.refresh_token, 'string');
    assert.deepEqual(
      r.body.workspaces.map((w: any) => ({ id: w.workspaceId, name: w.name, status: w.status, role: w.role, userType: w.userType })),
      [{ id: a.workspaceId, name: r.body.workspaces[0].name, status: 'active', role: 'admin', userType: [['admin']] }],
    );
    const t = await app.request('GET', `/auth/authtoken?currentWorkspace=${a.workspaceId}`, { token: r.body.refresh_token });
    assert.equal(t.status, 200);
    assert.equal(t.body.status, 'success');
    const me = await app.request('GET', '/user', { token: t.body.data.access_token });
    assert.equal(me.status, 200);
    assert.equal(me.body.data.id, a.users.admin!.tenantUserId);
    assert.equal(me.body.data.role, 'admin');
  });

  it('rejects a wrong password with 401 in the auth error shape', async () => {
    const r = await login(a.users.admin!.email, 'wrong password!');
    assert.equal(r.status, 401);
    assert.deepEqual(r.body, { success: false, error: { code: 'INVALID_CREDENTIALS', message: 'Invalid email or password', details: [] } });
  });

  it('validates the login body (400 with details)', async () => {
    const r = await app.request('POST', '/auth/login', { body: { email: 'x@y.z' } });
    assert.equal(r.status, 400);
    assert.equal(r.body.success, false);
    assert.equal(r.body.error.code, 'VALIDATION_ERROR');
    assert.ok(r.body.error.details.some((d: string) => d.includes('password')));
  });

  it('switches workspace by calling authtoken again with another workspace', async () => {
    const owner = app.svc.db.owner;
    const g = await owner('users').whereRaw('lower(email)=lower(?)', [a.users.user!.email]).first();
    const tuB = await upsertMembership(owner, b.tenantId, g.id, 'guest');
    const r = await login(a.users.user!.email, a.users.user!.password);
    assert.equal(r.body.workspaces.length, 2);
    const ta = await app.request('GET', `/auth/authtoken?currentWorkspace=${a.workspaceId}`, { token: r.body.refresh_token });
    const tb = await app.request('GET', `/auth/authtoken?currentWorkspace=${b.workspaceId}`, { token: r.body.refresh_token });
    const meA = await app.request('GET', '/user', { token: ta.body.data.access_token });
    const meB = await app.request('GET', '/user', { token: tb.body.data.access_token });
    assert.equal(meA.body.data.id, a.users.user!.tenantUserId);
    assert.equal(meA.body.data.role, 'user');
    assert.equal(meB.body.data.id, tuB);
    assert.equal(meB.body.data.role, 'guest');
    await owner('tenant_users').where({ tenant_id: b.tenantId, id: tuB }).delete();
  });

  describe('invalid workspace cases', () => {
    it('absent → 400, unknown → 404, not a member → 403, inactive → 403', async () => {
      const refresh = a.users.owner!.refresh;
      const none = await app.request('GET', '/auth/authtoken', { token: refresh });
      assert.equal(none.status, 400);
      assert.equal(none.body.error.code, 'WORKSPACE_REQUIRED');
      const unknown = await app.request('GET', '/auth/authtoken?currentWorkspace=7d0f6f3c-5f0e-4c1b-9d59-2f8f0b7c1a11', { token: refresh });
      assert.equal(unknown.status, 404);
      assert.equal(unknown.body.error.code, 'WORKSPACE_NOT_FOUND');
      const notMember = await app.request('GET', `/auth/authtoken?currentWorkspace=${b.workspaceId}`, { token: refresh });
      assert.equal(notMember.status, 403);
      assert.equal(notMember.body.error.code, 'NOT_A_MEMBER');
      const t = await createTenant(app.svc.db.owner, { name: 'Dormant' });
      const g = await app.svc.db.owner('users').whereRaw('lower(email)=lower(?)', [a.users.owner!.email]).first();
      await upsertMembership(app.svc.db.owner, t.id, g.id, 'owner');
      await app.svc.db.owner('tenants').where({ id: t.id }).update({ status: 'inactive' });
      const inactive = await app.request('GET', `/auth/authtoken?currentWorkspace=${t.uuid}`, { token: refresh });
      assert.equal(inactive.status, 403);
      assert.equal(inactive.body.error.code, 'WORKSPACE_INACTIVE');
    });

    it('an access token to a workspace made inactive stops working', async () => {
      const t = await createTenant(app.svc.db.owner, { name: 'Soon dormant' });
      const g = await app.svc.db.owner('users').whereRaw('lower(email)=lower(?)', [a.users.owner!.email]).first();
      await upsertMembership(app.svc.db.owner, t.id, g.id, 'owner');
      const tok = await app.request('GET', `/auth/authtoken?currentWorkspace=${t.id}`, { token: a.users.owner!.refresh });
      assert.equal(tok.status, 200);
      assert.equal((await app.request('GET', '/user', { token: tok.body.data.access_token })).status, 200);
      await app.svc.db.owner('tenants').where({ id: t.id }).update({ status: 'inactive' });
      const after = await app.request('GET', '/user', { token: tok.body.data.access_token });
      assert.equal(after.status, 403);
    });

    it('a custom domain resolves the workspace without currentWorkspace', async () => {
      await activateCustomDomain(app, a.tenantId, 'royalties.alpha.test');
      const r = await app.request('GET', '/auth/authtoken', { token: a.users.guest!.refresh, headers: { 'x-forwarded-host': 'royalties.alpha.test' } });
      assert.equal(r.status, 200);
      const me = await app.request('GET', '/user', { token: r.body.data.access_token });
      assert.equal(me.body.data.id, a.users.guest!.tenantUserId);
    });
  });

  describe('expiry with a moved clock', () => {
    it('access token: valid before 6 h, then 401 {error:{status, message:"JWT token expired"}}', async () => {
      const { token, refresh } = a.users.user!;
      clock.advance(6 * 3600_000 - 60_000);
      assert.equal((await app.request('GET', '/user', { token })).status, 200);
      clock.advance(120_000);
      const r = await app.request('GET', '/user', { token });
      assert.equal(r.status, 401);
      assert.deepEqual(r.body, { error: { status: 401, message: 'JWT token expired' } });
      // the refresh token (1 day) still gets a new one
      const again = await app.request('GET', `/auth/authtoken?currentWorkspace=${a.workspaceId}`, { token: refresh });
      assert.equal(again.status, 200);
      assert.equal((await app.request('GET', '/user', { token: again.body.data.access_token })).status, 200);
    });

    it('refresh token: 401 after 1 day', async () => {
      const r = await login(a.users.guest!.email, a.users.guest!.password);
      clock.advance(24 * 3600_000 + 1000);
      const t = await app.request('GET', `/auth/authtoken?currentWorkspace=${a.workspaceId}`, { token: r.body.refresh_token });
      assert.equal(t.status, 401);
    });
  });

  it('a refresh token that is not stored server-side gets 401', async () => {
    const r = await login(a.users.guest!.email, a.users.guest!.password);
    // Same signature key, same claims shape, but no session row behind it.
    const forged = await app.svc.signer.signRefresh({ sub: r.body.workspaces.length ? (await app.svc.db.owner('users').whereRaw('lower(email)=lower(?)', [a.users.guest!.email]).first()).id : '', sid: '5f8f5d0e-1111-4222-8333-944455556666' });
    const t = await app.request('GET', `/auth/authtoken?currentWorkspace=${a.workspaceId}`, { token: forged });
    assert.equal(t.status, 401);
    assert.equal(t.body.error.code, 'SESSION_NOT_FOUND');
  });

  it('an access token cannot be used as a refresh token and vice versa', async () => {
    const r1 = await app.request('GET', `/auth/authtoken?currentWorkspace=${a.workspaceId}`, { token: a.users.guest!.token });
    assert.equal(r1.status, 401);
    const r2 = await app.request('GET', '/user', { token: a.users.guest!.refresh });
    assert.equal(r2.status, 401);
  });

  it('logout removes the stored refresh token and ends its access tokens', async () => {
    const r = await login(a.users.user!.email, a.users.user!.password);
    const t = await app.request('GET', `/auth/authtoken?currentWorkspace=${a.workspaceId}`, { token: r.body.refresh_token });
    const access = t.body.data.access_token;
    assert.equal((await app.request('POST', '/auth/logout', { token: access })).status, 200);
    assert.equal((await app.request('GET', '/user', { token: access })).status, 401);
    const again = await app.request('GET', `/auth/authtoken?currentWorkspace=${a.workspaceId}`, { token: r.body.refresh_token });
    assert.equal(again.status, 401);
    // other sessions of the same user live on
    assert.equal((await app.request('GET', '/user', { token: a.users.user!.token })).status, 200);
  });

  it('rejects garbage, missing and malformed bearer tokens with 401', async () => {
    assert.equal((await app.request('GET', '/user')).status, 401);
    assert.equal((await app.request('GET', '/user', { token: 'nonsense' })).status, 401);
    assert.equal((await app.request('GET', '/user', { token: 'a.b.c' })).status, 401);
    assert.equal((await app.request('GET', '/user', { token: 'RWAK_doesnotexist_xxxx' })).status, 401);
  });

  describe('API keys', () => {
    it('RWAK acts for its workspace with admin rights; revoked → 401', async () => {
      const k = await app.svc.auth.createApiKey('workspace', { tenantId: a.tenantId });
      assert.match(k.token, /^RWAK_/);
      const list = await app.request('GET', '/user/', { token: k.token });
      assert.equal(list.status, 200);
      assert.ok(list.body.data.every((u: any) => Object.values(a.users).some((x) => x.tenantUserId === u.id)));
      const stored = await app.svc.db.owner('api_keys').where({ id: k.id }).first();
      assert.ok(!JSON.stringify(stored).includes(k.token.slice(18)), 'only a hash of the secret is stored');
      await app.svc.auth.revokeApiKey(k.id);
      assert.equal((await app.request('GET', '/user/', { token: k.token })).status, 401);
    });

    it('RUAK acts as its user with that user’s role', async () => {
      const k = await app.svc.auth.createApiKey('user', { tenantId: a.tenantId, tenantUserId: a.users.guest!.tenantUserId });
      const me = await app.request('GET', '/user', { token: k.token });
      assert.equal(me.body.data.id, a.users.guest!.tenantUserId);
      assert.equal((await app.request('GET', '/user/', { token: k.token })).status, 403);
    });

    it('a key with a wrong secret is refused', async () => {
      const k = await app.svc.auth.createApiKey('user', { tenantId: a.tenantId, tenantUserId: a.users.user!.tenantUserId });
      const tampered = k.token.slice(0, -3) + (k.token.endsWith('aaa') ? 'bbb' : 'aaa');
      assert.equal((await app.request('GET', '/user', { token: tampered })).status, 401);
    });

    it('GODK is super-admin; with X-Workspace-Id it reaches any workspace', async () => {
      const k = await app.svc.auth.createApiKey('god', {});
      assert.match(k.token, /^GODK_/);
      const who = await app.request('GET', '/auth', { token: k.token });
      assert.equal(who.body.data.isSuperAdmin, true);
      const inB = await app.request('GET', '/user/', { token: k.token, headers: { 'x-workspace-id': b.workspaceId } });
      assert.equal(inB.status, 200);
      assert.deepEqual(inB.body.data.map((u: any) => u.id), [b.users.owner!.tenantUserId]);
      assert.equal((await app.request('GET', '/user/', { token: k.token })).status, 403, 'no workspace chosen');
    });
  });

  it('rate-limits login: 20 per 3 minutes per IP, then 429', async () => {
    const ip = '203.0.113.77';
    for (let i = 0; i < 20; i++) {
      const r = await login(`nobody${i}@example.com`, 'whatever-pass', ip);
      assert.equal(r.status, 401, `attempt ${i + 1}`);
    }
    const blocked = await login(a.users.owner!.email, a.users.owner!.password, ip);
    assert.equal(blocked.status, 429);
    assert.equal(blocked.body.success, false);
    assert.equal(blocked.body.error.code, 'RATE_LIMITED');
    // another IP is unaffected
    assert.equal((await login(a.users.owner!.email, a.users.owner!.password, '203.0.113.78')).status, 200);
    clock.advance(181_000);
    assert.equal((await login(a.users.owner!.email, a.users.owner!.password, ip)).status, 200);
  });

  describe('password reset, invitation and sign-in link by e-mail', () => {
    it('forgot → token and code by mail only → reset → old sessions end', async () => {
      const email = a.users.user!.email;
      const f = await app.request('POST', '/auth/forgotpassword', { body: { email, redirect_url: `${app.cfg.publicUrl}/reset` } });
      assert.equal(f.status, 200);
      assert.deepEqual(f.body, { success: true, message: 'If the address is registered, a reset link and verification code have been sent' });
      const mail = (await mailsTo(app.dataDir, email)).at(-1)!;
      const code = /verification code is (\w+)/.exec(mail)![1]!;
      const token = /[?&]token=([\w.-]+)/.exec(mail)![1]!;
      assert.ok(mail.includes(`${app.cfg.publicUrl}/reset?token=`));
      const wrong = await app.request('PATCH', '/auth/resetpassword?code=WRONG123', { token, body: { email, new_password: 'brand new password' } });
      assert.equal(wrong.status, 400);
      const ok = await app.request('PATCH', `/auth/resetpassword?code=${code}`, { token, body: { email, new_password: 'brand new password' } });
      assert.equal(ok.status, 200);
      assert.equal((await app.request('GET', '/user', { token: a.users.user!.token })).status, 401, 'sessions revoked');
      assert.equal((await login(email, a.users.user!.password)).status, 401);
      assert.equal((await login(email, 'brand new password')).status, 200);
      const reuse = await app.request('PATCH', `/auth/resetpassword?code=${code}`, { token, body: { email, new_password: 'another password' } });
      assert.equal(reuse.status, 401, 'one use only');
      a.users.user!.password = 'brand new password';
      const s = await login(email, 'brand new password');
      const t = await app.request('GET', `/auth/authtoken?currentWorkspace=${a.workspaceId}`, { token: s.body.refresh_token });
      a.users.user!.token = t.body.data.access_token;
    });

    it('forgot for an unknown address answers the same and sends nothing', async () => {
      const f = await app.request('POST', '/auth/forgotpassword', { body: { email: 'ghost@nowhere.test' } });
      assert.equal(f.status, 200);
      const known = await app.request('POST', '/auth/forgotpassword', { body: { email: a.users.guest!.email } });
      assert.deepEqual(f.body, known.body);
      assert.equal((await mailsTo(app.dataDir, 'ghost@nowhere.test')).length, 0);
    });

    it('invite → setpassword → login; only admins invite', async () => {
      const denied = await app.request('POST', '/auth/invite', { token: a.users.user!.token, body: { email: 'new.hire@alpha.test', role: 'user' } });
      assert.equal(denied.status, 403);
      const inv = await app.request('POST', '/auth/invite', { token: a.users.admin!.token, body: { email: 'new.hire@alpha.test', role: 'user', firstName: 'New' } });
      assert.equal(inv.status, 201);
      assert.equal(inv.body.data.status, 'invited');
      const mail = (await mailsTo(app.dataDir, 'new.hire@alpha.test')).at(-1)!;
      const token = /token=([\w.-]+)/.exec(mail)![1]!;
      const set = await app.request('POST', '/auth/setpassword', { token, body: { password: 'my first password' } });
      assert.equal(set.status, 200);
      const l = await login('new.hire@alpha.test', 'my first password');
      assert.equal(l.status, 200);
      assert.equal(l.body.workspaces[0].workspaceId, a.workspaceId);
      const again = await app.request('POST', '/auth/setpassword', { token, body: { password: 'second try pass' } });
      assert.equal(again.status, 401);
    });

    it('login link: e-mailed, works once, GET /auth/?token= signs in', async () => {
      const email = a.users.guest!.email;
      assert.equal((await app.request('POST', '/auth/loginlink', { body: { email } })).status, 200);
      const mail = (await mailsTo(app.dataDir, email)).at(-1)!;
      const token = /token=([\w.-]+)/.exec(mail)![1]!;
      const r = await app.request('GET', `/auth/?token=${token}`);
      assert.equal(r.status, 200);
      assert.equal(typeof r.body.refresh_token, 'string');
      assert.equal(r.body.workspaces[0].workspaceId, a.workspaceId);
      assert.equal((await app.request('GET', `/auth/?token=${token}`)).status, 401);
    });
  });

  it('GET /auth/ with a bearer token says who you are', async () => {
    const r = await app.request('GET', '/auth/', { token: a.users.admin!.token });
    assert.equal(r.status, 200);
    assert.equal(r.body.data.tenantUserId, a.users.admin!.tenantUserId);
    assert.equal(r.body.data.role, 'admin');
  });

  it('stores passwords with argon2, never in clear', async () => {
    const g = await ensureGlobalUser(app.svc.db.owner, { email: 'hash.check@alpha.test', passwordHash: await app.svc.auth.hashPassword('s3cret-pass') });
    const row = await app.svc.db.owner('users').where({ id: g.id }).first();
    assert.match(row.password_hash, /^\$argon2id\$/);
  });
});
