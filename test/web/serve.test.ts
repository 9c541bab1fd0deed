import assert from 'node:assert/strict';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { mailsTo } from '../helpers/mail';
import { ensureWebBuilt } from './browser';

describe('web app: serving /app and the e-mailed links', () => {
  let app: TestApp;
  let t: TestTenant;
  before(async () => {
    ensureWebBuilt();
    app = await startTestApp();
    t = await createTestTenant(app, 'Serve Label', ['owner']);
  });
  after(async () => app.close());

  it('redirects / and /app to /app/', async () => {
    for (const p of ['/', '/app']) {
      const r = await app.request('GET', p, { redirect: 'manual' });
      assert.equal(r.status, 302, p);
      assert.equal(new URL(r.headers.get('location')!, app.url).pathname, '/app/');
    }
  });

  it("answers index.html for the app's routes and the hashed assets with long caching", async () => {
    for (const p of ['/app/', '/app/statements', '/app/reset-password']) {
      const r = await app.request('GET', p);
      assert.equal(r.status, 200, p);
      assert.match(r.headers.get('content-type')!, /^text\/html/);
      assert.equal(r.headers.get('cache-control'), 'no-cache');
      assert.match(r.text, /<div id="root"><\/div>/);
    }
    const index = (await app.request('GET', '/app/')).text;
    const js = /src="(\/app\/assets\/[^"]+\.js)"/.exec(index)![1];
    const r = await app.request('GET', js);
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type')!, /^text\/javascript/);
    assert.equal(r.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    const scripts = [...index.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
    assert.equal(scripts.length, 1);
    assert.ok(scripts.every((s) => /\bsrc="\/app\/assets\//.test(s)), `no inline script: ${scripts.join(' ')}`);
  });

  it('answers 404 for a missing asset and for paths that climb out of the build', async () => {
    for (const p of ['/app/assets/missing.js', '/app/%2e%2e/package.json', '/app/..%2f..%2fpackage.json', '/app/robots.txt']) {
      const r = await app.request('GET', p);
      assert.equal(r.status, 404, p);
      assert.doesNotMatch(r.text, /"name": "rondo"/);
    }
  });

  it('names the configured social providers for the sign-in page', async () => {
    const r = await app.request('GET', '/app/config.json');
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, { socialProviders: [] });
  });

  it("redirects earlier e-mails' page paths to the app with their query", async () => {
    const r = await app.request('GET', '/set-password?token=abc', { redirect: 'manual' });
    assert.equal(r.status, 302);
    const u = new URL(r.headers.get('location')!, app.url);
    assert.equal(u.pathname + u.search, '/app/set-password?token=abc');
  });

  it("e-mails links to the app's pages: invitation, reset, sign-in link", async () => {
    const owner = t.users.owner!;
    assert.equal((await app.request('POST', '/auth/invite', { token: owner.token, body: { email: 'new.person@serve.test', role: 'user' } })).status, 201);
    assert.equal((await app.request('POST', '/auth/forgotpassword', { body: { email: owner.email } })).status, 200);
    assert.equal((await app.request('POST', '/auth/loginlink', { body: { email: owner.email } })).status, 200);
    const links = [...(await mailsTo(app.dataDir, 'new.person@serve.test')), ...(await mailsTo(app.dataDir, owner.email))]
      .flatMap((m) => m.match(/https?:\/\/\S+/g) ?? [])
      .map((l) => new URL(l).pathname);
    assert.deepEqual(links.sort(), ['/app/login-link', '/app/reset-password', '/app/set-password']);
  });
});
