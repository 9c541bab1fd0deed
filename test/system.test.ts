import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from './helpers/app';

describe('system routes and HTTP conventions', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(async () => app.close());

  it('GET /health and GET /ready (database + queue)', async () => {
    assert.deepEqual((await app.request('GET', '/health')).body, { status: 'ok' });
    const r = await app.request('GET', '/ready');
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, { status: 'ok', checks: { database: 'ok', queue: 'ok' } });
  });

  it('serves an OpenAPI 3.1 document built from the route schemas, the reference page is tested in api-docs.test.ts', async () => {
    const r = await app.request('GET', '/openapi.json');
    assert.equal(r.body.openapi, '3.1.0');
    assert.ok(r.body.paths['/auth/login'].post.requestBody);
    assert.ok(r.body.paths['/user/{id}'].patch);
  });

  it('every response carries a request id; a given one is echoed', async () => {
    const r = await app.request('GET', '/health', { headers: { 'x-request-id': 'abc-123' } });
    assert.equal(r.headers.get('x-request-id'), 'abc-123');
    assert.ok((await app.request('GET', '/health')).headers.get('x-request-id'));
  });

  it('unknown route → 404 in the error shape; malformed JSON → 400', async () => {
    const r = await app.request('GET', '/no/such/route');
    assert.equal(r.status, 404);
    assert.equal(r.body.status, 'error');
    const bad = await app.request('POST', '/auth/login', { raw: '{"email":', headers: { 'content-type': 'application/json' } });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.success, false);
  });

  it('unknown body properties are rejected', async () => {
    const r = await app.request('POST', '/auth/login', { body: { email: 'a@b.c', password: 'x', admin: true } });
    assert.equal(r.status, 400);
    assert.ok(r.body.error.details.some((d: string) => d.includes('unknown property "admin"')));
  });
});

describe('order of checks: identity, then role, then input', () => {
  let app: TestApp;
  let t: Awaited<ReturnType<typeof import('./helpers/app').createTestTenant>>;
  before(async () => {
    app = await startTestApp();
    t = await (await import('./helpers/app')).createTestTenant(app, 'Order');
  });
  after(async () => app.close());

  it('no token → 401 even with a malformed body; short role → 403 even with an invalid body', async () => {
    const bad = { raw: '{"email":', headers: { 'content-type': 'application/json' } };
    assert.equal((await app.request('POST', '/user/', bad)).status, 401);
    assert.equal((await app.request('POST', '/user/', { ...bad, token: t.users.guest!.token })).status, 403);
    assert.equal((await app.request('POST', '/user/', { token: t.users.guest!.token, body: { nonsense: true } })).status, 403);
    assert.equal((await app.request('POST', '/user/', { token: t.users.admin!.token, body: { nonsense: true } })).status, 400);
    assert.equal((await app.request('POST', '/sources/admin', { token: t.users.owner!.token, body: { nonsense: true } })).status, 403);
  });
});
