import assert from 'node:assert/strict';
import { createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { startPartnerRun, type PartnerRun } from './helpers';
import { clock } from '../../src/lib/clock';

/** Data shares (docs/data-shares.md): granted by one workspace, read by another or by a link; revocation is immediate. */
describe('data shares', function () {
  let run: PartnerRun;
  let app: TestApp;
  let a: TestTenant;
  let b: TestTenant;
  let c: TestTenant;
  let artistLuna: string;

  before(async () => {
    run = await startPartnerRun();
    app = run.app;
    a = await createTestTenant(app, 'ShareA');
    b = await createTestTenant(app, 'ShareB');
    c = await createTestTenant(app, 'ShareC');
    const t = a.users.admin!.token;
    const r1 = await app.request('POST', '/asset', { token: t, body: { title: 'Night Drive', isrc: 'USRC12600001', artists: ['Luna Vale'] } });
    assert.equal(r1.status, 201, r1.text);
    artistLuna = r1.body.data.artists[0];
    const r2 = await app.request('POST', '/asset', { token: t, body: { title: 'Other Song', isrc: 'USRC12600009', artists: ['Someone Else'] } });
    assert.equal(r2.status, 201, r2.text);
  });
  after(async () => run.close());

  const create = (t: TestTenant, body: unknown) => app.request('POST', '/data-shares', { token: t.users.admin!.token, body });

  it('shares a catalogue export with another workspace, which reads exactly the scoped artists', async () => {
    const r = await create(a, { resource: 'catalogue-export', scope: { artists: [artistLuna] }, granteeWorkspaceId: b.workspaceId });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.status, 'success');
    assert.deepEqual(r.body.data.grantee, { type: 'workspace', workspaceId: b.workspaceId });
    assert.equal(r.body.data.token, undefined, 'a workspace share has no link token');
    const id = r.body.data.id;

    const got = await app.request('GET', `/data-shares/${id}`, { token: a.users.admin!.token });
    assert.equal(got.status, 200, got.text);
    assert.equal(got.body.data.resource, 'catalogue-export');

    const recv = await app.request('GET', '/data-shares/received', { token: b.users.admin!.token });
    assert.equal(recv.status, 200, recv.text);
    assert.deepEqual(recv.body.data.map((s: { id: string }) => s.id), [id]);
    assert.equal(recv.body.data[0].from.workspaceId, a.workspaceId);

    const data = await app.request('GET', `/data-shares/received/${id}/data`, { token: b.users.admin!.token });
    assert.equal(data.status, 200, data.text);
    assert.deepEqual(data.body.data.data.assets.map((x: { isrc: string }) => x.isrc), ['USRC12600001']);
    assert.equal(data.body.data.data.assets[0].splits, undefined, 'member shares are not exported');
    assert.deepEqual(data.body.data.data.products, []);
  });

  it('another workspace can neither see, read nor delete a share it does not hold', async () => {
    const r = await create(a, { resource: 'catalogue-export', scope: { artists: 'all' }, granteeWorkspaceId: b.workspaceId });
    const id = r.body.data.id;
    for (const [m, p] of [['GET', `/data-shares/${id}`], ['DELETE', `/data-shares/${id}`], ['GET', `/data-shares/received/${id}/data`]] as const) {
      const x = await app.request(m, p, { token: c.users.admin!.token });
      assert.equal(x.status, 404, `${m} ${p}: ${x.text}`);
      assert.deepEqual(Object.keys(x.body).sort(), ['code', 'message', 'status']);
      assert.equal(x.body.status, 'error');
    }
    // the grantee cannot manage the granter's share either
    assert.equal((await app.request('DELETE', `/data-shares/${id}`, { token: b.users.admin!.token })).status, 404);
    assert.equal((await app.request('GET', `/data-shares/${id}`, { token: b.users.admin!.token })).status, 404);
    const list = await app.request('GET', '/data-shares', { token: c.users.admin!.token });
    assert.equal(list.body.pagination.total, 0);
    const still = await app.request('GET', `/data-shares/received/${id}/data`, { token: b.users.admin!.token });
    assert.equal(still.status, 200, still.text);
  });

  it('a signed link: the token is shown once, stored hashed, and answers the data without sign-in', async () => {
    const r = await create(a, { resource: 'payee-analytics', scope: { userId: a.users.user!.tenantUserId, from: '2026-01' } });
    assert.equal(r.status, 201, r.text);
    const token = r.body.data.token as string;
    assert.match(token, /^RDS_/);
    assert.deepEqual(r.body.data.grantee, { type: 'link' });
    const row = await app.svc.db.owner('data_shares').where({ id: r.body.data.id }).first();
    assert.ok(!JSON.stringify(row).includes(token), 'the token is not stored');
    const again = await app.request('GET', `/data-shares/${r.body.data.id}`, { token: a.users.admin!.token });
    assert.equal(again.body.data.token, undefined);
    assert.ok(!again.text.includes(token));

    const pub = await app.request('GET', `/data-shares/access/${token}`);
    assert.equal(pub.status, 200, pub.text);
    assert.equal(pub.body.data.resource, 'payee-analytics');
    assert.deepEqual(pub.body.data.data, { userId: a.users.user!.tenantUserId, currency: 'USD', earnings: '0', lines: 0, months: [] });
    const wrong = await app.request('GET', `/data-shares/access/${token.slice(0, -2)}xx`);
    assert.equal(wrong.status, 404);
    // the token travels in the path: the request log masks it
    assert.ok(run.logs.some((l) => l.includes('/data-shares/access/***')), 'the link request was logged, masked');
    assert.equal(run.logs.find((l) => l.includes(token)), undefined, 'no log line carries the token');
  });

  it('DELETE is permanent and immediate: the link and the grant answer 404 at once', async () => {
    const link = await create(a, { resource: 'catalogue-export', scope: {} });
    const grant = await create(a, { resource: 'catalogue-export', scope: {}, granteeWorkspaceId: c.workspaceId });
    assert.equal((await app.request('GET', `/data-shares/access/${link.body.data.token}`)).status, 200);
    for (const s of [link, grant]) {
      const d = await app.request('DELETE', `/data-shares/${s.body.data.id}`, { token: a.users.admin!.token });
      assert.equal(d.status, 200, d.text);
      assert.deepEqual(d.body, { status: 'success', message: 'Data share deleted', data: null });
      assert.equal((await app.request('DELETE', `/data-shares/${s.body.data.id}`, { token: a.users.admin!.token })).status, 404);
      assert.equal((await app.request('GET', `/data-shares/${s.body.data.id}`, { token: a.users.admin!.token })).status, 404);
    }
    assert.equal((await app.request('GET', `/data-shares/access/${link.body.data.token}`)).status, 404);
    assert.equal((await app.request('GET', `/data-shares/received/${grant.body.data.id}/data`, { token: c.users.admin!.token })).status, 404);
    const recv = await app.request('GET', '/data-shares/received', { token: c.users.admin!.token });
    assert.deepEqual(recv.body.data, []);
  });

  it('an expired share answers 404 to its link and its grantee', async () => {
    const expiresAt = new Date(clock.now().getTime() + 60_000).toISOString();
    const link = await create(a, { resource: 'catalogue-export', scope: {}, expiresAt });
    const grant = await create(a, { resource: 'catalogue-export', scope: {}, expiresAt, granteeWorkspaceId: c.workspaceId });
    assert.equal((await app.request('GET', `/data-shares/access/${link.body.data.token}`)).status, 200);
    assert.equal((await app.request('GET', `/data-shares/received/${grant.body.data.id}/data`, { token: c.users.admin!.token })).status, 200);
    clock.advance(120_000);
    try {
      assert.equal((await app.request('GET', `/data-shares/access/${link.body.data.token}`)).status, 404);
      assert.equal((await app.request('GET', `/data-shares/received/${grant.body.data.id}/data`, { token: c.users.admin!.token })).status, 404);
      const recv = await app.request('GET', '/data-shares/received', { token: c.users.admin!.token });
      assert.ok(!recv.body.data.some((s: { id: string }) => s.id === grant.body.data.id));
    } finally {
      clock.reset();
    }
  });

  it('bad input is a 400 naming the field, in the status shape', async () => {
    const cases: [unknown, string][] = [
      [{ resource: 'payroll', scope: {} }, 'resource'],
      [{ resource: 'payee-analytics', scope: {} }, 'scope.userId'],
      [{ resource: 'payee-analytics', scope: { userId: b.users.user!.tenantUserId } }, 'scope.userId'],
      [{ resource: 'catalogue-export', scope: { artists: ['00000000-0000-4000-8000-000000000000'] } }, 'scope.artists'],
      [{ resource: 'catalogue-export', scope: {}, expiresAt: '2020-01-01T00:00:00Z' }, 'expiresAt'],
      [{ resource: 'catalogue-export', scope: {}, granteeWorkspaceId: a.workspaceId }, 'granteeWorkspaceId'],
      [{ resource: 'catalogue-export', scope: {}, granteeWorkspaceId: '00000000-0000-4000-8000-000000000000' }, 'granteeWorkspaceId'],
    ];
    for (const [body, field] of cases) {
      const r = await create(a, body);
      assert.equal(r.status, 400, `${JSON.stringify(body)}: ${r.text}`);
      assert.equal(r.body.status, 'error');
      assert.ok(r.text.includes(field), `${JSON.stringify(body)} names ${field}: ${r.text}`);
    }
  });

  it('members below admin cannot grant or read received shares', async () => {
    assert.equal((await create({ ...a, users: { admin: a.users.user! } }, { resource: 'catalogue-export', scope: {} })).status, 403);
    assert.equal((await app.request('GET', '/data-shares/received', { token: b.users.user!.token })).status, 403);
  });
});
