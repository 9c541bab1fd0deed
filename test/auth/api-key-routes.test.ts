import assert from 'node:assert/strict';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { routeRegistry } from '../../src/http/route';

type Json = Record<string, any>;

/** API keys made, listed and revoked by the web app's routes (docs/auth.md "API keys"). */
describe('API keys from the web app: workspace keys (admins) and personal keys (every member)', () => {
  let app: TestApp;
  let a: TestTenant;
  let b: TestTenant;

  before(async () => {
    app = await startTestApp();
    a = await createTestTenant(app, 'Keys Alpha');
    b = await createTestTenant(app, 'Keys Beta', ['owner', 'admin', 'user']);
  });
  after(async () => app.close());

  const req = (method: string, path: string, token: string, body?: unknown) => app.request(method, path, { token, ...(body === undefined ? {} : { body }) });

  it('an admin creates a workspace key (shown once), it acts with admin rights, is listed without its secret, and stops working when revoked', async () => {
    const admin = a.users.admin!.token;
    const made = await req('POST', '/settings/api-keys', admin, { name: 'Accounting export' });
    assert.equal(made.status, 201, made.text);
    const key = made.body.data;
    assert.match(key.key, /^RWAK_/);
    assert.equal(key.name, 'Accounting export');
    assert.equal(key.kind, 'workspace');
    assert.ok(key.key.startsWith(`${key.prefix}_`), 'the prefix is the start of the key');

    const members = await req('GET', '/user/', key.key);
    assert.equal(members.status, 200, 'a workspace key calls admin routes');
    assert.deepEqual(new Set(members.body.data.map((u: Json) => u.id)), new Set(Object.values(a.users).map((u) => u.tenantUserId)));

    const list = await req('GET', '/settings/api-keys', admin);
    assert.deepEqual(list.body.data.map((k: Json) => [k.id, k.name, k.prefix]), [[key.id, 'Accounting export', key.prefix]]);
    assert.ok(!list.text.includes(key.key), 'the list never holds the whole key');

    const revoked = await req('DELETE', `/settings/api-keys/${key.id}`, admin);
    assert.equal(revoked.status, 200, revoked.text);
    assert.deepEqual(revoked.body.data, { id: key.id, revoked: true });
    assert.equal((await req('GET', '/user/', key.key)).status, 401, 'a revoked key is refused');
    assert.deepEqual((await req('GET', '/settings/api-keys', admin)).body.data, []);
    assert.equal((await req('DELETE', `/settings/api-keys/${key.id}`, admin)).status, 404, 'revoked once');
  });

  it('every member makes personal keys that act as them, with their role; they see and revoke only their own', async () => {
    const user = a.users.user!;
    const made = await req('POST', '/settings/my-api-keys', user.token, { name: 'My spreadsheet' });
    assert.equal(made.status, 201, made.text);
    const key = made.body.data;
    assert.match(key.key, /^RUAK_/);
    const me = await req('GET', '/user', key.key);
    assert.equal(me.body.data.id, user.tenantUserId, 'the key acts as its person');
    assert.equal((await req('GET', '/user/', key.key)).body.data.length, 1, "with the person's role: a user sees only themself");
    assert.equal((await req('GET', '/settings/api-keys', key.key)).status, 403, 'a user key has no admin rights');

    const guest = a.users.guest!;
    const guestKey = (await req('POST', '/settings/my-api-keys', guest.token, { name: 'Guest reader' })).body.data;
    assert.match(guestKey.key, /^RUAK_/);
    assert.deepEqual((await req('GET', '/settings/my-api-keys', user.token)).body.data.map((k: Json) => k.id), [key.id], 'only their own keys');
    assert.deepEqual((await req('GET', '/settings/my-api-keys', guest.token)).body.data.map((k: Json) => k.id), [guestKey.id]);
    assert.deepEqual((await req('GET', '/settings/my-api-keys', a.users.admin!.token)).body.data, [], "an admin's own list holds no one else's key");
    assert.deepEqual((await req('GET', '/settings/api-keys', a.users.admin!.token)).body.data, [], 'personal keys are not workspace keys');

    assert.equal((await req('DELETE', `/settings/my-api-keys/${key.id}`, guest.token)).status, 404, "another member's key, as if absent");
    assert.equal((await req('DELETE', `/settings/my-api-keys/${key.id}`, a.users.admin!.token)).status, 404, "an admin does not revoke a member's personal key here");
    assert.equal((await req('GET', '/user', key.key)).status, 200, 'still working');
    assert.equal((await req('DELETE', `/settings/my-api-keys/${key.id}`, user.token)).status, 200);
    assert.equal((await req('GET', '/user', key.key)).status, 401, 'revoked by its person: refused');
    assert.equal((await req('GET', '/user', guestKey.key)).status, 200, "the guest's key is untouched");
  });

  it('roles: users and guests cannot reach workspace keys; a key never makes another key', async () => {
    for (const role of ['user', 'guest']) {
      const token = a.users[role]!.token;
      assert.equal((await req('GET', '/settings/api-keys', token)).status, 403, `${role} lists`);
      assert.equal((await req('POST', '/settings/api-keys', token, { name: 'x' })).status, 403, `${role} creates`);
    }
    const ws = (await req('POST', '/settings/api-keys', a.users.owner!.token, { name: 'Owner made' })).body.data;
    const byKey = await req('POST', '/settings/api-keys', ws.key, { name: 'Made by a key' });
    assert.equal(byKey.status, 403);
    assert.equal(byKey.body.error.code, 'SESSION_REQUIRED');
    const personal = await req('POST', '/settings/my-api-keys', ws.key, { name: 'A workspace key has no person' });
    assert.equal(personal.status, 403);
    const own = (await req('POST', '/settings/my-api-keys', a.users.user!.token, { name: 'Mine' })).body.data;
    assert.equal((await req('POST', '/settings/my-api-keys', own.key, { name: 'Made by my key' })).body.error.code, 'SESSION_REQUIRED');
    assert.equal((await req('POST', '/settings/api-keys', a.users.admin!.token, { name: '  ' })).status, 400, 'a blank name');
    assert.equal((await req('POST', '/settings/api-keys', a.users.admin!.token, { name: 'x', kind: 'god' })).status, 400, 'an unknown field');
  });

  it("another workspace's keys: not listed, not revocable (404), and a key works in its own workspace only", async () => {
    const alpha = (await req('POST', '/settings/api-keys', a.users.admin!.token, { name: 'Alpha only' })).body.data;
    const alphaPersonal = (await req('POST', '/settings/my-api-keys', a.users.user!.token, { name: 'Alpha personal' })).body.data;
    const beta = (await req('POST', '/settings/api-keys', b.users.admin!.token, { name: 'Beta only' })).body.data;
    const betaList = (await req('GET', '/settings/api-keys', b.users.admin!.token)).body.data.map((k: Json) => k.id);
    assert.deepEqual(betaList, [beta.id]);
    assert.equal((await req('DELETE', `/settings/api-keys/${alpha.id}`, b.users.admin!.token)).status, 404);
    assert.equal((await req('DELETE', `/settings/my-api-keys/${alphaPersonal.id}`, b.users.user!.token)).status, 404);
    assert.equal((await req('DELETE', `/settings/api-keys/${alphaPersonal.id}`, b.users.owner!.token)).status, 404);
    assert.equal((await req('GET', '/user/', alpha.key)).status, 200, 'untouched by the other workspace');
    const seen = (await req('GET', '/user/', beta.key)).body.data.map((u: Json) => u.id);
    assert.deepEqual(new Set(seen), new Set(Object.values(b.users).map((u) => u.tenantUserId)), "Beta's key sees Beta's members only");
    const betaAsAlpha = await app.request('GET', '/user/', { token: beta.key, headers: { 'x-workspace-id': a.workspaceId } });
    assert.deepEqual(new Set(betaAsAlpha.body.data.map((u: Json) => u.id)), new Set(seen), 'naming another workspace changes nothing');
  });

  it('at most 25 active keys at once; a revoked key frees its place', async () => {
    const token = a.users.guest!.token;
    const have = (await req('GET', '/settings/my-api-keys', token)).body.data.length;
    const ids: string[] = [];
    for (let i = have; i < 25; i++) ids.push((await req('POST', '/settings/my-api-keys', token, { name: `k${i}` })).body.data.id);
    const over = await req('POST', '/settings/my-api-keys', token, { name: 'one too many' });
    assert.equal(over.status, 400);
    assert.equal(over.body.error.code, 'TOO_MANY_KEYS');
    assert.equal((await req('DELETE', `/settings/my-api-keys/${ids[0]}`, token)).status, 200);
    assert.equal((await req('POST', '/settings/my-api-keys', token, { name: 'fits again' })).status, 201);
  });

  it('requests at once never pass the limit together: with one place left, one of five is made', async () => {
    const token = a.users.user!.token;
    const have = (await req('GET', '/settings/my-api-keys', token)).body.data.length;
    for (let i = have; i < 24; i++) assert.equal((await req('POST', '/settings/my-api-keys', token, { name: `u${i}` })).status, 201);
    const answers = await Promise.all([1, 2, 3, 4, 5].map((i) => req('POST', '/settings/my-api-keys', token, { name: `race ${i}` })));
    assert.deepEqual(answers.map((r) => r.status).sort(), [201, 400, 400, 400, 400]);
    assert.equal((await req('GET', '/settings/my-api-keys', token)).body.data.length, 25);
  });

  it('every key route declares its answer', () => {
    const routes = routeRegistry.filter((r) => r.path.startsWith('/settings/api-keys') || r.path.startsWith('/settings/my-api-keys'));
    assert.equal(routes.length, 6);
    for (const r of routes) assert.ok(r.responses?.[r.status ?? 200], `${r.method} ${r.path} declares its response`);
  });
});
