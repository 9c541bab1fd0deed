import assert from 'node:assert/strict';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { startFakeOAuth, type FakeOAuth } from '../helpers/fake-oauth';

describe('social login (OAuth 2.0 authorization code against a local fake provider)', () => {
  let app: TestApp;
  let idp: FakeOAuth;
  let a: TestTenant;
  const redirectUri = 'http://rondo.test/auth/social_a/callback';

  before(async () => {
    idp = await startFakeOAuth();
    app = await startTestApp({
      config: {
        publicUrl: 'http://rondo.test',
        social: {
          social_a: {
            clientId: idp.clientId,
            clientSecret: idp.clientSecret,
            authorizeUrl: `${idp.base}/authorize`,
            tokenUrl: `${idp.base}/token`,
            userinfoUrl: `${idp.base}/userinfo`,
            scope: 'openid email',
          },
        },
      },
    });
    a = await createTestTenant(app, 'Social');
  });
  after(async () => {
    await app.close();
    await idp.close();
  });

  /** Start at /auth/social_a, "consent" at the fake provider, come back with the code. */
  async function signInVia(profile: Record<string, unknown>) {
    const start = await app.request('GET', '/auth/social_a', { redirect: 'manual' });
    assert.equal(start.status, 302);
    const loc = new URL(start.headers.get('location')!);
    assert.equal(loc.origin + loc.pathname, `${idp.base}/authorize`);
    assert.equal(loc.searchParams.get('client_id'), idp.clientId);
    assert.equal(loc.searchParams.get('redirect_uri'), redirectUri);
    const state = loc.searchParams.get('state')!;
    const stateCookie = start.headers.getSetCookie().find((c) => c.startsWith('rondo_oauth_state='))!.split(';')[0]!;
    const code = idp.issueCode(profile, redirectUri);
    return app.request('GET', `/auth/social_a/callback?code=${code}&state=${encodeURIComponent(state)}`, { headers: { cookie: stateCookie }, redirect: 'manual' });
  }

  it('signs in a known person by verified e-mail, links the provider id, keeps the refresh token in a cookie', async () => {
    const r = await signInVia({ sub: 'idp-user-1', email: a.users.user!.email, email_verified: true });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.workspaces[0].workspaceId, a.workspaceId);
    const refreshCookie = r.headers.getSetCookie().find((c) => c.startsWith('rondo_refresh='))!;
    assert.match(refreshCookie, /httponly/i);
    // the cookie alone gets an access token
    const t = await app.request('GET', `/auth/authtoken?currentWorkspace=${a.workspaceId}`, { headers: { cookie: refreshCookie.split(';')[0]! } });
    assert.equal(t.status, 200);
    const me = await app.request('GET', '/user', { token: t.body.data.access_token });
    assert.equal(me.body.data.id, a.users.user!.tenantUserId);
    // next time the provider id alone finds them, whatever the e-mail says
    const again = await signInVia({ sub: 'idp-user-1', email: 'changed@elsewhere.test' });
    assert.equal(again.status, 200);
    const providers = await app.request('GET', '/auth/social/providers', { token: a.users.user!.token });
    assert.deepEqual(providers.body.data, { connected: ['social_a'], available: ['social_a'] });
  });

  it('refuses an unknown person, an unverified e-mail and a state from another browser', async () => {
    const unknown = await signInVia({ sub: 'idp-stranger', email: 'stranger@nowhere.test', email_verified: true });
    assert.equal(unknown.status, 401);
    assert.equal(unknown.body.error.code, 'SOCIAL_NO_ACCOUNT');
    const unverified = await signInVia({ sub: 'idp-user-2', email: a.users.guest!.email, email_verified: false });
    assert.equal(unverified.status, 401);
    const start = await app.request('GET', '/auth/social_a', { redirect: 'manual' });
    const state = new URL(start.headers.get('location')!).searchParams.get('state')!;
    const code = idp.issueCode({ sub: 'idp-user-1' }, redirectUri);
    const noCookie = await app.request('GET', `/auth/social_a/callback?code=${code}&state=${encodeURIComponent(state)}`);
    assert.equal(noCookie.status, 401);
    assert.equal(noCookie.body.error.code, 'SOCIAL_STATE_MISMATCH');
    // a browser (it asks for HTML) is sent to the sign-in page with the reason instead
    const browser = await app.request('GET', `/auth/social_a/callback?code=${code}&state=${encodeURIComponent(state)}`, {
      headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' }, redirect: 'manual',
    });
    assert.equal(browser.status, 302);
    assert.equal(browser.headers.get('location'), '/app/signin?error=SOCIAL_STATE_MISMATCH&provider=social_a');
  });

  it('a code the provider refuses fails the sign-in', async () => {
    const start = await app.request('GET', '/auth/social_a', { redirect: 'manual' });
    const state = new URL(start.headers.get('location')!).searchParams.get('state')!;
    const cookie = start.headers.getSetCookie()[0]!.split(';')[0]!;
    const r = await app.request('GET', `/auth/social_a/callback?code=forged&state=${encodeURIComponent(state)}`, { headers: { cookie } });
    assert.equal(r.status, 401);
    assert.equal(r.body.error.code, 'SOCIAL_CODE_REFUSED');
  });

  it('links and unlinks a provider for a signed-in user; an unconfigured provider is refused', async () => {
    const link = await app.request('POST', '/auth/social/social_a/link', { token: a.users.admin!.token });
    assert.equal(link.status, 200);
    const loc = new URL(link.body.data.url);
    const cookie = link.headers.getSetCookie()[0]!.split(';')[0]!;
    const code = idp.issueCode({ sub: 'idp-admin' }, redirectUri);
    const cb = await app.request('GET', `/auth/social_a/callback?code=${code}&state=${encodeURIComponent(loc.searchParams.get('state')!)}`, { headers: { cookie } });
    assert.equal(cb.status, 200);
    assert.deepEqual((await app.request('GET', '/auth/social/providers', { token: a.users.admin!.token })).body.data.connected, ['social_a']);
    const un = await app.request('DELETE', '/auth/social/social_a/unlink', { token: a.users.admin!.token });
    assert.equal(un.status, 200);
    assert.deepEqual((await app.request('GET', '/auth/social/providers', { token: a.users.admin!.token })).body.data.connected, []);
    assert.equal((await app.request('DELETE', '/auth/social/social_a/unlink', { token: a.users.admin!.token })).status, 400);
    const off = await app.request('GET', '/auth/social_b', { redirect: 'manual' });
    assert.equal(off.status, 400);
    assert.equal(off.body.error.code, 'PROVIDER_NOT_CONFIGURED');
  });

  it('returns only to Rondo itself or an origin of one of the person\'s workspaces', async () => {
    for (const target of ['https://evil.example/after', '//evil.example/x', 'javascript:alert(1)']) {
      const r = await app.request('GET', `/auth/social_a?redirect=${encodeURIComponent(target)}`, { redirect: 'manual' });
      assert.equal(r.status, 400, target);
      assert.equal(r.body.error.code, 'REDIRECT_NOT_ALLOWED');
      const link = await app.request('POST', `/auth/social/social_a/link?redirect=${encodeURIComponent(target)}`, { token: a.users.admin!.token });
      assert.equal(link.status, 400, target);
    }
    const own = await app.request('GET', `/auth/social_a?redirect=${encodeURIComponent('/dashboard')}`, { redirect: 'manual' });
    assert.equal(own.status, 302);
    const state = new URL(own.headers.get('location')!).searchParams.get('state')!;
    const cookie = own.headers.getSetCookie().find((c) => c.startsWith('rondo_oauth_state='))!.split(';')[0]!;
    const code = idp.issueCode({ sub: 'idp-user-1' }, redirectUri);
    const cb = await app.request('GET', `/auth/social_a/callback?code=${code}&state=${encodeURIComponent(state)}`, { headers: { cookie }, redirect: 'manual' });
    assert.equal(cb.status, 302);
    assert.equal(cb.headers.get('location'), 'http://rondo.test/dashboard');
  });
});
