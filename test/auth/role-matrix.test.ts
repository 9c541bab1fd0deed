/**
 * The role matrix (docs/auth.md "Role matrix"): what a guest and a user see. Every list route
 * (a GET without a path id, taken from the route registry, so a route added later is swept
 * without a line here) is called as a `user` and as a `guest` of a workspace where another
 * payee has artists, recordings, earnings, an issued statement, payments, expenses, revenue,
 * payment settings and a payment request. Each answer is either the 403 the route's declared
 * role gives, in the route's error shape, or a 200 holding nothing of the other payee and no
 * other member's e-mail address.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { startTestApp, createTestTenant, signIn, type TestApp, type TestTenant } from '../helpers/app';
import { routeRegistry, type RegisteredRoute } from '../../src/http/route';
import { ROLE_RANK } from '../../src/domain/roles';
import { ensureGlobalUser, upsertMembership } from '../../src/modules/users/service';
import { withTenant } from '../../src/db';
import { goodValue, leaves } from '../helpers/schema-leaves';
import { isrc, upc } from '../catalogue/helpers';
import { allocateFile, uuid } from '../money/helpers';

type Json = Record<string, any>;

describe('role matrix: guests and users see only their own', function () {
  this.timeout(600_000);
  let app: TestApp;
  let t: TestTenant;
  const other = { email: 'zora.leakmark@matrix.test', id: '', token: '' };
  const fileId = uuid();
  const their: Record<string, string> = {};
  const mine: Record<string, string> = {};
  /** What must never reach the user or the guest. */
  let markers: string[] = [];

  const as = (role: string) => t.users[role]!.token;
  const ok201 = async (method: string, path: string, body: unknown, token = as('admin')) => {
    const r = await app.request(method, path, { token, body });
    assert.equal(r.status, 201, `${method} ${path}: ${r.status} ${r.text.slice(0, 300)}`);
    return r.body.data as Json;
  };

  before(async () => {
    app = await startTestApp();
    t = await createTestTenant(app, 'Matrix');
    // every plan feature, so no route stops at its plan gate
    await app.svc.db.owner('tenants').where({ id: t.tenantId }).update({ plan: 'enterprise' });
    // another payee of the label
    const owner = app.svc.db.owner;
    const g = await ensureGlobalUser(owner, { email: other.email, passwordHash: await app.svc.auth.hashPassword('correct horse battery'), firstName: 'Zora', lastName: 'Leakmark' });
    other.id = await upsertMembership(owner, t.tenantId, g.id, 'user');
    other.token = (await signIn(app, other.email, 'correct horse battery', t.workspaceId)).token;
    const me = t.users.user!.tenantUserId;

    // catalogue: one artist each, a recording and a product each, 100 % splits
    mine.artist = (await ok201('POST', '/artist/', { name: 'Mine Artist', users: [me] })).id;
    their.artist = (await ok201('POST', '/artist/', { name: 'Leakmark Artist', users: [other.id] })).id;
    mine.asset = (await ok201('POST', '/asset', { title: 'Mine Song', isrc: isrc(), artists: [mine.artist], splits: [{ user: me, share: 100 }] })).id;
    their.asset = (await ok201('POST', '/asset', { title: 'Leakmark Song', isrc: isrc(), artists: [their.artist], splits: [{ user: other.id, share: 100 }] })).id;
    their.product = (await ok201('POST', '/product/', { title: 'Leakmark EP', upc: upc(), artists: [their.artist] })).id;
    their.release = (await ok201('POST', '/releases', { title: 'Leakmark Release', artistName: 'Leakmark Artist' }, other.token)).id;
    // a statement file of the label and its allocated earnings
    await withTenant(app.svc.db.app, t.tenantId, (trx) =>
      trx('files').insert({ tenant_id: t.tenantId, id: fileId, original_name: 'leakmark-statement.csv', status: 'processed', accounting_period: '2026-10-01', allocated_at: new Date() }),
    );
    await allocateFile(app, t.tenantId, fileId, [
      { payee: me, amount: '10', assetId: mine.asset, artistId: mine.artist, quantity: '5' },
      { payee: other.id, amount: '4321.1234', assetId: their.asset, artistId: their.artist, quantity: '77' },
    ]);
    // issued statements of the period, one per payee
    const run = await ok201('POST', '/statements/runs', { period: '2026-10' });
    const issued = await app.request('POST', `/statements/runs/${run.id}/issue`, { token: as('admin') });
    assert.equal(issued.status, 200, issued.text);
    const all = (await app.request('GET', '/statements?size=50', { token: as('admin') })).body.data as Json[];
    their.statement = all.find((s) => s.user === other.id)!.id;
    mine.statement = all.find((s) => s.user === me)!.id;
    // the other payee's money records
    their.payment = (await ok201('POST', '/payment/', { user: other.id, title: 'Leakmark payout', amount: '12.34', currency: 'USD' })).id;
    their.expense = (await ok201('POST', '/expense/', { user: other.id, title: 'Leakmark mastering', amount: '5', currency: 'USD' })).id;
    their.revenue = (await ok201('POST', '/revenue/', { title: 'Leakmark sync', amount: '100', currency: 'USD', splits: [{ user: other.id, share: 100 }] })).id;
    their.setting = (await ok201('POST', '/payment-setting', { method: 'paypal', details: { email: other.email } }, other.token)).id;
    their.request = (await ok201('POST', '/payment-request/', { amount: '3', memo: 'Leakmark request' }, other.token)).id;
    // publishing: a writer tied to the other payee
    await ok201('POST', '/writers', { firstName: 'Zora', lastName: 'Leakmark', controlled: true, user: other.id });

    // (the statement file's id is not one: the user's own earnings come from it too)
    markers = ['leakmark', other.email, other.id, '4321', ...Object.values(their)];
  });
  after(async () => app?.close());

  /** Every tenant route without a path id that answers GET: the list routes. */
  function listRoutes(): RegisteredRoute[] {
    const seen = new Set<string>();
    return routeRegistry.filter((r) => {
      if (r.method !== 'get' || r.path.includes(':') || !(r.access in ROLE_RANK) || r.access === 'super_admin') return false;
      const key = r.path.replace(/\/$/, '');
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  }

  /** The route's path with its required query parameters filled. */
  function withQuery(r: RegisteredRoute): string {
    // a required value with a pattern, or one the handler requires
    const given: Record<string, string> = { '/royalty/lines': 'period=2026-10', '/royalty/allocations/history': `fileId=${fileId}` };
    if (given[r.path]) return `${r.path}?${given[r.path]}`;
    const q = r.query as Json | undefined;
    const required: string[] = q?.required ?? [];
    const qs = required.map((name) => {
      const s = q!.properties[name] as Json;
      const fixed = s.const ?? s.enum?.[0] ?? s.anyOf?.find((b: Json) => b.const !== undefined)?.const;
      return `${name}=${encodeURIComponent(String(fixed ?? goodValue(leaves(s)[0]?.kind ?? 'text')))}`;
    });
    return qs.length ? `${r.path}?${qs.join('&')}` : r.path;
  }

  /** Emails of the workspace's members other than `role`. */
  const othersEmails = (role: string) => [...Object.entries(t.users).filter(([k]) => k !== role).map(([, u]) => u.email), other.email];

  function assertErrorShape(r: RegisteredRoute, body: Json, label: string) {
    if (r.errorShape === 'catalogue') {
      assert.equal(body.success, false, label);
      assert.equal(typeof body.error?.code, 'string', label);
      assert.equal(typeof body.error?.message, 'string', label);
    } else if (r.errorShape === 'agreement') {
      assert.equal(typeof body.message, 'string', label);
      assert.equal(typeof body.error, 'string', label);
    } else {
      assert.equal(r.errorShape, 'status', `${label}: an error shape the sweep does not know`);
      assert.equal(body.status, 'error', label);
      assert.equal(typeof body.message, 'string', label);
    }
  }

  it('the seed is visible to an admin (so a leak would show)', async () => {
    const admin = as('admin');
    const text = async (p: string) => (await app.request('GET', p, { token: admin })).text.toLowerCase();
    assert.match(await text('/file/'), /leakmark-statement\.csv/);
    assert.ok((await text('/user/?size=50')).includes(other.email));
    assert.match(await text('/artist/'), /leakmark artist/);
    assert.ok((await text('/statements?size=50')).includes(their.statement!));
    assert.ok((await text('/payment/')).includes(their.payment!));
    assert.match(await text('/accounting/transactions?size=100'), /4321\.12/);
  });

  for (const role of ['user', 'guest'] as const) {
    it(`every list route as a ${role}: the 403 of its declared role, or only the ${role}'s own`, async () => {
      const routes = listRoutes();
      assert.ok(routes.length > 60, `only ${routes.length} list routes`);
      const forbidden = [...markers.map((m) => m.toLowerCase()), ...othersEmails(role).map((e) => e.toLowerCase())];
      const problems: string[] = [];
      for (const r of routes) {
        const path = withQuery(r);
        const res = await app.request('GET', path, { token: as(role) });
        const label = `GET ${path} as ${role}`;
        const allowed = ROLE_RANK[role] >= ROLE_RANK[r.access as keyof typeof ROLE_RANK];
        if (!allowed) {
          if (res.status !== 403) problems.push(`${label}: ${res.status}, expected 403 (needs ${r.access})`);
          else assertErrorShape(r, res.body, label);
          continue;
        }
        if (res.status !== 200) {
          problems.push(`${label}: ${res.status} ${res.text.slice(0, 200)}`);
          continue;
        }
        if (r.scope !== 'own' && r.scope !== 'workspace') problems.push(`${label}: no declared scope`);
        const text = res.text.toLowerCase();
        const leaked = forbidden.filter((m) => text.includes(m));
        if (leaked.length) problems.push(`${label} (scope ${r.scope}) shows ${leaked.join(', ')}`);
      }
      assert.deepEqual(problems, []);
    });
  }

  it("a user's own: their member record, statement, balance and earnings (the payee page's reads)", async () => {
    const me = t.users.user!.tenantUserId;
    const token = as('user');
    const list = await app.request('GET', '/user/', { token });
    assert.deepEqual(list.body.data.map((u: Json) => u.id), [me]);
    assert.equal((await app.request('GET', `/user/${me}`, { token })).status, 200);
    const statements = await app.request('GET', '/statements', { token });
    assert.deepEqual(statements.body.data.map((s: Json) => s.id), [mine.statement]);
    assert.equal((await app.request('GET', `/statements/${mine.statement}`, { token })).status, 200);
    const stats = await app.request('GET', `/accounting/${me}/stats`, { token });
    assert.equal(stats.status, 200, stats.text);
    assert.equal((await app.request('GET', `/user/${me}/monthly`, { token })).status, 200);
    assert.equal((await app.request('GET', '/payment-request/?size=50', { token })).status, 200);
    const artists = await app.request('GET', '/artist/', { token });
    assert.deepEqual(artists.body.data.map((a: Json) => a.id), [mine.artist]);
  });

  it("another payee's statement, balance, member record and catalogue by id, as a user: refused", async () => {
    const token = as('user');
    const status = async (p: string) => (await app.request('GET', p, { token })).status;
    const refused: [string, number][] = [
      [`/statements/${their.statement}`, 404],
      [`/statements/${their.statement}/pdf`, 404],
      [`/statements/${their.statement}/csv`, 404],
      [`/accounting/${other.id}/stats`, 403],
      [`/accounting/statement/${other.id}?period=2026-10`, 403],
      [`/user/${other.id}`, 403],
      [`/user/${t.users.admin!.tenantUserId}`, 403],
      [`/user/${other.id}/monthly`, 403],
      [`/user/${other.id}/artists`, 403],
      [`/payment/${their.payment}`, 404],
      [`/expense/${their.expense}`, 404],
      [`/revenue/${their.revenue}`, 404],
      [`/payment-setting/${their.setting}`, 404],
      [`/payment-request/${their.request}`, 404],
      [`/releases/${their.release}`, 404],
      [`/releases/${their.release}/feedback`, 404],
      [`/artist/${their.artist}`, 404],
      [`/asset/${their.asset}`, 404],
      [`/product/${their.product}`, 404],
      [`/file/${fileId}`, 403],
    ];
    const got = await Promise.all(refused.map(async ([p]) => [p, await status(p)] as [string, number]));
    assert.deepEqual(got, refused);
  });

  it("docs/auth.md's role matrix is what the routes declare", () => {
    const seen = new Set<string>();
    const expected = routeRegistry
      .filter((r) => r.access === 'guest' || r.access === 'user')
      .map((r) => `| \`${r.method.toUpperCase()} ${r.path.replace(/:([A-Za-z]+)/g, '{$1}')}\` | ${r.access === 'guest' ? r.scope : '403'} | ${r.scope} |`)
      .filter((row) => !seen.has(row) && !!seen.add(row))
      .sort((a, b) => a.replace(/^\| `\w+ /, '').localeCompare(b.replace(/^\| `\w+ /, '')) || a.localeCompare(b));
    const doc = fs.readFileSync('docs/auth.md', 'utf8');
    const start = doc.indexOf('### Role matrix');
    assert.ok(start >= 0, 'docs/auth.md has no "### Role matrix"');
    const section = doc.slice(start, doc.indexOf('\n## ', start));
    const rows = section.split('\n').filter((l) => l.startsWith('| `'));
    assert.deepEqual(rows, expected, `docs/auth.md should list:\n${expected.join('\n')}`);
  });
});
