/**
 * Every list of the OpenAPI document takes `sort` (by the fields it names), `order` and
 * `search`, and refuses a field it does not sort by with a 400 INVALID_SORT (docs/api.md
 * "Lists and paging"). A list is a GET operation paged by `page` whose answer is a `data`
 * array beside `pagination`. Swept over the document, so a new list is covered the day it lands.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { withTenant } from '../../src/db';

type Schema = { type?: string; properties?: Record<string, Schema>; items?: Schema; $ref?: string; description?: string };
type Param = { name: string; in: string; required?: boolean; example?: unknown; description?: string; schema?: Schema };
type Op = { parameters: Param[]; responses: Record<string, { content?: Record<string, { schema: Schema }> }> };
type Doc = { paths: Record<string, Record<string, Op>> };

/**
 * Lists that are not sorted here, and why (each said in docs/api.md):
 * - the analytics breakdowns (they declare `periodFilterType`) order their rows by the figure
 *   and page inside `data` (docs/analytics.md);
 * - a partner's lists, read live from the partner page by page in the partner's order.
 */
const isAnalytics = (op: Op) => op.parameters.some((p) => p.name === 'periodFilterType');
const PARTNER_LISTS = new Set(['/integrations/fxpartner/beneficiaries', '/integrations/fxpartner/payment-requests', '/integrations/fxpartner/wallets', '/integrations/invoicer/invoices', '/search']);
/** The spec pages notifications with page/pageSize inside data (docs/api.md "Lists and paging"). */
const SPEC_SHAPED = new Set(['/notifications']);
/**
 * The fields an item shows that its list does not sort by (docs/api.md "Lists and paging"):
 * its random `id` (ties are broken by it), the workspace's base currency (the same on every
 * item), and a member's share and earnings of a statement line (a member's own figures).
 */
function NOT_SORTED(path: string, field: string): boolean {
  if (field === 'id' || field === 'baseCurrency') return true;
  return (path === '/file/{id}/lines' || path === '/royalty/lines') && (field === 'share' || field === 'earnings');
}
/** The fields a list sorts by, from its `sort` parameter's description ("A field of the item: a, b (default a)"). */
function sortFields(p: Param | undefined): string[] {
  const m = /A field of the item: ([A-Za-z0-9_, ]+) \(default/.exec(p?.description ?? '');
  return m ? m[1]!.split(',').map((s) => s.trim()) : [];
}

function listOps(doc: Doc): { path: string; op: Op }[] {
  const out: { path: string; op: Op }[] = [];
  for (const [path, byMethod] of Object.entries(doc.paths)) {
    const op = byMethod.get;
    if (!op || !op.parameters.some((p) => p.in === 'query' && p.name === 'page')) continue;
    const ok = Object.entries(op.responses).find(([c]) => c.startsWith('2'))?.[1];
    const props = ok?.content?.['application/json']?.schema.properties;
    if (!props?.pagination || props.data?.type !== 'array') continue;
    if (isAnalytics(op) || PARTNER_LISTS.has(path) || SPEC_SHAPED.has(path)) continue;
    out.push({ path, op });
  }
  return out;
}

/** The error code in each area's shape (the agreement shape carries it as `error`). */
const codeOf = (body: any): string | undefined => (typeof body?.error === 'string' ? body.error : body?.error?.code ?? body?.code);

describe('every list takes sort, order and search', function () {
  this.timeout(300_000);
  let app: TestApp;
  let t: TestTenant;
  let doc: Doc;
  const ids: Record<string, string> = {};

  before(async () => {
    app = await startTestApp();
    t = await createTestTenant(app, 'Sweep', ['owner']);
    await app.svc.db.owner('tenants').where({ id: t.tenantId }).update({ plan: 'enterprise' });
    const tok = t.users.owner!.token;
    const artist = await app.request('POST', '/artist', { token: tok, body: { name: 'Sweep Artist' } });
    assert.equal(artist.status, 201, artist.text);
    ids.artist = artist.body.data.id;
    const hook = await app.request('POST', '/webhooks', { token: tok, body: { url: 'http://127.0.0.1:9/in', events: ['*'] } });
    assert.equal(hook.status, 201, hook.text);
    ids.webhook = hook.body.data.id;
    ids.file = crypto.randomUUID();
    await withTenant(app.svc.db.app, t.tenantId, (trx) => trx('files').insert({ tenant_id: t.tenantId, id: ids.file, original_name: 'sweep.csv', size_bytes: 1, status: 'processed' }));
    doc = (await app.request('GET', '/openapi.json')).body;
  });
  after(async () => app?.close());

  function concrete(path: string): string {
    return path.replace(/\{id\}/, () => {
      if (path.startsWith('/artist/')) return ids.artist!;
      if (path.startsWith('/user/')) return t.users.owner!.tenantUserId;
      if (path.startsWith('/webhooks/')) return ids.webhook!;
      if (path.startsWith('/file/')) return ids.file!;
      throw new Error(`no id for ${path}`);
    });
  }

  it('each list declares them, sorts by each field it names both ways with a search, and refuses another field', async () => {
    const lists = listOps(doc);
    assert.ok(lists.length >= 40, `only ${lists.length} lists`);
    const wrong: string[] = [];
    for (const { path, op } of lists) await checkList(path, op, wrong);
    assert.deepEqual(wrong, []);
  });

  it('each list sorts by every field its item shows (a text, number, boolean or date), but the few said in docs/api.md', async () => {
    const R = (x: any): any => (x?.$ref ? R((doc as any).components.schemas[x.$ref.split('/').pop()]) : x);
    const scalar = (x: any): boolean => {
      const y = R(x);
      if (!y) return false;
      if (y.anyOf || y.oneOf) return (y.anyOf ?? y.oneOf).every(scalar);
      return ['string', 'number', 'integer', 'boolean', 'null'].includes(y.type) || y.const !== undefined;
    };
    const wrong: string[] = [];
    for (const { path, op } of listOps(doc)) {
      const ok = Object.entries(op.responses).find(([c]) => c.startsWith('2'))![1];
      const item = R(R(R(ok.content!['application/json']!.schema).properties!.data).items);
      const fields = sortFields(op.parameters.find((p) => p.in === 'query' && p.name === 'sort'));
      const unsorted = Object.keys(item?.properties ?? {}).filter((k) => scalar(item.properties[k]) && !fields.includes(k) && !NOT_SORTED(path, k));
      if (unsorted.length) wrong.push(`${path}: ${unsorted.join(', ')}`);
    }
    assert.deepEqual(wrong, []);
  });

  it('a list sorted by the helper is in that order across pages, and search narrows it (writers)', async () => {
    const tok = t.users.owner!.token;
    for (const [firstName, lastName] of [['Ann', 'Quist'], ['Bo', 'Adler'], ['Cy', 'Moss'], ['Di', 'Quell']]) {
      const r = await app.request('POST', '/writers', { token: tok, body: { firstName, lastName } });
      assert.equal(r.status, 201, r.text);
    }
    const page = async (qs: string) => {
      const r = await app.request('GET', `/writers?${qs}`, { token: tok });
      assert.equal(r.status, 200, r.text);
      return r.body;
    };
    const a1 = await page('sort=lastName&order=asc&size=3');
    const a2 = await page('sort=lastName&order=asc&size=3&page=2');
    assert.deepEqual([...a1.data, ...a2.data].map((w: any) => w.lastName), ['Adler', 'Moss', 'Quell', 'Quist']);
    assert.deepEqual([a1.totalItems, a1.totalPages, a2.currentPage], [4, 2, 2]);
    assert.deepEqual((await page('sort=firstName&order=desc')).data.map((w: any) => w.firstName), ['Di', 'Cy', 'Bo', 'Ann']);
    const found = await page('search=qu&sort=lastName&order=desc');
    assert.deepEqual(found.data.map((w: any) => w.lastName), ['Quist', 'Quell']);
    assert.equal(found.totalItems, 2);
    // the keyword-named column (claims' `right`) sorts too: columns are quoted
    const claims = await app.request('GET', '/claims?sort=right', { token: tok });
    assert.equal(claims.status, 200, claims.text);
  });

  async function checkList(path: string, op: Op, wrong: string[]): Promise<void> {
    {
      const q = new Map(op.parameters.filter((p) => p.in === 'query').map((p) => [p.name, p]));
      const missing = ['sort', 'order', 'search'].filter((n) => !q.has(n));
      if (missing.length) {
        wrong.push(`${path}: does not declare ${missing.join(', ')}`);
        return;
      }
      const fields = sortFields(q.get('sort'));
      if (!fields.length) wrong.push(`${path}: the sort parameter names no field`);
      // the allocation history is one statement file's: it needs the file; the lines of a period need the period
      const url = path === '/royalty/allocations/history' ? `${path}?fileId=${ids.file}&` : path === '/royalty/lines' ? `${path}?period=2026-Q3&` : `${concrete(path)}?`;
      for (const f of fields) {
        for (const order of ['asc', 'desc']) {
          const r = await app.request('GET', `${url}sort=${f}&order=${order}&search=zz&size=5`, { token: t.users.owner!.token });
          if (r.status !== 200 || !Array.isArray(r.body.data)) wrong.push(`${path} sort=${f}&order=${order}: ${r.status} ${r.text.slice(0, 200)}`);
        }
      }
      const bad = await app.request('GET', `${url}sort=notAField`, { token: t.users.owner!.token });
      if (bad.status !== 400 || codeOf(bad.body) !== 'INVALID_SORT') wrong.push(`${path} sort=notAField: ${bad.status} ${bad.text.slice(0, 200)}`);
    }
  }
});
