/**
 * Built-in layouts open to a workspace's admins: GET /sources/builtin/{key} shows a built-in
 * layout's definition (read-only), and a workspace layout derived from it (same key) wins over
 * the built-in one for that workspace only.
 */
import assert from 'node:assert/strict';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';

describe('built-in layouts: an admin reads a definition and derives the workspace\'s own', function () {
  this.timeout(60_000);
  let app: TestApp;
  let a: TestTenant;
  let b: TestTenant;
  before(async () => {
    app = await startTestApp();
    a = await createTestTenant(app, 'Builtin A');
    b = await createTestTenant(app, 'Builtin B');
  });
  after(() => app.close());

  it('answers a built-in layout\'s definition to an admin, with its key, version and pattern', async () => {
    const list = (await app.request('GET', '/file/sources', { token: a.users.admin!.token })).body.data as { key: string; builtin: boolean }[];
    const key = list.find((s) => s.key === 'distrokid')?.key ?? list.find((s) => s.builtin)!.key;
    const r = await app.request('GET', `/sources/builtin/${key}`, { token: a.users.admin!.token });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.data.key, key);
    assert.equal(r.body.data.builtin, true);
    assert.equal(r.body.data.pattern.key, key);
    assert.ok(r.body.data.pattern.columns.net, 'the definition says where the net amount comes from');
    assert.ok(Number.isInteger(r.body.data.version));
  });

  it('refuses a member below admin (403), an unknown key (404) and a malformed one (400)', async () => {
    const key = (await app.request('GET', '/file/sources', { token: a.users.admin!.token })).body.data[0].key;
    assert.equal((await app.request('GET', `/sources/builtin/${key}`, { token: a.users.user!.token })).status, 403);
    assert.equal((await app.request('GET', '/sources/builtin/no-such-layout', { token: a.users.admin!.token })).status, 404);
    assert.equal((await app.request('GET', '/sources/builtin/Not%20A%20Key', { token: a.users.admin!.token })).status, 400);
  });

  it('never answers a workspace\'s own layout, even to that workspace', async () => {
    const own = { key: 'own-only-layout', name: 'Own', aggregator: 'Own', layout: 'table', detect: { headers: ['X', 'Net'] }, format: { delimiter: ',', encoding: 'auto' }, columns: { net: { from: 'Net' }, currency: { const: 'EUR' } } };
    assert.equal((await app.request('POST', '/sources', { token: a.users.admin!.token, body: { pattern: own } })).status, 201);
    assert.equal((await app.request('GET', '/sources/builtin/own-only-layout', { token: a.users.admin!.token })).status, 404);
  });

  it('a layout derived from a built-in (same key) is the workspace\'s own and leaves other workspaces on the built-in', async () => {
    const key = (await app.request('GET', '/file/sources', { token: a.users.admin!.token })).body.data.find((s: any) => s.builtin).key;
    const def = (await app.request('GET', `/sources/builtin/${key}`, { token: a.users.admin!.token })).body.data.pattern;
    const saved = await app.request('POST', '/sources', { token: a.users.admin!.token, body: { pattern: { ...def, name: `${def.name} (ours)` } } });
    assert.equal(saved.status, 201, saved.text);
    assert.equal(saved.body.data.source.scope, 'tenant');
    assert.equal((await app.request('GET', `/sources/builtin/${key}`, { token: a.users.admin!.token })).body.data.name, def.name, 'the built-in is unchanged');
    assert.equal((await app.request('GET', '/sources', { token: b.users.admin!.token })).body.data.some((s: any) => s.source.key === key && s.source.scope === 'tenant'), false);
  });

  it('is in the OpenAPI document', async () => {
    const doc = (await app.request('GET', '/openapi.json')).body;
    assert.ok(doc.paths['/sources/builtin/{key}']?.get, Object.keys(doc.paths).filter((p: string) => p.startsWith('/sources')).join(' '));
  });
});
