/**
 * The reference service's client flow for resources, against a live server: artists, tracks,
 * products and splits created and changed with the reference's field names, read back by
 * those names (beside Rondo's), and a body naming one field twice with two values refused
 * with a 400 naming both (docs/api.md "Resource bodies in the reference's names").
 */
import assert from 'node:assert/strict';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';

describe("the reference service's resource bodies", function () {
  this.timeout(120_000);
  let app: TestApp;
  let t: TestTenant;
  let tok: string;
  const call = (method: string, path: string, body?: unknown) => app.request(method, path, { token: tok, body });
  const details = (r: { body: any }) => r.body.error.details as string[];

  before(async () => {
    app = await startTestApp();
    t = await createTestTenant(app, 'RefBodies', ['admin', 'user']);
    tok = t.users.admin!.token;
  });
  after(async () => app?.close());

  it('an artist: artistName is the name, the descriptive fields are kept and answered', async () => {
    const links = { spotify: 'https://open.spotify.com/artist/1', instagram: 'https://instagram.com/nova' };
    const made = await call('POST', '/artist', { artistName: 'Nova Reyes', signDate: '2024-03-01', realName: 'Ana Reyes', genres: ['pop', 'latin'], links, externalId: 'ext-1' });
    assert.equal(made.status, 201, made.text);
    const a = made.body.data;
    assert.equal(a.name, 'Nova Reyes');
    assert.equal(a.artistName, 'Nova Reyes');
    assert.equal(a.signDate, '2024-03-01');
    assert.equal(a.realName, 'Ana Reyes');
    assert.deepEqual(a.genres, ['pop', 'latin']);
    assert.deepEqual(a.links, links);
    assert.deepEqual(a.metadata, { signDate: '2024-03-01', realName: 'Ana Reyes', genres: ['pop', 'latin'], links });
    // a change of one descriptive field keeps the others
    const put = await call('PUT', `/artist/${a.id}`, { biography: 'Born in Seville.', artistName: 'Nova' });
    assert.equal(put.status, 200, put.text);
    const one = await call('GET', `/artist/${a.id}`);
    assert.equal(one.body.data.artistName, 'Nova');
    assert.equal(one.body.data.biography, 'Born in Seville.');
    assert.equal(one.body.data.realName, 'Ana Reyes');
    const list = await call('GET', '/artist/?search=nova&sort=artistName&order=asc');
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(list.body.data.map((x: any) => [x.artistName, x.signDate]), [['Nova', '2024-03-01']]);
  });

  it('both names of one field with different values: 400 naming both; the same value twice is taken', async () => {
    const bad = await call('POST', '/artist', { artistName: 'One', name: 'Two' });
    assert.equal(bad.status, 400, bad.text);
    assert.deepEqual(details(bad), ['body.artistName and body.name name the same field with different values: send one']);
    const meta = await call('POST', '/artist', { name: 'Three', signDate: '2024-01-01', metadata: { signDate: '2023-01-01' } });
    assert.equal(meta.status, 400, meta.text);
    assert.deepEqual(details(meta), ['body.signDate and body.metadata.signDate name the same field with different values: send one']);
    const same = await call('POST', '/artist', { artistName: 'Four', name: 'Four' });
    assert.equal(same.status, 201, same.text);
    const isrc = await call('POST', '/asset', { title: 'X', ISRC: 'USRC17607839', isrc: 'USRC17607840' });
    assert.equal(isrc.status, 400, isrc.text);
    assert.deepEqual(details(isrc), ['body.ISRC and body.isrc name the same field with different values: send one']);
  });

  let trackId = '';
  let productId = '';
  it('a track and a product in the reference names, read back by them', async () => {
    const track = await call('POST', '/asset', { title: 'Solar', ISRC: 'USRC17607839', displayArtist: 'Nova', mainArtist: ['Nova'], version: 'Radio Edit', mainGenre: ['Pop'], subGenre: ['Latin Pop'], type: 'Audio' });
    assert.equal(track.status, 201, track.text);
    trackId = track.body.data.id;
    assert.equal(track.body.data.isrc, 'USRC17607839');
    assert.equal(track.body.data.ISRC, 'USRC17607839');
    assert.equal(track.body.data.displayArtist, 'Nova');
    const product = await call('POST', '/product', { title: 'Solar EP', UPC: '4006381333931', release_date: '2024-05-10', catalog_number: 'NOVA-001', display_artist: 'Nova', format: 'EP', label: 'Sol Records' });
    assert.equal(product.status, 201, product.text);
    productId = product.body.data.id;
    const p = product.body.data;
    assert.deepEqual([p.upc, p.releaseDate, p.catalogNumber, p.displayArtist, p.label], ['4006381333931', '2024-05-10', 'NOVA-001', 'Nova', 'Sol Records']);
    assert.deepEqual([p.UPC, p.release_date, p.catalog_number, p.display_artist], ['4006381333931', '2024-05-10', 'NOVA-001', 'Nova']);
    const changed = await call('PUT', `/product/${productId}`, { release_date: '2024-06-01' });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.body.data.releaseDate, '2024-06-01');
    const listed = await call('GET', '/product/?sort=release_date&order=desc&search=solar');
    assert.deepEqual(listed.body.data.map((x: any) => [x.title, x.release_date]), [['Solar EP', '2024-06-01']]);
    const tracks = await call('GET', '/asset?search=USRC17607839');
    assert.deepEqual(tracks.body.data.map((x: any) => x.ISRC), ['USRC17607839']);
  });

  it("the lists of an artist's and of a member's recordings, products and artists answer the reference names too", async () => {
    const artist = (await call('POST', '/artist', { artistName: 'Lists Artist', realName: 'L. Artist' })).body.data.id as string;
    const asset = await call('POST', '/asset', { title: 'Listed', ISRC: 'USRC17607841', artists: [artist] });
    assert.equal(asset.status, 201, asset.text);
    const product = await call('POST', '/product', { title: 'Listed EP', UPC: '0036000291452', release_date: '2024-02-02', artists: [artist] });
    assert.equal(product.status, 201, product.text);
    const mine = await call('PUT', `/artist/${artist}`, { users: [t.users.user!.tenantUserId] });
    assert.equal(mine.status, 200, mine.text);
    const byArtist = await call('GET', `/artist/${artist}/assets`);
    assert.deepEqual(byArtist.body.data.map((x: any) => [x.title, x.ISRC]), [['Listed', 'USRC17607841']]);
    const products = await call('GET', `/artist/${artist}/products`);
    assert.deepEqual(products.body.data.map((x: any) => [x.UPC, x.release_date]), [['0036000291452', '2024-02-02']]);
    const member = t.users.user!.tenantUserId;
    assert.deepEqual((await call('GET', `/user/${member}/artists`)).body.data.map((x: any) => [x.artistName, x.realName]), [['Lists Artist', 'L. Artist']]);
    assert.deepEqual((await call('GET', `/user/${member}/assets`)).body.data.map((x: any) => x.ISRC), ['USRC17607841']);
    assert.deepEqual((await call('GET', `/user/${member}/products`)).body.data.map((x: any) => [x.UPC, x.release_date]), [['0036000291452', '2024-02-02']]);
  });

  it('a split: entity_type/entity_id, shares [{user, percentage}] summing to 100, effective_date and conditions', async () => {
    const admin = t.users.admin!.tenantUserId;
    const user = t.users.user!.tenantUserId;
    const made = await call('POST', '/split', {
      entity_type: 'asset', entity_id: trackId, split_type: 'conditional', effective_date: '2024-01-01',
      shares: [{ user: admin, percentage: '66.666667' }, { user, percentage: '33.333333' }],
      conditions: { territories: ['US', 'CA'], mode: 'include', sources: [], period_end: '2024-12-31', memo: '' },
    });
    assert.equal(made.status, 201, made.text);
    const s = made.body.data;
    // Rondo's names
    assert.equal(s.target, 'asset');
    assert.equal(s.asset, trackId);
    assert.deepEqual(s.conditions.validFrom, '2024-01-01');
    assert.deepEqual(s.conditions.validTo, '2024-12-31');
    assert.deepEqual(s.conditions.territories, ['CA', 'US']); // kept sorted
    // the reference's, exact
    assert.deepEqual([s.entity_type, s.entity_id, s.split_type, s.effective_date], ['asset', trackId, 'conditional', '2024-01-01']);
    assert.deepEqual(s.shares, [{ user: admin, percentage: '66.666667' }, { user, percentage: '33.333333' }]);
    assert.deepEqual([s.conditions.mode, s.conditions.period_start, s.conditions.period_end], ['include', '2024-01-01', '2024-12-31']);
    const got = await call('GET', `/split/${s.id}`);
    assert.deepEqual(got.body.data.shares, s.shares);
    const listed = await call('GET', `/split/?asset=${trackId}&sort=effective_date`);
    assert.deepEqual(listed.body.data.map((x: any) => x.entity_id), [trackId]);

    const simple = await call('POST', '/split', { entity_type: 'product', entity_id: productId, split_type: 'simple', shares: [{ user: admin, percentage: 100 }] });
    assert.equal(simple.status, 201, simple.text);
    assert.deepEqual([simple.body.data.split_type, simple.body.data.effective_date, simple.body.data.shares], ['simple', null, [{ user: admin, percentage: '100' }]]);
  });

  it('update routes take the reference names: a track\'s ISRC, and a split PUT as a client sends it back (its own target, shares, effective_date alone, split_type)', async () => {
    const admin = t.users.admin!.tenantUserId;
    const user = t.users.user!.tenantUserId;
    const track = await call('PUT', `/asset/${trackId}`, { ISRC: 'GBAYE0601498', displayArtist: 'Nova Reyes' });
    assert.equal(track.status, 200, track.text);
    assert.deepEqual([track.body.data.ISRC, track.body.data.isrc, track.body.data.displayArtist], ['GBAYE0601498', 'GBAYE0601498', 'Nova Reyes']);
    const clash = await call('PUT', `/asset/${trackId}`, { ISRC: 'GBAYE0601498', isrc: 'USRC17607839' });
    assert.equal(clash.status, 400, clash.text);
    assert.deepEqual(details(clash), ['body.ISRC and body.isrc name the same field with different values: send one']);

    const made = await call('POST', '/split', {
      entity_type: 'asset', entity_id: trackId, type: 'download', split_type: 'conditional', effective_date: '2024-01-01',
      shares: [{ user: admin, percentage: '50' }, { user, percentage: '50' }],
      conditions: { territories: ['DE'], mode: 'include', period_end: '2024-12-31' },
    });
    assert.equal(made.status, 201, made.text);
    const id = made.body.data.id;
    // the whole record sent back, as a client does, with new shares and a new last day
    const full = await call('PUT', `/split/${id}`, {
      entity_type: 'asset', entity_id: trackId, split_type: 'conditional', effective_date: '2024-01-01',
      shares: [{ user: admin, percentage: '75.5' }, { user, percentage: '24.5' }],
      conditions: { territories: ['DE', 'AT'], mode: 'include', sources: [], period_start: '2024-01-01', period_end: '2025-06-30', memo: '' },
    });
    assert.equal(full.status, 200, full.text);
    const f = full.body.data;
    assert.deepEqual([f.entity_type, f.entity_id, f.split_type, f.effective_date], ['asset', trackId, 'conditional', '2024-01-01']);
    assert.deepEqual(f.shares, [{ user: admin, percentage: '75.5' }, { user, percentage: '24.5' }]);
    assert.deepEqual([f.conditions.territories, f.conditions.period_start, f.conditions.period_end, f.conditions.mode], [['AT', 'DE'], '2024-01-01', '2025-06-30', 'include']);
    // effective_date alone changes the first day only: territories and last day stay
    const date = await call('PUT', `/split/${id}`, { effective_date: '2024-03-01' });
    assert.equal(date.status, 200, date.text);
    assert.deepEqual([date.body.data.effective_date, date.body.data.conditions.territories, date.body.data.conditions.period_end], ['2024-03-01', ['AT', 'DE'], '2025-06-30']);
    const read = await call('GET', `/split/${id}`);
    assert.deepEqual([read.body.data.effective_date, read.body.data.conditions.territories, read.body.data.conditions.period_end, read.body.data.shares], ['2024-03-01', ['AT', 'DE'], '2025-06-30', f.shares]);
    // split_type without conditions is read against the split's own conditions
    const kind = await call('PUT', `/split/${id}`, { split_type: 'conditional', shares: [{ user: admin, percentage: 100 }] });
    assert.equal(kind.status, 200, kind.text);
    assert.deepEqual(kind.body.data.shares, [{ user: admin, percentage: '100' }]);
    const wrongKind = await call('PUT', `/split/${id}`, { split_type: 'simple', shares: [{ user: admin, percentage: 100 }] });
    assert.equal(wrongKind.status, 400, wrongKind.text);
    assert.deepEqual(details(wrongKind), ["body.split_type is simple but the split's conditions make a conditional split (territories: conditional; dates only: temporal; none: simple)"]);
    // a split's target does not change
    const moved = await call('PUT', `/split/${id}`, { entity_type: 'product', entity_id: productId, shares: [{ user: admin, percentage: 100 }] });
    assert.equal(moved.status, 400, moved.text);
    assert.deepEqual(details(moved), ["body.product (or body.entity_type and body.entity_id): a split's asset does not change; create a split for another product"]);
    assert.deepEqual((await call('GET', `/split/${id}`)).body.data.shares, [{ user: admin, percentage: '100' }]);
  });

  it('a release: created and changed with UPC, release_date, display_artist and tracks with ISRC, read back by those names', async () => {
    const made = await call('POST', '/releases', { title: 'Tides', UPC: '0012345678905', release_date: '2025-03-14', display_artist: 'Nova', format: 'EP', type: 'EP', label: 'Sol Records', tracks: [{ title: 'Undertow', ISRC: 'GBAYE0601477' }] });
    assert.equal(made.status, 201, made.text);
    const r = made.body.data;
    assert.deepEqual([r.upc, r.releaseDate, r.artistName, r.format, r.label], ['0012345678905', '2025-03-14', 'Nova', 'EP', 'Sol Records']);
    assert.deepEqual([r.UPC, r.release_date, r.display_artist], ['0012345678905', '2025-03-14', 'Nova']);
    assert.deepEqual(r.tracks.map((x: any) => [x.title, x.isrc, x.ISRC]), [['Undertow', 'GBAYE0601477', 'GBAYE0601477']]);
    const changed = await call('PUT', `/releases/${r.id}`, { release_date: '2025-04-01', display_artist: 'Nova Reyes' });
    assert.equal(changed.status, 200, changed.text);
    assert.deepEqual([changed.body.data.releaseDate, changed.body.data.release_date, changed.body.data.artistName, changed.body.data.display_artist], ['2025-04-01', '2025-04-01', 'Nova Reyes', 'Nova Reyes']);
    const one = await call('GET', `/releases/${r.id}`);
    assert.deepEqual([one.body.data.UPC, one.body.data.release_date, one.body.data.tracks[0].ISRC], ['0012345678905', '2025-04-01', 'GBAYE0601477']);
    const listed = await call('GET', '/releases?search=tides');
    assert.deepEqual(listed.body.data.map((x: any) => [x.UPC, x.release_date, x.display_artist]), [['0012345678905', '2025-04-01', 'Nova Reyes']]);
    const track = await call('POST', `/releases/${r.id}/tracks`, { title: 'Slack Water', ISRC: 'GBAYE0601478' });
    assert.equal(track.status, 201, track.text);
    assert.equal(track.body.data.ISRC, 'GBAYE0601478');
    const retitled = await call('PUT', `/releases/${r.id}/tracks/${track.body.data.id}`, { ISRC: 'GBAYE0601479' });
    assert.deepEqual([retitled.body.data.isrc, retitled.body.data.ISRC], ['GBAYE0601479', 'GBAYE0601479']);
    const tracks = await call('GET', `/releases/${r.id}/tracks`);
    assert.deepEqual(tracks.body.data.map((x: any) => x.ISRC), ['GBAYE0601477', 'GBAYE0601479']);
    // both names with different values, and the reference's fields a release does not hold: 400 naming them
    const clash = await call('POST', '/releases', { title: 'X', UPC: '0012345678905', upc: '4006381333931' });
    assert.equal(clash.status, 400, clash.text);
    assert.deepEqual(details(clash), ['body.UPC and body.upc name the same field with different values: send one']);
    const unheld = await call('PUT', `/releases/${r.id}`, { catalog_number: 'SOL-7', takedown_date: '2030-01-01' });
    assert.equal(unheld.status, 400, unheld.text);
    assert.deepEqual(details(unheld), ['body has unknown property "catalog_number"', 'body has unknown property "takedown_date"']);
  });

  it('a split the reference would describe but Rondo cannot hold, or one naming a field twice: 400 saying which', async () => {
    const admin = t.users.admin!.tenantUserId;
    const shares = [{ user: admin, percentage: '100' }];
    const cases: [unknown, string[]][] = [
      [{ entity_type: 'asset', entity_id: trackId, asset: productId, shares }, ['body.entity_id and body.asset name the same field with different values: send one']],
      [{ entity_type: 'label', entity_id: trackId, shares }, ['body.entity_type must be one of artist, product, asset (with body.entity_id)']],
      [{ asset: trackId, effective_date: '2024-01-01', conditions: { period_start: '2024-02-01' }, shares }, ['body.conditions.period_start and body.effective_date or body.conditions.validFrom name the same field with different values: send one']],
      [{ asset: trackId, shares, conditions: { territories: ['US'], mode: 'exclude' } }, ['body.conditions.mode: a split applies in the territories it names (include); "exclude" is not offered: name the territories it applies in']],
      [{ asset: trackId, shares, conditions: { sources: ['Spotify'] } }, ['body.conditions.sources: a split does not depend on the source of the income; leave it out or empty']],
      [{ asset: trackId, shares, conditions: { memo: 'deal of May' } }, ["body.conditions.memo: a split's conditions keep no memo; give the split a name (body.name)"]],
      [{ asset: trackId, shares, split_type: 'temporal' }, ['body.split_type is temporal but the conditions make a simple split (territories: conditional; dates only: temporal; none: simple)']],
      [{ asset: trackId, shares, split: [{ user: admin, share: '50' }] }, ['body.shares and body.split name the same field with different values: send one']],
    ];
    for (const [body, want] of cases) {
      const r = await call('POST', '/split', body);
      assert.equal(r.status, 400, `${JSON.stringify(body)}: ${r.text}`);
      assert.deepEqual(details(r), want, JSON.stringify(body));
    }
    // percentages not summing to 100 are refused as Rondo's shares are
    const short = await call('POST', '/split', { entity_type: 'asset', entity_id: trackId, shares: [{ user: admin, percentage: '60' }, { user: t.users.user!.tenantUserId, percentage: '30' }] });
    assert.equal(short.status, 400, short.text);
    assert.equal(short.body.error.code, 'SPLIT_SUM');
  });

  it('bulk creates take the reference names item by item; an item naming a field twice is reported, the others created', async () => {
    const artists = await call('POST', '/artist/bulk', { artists: [{ artistName: 'Bulk One', realName: 'B. One' }, { artistName: 'Bulk Two', name: 'Other' }] });
    assert.equal(artists.status, 200, artists.text);
    assert.equal(artists.body.processedCount, 1);
    assert.deepEqual(artists.body.errors, ['artists[1]: artistName and name name the same field with different values: send one']);
    const one = await call('GET', '/artist/?search=bulk%20one');
    assert.deepEqual(one.body.data.map((a: any) => [a.name, a.realName]), [['Bulk One', 'B. One']]);
    const products = await call('POST', '/product/bulk', { products: [{ title: 'Bulk EP', UPC: '0012345678905', release_date: '2025-01-10' }, { title: 'Bad', UPC: '4006381333931', upc: '0012345678905' }] });
    assert.equal(products.status, 200, products.text);
    assert.equal(products.body.processedCount, 1);
    assert.deepEqual(products.body.errors, ['products[1]: UPC and upc name the same field with different values: send one']);
    const ep = await call('GET', '/product/?search=bulk%20ep');
    assert.deepEqual(ep.body.data.map((x: any) => [x.UPC, x.releaseDate]), [['0012345678905', '2025-01-10']]);
  });

  it('the OpenAPI document lists each route\'s reference names', async () => {
    const doc = (await app.request('GET', '/openapi.json')).body;
    assert.deepEqual(doc.paths['/artist/'].post['x-reference-names'].rename, { artistName: 'name' });
    assert.ok(doc.paths['/artist/'].post['x-reference-names'].metadata.includes('signDate'));
    assert.deepEqual(doc.paths['/product/'].post['x-reference-names'].rename, { UPC: 'upc', release_date: 'releaseDate', catalog_number: 'catalogNumber', display_artist: 'displayArtist' });
    assert.deepEqual(doc.paths['/asset/{id}'].put['x-reference-names'].rename, { ISRC: 'isrc' });
    assert.match(doc.paths['/split/'].post['x-reference-names'].about, /shares\[\{user, percentage\}\]/);
  });
});
