/**
 * Bad input is a 400 naming the field, never a 500 (docs/errors.md). Table-driven over the
 * route registry: every value each route's body, query and path schemas declare gets the
 * out-of-range values of its kind (decimals past their column's precision or scale, dates
 * outside the business range, unknown currencies, NUL and unpaired surrogates in text,
 * integers past int4/int8, malformed ids), through real HTTP and a real Postgres. A route
 * added later is swept without a line here.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { routeRegistry, type RegisteredRoute } from '../../src/http/route';
import { MAX_DEPTH } from '../../src/http/limits';
import { badValues, fieldName, goodValue, holding, leaves, type Kind, type Leaf } from '../helpers/schema-leaves';

type Node = Record<string, any>;

describe('input sweep: out-of-range values are a 400 naming the field', function () {
  this.timeout(600_000);
  let app: TestApp;
  let t: TestTenant;
  let routes: RegisteredRoute[];

  before(async () => {
    app = await startTestApp();
    t = await createTestTenant(app, 'Sweep', ['owner']);
    // The owner is also a super-admin, so every route's access check passes and the request reaches validation.
    await app.svc.db.owner('users').where({ email: t.users.owner.email }).update({ is_super_admin: true });
    // On the plan with every feature, so no route stops at its plan gate before validation.
    await app.svc.db.owner('tenants').where({ id: t.tenantId }).update({ plan: 'enterprise' });
    const seen = new Set<string>();
    routes = routeRegistry.filter((r) => {
      const key = `${r.method} ${r.path}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  });
  after(async () => {
    await app?.close();
  });

  const tokenFor = (r: RegisteredRoute) => (r.access === 'public' ? undefined : r.access === 'refresh' ? t.users.owner.refresh : t.users.owner.token);
  const paramNames = (r: RegisteredRoute) => [...r.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1]);
  /** An acceptable value of a path parameter: its first allowed value, or one of its kind. */
  function goodParam(r: RegisteredRoute, name: string): string {
    const s = (r.params as Node | undefined)?.properties?.[name] as Node | undefined;
    const fixed = s?.const ?? s?.enum?.[0] ?? s?.anyOf?.find((b: Node) => b.const !== undefined)?.const;
    if (fixed !== undefined) return String(fixed);
    return goodValue(leaves(r.params as Node | undefined).find((l) => l.path[0] === name)?.kind ?? 'text');
  }
  function pathWith(r: RegisteredRoute, name?: string, value?: string): string {
    return r.path.replace(/:([A-Za-z_]+)/g, (_, p: string) => encodeURIComponent(p === name ? value! : goodParam(r, p)));
  }
  const ip = () => `10.${crypto.randomInt(255)}.${crypto.randomInt(255)}.${crypto.randomInt(255)}`;

  async function expectNamed(r: RegisteredRoute, res: { status: number; text: string }, field: string, sent: unknown) {
    const label = `${r.method.toUpperCase()} ${r.path} ${field}=${JSON.stringify(sent)}`;
    assert.equal(res.status, 400, `${label}: ${res.status} ${res.text.slice(0, 300)}`);
    assert.ok(res.text.includes(field), `${label}: the answer does not name ${field}: ${res.text.slice(0, 300)}`);
  }

  it('covers the routes that take each kind of value', () => {
    const kinds = new Set<Kind>();
    for (const r of routes) for (const l of [...leaves(r.body as Node), ...leaves(r.query as Node), ...leaves(r.params as Node), ...leaves(r.items?.schema as Node)]) kinds.add(l.kind);
    for (const k of ['decimal', 'integer', 'date', 'date-time', 'month', 'month-or-date', 'currency', 'uuid', 'text'] as Kind[]) assert.ok(kinds.has(k), `no route takes a ${k}`);
    assert.ok(routes.length > 150, `only ${routes.length} routes registered`);
  });

  it('every declared value has a bound its column can hold', () => {
    const unbounded: string[] = [];
    for (const r of routes) {
      for (const [where, schema] of [['body', r.body], ['query', r.query], ['params', r.params], ['item', r.items?.schema]] as const) {
        for (const l of leaves(schema as Node)) {
          const name = `${r.method.toUpperCase()} ${r.path} ${fieldName(where, l.path)}`;
          if (l.kind === 'number') unbounded.push(`${name}: a number without a decimal rule (use Money/Rate/Share)`);
          if (l.kind === 'integer' && (l.schema.maximum === undefined || l.schema.maximum > Number.MAX_SAFE_INTEGER)) unbounded.push(`${name}: an integer without a maximum`);
          if (l.kind === 'text' && l.schema.maxLength === undefined && l.path[l.path.length - 1] !== 'key') unbounded.push(`${name}: text without maxLength`);
        }
      }
    }
    assert.deepEqual(unbounded, []);
  });

  it('every path parameter is declared in the route schema', () => {
    const undeclared: string[] = [];
    for (const r of routes) for (const p of paramNames(r)) if (!(r.params as Node | undefined)?.properties?.[p]) undeclared.push(`${r.method.toUpperCase()} ${r.path} :${p}`);
    assert.deepEqual(undeclared, []);
  });

  it('bodies', async () => {
    let sent = 0;
    for (const r of routes) {
      if (!r.body || r.rawBody) continue;
      for (const leaf of leaves(r.body as Node)) {
        // A bulk route's items are checked one by one (next test).
        if (r.items && leaf.path[0] === r.items.field) continue;
        for (const bad of badValues(leaf, 'body')) {
          const res = await app.request(r.method.toUpperCase(), pathWith(r), { token: tokenFor(r), body: holding(leaf.path, bad), ip: ip() });
          await expectNamed(r, res, fieldName('body', leaf.path), bad);
          sent++;
        }
      }
    }
    assert.ok(sent > 300, `only ${sent} bodies sent`);
  });

  it('bulk items: a bad item is reported in errors, by index and field, and the request succeeds', async () => {
    const bulk = routes.filter((r) => r.items);
    assert.deepEqual(bulk.map((r) => r.path).sort(), ['/artist/bulk', '/asset/bulk', '/expense/bulk', '/payment/bulk', '/product/bulk', '/revenue/bulk', '/user/bulk']);
    for (const r of bulk) {
      const { field, schema } = r.items!;
      for (const leaf of leaves(schema as Node)) {
        for (const bad of badValues(leaf, 'body')) {
          const res = await app.request(r.method.toUpperCase(), r.path, { token: tokenFor(r), body: { [field]: [holding(leaf.path, bad)] }, ip: ip() });
          const label = `${r.path} ${leaf.path.join('.')}=${JSON.stringify(bad)}`;
          assert.equal(res.status, r.status ?? 200, `${label}: ${res.status} ${res.text.slice(0, 300)}`);
          const errors = (res.body.errors ?? res.body.data?.errors) as string[];
          assert.ok(Array.isArray(errors), `${label}: no errors list: ${res.text.slice(0, 300)}`);
          const leafName = leaf.path.filter((p) => typeof p === 'string').pop() as string;
          assert.ok(errors.some((e) => e.startsWith(`${field}[0]`) && e.includes(leafName)), `${label}: ${JSON.stringify(errors)}`);
        }
      }
    }
  });

  it('query strings', async () => {
    let sent = 0;
    for (const r of routes) {
      for (const leaf of leaves(r.query as Node)) {
        const name = String(leaf.path[0]);
        for (const bad of badValues(leaf, 'query')) {
          const qs = `${name}=${encodeURIComponent(String(bad))}`;
          const res = await app.request(r.method.toUpperCase(), `${pathWith(r)}?${qs}`, { token: tokenFor(r), body: r.method === 'get' || r.rawBody ? undefined : {}, ip: ip() });
          await expectNamed(r, res, `query.${name}`, bad);
          sent++;
        }
      }
    }
    assert.ok(sent > 100, `only ${sent} query strings sent`);
  });

  it('path parameters', async () => {
    let sent = 0;
    for (const r of routes) {
      for (const name of paramNames(r)) {
        // A parameter with a fixed set of values (a provider name…) still gets the text cases.
        const leaf: Leaf = leaves(r.params as Node).find((l) => l.path[0] === name) ?? { path: [name], kind: 'text', schema: {} };
        for (const bad of badValues(leaf, 'params')) {
          const res = await app.request(r.method.toUpperCase(), pathWith(r, name, String(bad)), { token: tokenFor(r), body: r.method === 'get' || r.rawBody ? undefined : {}, ip: ip() });
          await expectNamed(r, res, `params.${name}`, bad);
          sent++;
        }
      }
    }
    assert.ok(sent > 100, `only ${sent} path parameters sent`);
  });

  it(`JSON nested past ${MAX_DEPTH} levels is refused before it reaches a schema or Postgres`, async () => {
    const deep = '['.repeat(50_000) + ']'.repeat(50_000);
    let sent = 0;
    for (const r of routes) {
      if (r.rawBody || r.method === 'get') continue;
      const res = await fetch(app.url + pathWith(r), {
        method: r.method.toUpperCase(),
        headers: { 'content-type': 'application/json', 'x-forwarded-for': ip(), ...(tokenFor(r) ? { authorization: `Bearer ${tokenFor(r)}` } : {}) },
        body: `{"x":${deep}}`,
      });
      const text = await res.text();
      assert.equal(res.status, 400, `${r.method.toUpperCase()} ${r.path}: ${res.status} ${text.slice(0, 200)}`);
      assert.ok(text.includes(`nested deeper than ${MAX_DEPTH} levels`), `${r.method.toUpperCase()} ${r.path}: ${text.slice(0, 200)}`);
      sent++;
    }
    assert.ok(sent > 80, `only ${sent} bodies sent`);
  });

  it('a base currency outside ISO 4217 is refused, and a known one accepted', async () => {
    const bad = await app.request('PUT', '/settings/workspace', { token: t.users.owner.token, body: { baseCurrency: 'ABC' } });
    assert.equal(bad.status, 400);
    assert.match(bad.text, /body\.baseCurrency must be an ISO 4217 currency code/);
    const good = await app.request('PUT', '/settings/workspace', { token: t.users.owner.token, body: { baseCurrency: 'EUR' } });
    assert.equal(good.status, 200, good.text);
  });
  it('raw JSON outside route validation gets the same guard: processor webhook and dry-run pattern', async () => {
    const event = { event: 'transfer.success', data: { reference: 'x', reason: 'Pay\u0000out' } };
    const wh = await app.request('POST', '/processor/webhook', { raw: JSON.stringify(event), headers: { 'content-type': 'application/json', 'x-processor-signature': 'sig' } });
    assert.equal(wh.status, 400, wh.text);
    assert.deepEqual(wh.body.details, { errors: ['body.data.reason must not contain NUL characters'] });
    const fd = new FormData();
    fd.append('pattern', JSON.stringify({ key: 'x', nested: JSON.parse('['.repeat(100) + ']'.repeat(100)) }));
    fd.append('file', new Blob([Buffer.from('a,b\n1,2\n')]), 'sample.csv');
    const dry = await app.request('POST', '/pattern-creator/dry-run', { token: t.users.owner.token, raw: fd });
    assert.equal(dry.status, 400, dry.text);
    assert.match(dry.text, /pattern\.nested(\.0)+ is nested deeper than 32 levels/);
  });

  describe('complete requests that reached Postgres before: refused by validation, and accepted once the value is fixed', () => {
    before(async () => {
      const r = await app.request('PUT', '/settings/workspace', { token: t.users.owner.token, body: { baseCurrency: 'EUR' } });
      assert.equal(r.status, 200, r.text);
    });
    const cases: { name: string; method: string; path: () => string; body: (bad: boolean) => unknown; field: string; status: number }[] = [
      { name: 'expense amount past NUMERIC(28,12)', method: 'POST', path: () => '/expense/', body: (bad) => ({ user: t.users.owner.tenantUserId, title: 'Ads', amount: bad ? 1e20 : 10, currency: 'USD' }), field: 'body.amount', status: 201 },
      { name: 'expense amount below the scale', method: 'POST', path: () => '/expense/', body: (bad) => ({ user: t.users.owner.tenantUserId, title: 'Ads', amount: bad ? '0.0000000000001' : '0.000000000001', currency: 'USD' }), field: 'body.amount', status: 201 },
      { name: 'expense date before year 1', method: 'POST', path: () => '/expense/', body: (bad) => ({ user: t.users.owner.tenantUserId, title: 'Ads', amount: 1, currency: 'USD', date: bad ? '0000-01-01' : '2026-01-01' }), field: 'body.date', status: 201 },
      { name: 'expense title with NUL', method: 'POST', path: () => '/expense/', body: (bad) => ({ user: t.users.owner.tenantUserId, title: bad ? 'A\u0000ds' : 'Ads', amount: 1, currency: 'USD' }), field: 'body.title', status: 201 },
      { name: 'expense currency outside ISO 4217', method: 'POST', path: () => '/expense/', body: (bad) => ({ user: t.users.owner.tenantUserId, title: 'Ads', amount: 1, currency: bad ? 'ABC' : 'EUR' }), field: 'body.currency', status: 201 },
      { name: 'revenue split share past NUMERIC(9,6)', method: 'POST', path: () => '/revenue/', body: (bad) => ({ title: 'Sync', amount: 10, currency: 'USD', splits: [{ user: t.users.owner.tenantUserId, share: bad ? 1000 : 100 }] }), field: 'body.splits.0.share', status: 201 },
      { name: 'payment date-time in year 0', method: 'POST', path: () => '/payment/', body: (bad) => ({ user: t.users.owner.tenantUserId, currency: 'EUR', amount: 1, transactionDate: bad ? '0000-01-01T00:00:00Z' : '2026-01-01T00:00:00Z' }), field: 'body.transactionDate', status: 201 },
      { name: 'exchange rate past NUMERIC(28,12)', method: 'PUT', path: () => '/currency/rates', body: (bad) => ({ rates: [{ currency: 'GBP', month: '2026-01', rate: bad ? '1e20' : '1.2' }] }), field: 'body.rates.0.rate', status: 200 },
      { name: 'exchange rate month in year 0', method: 'PUT', path: () => '/currency/rates', body: (bad) => ({ rates: [{ currency: 'GBP', month: bad ? '0000-01' : '2026-02', rate: '1.2' }] }), field: 'body.rates.0.month', status: 200 },
      { name: 'artist name with NUL', method: 'POST', path: () => '/artist/', body: (bad) => ({ name: bad ? 'Nova\u0000' : 'Nova' }), field: 'body.name', status: 201 },
      { name: 'artist metadata nested 1000 levels', method: 'POST', path: () => '/artist/', body: (bad) => ({ name: 'Deep', metadata: { x: bad ? JSON.parse('['.repeat(1000) + ']'.repeat(1000)) : [] } }), field: 'body.metadata.x', status: 201 },
      { name: 'product release date in year 0', method: 'POST', path: () => '/product/', body: (bad) => ({ title: 'EP', isDraft: true, releaseDate: bad ? '0000-01-01' : '2026-01-01' }), field: 'body.releaseDate', status: 201 },
    ];
    for (const c of cases) {
      it(c.name, async () => {
        const bad = await app.request(c.method, c.path(), { token: t.users.owner.token, body: c.body(true) });
        assert.equal(bad.status, 400, bad.text);
        assert.ok(bad.text.includes(c.field), bad.text);
        const good = await app.request(c.method, c.path(), { token: t.users.owner.token, body: c.body(false) });
        assert.equal(good.status, c.status, good.text);
      });
    }
    it('royalty filter start in year 0', async () => {
      const bad = await app.request('GET', '/royalty/?start=0000-01', { token: t.users.owner.token });
      assert.equal(bad.status, 400, bad.text);
      assert.ok(bad.text.includes('query.start'), bad.text);
      assert.equal((await app.request('GET', '/royalty/?start=2026-01', { token: t.users.owner.token })).status, 200);
    });
  });
});
