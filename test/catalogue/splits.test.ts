import assert from 'node:assert/strict';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { upc, isrc } from './helpers';

describe('splits', () => {
  let app: TestApp;
  let a: TestTenant;
  let b: TestTenant;
  let adm: string;
  let U: string, A: string, O: string;
  let artist: string, asset: string, product: string;
  before(async () => {
    app = await startTestApp();
    a = await createTestTenant(app, 'SplitA');
    b = await createTestTenant(app, 'SplitB');
    adm = a.users.admin!.token;
    U = a.users.user!.tenantUserId;
    A = a.users.admin!.tenantUserId;
    O = a.users.owner!.tenantUserId;
    artist = (await app.request('POST', '/artist/', { token: adm, body: { name: 'Split Artist', users: [U] } })).body.data.id;
    asset = (await app.request('POST', '/asset', { token: adm, body: { title: 'Split Song', isrc: isrc(), artists: [artist] } })).body.data.id;
    product = (await app.request('POST', '/product/', { token: adm, body: { title: 'Split EP', upc: upc(), artists: [artist], assets: [asset] } })).body.data.id;
  });
  after(async () => app.close());

  it('POST /split/ answers {success, message, data}; a sum other than 100 is a 400 naming the sum', async () => {
    const bad = await app.request('POST', '/split/', { token: adm, body: { asset, split: [{ user: U, share: 50 }, { user: A, share: 49.99 }] } });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.success, false);
    assert.equal(bad.body.error.code, 'SPLIT_SUM');
    assert.match(bad.body.error.message, /99\.99/);
    const over = await app.request('POST', '/split/', { token: adm, body: { asset, split: [{ user: U, share: 60 }, { user: A, share: 60 }] } });
    assert.match(over.body.error.message, /120/);
    const stranger = await app.request('POST', '/split/', { token: adm, body: { asset, split: [{ user: b.users.owner!.tenantUserId, share: 100 }] } });
    assert.equal(stranger.status, 400);
    assert.match(stranger.body.error.details.join(' '), /not a member/);
    const two = await app.request('POST', '/split/', { token: adm, body: { asset, split: [{ user: U, share: 1 }, { user: U, share: 99 }] } });
    assert.equal(two.status, 400);
    assert.equal((await app.request('POST', '/split/', { token: adm, body: { asset, product, split: [{ user: U, share: 100 }] } })).status, 400);
    const ok = await app.request('POST', '/split/', { token: adm, body: { asset, split: [{ user: U, share: 33.333333 }, { user: A, share: 66.666667 }] } });
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
    assert.equal(ok.body.success, true);
    assert.equal(ok.body.data.target, 'asset');
    assert.equal(ok.body.data.type, 'all');
    // same target, type and conditions: replaced, not duplicated
    const again = await app.request('POST', '/split/', { token: adm, body: { asset, split: [{ user: U, share: 50 }, { user: O, share: 50 }] } });
    assert.equal(again.body.data.id, ok.body.data.id);
    assert.equal(again.body.message, 'Split updated');
    const got = await app.request('GET', `/asset/${asset}`, { token: adm });
    assert.deepEqual(got.body.data.splits.map((s: any) => s.share), [50, 50]);
    // history: who changed what share when
    const h = await app.request('GET', `/split/${ok.body.data.id}/history`, { token: adm });
    const actions = h.body.data.map((x: any) => `${x.action}:${x.user === U ? 'U' : x.user === A ? 'A' : 'O'}:${x.oldShare ?? '-'}>${x.newShare ?? '-'}`);
    assert.deepEqual(actions, ['add:U:->33.333333', 'add:A:->66.666667', 'remove:A:66.666667>-', 'change:U:33.333333>50.000000', 'add:O:->50.000000']);
    assert.ok(h.body.data.every((x: any) => x.changedBy === A && x.changedAt));
    const byUser = await app.request('GET', `/split/history?user=${A}`, { token: adm });
    assert.equal(byUser.body.data.length, 2);
  });

  it('POST /split/match resolves as allocation will: asset, else product, else artist default; conditions respected', async () => {
    const fresh = (await app.request('POST', '/asset', { token: adm, body: { title: 'Match', isrc: isrc(), artists: [artist] } })).body.data;
    const prod = (await app.request('POST', '/product/', { token: adm, body: { title: 'Match EP', upc: upc(), assets: [fresh.id] } })).body.data;
    let m = await app.request('POST', '/split/match', { token: a.users.user!.token, body: { asset: fresh.id, product: prod.id } });
    assert.equal(m.status, 200);
    assert.equal(m.body.data.split, null);
    const def = await app.request('PUT', `/artist/${artist}/splits/all`, { token: adm, body: { split: [{ user: O, share: 100 }] } });
    assert.equal(def.status, 200, JSON.stringify(def.body));
    m = await app.request('POST', '/split/match', { token: adm, body: { isrc: fresh.isrc, upc: prod.upc } });
    assert.equal(m.body.data.level, 'asset_artist');
    const ps = await app.request('POST', '/split/', { token: adm, body: { product: prod.id, split: [{ user: A, share: 100 }] } });
    m = await app.request('POST', '/split/match', { token: adm, body: { asset: fresh.id, product: prod.id } });
    assert.equal(m.body.data.level, 'product');
    assert.equal(m.body.data.split.id, ps.body.data.id);
    // a stream split for France from 2026-01-01 beats the general one only where it applies
    const fr = await app.request('POST', '/split/', { token: adm, body: { asset: fresh.id, type: 'stream', conditions: { validFrom: '2026-01-01', territories: ['fr'] }, split: [{ user: U, share: 100 }] } });
    assert.equal(fr.status, 201, JSON.stringify(fr.body));
    // beside Rondo's names, the reference service's (docs/api.md "Resource bodies in the reference's names")
    assert.deepEqual(fr.body.data.conditions, { validFrom: '2026-01-01', validTo: null, territories: ['FR'], mode: 'include', period_start: '2026-01-01', period_end: null });
    const q = (body: object) => app.request('POST', '/split/match', { token: adm, body: { asset: fresh.id, product: prod.id, ...body } });
    assert.equal((await q({ type: 'stream', territory: 'FR', saleDate: '2026-02-01' })).body.data.level, 'asset');
    assert.equal((await q({ type: 'stream', territory: 'FR', saleDate: '2025-12-31' })).body.data.level, 'product');
    assert.equal((await q({ type: 'stream', territory: 'DE', saleDate: '2026-02-01' })).body.data.level, 'product');
    assert.equal((await q({ type: 'download', territory: 'FR', saleDate: '2026-02-01' })).body.data.level, 'product');
    assert.equal((await app.request('POST', '/split/match', { token: adm, body: { isrc: 'ZZ-ZZZ-00-00000' } })).status, 404);
    assert.equal((await app.request('POST', '/split/match', { token: a.users.guest!.token, body: { asset: fresh.id } })).status, 403);
  });

  it('artist default splits: GET/POST /artist/{id}/splits and GET/PUT/DELETE /artist/{id}/splits/{type}; POST /split/default', async () => {
    const ar = (await app.request('POST', '/artist/', { token: adm, body: { name: 'Defaults' } })).body.data.id;
    assert.equal((await app.request('GET', `/artist/${ar}/splits/download`, { token: adm })).status, 404);
    const p = await app.request('POST', `/artist/${ar}/splits`, { token: adm, body: { type: 'download', split: [{ user: U, share: 100 }] } });
    assert.equal(p.status, 201);
    const d = await app.request('POST', '/split/default', { token: adm, body: { artist: ar, split: [{ user: A, share: 100 }] } });
    assert.equal(d.status, 201);
    assert.equal((await app.request('GET', `/artist/${ar}/splits`, { token: a.users.guest!.token })).status, 404); // not the guest's artist
    assert.equal((await app.request('GET', `/artist/${ar}/splits`, { token: adm })).body.data.length, 2);
    assert.equal((await app.request('GET', `/artist/${ar}/splits/download`, { token: adm })).body.data[0].split[0].user, U);
    const bad = await app.request('PUT', `/artist/${ar}/splits/download`, { token: adm, body: { split: [{ user: U, share: 99 }] } });
    assert.equal(bad.status, 400);
    assert.equal((await app.request('PUT', `/artist/${ar}/splits/nonsense`, { token: adm, body: { split: [{ user: U, share: 100 }] } })).status, 400);
    assert.equal((await app.request('DELETE', `/artist/${ar}/splits/download`, { token: adm })).status, 200);
    assert.equal((await app.request('GET', `/artist/${ar}/splits`, { token: adm })).body.data.length, 1);
  });

  it('bulk split routes report per item and never fail the whole request', async () => {
    const s1 = (await app.request('POST', '/asset', { token: adm, body: { title: 'B1', isrc: isrc(), artists: [artist] } })).body.data.id;
    const s2 = (await app.request('POST', '/asset', { token: adm, body: { title: 'B2', isrc: isrc() } })).body.data.id;
    const p1 = (await app.request('POST', '/product/', { token: adm, body: { title: 'BP1', upc: upc(), artists: [artist] } })).body.data.id;
    const p2 = (await app.request('POST', '/product/', { token: adm, body: { title: 'BP2', upc: upc(), artists: ['Nobody Default'] } })).body.data.id;
    const missing = '00000000-0000-4000-8000-000000000009';
    const bs = await app.request('POST', '/asset/bulksplits', { token: adm, body: { items: [{ id: s1, split: [{ user: U, share: 100 }] }, { id: s2, split: [{ user: U, share: 90 }] }, { id: missing, split: [{ user: U, share: 100 }] }] } });
    assert.equal(bs.status, 200);
    assert.equal(bs.body.processed, 1);
    assert.equal(bs.body.errors.length, 2);
    assert.match(bs.body.errors[0], /got 90/);
    const pb = await app.request('PUT', '/product/bulksplits', { token: adm, body: { items: [{ id: p1, type: 'stream', split: [{ user: A, share: 100 }] }, { id: p2, type: 'bogus', split: [{ user: A, share: 100 }] }] } });
    assert.equal(pb.body.processed, 1);
    // PUT /product/bulk/defaultsplit: 201; an id whose artist has no default split reported with that reason
    const dfl = await app.request('PUT', '/product/bulk/defaultsplit', { token: adm, body: { products: [p1, p2, missing] } });
    assert.equal(dfl.status, 201);
    assert.equal(dfl.body.processed, 1);
    assert.equal(dfl.body.errors.length, 2);
    assert.ok(dfl.body.errors.some((e: string) => e.startsWith(p2) && /artist default split is not set/.test(e)), dfl.body.errors.join('\n'));
    const adf = await app.request('PUT', '/asset/bulk/defaultsplit', { token: adm, body: { assets: [s1, s2] } });
    assert.equal(adf.status, 201);
    assert.equal(adf.body.processed, 1);
    assert.match(adf.body.errors[0], /no artist/);
    assert.equal((await app.request('PUT', `/asset/${s2}/setdefaultsplit`, { token: adm })).status, 400);
    assert.equal((await app.request('PUT', `/product/${p1}/setdefaultsplit`, { token: adm })).status, 200);
    const del = await app.request('POST', '/asset/bulk/deletesplit', { token: adm, body: { ids: [s1, s2] } });
    assert.equal(del.body.processedCount, 1);
    assert.equal(del.body.failedDeletions[0].id, s2);
    const pdel = await app.request('POST', '/product/bulk/deletesplit', { token: adm, body: { ids: [p1], type: 'stream' } });
    assert.equal(pdel.body.processedCount, 1);
    const ab = await app.request('POST', '/artist/bulksplit', { token: adm, body: { artists: [artist, missing], type: 'sync', split: [{ user: U, share: 100 }] } });
    assert.equal(ab.body.processed, 1);
    assert.equal(ab.body.errors.length, 1);
    const list = await app.request('GET', `/split/?artist=${artist}&type=sync`, { token: adm });
    assert.equal(list.body.data.length, 1);
    const sd = await app.request('POST', '/split/bulk/delete', { token: adm, body: { ids: [list.body.data[0].id, missing] } });
    assert.equal(sd.body.processedCount, 1);
    assert.equal(sd.body.failedDeletions[0].id, missing);
  });

  it('GET/PUT/DELETE /split/{id}, list filters, POST /splits/validate, role limits, cross-tenant', async () => {
    const s = (await app.request('POST', '/split/', { token: adm, body: { product, type: 'physical', split: [{ user: U, share: 100 }] } })).body.data;
    assert.equal((await app.request('GET', `/split/${s.id}`, { token: a.users.guest!.token })).status, 404); // not the guest's product
    assert.equal((await app.request('GET', `/split/${s.id}`, { token: adm })).body.data.id, s.id);
    const u = await app.request('PUT', `/split/${s.id}`, { token: adm, body: { split: [{ user: U, share: 25 }, { user: A, share: 75 }], conditions: { territories: ['US', 'CA'] } } });
    assert.equal(u.status, 200, JSON.stringify(u.body));
    assert.deepEqual(u.body.data.conditions.territories, ['CA', 'US']);
    assert.equal((await app.request('PUT', `/split/${s.id}`, { token: adm, body: { split: [{ user: U, share: 25 }] } })).status, 400);
    const byUser = await app.request('GET', `/split/?user=${A}&product=${product}`, { token: adm });
    assert.ok(byUser.body.data.some((x: any) => x.id === s.id));
    const v = await app.request('POST', '/splits/validate', { token: a.users.user!.token, body: { split: [{ user: U, share: 50 }, { user: A, share: 40 }] } });
    assert.equal(v.status, 200);
    assert.equal(v.body.data.valid, false);
    assert.equal(v.body.data.total, '90');
    const v2 = await app.request('POST', '/splits/validate', { token: a.users.user!.token, body: { asset, split: [{ user: U, share: 50 }, { user: A, share: 50 }] } });
    assert.equal(v2.body.data.valid, true);
    for (const [role, code] of [['guest', 403], ['user', 403], ['admin', 201], ['owner', 201]] as const) {
      const r = await app.request('POST', '/split/', { token: a.users[role]!.token, body: { asset, type: 'radio', split: [{ user: U, share: 100 }] } });
      assert.equal(r.status, code, role);
    }
    const other = b.users.owner!.token;
    for (const [m, p, body] of [
      ['GET', `/split/${s.id}`], ['PUT', `/split/${s.id}`, { split: [{ user: b.users.owner!.tenantUserId, share: 100 }] }], ['DELETE', `/split/${s.id}`],
      ['GET', `/split/${s.id}/history`],
      ['POST', '/split/', { asset, split: [{ user: b.users.owner!.tenantUserId, share: 100 }] }],
      ['POST', '/split/match', { asset }],
    ] as [string, string, unknown?][]) {
      const r = await app.request(m, p, { token: other, body });
      assert.equal(r.status, 404, `${m} ${p} ${JSON.stringify(r.body)}`);
    }
    assert.equal((await app.request('GET', '/split/', { token: other })).body.data.length, 0);
    assert.equal((await app.request('GET', '/split/history', { token: other })).body.data.length, 0);
    assert.equal((await app.request('DELETE', `/split/${s.id}`, { token: adm })).status, 200);
    assert.equal((await app.request('GET', `/split/${s.id}`, { token: adm })).status, 404);
  });
});
