import assert from 'node:assert/strict';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { upc, isrc } from './helpers';

describe('summaries, checklists and CSV downloads (scoped to own artists below admin)', () => {
  let app: TestApp;
  let a: TestTenant;
  let b: TestTenant;
  let mine: string, theirs: string, mineAsset: string, theirAsset: string;
  before(async () => {
    app = await startTestApp();
    a = await createTestTenant(app, 'RepA');
    b = await createTestTenant(app, 'RepB');
    const adm = a.users.admin!.token;
    const U = a.users.user!.tenantUserId;
    mine = (await app.request('POST', '/artist/', { token: adm, body: { name: 'Mine, Inc', users: [U] } })).body.data.id;
    theirs = (await app.request('POST', '/artist/', { token: adm, body: { name: 'Theirs' } })).body.data.id;
    mineAsset = (await app.request('POST', '/asset', { token: adm, body: { title: 'My "quoted" song', isrc: isrc(), artists: [mine] } })).body.data.id;
    theirAsset = (await app.request('POST', '/asset', { token: adm, body: { title: 'Their song', isrc: isrc(), artists: [theirs] } })).body.data.id;
    await app.request('POST', '/asset', { token: adm, body: { title: 'Draft song', isDraft: true } });
    await app.request('POST', '/product/', { token: adm, body: { title: 'My EP', upc: upc(), artists: [mine], assets: [mineAsset] } });
    await app.request('POST', '/product/', { token: adm, body: { title: 'Their EP', upc: upc(), artists: [theirs], assets: [theirAsset], split: [{ user: a.users.admin!.tenantUserId, share: 100 }] } });
    await app.request('POST', '/split/', { token: adm, body: { asset: mineAsset, split: [{ user: U, share: 100 }] } });
    await app.request('POST', '/asset', { token: b.users.admin!.token, body: { title: 'B only', isrc: isrc() } });
  });
  after(async () => app.close());

  it('CSV downloads quote every text cell, so a `;` or a tab inside one is inside quotes', async () => {
    const c = await createTestTenant(app, 'RepC', ['admin']);
    for (const title of ['Song;=1+1', 'Tab\tsong']) assert.equal((await app.request('POST', '/asset', { token: c.users.admin!.token, body: { title, isrc: isrc() } })).status, 201);
    const csv = (await app.request('POST', '/asset/download/csv', { token: c.users.admin!.token })).text;
    assert.ok(csv.includes(',"Song;=1+1",'), csv);
    assert.ok(csv.includes(',"Tab\tsong",'), csv);
  });

  it('summaries answer {message, summary}: admins see the workspace, users their own artists, guests nothing of others', async () => {
    const adm = await app.request('GET', '/asset/summary', { token: a.users.owner!.token });
    assert.equal(adm.status, 200);
    assert.deepEqual(Object.keys(adm.body).sort(), ['message', 'summary']);
    assert.equal(adm.body.summary.total, 3);
    assert.equal(adm.body.summary.withSplit, 1);
    assert.equal(adm.body.summary.drafts, 1);
    const usr = await app.request('GET', '/asset/summary', { token: a.users.user!.token });
    assert.equal(usr.body.summary.total, 1);
    assert.equal(usr.body.summary.scope, 'own artists');
    assert.equal((await app.request('GET', '/asset/summary', { token: a.users.guest!.token })).body.summary.total, 0);
    assert.equal((await app.request('GET', '/product/summary', { token: a.users.admin!.token })).body.summary.total, 2);
    assert.equal((await app.request('GET', '/product/summary', { token: a.users.user!.token })).body.summary.total, 1);
    assert.equal((await app.request('GET', '/artist/summary', { token: a.users.user!.token })).body.summary.total, 1);
    assert.equal((await app.request('GET', '/artist/summary', { token: a.users.admin!.token })).body.summary.total, 2);
    const sp = await app.request('GET', '/split/summary', { token: a.users.admin!.token });
    assert.equal(sp.body.summary.total, 2);
    assert.deepEqual(sp.body.summary.byTarget, { asset: 1, product: 1 });
    assert.equal((await app.request('GET', '/split/summary', { token: a.users.user!.token })).body.summary.total, 1);
    const us = await app.request('GET', '/user/summary', { token: a.users.admin!.token });
    assert.equal(us.body.summary.total, 4);
    assert.equal(us.body.summary.withShares, 2);
    assert.equal((await app.request('GET', '/user/summary', { token: a.users.user!.token })).body.summary.total, 1);
    // another tenant sees only its own
    assert.equal((await app.request('GET', '/asset/summary', { token: b.users.owner!.token })).body.summary.total, 1);
  });

  it('checklists list what needs fixing, scoped the same way', async () => {
    const get = (c: string, role: string) => app.request('GET', `/checklist/${c}`, { token: a.users[role]!.token });
    const ra = await get('royaltyassets', 'admin');
    assert.equal(ra.body.success, true);
    assert.deepEqual(ra.body.catalogueItems.data.map((x: any) => x.title), ['Draft song']);
    assert.deepEqual(ra.body.catalogueItems.data[0].issues, ['draft', 'missing ISRC', 'no artist']);
    assert.equal(ra.body.catalogueItems.pagination.total, 1);
    // the items are read once, their count a window over them: a page past the end still counts them
    const past = await app.request('GET', '/checklist/royaltyassets?page=2&size=1', { token: a.users.admin!.token });
    assert.deepEqual([past.body.catalogueItems.data, past.body.catalogueItems.pagination.total], [[], 1]);
    const as = await get('assetsplits', 'admin');
    assert.deepEqual(as.body.data.map((x: any) => x.title).sort(), ['Draft song', 'Their song']);
    assert.deepEqual((await get('assetsplits', 'user')).body.data, []);
    assert.deepEqual((await get('productsplits', 'admin')).body.data.map((x: any) => x.title), ['My EP']);
    assert.deepEqual((await get('productsplits', 'user')).body.data.map((x: any) => x.title), ['My EP']);
    assert.equal((await get('allsplits', 'admin')).body.pagination.total, 3);
    // Their song is covered by its product's split; only the draft has nothing at any level
    assert.deepEqual((await get('missingroyaltysplits', 'admin')).body.data.map((x: any) => x.title), ['Draft song']);
    assert.deepEqual((await get('artistsplits', 'admin')).body.data.map((x: any) => x.title), ['Mine, Inc', 'Theirs']);
    assert.deepEqual((await get('artistsplits', 'user')).body.data.map((x: any) => x.title), ['Mine, Inc']);
    assert.deepEqual((await get('royaltyproducts', 'admin')).body.catalogueItems.data, []);
    assert.deepEqual((await get('artistsplits', 'guest')).body.data, []);
    assert.equal((await app.request('GET', '/checklist/artistsplits', { token: b.users.owner!.token })).body.data.length, 0);
  });

  it('CSV downloads stream with a header row, quoting, and the caller scope', async () => {
    const all = await app.request('POST', '/asset/download/csv', { token: a.users.admin!.token });
    assert.equal(all.status, 200);
    assert.match(all.headers.get('content-type')!, /text\/csv/);
    assert.match(all.headers.get('content-disposition')!, /assets\.csv/);
    const lines = all.text.trim().split('\n');
    assert.ok(lines[0]!.startsWith('id,title,isrc'));
    assert.equal(lines.length, 4);
    assert.ok(all.text.includes('"My ""quoted"" song"'));
    const own = await app.request('POST', '/asset/download/csv', { token: a.users.user!.token });
    assert.equal(own.text.trim().split('\n').length, 2);
    const prod = await app.request('POST', '/product/download/csv', { token: a.users.admin!.token });
    assert.equal(prod.text.trim().split('\n').length, 3);
    const meta = await app.request('POST', '/product/download/metadata', { token: a.users.admin!.token });
    assert.ok(meta.text.startsWith('upc,product_title'));
    assert.equal(meta.text.trim().split('\n').length, 3);
    const art = await app.request('POST', '/artist/download/csv', { token: a.users.admin!.token });
    assert.ok(art.text.includes('"Mine, Inc"'));
    const users = await app.request('POST', '/user/download/csv', { token: a.users.admin!.token });
    assert.equal(users.text.trim().split('\n').length, 5);
    assert.equal((await app.request('POST', '/user/download/csv', { token: a.users.user!.token })).status, 403);
    assert.equal((await app.request('POST', '/asset/download/csv', { token: a.users.guest!.token })).status, 403);
    const other = await app.request('POST', '/asset/download/csv', { token: b.users.owner!.token });
    assert.ok(!other.text.includes('My '));
    assert.equal(other.text.trim().split('\n').length, 2);
  });

  it('CSV downloads neutralise cells a spreadsheet would read as a formula, and only text cells', async () => {
    const adm = a.users.admin!.token;
    const evil = (await app.request('POST', '/artist/', { token: adm, body: { name: '=HYPERLINK("http://x.example","y")' } })).body.data.id;
    await app.request('POST', '/asset', { token: adm, body: { title: '+1 formula', version: '@sum', isrc: isrc(), artists: [evil] } });
    const art = await app.request('POST', '/artist/download/csv', { token: adm });
    assert.ok(art.text.includes(`"'=HYPERLINK(""http://x.example"",""y"")"`), art.text);
    assert.ok(!/(^|,)"?=HYPERLINK/m.test(art.text));
    const assets = await app.request('POST', '/asset/download/csv', { token: adm });
    const row = assets.text.split('\n').find((l) => l.includes('1 formula'))!;
    assert.ok(row.includes(`,"'+1 formula",`), row);
    assert.ok(row.includes(`,"'@sum",`), row);
    // numbers and booleans keep Postgres' own text (not quoted, not prefixed)
    assert.match(assets.text.split('\n')[1]!, /,(t|f),\d{4}-\d{2}-\d{2} /);
  });
});
