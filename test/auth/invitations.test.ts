import assert from 'node:assert/strict';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { mailsTo } from '../helpers/mail';

/** Invitations sent again and cancelled; payees listed without an invitation (docs/auth.md). */
describe('invitations: send again, cancel; payees who do not sign in', () => {
  let app: TestApp;
  let a: TestTenant;
  let b: TestTenant;
  before(async () => {
    app = await startTestApp();
    a = await createTestTenant(app, 'Inviting');
    b = await createTestTenant(app, 'Elsewhere');
  });
  after(async () => app.close());

  const admin = () => a.users.admin!.token;
  const tokenIn = (mail: string) => /token=([\w.-]+)/.exec(mail)![1]!;
  const mails = (email: string) => mailsTo(app.dataDir, email);
  const invite = (email: string, extra: Record<string, unknown> = {}) => app.request('POST', '/user/', { token: admin(), body: { email, role: 'user', ...extra } });
  const accept = (token: string, password = 'a good password') => app.request('POST', '/auth/setpassword', { token, body: { password } });

  it('accepting answers with a session into the inviting workspace', async () => {
    assert.equal((await invite('first@inviting.test')).status, 201);
    const r = await accept(tokenIn((await mails('first@inviting.test')).at(-1)!));
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.workspaceId, a.workspaceId);
    assert.deepEqual(r.body.workspaces.map((w: any) => w.workspaceId), [a.workspaceId]);
    const access = await app.request('GET', `/auth/authtoken?currentWorkspace=${a.workspaceId}`, { token: r.body.refresh_token });
    assert.equal(access.status, 200);
  });

  it('sending again mails a new link and kills the old one; once accepted it is refused (400)', async () => {
    const made = await invite('again@inviting.test');
    const old = tokenIn((await mails('again@inviting.test')).at(-1)!);
    const again = await app.request('POST', `/user/${made.body.data.id}/invitation`, { token: admin() });
    assert.equal(again.status, 200, again.text);
    assert.equal(again.body.data.status, 'invited');
    const sent = await mails('again@inviting.test');
    assert.equal(sent.length, 2);
    const fresh = tokenIn(sent[1]!);
    assert.notEqual(fresh, old);
    const refused = await accept(old);
    assert.equal(refused.status, 401);
    assert.equal(refused.body.error.code, 'TOKEN_USED');
    assert.equal((await accept(fresh)).status, 200);
    const late = await app.request('POST', `/user/${made.body.data.id}/invitation`, { token: admin() });
    assert.equal(late.status, 400);
    assert.equal(late.body.error.code, 'NOT_AN_INVITATION');
    // another workspace's member is not found here; a payee cannot send invitations
    assert.equal((await app.request('POST', `/user/${b.users.user!.tenantUserId}/invitation`, { token: admin() })).status, 404);
    assert.equal((await app.request('POST', `/user/${made.body.data.id}/invitation`, { token: a.users.user!.token })).status, 403);
  });

  it('cancelling (removing the invited member) makes the link stop working', async () => {
    const made = await invite('cancel@inviting.test');
    const link = tokenIn((await mails('cancel@inviting.test')).at(-1)!);
    assert.equal((await app.request('DELETE', `/user/${made.body.data.id}`, { token: admin() })).status, 200);
    const r = await accept(link);
    assert.equal(r.status, 401);
    assert.equal(r.body.error.code, 'TOKEN_USED');
  });

  it('a payee listed without an invitation: no e-mail, no access, a payment setting; invited later on the same membership', async () => {
    const made = await invite('listed@inviting.test', { firstName: 'Lis', lastName: 'Ted', invite: false });
    assert.equal(made.status, 201, made.text);
    const id = made.body.data.id;
    assert.deepEqual([made.body.data.status, made.body.data.firstName], ['not_invited', 'Lis']);
    assert.deepEqual(await mails('listed@inviting.test'), []);
    const setting = await app.request('POST', '/payment-setting', { token: admin(), body: { user: id, method: 'paypal', details: { email: 'lis@paypal.example' } } });
    assert.equal(setting.status, 201, setting.text);
    // a redirect is for invitations only
    const bad = await invite('listed2@inviting.test', { invite: false, redirect_url: '/app/signin' });
    assert.equal(bad.status, 400);
    // its status is the workspace's to change only by inviting
    const patched = await app.request('PATCH', `/user/${id}`, { token: admin(), body: { status: 'active' } });
    assert.equal(patched.status, 400);
    assert.equal(patched.body.error.code, 'INVITATION_PENDING');

    const sent = await app.request('POST', `/user/${id}/invitation`, { token: admin() });
    assert.equal(sent.status, 200, sent.text);
    assert.equal(sent.body.data.status, 'invited');
    const r = await accept(tokenIn((await mails('listed@inviting.test')).at(-1)!));
    assert.equal(r.status, 200);
    assert.equal(r.body.workspaceId, a.workspaceId);
    const after = await app.request('GET', `/user/${id}`, { token: admin() });
    assert.deepEqual([after.body.data.id, after.body.data.status], [id, 'active']);
    const settings = (await app.request('GET', '/payment-setting', { token: admin() })).body.data.filter((s: any) => s.user === id);
    assert.equal(settings.length, 1);
  });

  it('a listed payee who has an account elsewhere gets no access to this workspace until invited', async () => {
    const elsewhere = b.users.user!;
    assert.equal((await invite(elsewhere.email, { invite: false })).status, 201);
    const access = await app.request('GET', `/auth/authtoken?currentWorkspace=${a.workspaceId}`, { token: elsewhere.refresh });
    assert.equal(access.status, 403);
    assert.equal(access.body.error.code, 'NOT_A_MEMBER');
  });
});
