import assert from 'node:assert/strict';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { mailsTo } from '../helpers/mail';

/** Issue class: identities belong to their owner; a workspace manages memberships only. */
describe('identities belong to their owner', () => {
  let app: TestApp;
  let a: TestTenant; // the attacker's workspace (its admin is the attacker)
  let b: TestTenant; // the victim's workspace
  let n = 0;
  before(async () => {
    app = await startTestApp();
    a = await createTestTenant(app, 'Attacker');
    b = await createTestTenant(app, 'Victim');
  });
  after(async () => app.close());

  const fresh = () => `person${++n}.${Date.now()}@people.test`;
  const person = (email: string) => app.svc.db.owner('users').whereRaw('lower(email) = lower(?)', [email]).first();
  const login = (email: string, password: string) => app.request('POST', '/auth/login', { body: { email, password }, ip: `198.18.0.${n}` });
  const inviteToken = async (email: string) => /token=([\w.-]+)/.exec((await mailsTo(app.dataDir, email)).at(-1)!)![1]!;
  async function accessTo(email: string, password: string, workspaceId: string) {
    const l = await login(email, password);
    assert.equal(l.status, 200, JSON.stringify(l.body));
    return app.request('GET', `/auth/authtoken?currentWorkspace=${workspaceId}`, { token: l.body.refresh_token });
  }

  it('takeover 1: an admin cannot set the first password of someone another workspace invited', async () => {
    const victim = fresh();
    assert.equal((await app.request('POST', '/auth/invite', { token: b.users.admin!.token, body: { email: victim, role: 'admin' } })).status, 201);
    // every route of the attacker's workspace that adds a member, with a password chosen by the attacker
    const viaUser = await app.request('POST', '/user/', { token: a.users.admin!.token, body: { email: victim, role: 'user', password: 'attacker chosen' } });
    assert.equal(viaUser.status, 400);
    assert.equal(viaUser.body.error.code, 'PASSWORD_NOT_ALLOWED');
    assert.ok(viaUser.body.error.details.some((d: string) => d.includes('body.password')));
    // a bulk route reports a bad item in its errors and adds nobody for it (docs/errors.md, "Bulk routes")
    const viaBulk = await app.request('POST', '/user/bulk', { token: a.users.admin!.token, body: { users: [{ email: victim, role: 'user', password: 'attacker chosen' }] } });
    assert.equal(viaBulk.status, 200);
    assert.deepEqual(viaBulk.body.createdUsers, []);
    assert.equal(viaBulk.body.errors.length, 1);
    assert.match(viaBulk.body.errors[0], /^users\[0\] .*cannot choose a password/);
    const viaInvite = await app.request('POST', '/auth/invite', { token: a.users.owner!.token, body: { email: victim, role: 'user', password: 'attacker chosen' } });
    assert.equal(viaInvite.status, 400);
    assert.equal((await person(victim)).password_hash, null);
    assert.equal((await login(victim, 'attacker chosen')).status, 401);
  });

  it('an invitation from another workspace changes nothing of an existing person (password, names)', async () => {
    const email = fresh();
    const inv = await app.request('POST', '/auth/invite', { token: b.users.admin!.token, body: { email, role: 'user', firstName: 'Real', lastName: 'Name' } });
    assert.equal(inv.status, 201);
    const before = await person(email);
    const again = await app.request('POST', '/user/', { token: a.users.admin!.token, body: { email, role: 'user', firstName: 'Fake', lastName: 'Fake' } });
    assert.equal(again.status, 201);
    assert.equal(again.body.data.status, 'invited');
    const after = await person(email);
    assert.deepEqual([after.first_name, after.last_name, after.password_hash, after.email], [before.first_name, before.last_name, before.password_hash, before.email]);
  });

  it('takeover 2: a person with a password is not active in a workspace until they accept its e-mailed invitation', async () => {
    const email = fresh();
    await app.request('POST', '/auth/invite', { token: a.users.admin!.token, body: { email, role: 'user' } });
    assert.equal((await app.request('POST', '/auth/setpassword', { token: await inviteToken(email), body: { password: 'my own password' } })).status, 200);
    assert.equal((await accessTo(email, 'my own password', a.workspaceId)).status, 200);
    // workspace B invites the same person: invited, not active
    const inv = await app.request('POST', '/auth/invite', { token: b.users.admin!.token, body: { email, role: 'admin' } });
    assert.equal(inv.status, 201);
    assert.equal(inv.body.data.status, 'invited');
    const l = await login(email, 'my own password');
    assert.deepEqual(l.body.workspaces.map((w: any) => w.workspaceId), [a.workspaceId], 'a pending invitation is not a workspace yet');
    const early = await accessTo(email, 'my own password', b.workspaceId);
    assert.equal(early.status, 403);
    assert.equal(early.body.error.code, 'INVITATION_PENDING');
    // the mail says accept; setpassword with it cannot change the existing password
    const token = await inviteToken(email);
    const overwrite = await app.request('POST', '/auth/setpassword', { token, body: { password: 'someone else pw' } });
    assert.equal(overwrite.status, 400);
    assert.equal(overwrite.body.error.code, 'PASSWORD_ALREADY_SET');
    assert.equal((await login(email, 'someone else pw')).status, 401);
    // the recipient accepts through the link
    assert.equal((await app.request('POST', '/auth/acceptinvite', { token })).status, 200);
    const now = await accessTo(email, 'my own password', b.workspaceId);
    assert.equal(now.status, 200);
    const me = await app.request('GET', '/user', { token: now.body.data.access_token });
    assert.equal(me.body.data.role, 'admin');
    assert.equal((await app.request('POST', '/auth/acceptinvite', { token })).status, 401, 'one use only');
  });

  it('accepting one invitation activates only the workspace that sent it', async () => {
    const email = fresh();
    await app.request('POST', '/auth/invite', { token: a.users.admin!.token, body: { email, role: 'user' } });
    const tokenA = await inviteToken(email);
    await app.request('POST', '/auth/invite', { token: b.users.admin!.token, body: { email, role: 'user' } });
    const tokenB = await inviteToken(email);
    assert.equal((await app.request('POST', '/auth/setpassword', { token: tokenA, body: { password: 'first password' } })).status, 200);
    assert.equal((await accessTo(email, 'first password', a.workspaceId)).status, 200);
    assert.equal((await accessTo(email, 'first password', b.workspaceId)).status, 403);
    const noPw = await app.request('POST', '/auth/acceptinvite', { token: tokenA });
    assert.equal(noPw.status, 401, 'the used token of A is dead');
    assert.equal((await app.request('POST', '/auth/acceptinvite', { token: tokenB })).status, 200);
    assert.equal((await accessTo(email, 'first password', b.workspaceId)).status, 200);
  });

  it('acceptinvite needs a password first for a new person; the invite token is no other kind of token', async () => {
    const email = fresh();
    await app.request('POST', '/auth/invite', { token: a.users.admin!.token, body: { email, role: 'user' } });
    const token = await inviteToken(email);
    const r = await app.request('POST', '/auth/acceptinvite', { token });
    assert.equal(r.status, 400);
    assert.equal(r.body.error.code, 'PASSWORD_REQUIRED');
    assert.equal((await app.request('PATCH', '/auth/resetpassword?code=ABCDEFGH', { token, body: { email, new_password: 'whatever pass' } })).status, 401);
    assert.equal((await app.request('GET', `/auth/?token=${token}`)).status, 401);
    assert.equal((await app.request('GET', '/user', { token })).status, 401);
    // still good for its own purpose
    assert.equal((await app.request('POST', '/auth/setpassword', { token, body: { password: 'mine at last' } })).status, 200);
  });

  it('an admin, even an owner, cannot rename a member; the person can, and a super-admin can', async () => {
    const target = b.users.user!.tenantUserId;
    for (const role of ['admin', 'owner']) {
      const r = await app.request('PATCH', `/user/${target}`, { token: b.users[role]!.token, body: { firstName: 'Renamed' } });
      assert.equal(r.status, 403, role);
      assert.equal(r.body.error.code, 'PROFILE_OWNER_ONLY');
    }
    const self = await app.request('PATCH', `/user/${target}`, { token: b.users.user!.token, body: { lastName: 'Mine' } });
    assert.equal(self.status, 200);
    const god = await app.svc.auth.createApiKey('god', {});
    const sa = await app.request('PATCH', `/user/${target}`, { token: god.token, headers: { 'x-workspace-id': b.workspaceId }, body: { firstName: 'Support' } });
    assert.equal(sa.status, 200);
    assert.equal(sa.body.data.firstName, 'Support');
  });

  it('no membership route takes an e-mail, password or sign-in method', async () => {
    const target = b.users.user!.tenantUserId;
    const before = await person(b.users.user!.email);
    const tries: [string, string, unknown][] = [
      ['PATCH', `/user/${target}`, { email: 'taken@over.test' }],
      ['PATCH', `/user/${target}`, { password: 'new password!' }],
      ['PATCH', `/user/${target}`, { socialIds: { social_a: 'x' } }],
      ['PUT', `/user/${target}/aut`, { password: 'new password!' }],
      ['PUT', `/user/${target}/aut`, { email: 'taken@over.test' }],
    ];
    for (const [method, path, body] of tries) {
      const r = await app.request(method, path, { token: b.users.owner!.token, body });
      assert.equal(r.status, 400, `${method} ${path} ${JSON.stringify(body)}`);
    }
    const after = await person(b.users.user!.email);
    assert.deepEqual([after.email, after.password_hash, after.social_ids], [before.email, before.password_hash, before.social_ids]);
  });

  it('a workspace cannot accept an invitation for its recipient (no status change while invited)', async () => {
    const email = fresh();
    const inv = await app.request('POST', '/user/', { token: b.users.owner!.token, body: { email, role: 'user' } });
    assert.equal(inv.status, 201);
    for (const [method, path] of [['PATCH', `/user/${inv.body.data.id}`], ['PUT', `/user/${inv.body.data.id}/aut`]] as const) {
      for (const status of ['active', 'disabled']) {
        const r = await app.request(method, path, { token: b.users.owner!.token, body: { status } });
        assert.equal(r.status, 400, `${method} ${status}`);
        assert.equal(r.body.error.code, 'INVITATION_PENDING');
      }
    }
    assert.equal((await app.request('GET', `/user/${inv.body.data.id}`, { token: b.users.owner!.token })).body.data.status, 'invited');
    assert.equal((await app.request('DELETE', `/user/${inv.body.data.id}`, { token: b.users.owner!.token })).status, 200, 'withdrawn by removing it');
  });

  it('removing a member by e-mail removes the membership, never the person', async () => {
    const email = fresh();
    await app.request('POST', '/auth/invite', { token: b.users.admin!.token, body: { email, role: 'user' } });
    await app.request('POST', '/auth/setpassword', { token: await inviteToken(email), body: { password: 'stays mine' } });
    await app.request('POST', '/user/', { token: a.users.admin!.token, body: { email, role: 'user' } });
    assert.equal((await app.request('DELETE', '/user/remove/email', { token: a.users.admin!.token, body: { email } })).status, 200);
    assert.equal((await accessTo(email, 'stays mine', b.workspaceId)).status, 200);
  });
});
