/**
 * No silent no-ops (docs/errors.md): a query parameter a route does not declare is a 400 that
 * names it, in the route's error shape, never ignored. Swept over every operation of the
 * OpenAPI document, public ones too; the parameters a route does take are in that document.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';

type Param = { name: string; in: string; required?: boolean; example?: unknown; schema?: Record<string, unknown> };
type Op = { 'x-access': string; parameters: Param[] };
type Doc = { paths: Record<string, Record<string, Op>> };

const UNKNOWN = 'zzUnknown';

describe('unknown query parameters are refused with a 400 naming them', function () {
  this.timeout(300_000);
  let app: TestApp;
  let t: TestTenant;
  let doc: Doc;

  before(async () => {
    app = await startTestApp();
    t = await createTestTenant(app, 'Params', ['admin']);
    // The admin is also a super-admin and the workspace on the plan with every feature, so no
    // route stops at its access check or its plan gate before the query is read.
    await app.svc.db.owner('users').where({ email: t.users.admin!.email }).update({ is_super_admin: true });
    await app.svc.db.owner('tenants').where({ id: t.tenantId }).update({ plan: 'enterprise' });
    const res = await app.request('GET', '/openapi.json');
    assert.equal(res.status, 200);
    doc = res.body;
  });
  after(async () => app?.close());

  const ip = () => `10.${crypto.randomInt(255)}.${crypto.randomInt(255)}.${crypto.randomInt(255)}`;
  const tokenFor = (access: string) => (access === 'public' ? undefined : access === 'refresh' ? t.users.admin!.refresh : t.users.admin!.token);
  /** The path with each parameter replaced by its documented example (a valid-looking id, a known provider…). */
  function concrete(path: string, op: Op): string {
    return path.replace(/\{([A-Za-z0-9_]+)\}/g, (_, name: string) => {
      const p = op.parameters.find((x) => x.in === 'path' && x.name === name);
      assert.ok(p && p.example !== undefined, `${path}: path parameter ${name} has no example`);
      return encodeURIComponent(String(p.example));
    });
  }
  /** The shape of a validation error of each area: [status field, where the lines are]. */
  function detailsOf(body: any): string[] {
    if (body?.success === false) return body.error.details; // catalogue
    if (body?.status === 'error' && Array.isArray(body.details)) return body.details; // status
    if (body?.status === 'error' && body.details?.errors) return body.details.errors; // processor
    if (typeof body?.message === 'string' && typeof body?.error === 'string') return [body.message]; // agreement
    return [];
  }

  it('every operation of the OpenAPI document', async () => {
    const wrong: string[] = [];
    let sent = 0;
    for (const [path, byMethod] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(byMethod)) {
        // The declared required parameters get their example, so the unknown one is the only problem of the query.
        const required = op.parameters.filter((p) => p.in === 'query' && p.required).map((p) => `${encodeURIComponent(p.name)}=${encodeURIComponent(String(p.example))}`);
        const url = `${concrete(path, op)}?${[...required, `${UNKNOWN}=1`].join('&')}`;
        const res = await app.request(method.toUpperCase(), url, { token: tokenFor(op['x-access']), ip: ip() });
        sent++;
        const lines = detailsOf(res.body);
        if (res.status !== 400 || !lines.some((l) => l.includes(`query.${UNKNOWN}: unknown parameter`))) {
          wrong.push(`${method.toUpperCase()} ${path}: ${res.status} ${res.text.slice(0, 200)}`);
        }
      }
    }
    assert.ok(sent > 300, `only ${sent} operations in the document`);
    assert.deepEqual(wrong, []);
  });

  it("the reference service's analytics filters are declared and accepted on the /royalty/* routes; an unknown one beside them is still refused", async () => {
    // What they select is checked against the lines' sums in test/reference/analytics-flow.test.ts.
    const filters = { isrc: 'USRC17607839', upc: '00602537518357', type: 'stream', aggregator: 'distrokid', artists: crypto.randomUUID(), includePreviousPeriod: 'true' };
    for (const route of ['/royalty/', '/royalty/month', '/royalty/dsp', '/royalty/asset']) {
      const declared = Object.keys(doc.paths[route]!.get!.parameters.filter((p) => p.in === 'query').reduce((m, p) => ({ ...m, [p.name]: 1 }), {}));
      for (const name of Object.keys(filters)) assert.ok(declared.includes(name), `${route} declares ${name}`);
      for (const [name, value] of Object.entries(filters)) {
        const res = await app.request('GET', `${route}?start=2024-01&end=2024-03&${name}=${value}`, { token: t.users.admin!.token });
        assert.equal(res.status, 200, `${route} ${name}: ${res.text}`);
        assert.deepEqual(res.body.data.total, { revenue: '0', quantity: '0', lines: 0 });
      }
      const all = await app.request('GET', `${route}?start=2024-01&end=2024-03&${new URLSearchParams(filters)}`, { token: t.users.admin!.token });
      assert.equal(all.status, 200, all.text);
      assert.deepEqual(all.body.data.previous, { start: '2023-10-01', end: '2023-12-31', total: { revenue: '0', quantity: '0', lines: 0 } });
      const unknown = await app.request('GET', `${route}?start=2024-01&${new URLSearchParams(filters)}&isrcs=X`, { token: t.users.admin!.token });
      assert.equal(unknown.status, 400);
      assert.deepEqual(unknown.body, { status: 'error', code: 'VALIDATION_ERROR', message: 'Invalid request', details: ['query.isrcs: unknown parameter'] });
    }
  });

  it('in the catalogue shape where the area has it, beside the problems of the declared parameters', async () => {
    const res = await app.request('GET', '/asset?size=0&zzUnknown=1', { token: t.users.admin!.token });
    assert.equal(res.status, 400);
    assert.equal(res.body.success, false);
    assert.equal(res.body.error.code, 'VALIDATION_ERROR');
    assert.deepEqual(res.body.error.details, ['query.zzUnknown: unknown parameter', 'query.size must be >= 1']);
  });

  it('a route without a query schema takes no query parameter at all', async () => {
    const health = await app.request('GET', '/health?verbose=1');
    assert.equal(health.status, 400);
    assert.deepEqual(health.body, { status: 'error', code: 'VALIDATION_ERROR', message: 'Invalid request', details: ['query.verbose: unknown parameter'] });
    assert.equal((await app.request('GET', '/health')).status, 200);
  });

  it('a very long unknown name is cut in the answer', async () => {
    const name = 'z'.repeat(5000);
    const res = await app.request('GET', `/health?${name}=1`);
    assert.equal(res.status, 400);
    assert.deepEqual(res.body.details, [`query.${'z'.repeat(100)}…: unknown parameter`]);
  });

  it('the parameters routes legitimately take beside their filters are declared, and in the document', async () => {
    const declared = (path: string, method: string) => doc.paths[path]![method]!.parameters.filter((p) => p.in === 'query').map((p) => p.name);
    // the API reference page: its area picker writes the chosen area into the page's URL
    assert.deepEqual(declared('/docs', 'get'), ['urls.primaryName']);
    const docs = await app.request('GET', '/docs?urls.primaryName=Royalty');
    assert.equal(docs.status, 200, docs.text.slice(0, 200));
    // a logo's URL carries its version for caches
    assert.deepEqual(declared('/branding/{workspaceId}/logo', 'get'), ['v']);
    const logo = await app.request('GET', `/branding/${t.workspaceId}/logo?v=3f9a0c1d2e4b5a69`);
    assert.equal(logo.status, 404, logo.text); // the workspace has no logo: the route ran
    // a raw media upload names its file in the query
    assert.deepEqual(declared('/asset/{id}/media', 'post'), ['name']);
    // what OAuth providers add to their callback
    for (const p of ['code', 'state', 'error', 'error_description', 'error_uri', 'iss', 'scope']) assert.ok(declared('/auth/social_a/callback', 'get').includes(p), p);
    const cancelled = await app.request('GET', '/auth/social_a/callback?error=access_denied&error_description=The+user+denied&state=s', { headers: { accept: 'application/json' } });
    assert.equal(cancelled.status, 401, cancelled.text);
    assert.equal(cancelled.body.error.code, 'SOCIAL_CANCELLED');
    // exports take format, paged lists page and size, the workspace switch currentWorkspace
    assert.ok(declared('/royalty/dsp', 'get').includes('format'));
    for (const p of ['page', 'size']) assert.ok(declared('/expense/', 'get').includes(p), p);
    assert.deepEqual(declared('/auth/authtoken', 'get'), ['currentWorkspace']);
    const switched = await app.request('GET', `/auth/authtoken?currentWorkspace=${t.workspaceId}`, { token: t.users.admin!.refresh });
    assert.equal(switched.status, 200, switched.text);
  });
});
