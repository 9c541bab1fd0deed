import assert from 'node:assert/strict';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { withTenant } from '../../src/db';

describe("users: a member's artists, recordings, products and earnings", () => {
  let app: TestApp;
  let a: TestTenant;
  let b: TestTenant;
  let artist: string;
  let otherArtist: string;
  before(async () => {
    app = await startTestApp();
    a = await createTestTenant(app, 'Ent');
    b = await createTestTenant(app, 'EntB');
    const tok = a.users.admin!.token;
    artist = (await app.request('POST', '/artist/', { token: tok, body: { name: 'Nina Sol' } })).body.data.id;
    otherArtist = (await app.request('POST', '/artist/', { token: tok, body: { name: 'Other Act' } })).body.data.id;
    const asset = await app.request('POST', '/asset', { token: tok, body: { title: 'Sunrise', isrc: 'USRC17607839', artists: [artist] } });
    assert.equal(asset.status, 201, JSON.stringify(asset.body));
    await app.request('POST', '/asset', { token: tok, body: { title: 'Not hers', isrc: 'USRC17607840', artists: [otherArtist] } });
    const prod = await app.request('POST', '/product/', { token: tok, body: { title: 'Dawn EP', upc: '036000291452', artists: [artist] } });
    assert.equal(prod.status, 201, JSON.stringify(prod.body));
  });
  after(async () => app.close());

  it('POST /user/bulk/entity ties members to artists; bad ids reported', async () => {
    const r = await app.request('POST', '/user/bulk/entity', {
      token: a.users.admin!.token,
      body: { users: [a.users.user!.tenantUserId, b.users.user!.tenantUserId], artists: [artist] },
    });
    assert.equal(r.status, 200);
    assert.equal(r.body.processedCount, 1);
    assert.deepEqual(r.body.errors, [`user ${b.users.user!.tenantUserId} is not a member of this workspace`]);
    assert.equal((await app.request('POST', '/user/bulk/entity', { token: a.users.user!.token, body: { users: [a.users.user!.tenantUserId], artists: [otherArtist] } })).status, 403);
  });

  it('lists own artists, recordings and products; others only for admins; other tenants 404', async () => {
    const me = a.users.user!;
    const ar = await app.request('GET', `/user/${me.tenantUserId}/artists`, { token: me.token });
    assert.deepEqual(ar.body.data.map((x: any) => x.name), ['Nina Sol']);
    const as = await app.request('GET', `/user/${me.tenantUserId}/assets`, { token: me.token });
    assert.deepEqual(as.body.data.map((x: any) => x.title), ['Sunrise']);
    const pr = await app.request('GET', `/user/${me.tenantUserId}/products`, { token: me.token });
    assert.deepEqual(pr.body.data.map((x: any) => x.title), ['Dawn EP']);
    assert.equal((await app.request('GET', `/user/${a.users.admin!.tenantUserId}/assets`, { token: me.token })).status, 403);
    assert.equal((await app.request('GET', `/user/${me.tenantUserId}/assets`, { token: a.users.admin!.token })).status, 200);
    assert.equal((await app.request('GET', `/user/${b.users.user!.tenantUserId}/artists`, { token: a.users.owner!.token })).status, 404);
  });

  it('stats and monthly earnings come from allocated earnings (exact decimals)', async () => {
    const me = a.users.user!;
    // Allocated lines paying me 50 % (amount = round(base × 50 / 100, 12)); line 4's allocation was superseded.
    const F = '00000000-0000-4000-8000-000000000001';
    const SET = '00000000-0000-4000-8000-0000000000a1';
    await withTenant(app.svc.db.app, a.tenantId, async (trx) => {
      await trx('royalty_share_sets').insert({ tenant_id: a.tenantId, share_set_id: SET, tenant_user_id: me.tenantUserId, share: 50, gets_remainder: false });
      const line = (n: number, base: string, month: string, current: boolean) => ({
        tenant_id: a.tenantId, file_id: F, line_no: n, net: base, currency: 'USD', base_amount: base, base_currency: 'USD', sale_month: month, share_set_id: current ? SET : null,
      });
      await trx('royalty_lines').insert([
        line(1, '0.000000000002', '2026-08-01', true), line(2, '20.2', '2026-09-01', true), line(3, '-0.2', '2026-09-01', true), line(4, '198', '2026-09-01', false),
      ]);
      await trx('royalty_allocation_history').insert({ tenant_id: a.tenantId, file_id: F, line_id: 4, share_set_id: SET, base_amount: '198', currency: 'USD', created_at: new Date(), superseded_at: new Date() });
    });
    const s = await app.request('GET', `/user/${me.tenantUserId}/stats`, { token: me.token });
    assert.equal(s.status, 200);
    assert.equal(s.body.data.earnings, '10.000000000001');
    assert.equal(s.body.data.lines, 3);
    assert.equal(s.body.data.artists, 1);
    assert.equal(s.body.data.assets, 1);
    assert.equal(s.body.data.products, 1);
    const m = await app.request('GET', `/user/${me.tenantUserId}/monthly?from=2026-09`, { token: me.token });
    assert.deepEqual(m.body.data.months, [{ month: '2026-09', earnings: '10.000000000000', lines: 2 }]);
  });
});
