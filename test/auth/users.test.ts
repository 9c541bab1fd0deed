import assert from 'node:assert/strict';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';

describe('users and roles', () => {
  let app: TestApp;
  let a: TestTenant;
  let b: TestTenant;
  before(async () => {
    app = await startTestApp();
    a = await createTestTenant(app, 'UsersA');
    b = await createTestTenant(app, 'UsersB');
  });
  after(async () => app.close());

  it('GET /user answers {status, message, data} with data.id = tenant user id', async () => {
    const r = await app.request('GET', '/user', { token: a.users.guest!.token });
    assert.equal(r.status, 200);
    assert.equal(r.body.status, 'success');
    assert.equal(r.body.data.id, a.users.guest!.tenantUserId);
    assert.equal(r.body.data.workspace.workspaceId, a.workspaceId);
  });

  it('role matrix on the user routes', async () => {
    const expect: Record<string, Record<string, number>> = {
      'GET /user/': { guest: 403, user: 200, admin: 200, owner: 200 },
      [`GET /user/${a.users.owner!.tenantUserId}`]: { guest: 403, user: 403, admin: 200, owner: 200 },
      'POST /user/': { guest: 403, user: 403, admin: 201, owner: 201 },
    };
    let n = 0;
    const refusals: unknown[] = [];
    for (const [route, byRole] of Object.entries(expect)) {
      const [method, path] = route.split(' ') as [string, string];
      for (const [role, status] of Object.entries(byRole)) {
        const body = method === 'POST' ? { email: `m${n++}@matrix.test`, role: 'guest' } : undefined;
        const r = await app.request(method, path, { token: a.users[role]!.token, body });
        assert.equal(r.status, status, `${route} as ${role}: ${JSON.stringify(r.body)}`);
        if (r.status === 403) refusals.push(Object.keys(r.body.error).sort());
      }
    }
    // every refusal has the catalogue error shape
    const expected403 = Object.values(expect).flatMap((byRole) => Object.values(byRole)).filter((s) => s === 403).length;
    assert.deepEqual(refusals, Array(expected403).fill(['code', 'details', 'message']));
  });

  it('guests see themselves only', async () => {
    assert.equal((await app.request('GET', `/user/${a.users.guest!.tenantUserId}`, { token: a.users.guest!.token })).status, 200);
  });

  it('role changes: admins and owners only; only owners touch owners; never the last owner', async () => {
    const target = a.users.user!.tenantUserId;
    assert.equal((await app.request('PATCH', `/user/${target}`, { token: a.users.user!.token, body: { role: 'admin' } })).status, 403);
    const up = await app.request('PATCH', `/user/${target}`, { token: a.users.admin!.token, body: { role: 'admin' } });
    assert.equal(up.status, 200);
    assert.equal(up.body.data.role, 'admin');
    const down = await app.request('PATCH', `/user/${target}`, { token: a.users.admin!.token, body: { role: 'user' } });
    assert.equal(down.body.data.role, 'user');
    assert.equal((await app.request('PATCH', `/user/${target}`, { token: a.users.admin!.token, body: { role: 'owner' } })).status, 403);
    assert.equal((await app.request('PATCH', `/user/${a.users.owner!.tenantUserId}`, { token: a.users.admin!.token, body: { role: 'admin' } })).status, 403);
    const last = await app.request('PATCH', `/user/${a.users.owner!.tenantUserId}`, { token: a.users.owner!.token, body: { role: 'admin' } });
    assert.equal(last.status, 400);
    assert.equal(last.body.error.code, 'LAST_OWNER');
    // a user may rename themselves but not change their own role
    const self = await app.request('PATCH', `/user/${target}`, { token: a.users.user!.token, body: { firstName: 'Una' } });
    assert.equal(self.status, 200);
    assert.equal(self.body.data.firstName, 'Una');
    assert.equal((await app.request('PATCH', `/user/${a.users.admin!.tenantUserId}`, { token: a.users.user!.token, body: { firstName: 'X' } })).status, 403);
  });

  it('a role change applies to tokens already issued', async () => {
    const t = a.users.guest!;
    assert.equal((await app.request('GET', '/user/', { token: t.token })).status, 403);
    await app.request('PATCH', `/user/${t.tenantUserId}`, { token: a.users.owner!.token, body: { role: 'user' } });
    assert.equal((await app.request('GET', '/user/', { token: t.token })).status, 200);
    await app.request('PATCH', `/user/${t.tenantUserId}`, { token: a.users.owner!.token, body: { role: 'guest' } });
  });

  it('lists page and search', async () => {
    const r = await app.request('GET', '/user/?size=2&page=1', { token: a.users.admin!.token });
    assert.equal(r.body.data.length, 2);
    assert.ok(r.body.pagination.total >= 4);
    const s = await app.request('GET', `/user/?search=${encodeURIComponent(a.users.guest!.email)}`, { token: a.users.admin!.token });
    assert.deepEqual(s.body.data.map((u: any) => u.id), [a.users.guest!.tenantUserId]);
    assert.equal((await app.request('GET', '/user/?size=100000', { token: a.users.admin!.token })).status, 400);
  });

  it('adding an existing member again is refused with 400', async () => {
    const r = await app.request('POST', '/user/', { token: a.users.admin!.token, body: { email: a.users.guest!.email, role: 'user' } });
    assert.equal(r.status, 400);
    assert.equal(r.body.error.code, 'ALREADY_MEMBER');
  });

  describe('cross-tenant access returns no data', () => {
    it('reads, updates and deletes of another tenant’s user → 404, nothing changed', async () => {
      const victim = b.users.user!.tenantUserId;
      const tok = a.users.owner!.token;
      const get = await app.request('GET', `/user/${victim}`, { token: tok });
      assert.equal(get.status, 404);
      assert.ok(!JSON.stringify(get.body).includes(b.users.user!.email));
      assert.equal((await app.request('PATCH', `/user/${victim}`, { token: tok, body: { role: 'guest' } })).status, 404);
      assert.equal((await app.request('DELETE', `/user/${victim}`, { token: tok })).status, 404);
      const list = await app.request('GET', '/user/?size=200', { token: tok });
      assert.ok(list.body.data.every((u: any) => !Object.values(b.users).some((x) => x.tenantUserId === u.id)));
      const still = await app.request('GET', `/user/${victim}`, { token: b.users.owner!.token });
      assert.equal(still.status, 200);
      assert.equal(still.body.data.role, 'user');
    });
  });

  it('DELETE removes the membership (admin), and the removed user’s token stops working', async () => {
    const add = await app.request('POST', '/user/', { token: a.users.admin!.token, body: { email: 'leaver@usersa.test', role: 'user' } });
    assert.equal(add.status, 201);
    assert.equal((await app.request('DELETE', `/user/${add.body.data.id}`, { token: a.users.user!.token })).status, 403);
    assert.equal((await app.request('DELETE', `/user/${add.body.data.id}`, { token: a.users.admin!.token })).status, 200);
    assert.equal((await app.request('GET', `/user/${add.body.data.id}`, { token: a.users.admin!.token })).status, 404);
  });
});

describe('users: bulk, remove by e-mail, authorisation', () => {
  let app: TestApp;
  let a: TestTenant;
  let b: TestTenant;
  before(async () => {
    app = await startTestApp();
    a = await createTestTenant(app, 'BulkA');
    b = await createTestTenant(app, 'BulkB');
  });
  after(async () => app.close());

  it('POST /user/bulk adds the good items and reports the bad ones', async () => {
    const r = await app.request('POST', '/user/bulk', {
      token: a.users.admin!.token,
      body: { users: [ { email: 'one@bulk.test', role: 'user' }, { email: a.users.guest!.email, role: 'user' }, { email: 'boss@bulk.test', role: 'owner' }, { email: 'two@bulk.test', role: 'guest' }, { email: 'nul@bulk.test', role: 'user', firstName: 'a\u0000b' }, { email: 'not-an-address', role: 'user' } ] },
    });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.createdUsers, ['one@bulk.test', 'two@bulk.test']);
    assert.equal(r.body.errors.length, 4);
    assert.match(r.body.errors[0], /already a member/);
    assert.match(r.body.errors[1], /only an owner/);
    assert.equal(r.body.errors[2], 'users[4].firstName must not contain NUL characters');
    assert.equal(r.body.errors[3], 'users[5].email must match format "email"');
    assert.equal((await app.request('POST', '/user/bulk', { token: a.users.user!.token, body: { users: [{ email: 'x@bulk.test', role: 'user' }] } })).status, 403);
  });

  it('POST /user/bulk/delete removes what it may and reports the rest (other tenant = not found)', async () => {
    const list = await app.request('GET', '/user/?search=bulk.test', { token: a.users.admin!.token });
    const ids = list.body.data.map((u: any) => u.id);
    const r = await app.request('POST', '/user/bulk/delete', { token: a.users.admin!.token, body: { ids: [...ids, b.users.user!.tenantUserId, a.users.owner!.tenantUserId] } });
    assert.equal(r.body.processedCount, ids.length);
    assert.deepEqual(r.body.failedDeletions.map((f: any) => f.id), [b.users.user!.tenantUserId, a.users.owner!.tenantUserId]);
    assert.equal((await app.request('GET', `/user/${b.users.user!.tenantUserId}`, { token: b.users.owner!.token })).status, 200);
  });

  it('DELETE /user/remove/email and PUT /user/{id}/aut', async () => {
    await app.request('POST', '/user/', { token: a.users.admin!.token, body: { email: 'mail.me@bulk.test', role: 'user' } });
    assert.equal((await app.request('DELETE', '/user/remove/email', { token: a.users.admin!.token, body: { email: b.users.user!.email } })).status, 404);
    assert.equal((await app.request('DELETE', '/user/remove/email', { token: a.users.admin!.token, body: { email: 'MAIL.ME@bulk.test' } })).status, 200);
    const aut = await app.request('PUT', `/user/${a.users.guest!.tenantUserId}/aut`, { token: a.users.admin!.token, body: { status: 'disabled' } });
    assert.equal(aut.status, 200);
    assert.equal(aut.body.data.status, 'disabled');
    assert.equal((await app.request('GET', '/user', { token: a.users.guest!.token })).status, 401, 'a disabled member is signed out');
    assert.equal((await app.request('PUT', `/user/${b.users.guest!.tenantUserId}/aut`, { token: a.users.admin!.token, body: { role: 'user' } })).status, 404);
  });
});

describe('users: a member who holds a split share', () => {
  let app: TestApp;
  let a: TestTenant;
  before(async () => {
    app = await startTestApp();
    a = await createTestTenant(app, 'Shareholder');
  });
  after(async () => app.close());

  it('cannot be removed until the split changes: 400 IN_USE, not a 500', async () => {
    const asset = await app.request('POST', '/asset', { token: a.users.admin!.token, body: { title: 'Held Track', isrc: 'USRC17607839' } });
    assert.equal(asset.status, 201, JSON.stringify(asset.body));
    const split = await app.request('POST', '/split/', { token: a.users.admin!.token, body: { asset: asset.body.data.id, split: [{ user: a.users.user!.tenantUserId, share: 100 }] } });
    assert.equal(split.status, 201, JSON.stringify(split.body));
    const del = await app.request('DELETE', `/user/${a.users.user!.tenantUserId}`, { token: a.users.admin!.token });
    assert.equal(del.status, 400);
    assert.equal(del.body.error.code, 'IN_USE');
    assert.equal((await app.request('GET', `/user/${a.users.user!.tenantUserId}`, { token: a.users.admin!.token })).status, 200);
  });
});
