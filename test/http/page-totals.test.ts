/**
 * Lists answer totalItems, totalPages and currentPage beside `data` and `pagination` (the
 * reference service's clients read them; docs/api.md "Lists and paging"), and the OpenAPI
 * document says so.
 */
import assert from 'node:assert/strict';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';

type Schema = { type?: string; properties?: Record<string, Schema>; $ref?: string };
type Doc = { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: Schema; example?: Record<string, unknown> }> }> }>> };

describe('lists answer totalItems, totalPages and currentPage', function () {
  this.timeout(120_000);
  let app: TestApp;
  let t: TestTenant;
  before(async () => {
    app = await startTestApp();
    t = await createTestTenant(app, 'Pages', ['admin']);
    for (const name of ['Ada', 'Bea', 'Cy']) {
      const r = await app.request('POST', '/artist', { token: t.users.admin!.token, body: { name } });
      assert.equal(r.status, 201, r.text);
    }
  });
  after(async () => app?.close());

  it('beside the pagination, page by page', async () => {
    const p1 = await app.request('GET', '/artist/?size=2', { token: t.users.admin!.token });
    assert.equal(p1.status, 200, p1.text);
    assert.equal(p1.body.data.length, 2);
    assert.deepEqual(p1.body.pagination, { page: 1, size: 2, total: 3 });
    assert.deepEqual([p1.body.totalItems, p1.body.totalPages, p1.body.currentPage], [3, 2, 1]);
    const p2 = await app.request('GET', '/artist/?size=2&page=2', { token: t.users.admin!.token });
    assert.equal(p2.body.data.length, 1);
    assert.deepEqual([p2.body.totalItems, p2.body.totalPages, p2.body.currentPage], [3, 2, 2]);
    const past = await app.request('GET', '/artist/?size=2&page=5', { token: t.users.admin!.token });
    assert.deepEqual(past.body.data, []);
    assert.deepEqual([past.body.totalItems, past.body.totalPages, past.body.currentPage], [3, 2, 5]);
  });

  it('an empty list has no page', async () => {
    const r = await app.request('GET', '/statements?size=10', { token: t.users.admin!.token });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.pagination, { page: 1, size: 10, total: 0 });
    assert.deepEqual([r.body.totalItems, r.body.totalPages, r.body.currentPage], [0, 0, 1]);
  });

  it('answers that are not lists are left as they are', async () => {
    const one = await app.request('GET', '/health');
    assert.deepEqual(one.body, { status: 'ok' });
    // analytics page their rows inside data: their answer keeps its own shape (docs/analytics.md)
    const dsp = await app.request('GET', '/royalty/dsp', { token: t.users.admin!.token });
    assert.equal(dsp.status, 200, dsp.text);
    assert.ok(dsp.body.data.pagination);
    assert.equal('totalItems' in dsp.body, false);
  });

  it('every list in the OpenAPI document documents them, with an example', async () => {
    const doc: Doc = (await app.request('GET', '/openapi.json')).body;
    let lists = 0;
    const missing: string[] = [];
    for (const [p, byMethod] of Object.entries(doc.paths)) {
      for (const [m, op] of Object.entries(byMethod)) {
        for (const [code, res] of Object.entries(op.responses)) {
          if (!code.startsWith('2')) continue;
          const json = res.content?.['application/json'];
          const props = json?.schema.properties;
          if (!props?.pagination || props.data?.type !== 'array') continue;
          lists++;
          for (const f of ['totalItems', 'totalPages', 'currentPage']) {
            if (props[f]?.type !== 'integer' || typeof json!.example?.[f] !== 'number') missing.push(`${m.toUpperCase()} ${p} ${f}`);
          }
        }
      }
    }
    assert.ok(lists > 40, `only ${lists} lists documented`); // 49 when every route declared its own answer (no generic fallback)
    assert.deepEqual(missing, []);
  });
});
