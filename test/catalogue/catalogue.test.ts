import assert from 'node:assert/strict';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { upc, isrc } from './helpers';

describe('catalogue: artists, assets, products', () => {
  let app: TestApp;
  let a: TestTenant;
  let b: TestTenant;
  let adm: string;
  before(async () => {
    app = await startTestApp();
    a = await createTestTenant(app, 'CatA');
    b = await createTestTenant(app, 'CatB');
    adm = a.users.admin!.token;
  });
  after(async () => app.close());

  it('creates an asset with a normalised ISRC and answers GET /asset/{id} with every field of 2.1', async () => {
    const art = await app.request('POST', '/artist/', { token: adm, body: { name: 'Nina Sol' } });
    assert.equal(art.status, 201, JSON.stringify(art.body));
    const r = await app.request('POST', '/asset', {
      token: adm,
      body: {
        title: 'Blue Hour', isrc: 'us-rc1-76-07839', type: 'Audio', iswc: 'T-034.524.680-1', displayArtist: 'Nina Sol', mainArtist: ['Nina Sol'],
        version: 'Radio Edit', mainGenre: ['Pop'], subGenre: ['Synth-pop'], externalId: 'ext-1', contributors: { producers: ['P'], mixers: ['M'] },
        artists: [art.body.data.id], splits: [{ user: a.users.user!.tenantUserId, share: 60 }, { user: a.users.admin!.tenantUserId, share: 40 }],
      },
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    // a guest tied to none of its artists does not see it (docs/auth.md, role matrix)
    assert.equal((await app.request('GET', `/asset/${r.body.data.id}`, { token: a.users.guest!.token })).status, 404);
    const g = await app.request('GET', `/asset/${r.body.data.id}`, { token: adm });
    assert.equal(g.status, 200);
    assert.equal(g.body.success, true);
    assert.equal(typeof g.body.message, 'string');
    const d = g.body.data;
    for (const k of ['id', 'title', 'type', 'isrc', 'iswc', 'displayArtist', 'mainArtist', 'version', 'mainGenre', 'subGenre', 'externalId', 'contributors', 'artists', 'splits', 'isDraft', 'createdAt', 'updatedAt']) assert.ok(k in d, k);
    assert.equal(d.isrc, 'USRC17607839');
    assert.deepEqual(d.contributors, { producers: ['P'], mixers: ['M'] });
    assert.deepEqual(d.artists, [art.body.data.id]);
    assert.deepEqual(d.splits, [{ user: a.users.user!.tenantUserId, share: 60 }, { user: a.users.admin!.tenantUserId, share: 40 }]);
    assert.equal(d.isDraft, false);
    // ISRC unique per tenant (any spelling), but another tenant may use it
    const dup = await app.request('POST', '/asset', { token: adm, body: { title: 'X', isrc: 'USRC17607839' } });
    assert.equal(dup.status, 400);
    assert.equal(dup.body.success, false);
    assert.equal((await app.request('POST', '/asset', { token: b.users.admin!.token, body: { title: 'X', isrc: 'US-RC1-76-07839' } })).status, 201);
    const bad = await app.request('POST', '/asset', { token: adm, body: { title: 'X', isrc: 'US-RC1-76-0783' } });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.code, 'INVALID_ISRC');
    assert.equal((await app.request('GET', '/asset/not-a-uuid', { token: adm })).status, 400);
    assert.equal((await app.request('GET', '/asset/00000000-0000-4000-8000-000000000000', { token: adm })).status, 404);
  });

  it('validates UPC check digits and normalises to GTIN-13', async () => {
    const ok = await app.request('POST', '/product/', { token: adm, body: { title: 'EP', upc: '036000291452' } });
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
    assert.equal(ok.body.data.upc, '0036000291452');
    const bad = await app.request('POST', '/product/', { token: adm, body: { title: 'EP', upc: '036000291453' } });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.code, 'INVALID_UPC');
    assert.equal((await app.request('POST', '/product/', { token: adm, body: { title: 'EP2', upc: '0036000291452' } })).status, 400);
  });

  it('POST /product/bulk: duplicate UPC and a bad split reported in errors, the rest created', async () => {
    const u1 = upc();
    const r = await app.request('POST', '/product/bulk', {
      token: adm,
      body: {
        products: [
          { upc: u1, title: 'First', displayArtist: 'Z', mainArtist: ['Z'], type: 'Single', format: 'Digital', releaseDate: '2026-01-02', mainGenre: ['Pop'], artists: ['Zed'], split: [{ user: a.users.user!.tenantUserId, share: 100 }] },
          { upc: u1, title: 'Duplicate' },
          { upc: upc(), title: 'Bad split', split: [{ user: a.users.user!.tenantUserId, share: 70 }, { user: a.users.admin!.tenantUserId, share: 20 }] },
          { upc: '123', title: 'Bad UPC' },
          { title: 'No title field', nope: 1 },
          { upc: upc(), title: 'Second' },
        ],
      },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.createdProducts, ['First', 'Second']);
    assert.equal(r.body.processedCount, 2);
    assert.equal(r.body.errors.length, 4);
    assert.match(r.body.errors[0], /products\[4\]/);
    assert.ok(r.body.errors.some((e: string) => /products\[1\].*already exists/.test(e)), r.body.errors.join('\n'));
    assert.ok(r.body.errors.some((e: string) => /products\[2\].*sum to 100, got 90/.test(e)));
    assert.ok(r.body.errors.some((e: string) => /products\[3\].*UPC/.test(e)));
    const list = await app.request('GET', `/product/?search=${u1}`, { token: adm });
    assert.equal(list.body.data.length, 1);
    assert.deepEqual(list.body.data[0].split, [{ user: a.users.user!.tenantUserId, share: 100 }]);
    // a request with only bad items completes with zero created
    const none = await app.request('POST', '/product/bulk', { token: adm, body: { products: [{ upc: u1, title: 'Dup again' }] } });
    assert.equal(none.status, 200);
    assert.equal(none.body.processedCount, 0);
    assert.equal((await app.request('POST', '/product/bulk', { token: a.users.user!.token, body: { products: [{ title: 'x' }] } })).status, 403);
  });

  it('POST /asset/bulk reports bad items and creates the rest', async () => {
    const i = isrc();
    const r = await app.request('POST', '/asset/bulk', { token: adm, body: { assets: [{ title: 'A1', isrc: i }, { title: 'A2', isrc: i }, { title: 'A3' }, { title: 'A4', isrc: isrc(), artists: ['Bulk Artist'] }] } });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.createdAssets, ['A1', 'A4']);
    assert.equal(r.body.errors.length, 2);
  });

  it('POST /artist/bulk/delete reports failedDeletions per id; ids required', async () => {
    const x = await app.request('POST', '/artist/', { token: adm, body: { name: 'Gone' } });
    const missing = '00000000-0000-4000-8000-000000000001';
    const other = await app.request('POST', '/artist/', { token: b.users.admin!.token, body: { name: 'Other tenant' } });
    const r = await app.request('POST', '/artist/bulk/delete', { token: adm, body: { ids: [x.body.data.id, missing, other.body.data.id] } });
    assert.equal(r.status, 200);
    assert.equal(r.body.processedCount, 1);
    assert.deepEqual(r.body.failedDeletions.map((f: any) => f.id).sort(), [missing, other.body.data.id].sort());
    assert.equal(typeof r.body.failedDeletions[0].error, 'string');
    assert.equal((await app.request('GET', `/artist/${other.body.data.id}`, { token: b.users.admin!.token })).status, 200);
    assert.equal((await app.request('POST', '/artist/bulk/delete', { token: adm, body: { ids: [] } })).status, 400);
  });

  it('lists page, sort and search by title, ISRC, UPC and artist', async () => {
    const art = await app.request('POST', '/artist/', { token: adm, body: { name: 'Searchable Quartet' } });
    const isrcs = [isrc(), isrc(), isrc()];
    for (const [k, t] of ['Gamma', 'Alpha', 'Beta'].entries()) {
      await app.request('POST', '/asset', { token: adm, body: { title: `${t} Song`, isrc: isrcs[k], artists: [art.body.data.id] } });
    }
    const byArtist = await app.request('GET', `/asset?search=searchable%20quartet&sort=title&order=asc`, { token: adm });
    assert.deepEqual(byArtist.body.data.map((x: any) => x.title), ['Alpha Song', 'Beta Song', 'Gamma Song']);
    const page2 = await app.request('GET', `/asset?artist=${art.body.data.id}&sort=title&size=2&page=2`, { token: adm });
    assert.deepEqual(page2.body.data.map((x: any) => x.title), ['Gamma Song']);
    assert.deepEqual(page2.body.pagination, { page: 2, size: 2, total: 3 });
    const byIsrc = await app.request('GET', `/asset?search=${encodeURIComponent(isrcs[1]!.toLowerCase())}`, { token: adm });
    assert.deepEqual(byIsrc.body.data.map((x: any) => x.title), ['Alpha Song']);
    const byTitle = await app.request('GET', `/asset?title=beta`, { token: adm });
    assert.ok(byTitle.body.data.some((x: any) => x.title === 'Beta Song'));
    assert.equal((await app.request('GET', `/asset?sort=nope`, { token: adm })).status, 400);
    const arts = await app.request('GET', `/artist/${art.body.data.id}/assets`, { token: adm });
    assert.equal(arts.body.pagination.total, 3);
    const artists = await app.request('GET', `/artist/?search=searchable`, { token: adm });
    assert.equal(artists.body.data.length, 1);
    assert.equal((await app.request('GET', `/artist/?search=searchable`, { token: a.users.guest!.token })).body.data.length, 0);
  });

  it('artist merge moves recordings, products, members, releases and default splits', async () => {
    const t = await app.request('POST', '/artist/', { token: adm, body: { name: 'Target' } });
    const s = await app.request('POST', '/artist/', { token: adm, body: { name: 'Target (dup)', users: [a.users.user!.tenantUserId] } });
    const tid = t.body.data.id;
    const sid = s.body.data.id;
    const as = await app.request('POST', '/asset', { token: adm, body: { title: 'Merged song', isrc: isrc(), artists: [sid] } });
    const pr = await app.request('POST', '/product/', { token: adm, body: { title: 'Merged EP', upc: upc(), artists: [sid] } });
    const sp = await app.request('POST', `/artist/${sid}/splits`, { token: adm, body: { type: 'stream', split: [{ user: a.users.user!.tenantUserId, share: 100 }] } });
    assert.equal(sp.status, 201, JSON.stringify(sp.body));
    const m = await app.request('PUT', `/artist/${tid}/merge`, { token: adm, body: { artists: [sid] } });
    assert.equal(m.status, 200, JSON.stringify(m.body));
    assert.equal(m.body.data.moved.splits, 1);
    assert.equal((await app.request('GET', `/artist/${sid}`, { token: adm })).status, 404);
    assert.deepEqual((await app.request('GET', `/asset/${as.body.data.id}`, { token: adm })).body.data.artists, [tid]);
    assert.deepEqual((await app.request('GET', `/product/${pr.body.data.id}`, { token: adm })).body.data.artists, [tid]);
    assert.deepEqual((await app.request('GET', `/artist/${tid}`, { token: adm })).body.data.users, [a.users.user!.tenantUserId]);
    const splits = await app.request('GET', `/artist/${tid}/splits/stream`, { token: adm });
    assert.equal(splits.body.data[0].id, sp.body.data.id);
    const stats = await app.request('GET', `/artist/stats/${tid}`, { token: adm });
    assert.deepEqual(stats.body.data, { assets: 1, products: 1, defaultSplits: 1, releases: 0, users: 1 });
  });

  it('updates and deletes assets and products; product tracks keep order', async () => {
    const a1 = await app.request('POST', '/asset', { token: adm, body: { title: 'T1', isrc: isrc() } });
    const a2 = await app.request('POST', '/asset', { token: adm, body: { title: 'T2', isrc: isrc() } });
    const p = await app.request('POST', '/product/', { token: adm, body: { title: 'LP', upc: upc() } });
    const tr = await app.request('PUT', `/product/${p.body.data.id}/assets`, { token: adm, body: { assets: [a2.body.data.id, a1.body.data.id] } });
    assert.deepEqual(tr.body.data.assets.map((x: any) => x.id), [a2.body.data.id, a1.body.data.id]);
    const u = await app.request('PUT', `/asset/${a1.body.data.id}`, { token: adm, body: { title: 'T1 (remaster)', isDraft: true } });
    assert.equal(u.body.data.title, 'T1 (remaster)');
    const pa = await app.request('PUT', `/product/${p.body.data.id}/artists`, { token: adm, body: { artists: ['New Name'] } });
    assert.equal(pa.body.data.artists.length, 1);
    assert.equal((await app.request('PUT', `/product/${p.body.data.id}`, { token: adm, body: { format: 'Vinyl' } })).body.data.format, 'Vinyl');
    assert.equal((await app.request('GET', `/product/${p.body.data.id}/stats`, { token: adm })).body.data.tracks, 2);
    assert.equal((await app.request('GET', `/asset/${a1.body.data.id}/stats`, { token: adm })).body.data.products, 1);
    assert.equal((await app.request('GET', `/asset/${a1.body.data.id}/works`, { token: adm })).status, 200);
    assert.equal((await app.request('DELETE', `/asset/${a1.body.data.id}`, { token: adm })).status, 200);
    assert.equal((await app.request('GET', `/asset/${a1.body.data.id}`, { token: adm })).status, 404);
    const bd = await app.request('POST', '/product/bulk/delete', { token: adm, body: { ids: [p.body.data.id, a2.body.data.id] } });
    assert.equal(bd.body.processedCount, 1);
    assert.equal(bd.body.failedDeletions[0].id, a2.body.data.id);
    const ad = await app.request('POST', '/asset/bulk/delete', { token: adm, body: { ids: [a2.body.data.id] } });
    assert.equal(ad.body.processedCount, 1);
  });

  it('role limits: guests and users read, admins and owners write', async () => {
    for (const [role, status] of [['guest', 403], ['user', 403], ['admin', 201], ['owner', 201]] as const) {
      assert.equal((await app.request('POST', '/artist/', { token: a.users[role]!.token, body: { name: `By ${role}` } })).status, status, role);
      assert.equal((await app.request('POST', '/asset', { token: a.users[role]!.token, body: { title: 'r', isrc: isrc() } })).status, status, role);
      assert.equal((await app.request('POST', '/product/', { token: a.users[role]!.token, body: { title: 'r', upc: upc() } })).status, status, role);
      assert.equal((await app.request('GET', '/asset', { token: a.users[role]!.token })).status, 200);
      assert.equal((await app.request('GET', '/product/', { token: a.users[role]!.token })).status, 200);
    }
    assert.equal((await app.request('GET', '/asset')).status, 401);
  });

  it('cross-tenant reads and writes on artists, assets and products answer 404 and change nothing', async () => {
    const art = (await app.request('POST', '/artist/', { token: adm, body: { name: 'Mine' } })).body.data;
    const as = (await app.request('POST', '/asset', { token: adm, body: { title: 'Mine', isrc: isrc() } })).body.data;
    const pr = (await app.request('POST', '/product/', { token: adm, body: { title: 'Mine', upc: upc() } })).body.data;
    const other = b.users.owner!.token;
    const calls: [string, string, unknown?][] = [
      ['GET', `/artist/${art.id}`], ['PUT', `/artist/${art.id}`, { name: 'Stolen' }], ['DELETE', `/artist/${art.id}`], ['GET', `/artist/stats/${art.id}`],
      ['GET', `/artist/${art.id}/assets`], ['GET', `/artist/${art.id}/products`], ['GET', `/artist/${art.id}/splits`],
      ['POST', `/artist/${art.id}/splits`, { split: [{ user: b.users.owner!.tenantUserId, share: 100 }] }],
      ['PUT', `/artist/${art.id}/merge`, { artists: [art.id] }],
      ['GET', `/asset/${as.id}`], ['PUT', `/asset/${as.id}`, { title: 'Stolen' }], ['DELETE', `/asset/${as.id}`], ['GET', `/asset/${as.id}/stats`],
      ['PUT', `/asset/${as.id}/artists`, { artists: ['x'] }], ['PUT', `/asset/${as.id}/setdefaultsplit`],
      ['GET', `/product/${pr.id}`], ['PUT', `/product/${pr.id}`, { title: 'Stolen' }], ['DELETE', `/product/${pr.id}`], ['GET', `/product/${pr.id}/stats`],
      ['PUT', `/product/${pr.id}/assets`, { assets: [] }], ['PUT', `/product/${pr.id}/setdefaultsplit`],
    ];
    for (const [m, p, body] of calls) {
      const r = await app.request(m, p, { token: other, body });
      assert.equal(r.status, 404, `${m} ${p}: ${r.status} ${JSON.stringify(r.body)}`);
      assert.equal(r.body.success, false);
    }
    const lists = await app.request('GET', `/asset?search=Mine`, { token: other });
    assert.equal(lists.body.data.length, 0);
    const bulk = await app.request('POST', '/asset/bulk/delete', { token: other, body: { ids: [as.id] } });
    assert.equal(bulk.body.processedCount, 0);
    assert.equal((await app.request('GET', `/asset/${as.id}`, { token: adm })).body.data.title, 'Mine');
    assert.equal((await app.request('GET', `/product/${pr.id}`, { token: adm })).body.data.title, 'Mine');
    assert.equal((await app.request('GET', `/artist/${art.id}`, { token: adm })).body.data.name, 'Mine');
  });
});
