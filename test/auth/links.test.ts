import assert from 'node:assert/strict';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { mailsTo } from '../helpers/mail';
import { parseOrigin } from '../../src/modules/auth/origins';

/** Issue class: links in e-mails go only where the workspace said; one-time tokens hold. */
describe('e-mailed links and one-time tokens', () => {
  let app: TestApp;
  let a: TestTenant;
  let b: TestTenant;
  let ipSeq = 0;
  const ip = () => `198.19.${Math.floor(++ipSeq / 250)}.${ipSeq % 250}`;
  before(async () => {
    app = await startTestApp({ config: { publicUrl: 'https://rondo.example' } });
    a = await createTestTenant(app, 'LinksA');
    b = await createTestTenant(app, 'LinksB');
    const reg = await app.request('PUT', '/settings/redirect-origins', { token: a.users.admin!.token, body: { origins: ['https://app.linksa.example', 'https://portal.linksa.example:8443/'] } });
    assert.equal(reg.status, 200, JSON.stringify(reg.body));
    assert.deepEqual(reg.body.data.origins, ['https://app.linksa.example', 'https://portal.linksa.example:8443']);
  });
  after(async () => app.close());

  const lastMail = async (to: string) => (await mailsTo(app.dataDir, to)).at(-1) ?? '';
  const post = (path: string, body: unknown) => app.request('POST', path, { body, ip: ip() });

  describe('registering origins', () => {
    it('admins only; exact https origins; each bad entry named', async () => {
      for (const role of ['user', 'guest']) assert.equal((await app.request('PUT', '/settings/redirect-origins', { token: a.users[role]!.token, body: { origins: [] } })).status, 403);
      const bad = ['https://app.linksa.example/path', 'http://app.linksa.example', 'ftp://app.linksa.example', 'https://user:pw@app.linksa.example', 'app.linksa.example', 'https://app.linksa.example?x=1'];
      for (const origin of bad) {
        const r = await app.request('PUT', '/settings/redirect-origins', { token: a.users.admin!.token, body: { origins: ['https://ok.linksa.example', origin] } });
        assert.equal(r.status, 400, origin);
        assert.ok(r.body.error.details.some((d: string) => d.startsWith('body.origins[1]')), JSON.stringify(r.body));
      }
      const get = await app.request('GET', '/settings/redirect-origins', { token: a.users.admin!.token });
      assert.deepEqual(get.body.data.origins, ['https://app.linksa.example', 'https://portal.linksa.example:8443'], 'a refused PUT changes nothing');
    });

    it('plain http only where the configuration allows it (development)', () => {
      assert.throws(() => parseOrigin('http://localhost:5173', false, 'o'), (e: any) => e.details[0] === 'o must use https');
      assert.equal(parseOrigin('http://localhost:5173', true, 'o'), 'http://localhost:5173');
      assert.throws(() => parseOrigin('javascript:alert(1)', true, 'o'));
    });
  });

  describe('redirect_url', () => {
    const refused = [
      'https://evil.example/steal',
      'https://app.linksa.example.evil.example/',
      'https://evil.example@app.linksa.example/', // userinfo
      '//evil.example/x',
      'javascript:alert(1)',
      'http://app.linksa.example/', // registered as https only
      'https://rondo.example.evil.example/',
      'https://',
      'data:text/html,hello',
    ];

    it('an unregistered target is refused with 400 on every link route, for known and unknown addresses alike', async () => {
      for (const redirect_url of refused) {
        for (const email of [a.users.user!.email, 'nobody@nowhere.example']) {
          for (const path of ['/auth/loginlink', '/auth/forgotpassword']) {
            const r = await post(path, { email, redirect_url });
            assert.equal(r.status, 400, `${path} ${redirect_url}`);
            assert.equal(r.body.error.code, 'REDIRECT_NOT_ALLOWED');
            assert.ok(r.body.error.details[0].startsWith('body.redirect_url'));
          }
        }
        const inv = await app.request('POST', '/auth/invite', { token: a.users.admin!.token, body: { email: 'invitee@linksa.example', redirect_url } });
        assert.equal(inv.status, 400, `invite ${redirect_url}`);
      }
      assert.equal((await mailsTo(app.dataDir, a.users.user!.email)).length, 0, 'nothing was sent');
      assert.equal((await mailsTo(app.dataDir, 'invitee@linksa.example')).length, 0);
      assert.equal((await app.svc.db.owner('users').where({ email: 'invitee@linksa.example' })).length, 0, 'a refused invitation creates nobody');
    });

    it("Rondo's own URL (also as a path) and the recipient's workspace's origins are used", async () => {
      const email = a.users.guest!.email;
      assert.equal((await post('/auth/loginlink', { email, redirect_url: '/app/signin' })).status, 200);
      assert.match(await lastMail(email), /Sign in: https:\/\/rondo\.example\/app\/signin\?token=/);
      assert.equal((await post('/auth/loginlink', { email, redirect_url: 'https://rondo.example/welcome' })).status, 200);
      assert.match(await lastMail(email), /Sign in: https:\/\/rondo\.example\/welcome\?token=/);
      assert.equal((await post('/auth/loginlink', { email, redirect_url: 'https://app.linksa.example/in' })).status, 200);
      assert.match(await lastMail(email), /Sign in: https:\/\/app\.linksa\.example\/in\?token=/);
      assert.equal((await post('/auth/forgotpassword', { email, redirect_url: 'https://portal.linksa.example:8443/reset' })).status, 200);
      assert.match(await lastMail(email), /choose a new one:\n\nhttps:\/\/portal\.linksa\.example:8443\/reset\?token=/);
    });

    it("another workspace's origin: invitations refused; for a non-member the link falls back to Rondo's own URL", async () => {
      const inv = await app.request('POST', '/auth/invite', { token: b.users.admin!.token, body: { email: 'someone@linksb.example', redirect_url: 'https://app.linksa.example/join' } });
      assert.equal(inv.status, 400);
      const email = b.users.user!.email;
      const r = await post('/auth/loginlink', { email, redirect_url: 'https://app.linksa.example/in' });
      assert.equal(r.status, 200, 'the answer does not tell whether the address is known');
      const mail = await lastMail(email);
      assert.match(mail, /Sign in: https:\/\/rondo\.example\/app\/login-link\?token=/);
      assert.ok(!mail.includes('linksa'));
    });

    it('an invitation uses the origin its workspace registered', async () => {
      const inv = await app.request('POST', '/auth/invite', { token: a.users.admin!.token, body: { email: 'joiner@linksa.example', redirect_url: 'https://app.linksa.example/join' } });
      assert.equal(inv.status, 201);
      assert.match(await lastMail('joiner@linksa.example'), /https:\/\/app\.linksa\.example\/join\?token=/);
    });

    it('an invited (not yet active) member is not a recipient an origin may reach', async () => {
      const email = 'pending@linksb.example';
      assert.equal((await app.request('POST', '/auth/invite', { token: b.users.admin!.token, body: { email } })).status, 201);
      assert.equal((await app.request('POST', '/auth/invite', { token: a.users.admin!.token, body: { email } })).status, 201);
      await post('/auth/loginlink', { email, redirect_url: 'https://app.linksa.example/in' });
      assert.match(await lastMail(email), /Sign in: https:\/\/rondo\.example\/app\/login-link\?token=/);
    });
  });

  describe('password reset', () => {
    async function forgot(email: string) {
      const r = await post('/auth/forgotpassword', { email });
      assert.equal(r.status, 200);
      assert.equal(r.body.data, undefined, 'no token in the answer');
      const mail = await lastMail(email);
      return { token: /[?&]token=([\w.-]+)/.exec(mail)![1]!, code: /verification code is (\w+)/.exec(mail)![1]! };
    }
    const reset = (token: string, code: string, email: string, new_password: string) =>
      app.request('PATCH', `/auth/resetpassword?code=${encodeURIComponent(code)}`, { token, body: { email, new_password }, ip: ip() });

    it('five wrong codes, then the token is dead even with the right code', async () => {
      const email = b.users.guest!.email;
      const { token, code } = await forgot(email);
      for (let i = 1; i <= 5; i++) {
        const r = await reset(token, `WRONG00${i}`, email, 'not this one!');
        assert.equal(r.status, 400, `try ${i}`);
        assert.equal(r.body.error.code, 'INVALID_CODE');
      }
      const right = await reset(token, code, email, 'not this one!');
      assert.equal(right.status, 401);
      assert.equal(right.body.error.code, 'TOKEN_LOCKED');
      assert.equal((await app.request('POST', '/auth/login', { body: { email, password: 'not this one!' }, ip: ip() })).status, 401);
      assert.equal((await app.request('POST', '/auth/login', { body: { email, password: b.users.guest!.password }, ip: ip() })).status, 200);
    });

    it('four wrong codes, then the right one still works; a wrong e-mail does not burn the token', async () => {
      const email = b.users.admin!.email;
      const { token, code } = await forgot(email);
      for (let i = 1; i <= 4; i++) assert.equal((await reset(token, `BAD${i}`, email, 'new admin password')).status, 400);
      const mismatch = await reset(token, code, b.users.user!.email, 'new admin password');
      assert.equal(mismatch.status, 400);
      assert.equal(mismatch.body.error.code, 'EMAIL_MISMATCH');
      assert.equal((await reset(token, code, email, 'new admin password')).status, 200);
      b.users.admin!.password = 'new admin password';
    });

    it('a reset ends every session, refresh tokens included, and kills the sign-in links still out', async () => {
      const email = a.users.owner!.email;
      const l = await app.request('POST', '/auth/login', { body: { email, password: a.users.owner!.password }, ip: ip() });
      const refresh = l.body.refresh_token;
      await post('/auth/loginlink', { email });
      const linkToken = /token=([\w.-]+)/.exec(await lastMail(email))![1]!;
      const { token, code } = await forgot(email);
      assert.equal((await reset(token, code, email, 'owner new password')).status, 200);
      assert.equal((await app.request('GET', `/auth/authtoken?currentWorkspace=${a.workspaceId}`, { token: refresh })).status, 401);
      assert.equal((await app.request('GET', '/user', { token: a.users.owner!.token })).status, 401);
      assert.equal((await app.request('GET', `/auth/?token=${linkToken}`)).status, 401);
      assert.equal((await reset(token, code, email, 'third password!')).status, 401, 'one use only');
    });

    it('tokens of one kind are refused as another kind', async () => {
      const email = a.users.user!.email;
      const { token: resetToken, code } = await forgot(email);
      await post('/auth/loginlink', { email });
      const linkToken = /token=([\w.-]+)/.exec(await lastMail(email))![1]!;
      assert.equal((await app.request('GET', `/auth/?token=${resetToken}`)).status, 401, 'reset token as sign-in link');
      assert.equal((await app.request('POST', '/auth/setpassword', { token: resetToken, body: { password: 'takeover pass' } })).status, 401, 'reset token as invitation');
      assert.equal((await reset(linkToken, code, email, 'takeover pass')).status, 401, 'sign-in link as reset token');
      assert.equal((await app.request('POST', '/auth/acceptinvite', { token: linkToken })).status, 401, 'sign-in link as invitation');
      assert.equal((await reset(a.users.user!.refresh, code, email, 'takeover pass')).status, 401, 'refresh token as reset token');
      assert.equal((await reset(a.users.user!.token, code, email, 'takeover pass')).status, 401, 'access token as reset token');
      assert.equal((await app.request('GET', `/auth/?token=${a.users.user!.refresh}`)).status, 401, 'refresh token as sign-in link');
      assert.equal((await app.request('GET', `/auth/authtoken?currentWorkspace=${a.workspaceId}`, { token: linkToken })).status, 401, 'sign-in link as refresh token');
      // both still do their own job
      assert.equal((await app.request('GET', `/auth/?token=${linkToken}`)).status, 200);
      assert.equal((await reset(resetToken, code, email, 'user new password')).status, 200);
    });
  });

  describe('limits per recipient and per account, whatever the address', () => {
    it('sign-in links and resets: five per recipient per window, known or not, however the address is spelled', async () => {
      for (const path of ['/auth/loginlink', '/auth/forgotpassword']) {
        for (const email of [a.users.admin!.email, `unknown.${path.length}@nowhere.example`]) {
          for (let i = 0; i < 5; i++) {
            const r = await post(path, { email: i % 2 ? email.toUpperCase() : email });
            assert.equal(r.status, 200, `${path} ${email} #${i + 1}`);
          }
          const over = await post(path, { email });
          assert.equal(over.status, 429, `${path} ${email}`);
          assert.equal(over.body.error.code, 'RATE_LIMITED');
        }
      }
    });

    it('sign-in: ten tries per account per window from any number of addresses', async () => {
      const email = b.users.user!.email;
      for (let i = 0; i < 10; i++) assert.equal((await app.request('POST', '/auth/login', { body: { email, password: `guess ${i}` }, ip: ip() })).status, 401);
      const blocked = await app.request('POST', '/auth/login', { body: { email, password: b.users.user!.password }, ip: ip() });
      assert.equal(blocked.status, 429);
      // other accounts are not affected
      assert.equal((await app.request('POST', '/auth/login', { body: { email: b.users.owner!.email, password: b.users.owner!.password }, ip: ip() })).status, 200);
    });

    it('sign-in: successes are not counted toward the account limit; failures still lock', async () => {
      const { email, password } = b.users.admin!;
      const from = ip();
      // more than the account limit (10), in a row, from one address (within its 20 requests)
      for (let i = 0; i < 15; i++) {
        const r = await app.request('POST', '/auth/login', { body: { email, password }, ip: from });
        assert.equal(r.status, 200, `sign-in ${i + 1}: ${r.text}`);
      }
      for (let i = 0; i < 10; i++) assert.equal((await app.request('POST', '/auth/login', { body: { email, password: `guess ${i}` }, ip: ip() })).status, 401);
      const blocked = await app.request('POST', '/auth/login', { body: { email, password }, ip: from });
      assert.equal(blocked.status, 429);
      assert.equal(blocked.body.error.code, 'RATE_LIMITED');
    });
  });
});
