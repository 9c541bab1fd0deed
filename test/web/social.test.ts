import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { startFakeOAuth, type FakeOAuth } from '../helpers/fake-oauth';
import { enforceCsp, ensureWebBuilt, findChromium, launch, screenshot, seriousViolations } from './browser';

describe('web app: social sign-in in headless Chromium', function () {
  this.timeout(120_000);
  let app: TestApp;
  let idp: FakeOAuth;
  let t: TestTenant;
  let browser: Browser;
  let consent: http.Server;
  /** What the fake consent screen answers: approve as the workspace's user, approve as a stranger, or deny. */
  let consentAnswer: 'approve' | 'stranger' | 'deny' = 'approve';

  before(async function () {
    const chromium = findChromium();
    if (!chromium) {
      console.log('    web social sign-in test skipped: no Chromium found (apt-get install chromium, or set CHROMIUM_PATH); CI installs it');
      this.skip();
    }
    ensureWebBuilt();
    idp = await startFakeOAuth();
    // the provider's consent screen: the person approves at once and goes back with a code
    consent = http.createServer((req, res) => {
      const u = new URL(req.url!, 'http://x');
      const redirectUri = u.searchParams.get('redirect_uri')!;
      const state = encodeURIComponent(u.searchParams.get('state')!);
      if (consentAnswer === 'deny') {
        res.writeHead(302, { location: `${redirectUri}?error=access_denied&state=${state}` });
        return res.end();
      }
      const who = consentAnswer === 'stranger' ? { sub: 'web-stranger', email: 'stranger@nowhere.test', email_verified: true } : { sub: 'web-social-1', email: t.users.user!.email, email_verified: true };
      const code = idp.issueCode(who, redirectUri);
      res.writeHead(302, { location: `${redirectUri}?code=${code}&state=${state}` });
      res.end();
    });
    await new Promise<void>((resolve) => consent.listen(0, '127.0.0.1', () => resolve()));
    const consentUrl = `http://127.0.0.1:${(consent.address() as AddressInfo).port}/authorize`;
    app = await startTestApp({
      config: {
        social: {
          social_a: { clientId: idp.clientId, clientSecret: idp.clientSecret, authorizeUrl: consentUrl, tokenUrl: `${idp.base}/token`, userinfoUrl: `${idp.base}/userinfo`, scope: 'openid email' },
        },
      },
    });
    // links and the OAuth callback are built from PUBLIC_URL: this app's own address (known once it listens)
    app.cfg.publicUrl = app.url;
    t = await createTestTenant(app, 'Social Web', ['owner', 'user']);
    browser = await launch(chromium!);
  });
  after(async () => {
    await browser?.close();
    await app?.close();
    await idp?.close();
    if (consent) await new Promise<void>((resolve) => consent.close(() => resolve()));
  });

  it('offers the configured provider and signs in through it with the refresh cookie', async () => {
    const ctx = await browser.newContext({ viewport: { width: 1024, height: 768 } });
    const blocked: string[] = [];
    await enforceCsp(ctx, blocked);
    const page = await ctx.newPage();
    await page.goto(`${app.url}/app/signin`);
    const button = page.getByRole('link', { name: 'Sign in with social a' });
    await button.waitFor();
    await screenshot(page, 'signin-social');
    assert.deepEqual(await seriousViolations(page), []);
    await button.click();
    await page.waitForURL(/\/app\/me$/);
    await page.locator('[data-testid=my-earnings]').waitFor();
    const cookies = await ctx.cookies(app.url);
    assert.equal(cookies.find((c) => c.name === 'rondo_refresh')?.httpOnly, true);
    assert.equal(await page.evaluate(() => (globalThis as any).localStorage.getItem('rondo.refresh')), null, 'no refresh token readable by scripts');
    assert.equal(await page.getByLabel('Workspace').inputValue(), t.workspaceId);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/app\/signin$/);
    assert.equal((await ctx.cookies(app.url)).find((c) => c.name === 'rondo_refresh'), undefined);
    assert.deepEqual(blocked, []);
    await ctx.close();
  });

  it('a failed social sign-in lands on the sign-in page with a clear message, not an API error', async () => {
    const ctx = await browser.newContext({ viewport: { width: 1024, height: 768 } });
    const blocked: string[] = [];
    await enforceCsp(ctx, blocked);
    const page = await ctx.newPage();
    try {
      for (const [answer, code, text] of [
        ['deny', 'SOCIAL_CANCELLED', 'Sign-in with social a was cancelled.'],
        ['stranger', 'SOCIAL_NO_ACCOUNT', 'No Rondo account uses this social a sign-in. Ask a workspace admin for an invitation, or sign in with your e-mail and password.'],
      ] as const) {
        consentAnswer = answer;
        await page.goto(`${app.url}/app/signin`);
        await page.getByRole('link', { name: 'Sign in with social a' }).click();
        await page.waitForURL((u) => u.pathname === '/app/signin' && u.searchParams.get('error') === code);
        assert.equal(await page.getByRole('alert').innerText(), text);
        // the sign-in form is still there to try again
        await page.locator('input[type=email]').waitFor();
        assert.deepEqual(await seriousViolations(page), [], answer);
        await screenshot(page, `signin-social-${answer}`);
      }
      assert.equal((await ctx.cookies(app.url)).find((c) => c.name === 'rondo_refresh'), undefined, 'no session');
      assert.deepEqual(blocked, []);
    } finally {
      consentAnswer = 'approve';
      await ctx.close();
    }
  });
});
