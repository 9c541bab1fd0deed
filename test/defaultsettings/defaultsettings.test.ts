import assert from 'node:assert/strict';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';

describe('default settings', () => {
  let app: TestApp;
  let a: TestTenant;
  let b: TestTenant;
  // A's hierarchy: catalog ⊃ label ⊃ artist ⊃ (member "user")
  let catalog: string, label: string, artist: string;
  before(async () => {
    app = await startTestApp();
    a = await createTestTenant(app, 'DsA');
    b = await createTestTenant(app, 'DsB');
    const adm = a.users.admin!.token;
    catalog = (await app.request('POST', '/catalogs', { token: adm, body: { name: 'Frontline' } })).body.data.id;
    artist = (await app.request('POST', '/artist', { token: adm, body: { name: 'Mara Vale', users: [a.users.user!.tenantUserId] } })).body.data.id;
    const l = await app.request('POST', '/labels', { token: adm, body: { name: 'Vale Records', catalogId: catalog, artists: [artist] } });
    assert.equal(l.status, 201, l.text);
    label = l.body.data.id;
  });
  after(async () => app.close());

  const req = (method: string, path: string, token: string, body?: unknown) => app.request(method, path, { token, body });
  const set = async (token: string, type: string, id: string, category: string, key: string, value: unknown) => {
    const r = await req('POST', `/defaultsettings/${type}/${id}`, token, { category, key, value });
    assert.equal(r.status, 201, r.text);
    return r.body.data;
  };

  it('a setting is {category, key, value}: create, list, read, change, delete', async () => {
    const adm = a.users.admin!.token;
    const s = await set(adm, 'tenant', 'current', 'business', 'priceTier', 'Front');
    assert.equal(s.entityType, 'tenant');
    assert.equal(s.entityId, a.workspaceId);
    assert.deepEqual([s.category, s.key, s.value], ['business', 'priceTier', 'Front']);
    assert.equal(s.createdBy, a.users.admin!.tenantUserId);
    const list = await req('GET', `/defaultsettings/tenant/${a.workspaceId}`, a.users.user!.token);
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.data.entity, { entityType: 'tenant', entityId: a.workspaceId, name: list.body.data.entity.name });
    assert.deepEqual(list.body.data.settings.map((x: any) => x.id), [s.id]);
    assert.equal((await req('GET', `/defaultsettings/tenant/current?category=ddex`, adm)).body.data.settings.length, 0);
    assert.equal((await req('GET', `/defaultsettings/settings/${s.id}`, adm)).body.data.value, 'Front');
    const put = await req('PUT', `/defaultsettings/tenant/current/${s.id}`, adm, { value: 'Mid' });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.body.data.value, 'Mid');
    // a second value for the same key on the same entity is refused, pointing at the PUT
    const dup = await req('POST', '/defaultsettings/tenant/current', adm, { category: 'business', key: 'priceTier', value: 'Back' });
    assert.equal(dup.status, 400);
    assert.equal(dup.body.status, 'error');
    assert.match(dup.body.details[0], new RegExp(`PUT /defaultsettings/tenant/${a.workspaceId}/${s.id}`));
    const del = await req('DELETE', `/defaultsettings/tenant/current/${s.id}`, adm);
    assert.deepEqual(del.body, { status: 'success', message: 'Setting deleted', data: null });
    assert.equal((await req('GET', `/defaultsettings/settings/${s.id}`, adm)).status, 404);
    assert.equal((await req('DELETE', `/defaultsettings/tenant/current/${s.id}`, adm)).status, 404);
  });

  it('bad input is a 400 naming the field; unknown entities are 404', async () => {
    const adm = a.users.admin!.token;
    const bad = async (body: unknown, re: RegExp, path = '/defaultsettings/tenant/current') => {
      const r = await req('POST', path, adm, body);
      assert.equal(r.status, 400, r.text);
      assert.equal(r.body.status, 'error');
      assert.ok(r.body.details.some((d: string) => re.test(d)), JSON.stringify(r.body));
    };
    await bad({ category: 'content', key: 'genreX', value: 'Pop' }, /^body\.key must be one of genre, subGenre/);
    await bad({ category: 'ddex', key: 'territories', value: ['GB', 'XX'] }, /body\.value: "XX" is not a territory code/);
    await bad({ category: 'ddex', key: 'territories', value: ['Worldwide', 'GB'] }, /Worldwide cannot be combined/);
    await bad({ category: 'ddex', key: 'commercialModels', value: ['FreeMoney'] }, /^body\.value\.0 /);
    await bad({ category: 'ddex', key: 'senderDpid', value: 'ACME' }, /^body\.value must match pattern/);
    await bad({ category: 'ddex', key: 'dealStartDate', value: '0001-01-01' }, /^body\.value must be a date \(YYYY-MM-DD\) from 1900-01-01 to 2199-12-31$/);
    await bad({ category: 'ddex', key: 'dealStartDate', value: '2026-02-30' }, /^body\.value must be a date \(YYYY-MM-DD\) from 1900-01-01 to 2199-12-31$/);
    await bad({ category: 'pricing', key: 'x', value: 1 }, /^body\.category/);
    await bad({ category: 'business', key: '1st', value: 1 }, /^body\.key must start with a letter/);
    await bad({ category: 'business', key: 'blob', value: 'x'.repeat(9000) }, /over 8192 bytes/);
    await bad({ category: 'business', key: 'nothing', value: null }, /^body\.value must not be null/);
    await bad({ category: 'business', key: 'x', value: 1, extra: true }, /unknown property "extra"/);
    await bad({ category: 'business', key: 'x', value: 1 }, /^params\.entityType/, '/defaultsettings/planet/current');
    // a workspace's own keys in business and validation are fine
    await set(adm, 'tenant', 'current', 'business', 'advanceRecoupment', { rate: '0.5' });
    assert.equal((await req('POST', '/defaultsettings/artist/00000000-0000-4000-8000-000000000000', adm, { category: 'business', key: 'x', value: 1 })).status, 404);
    assert.equal((await req('GET', '/defaultsettings/label/not-a-uuid', adm)).status, 404);
    assert.equal((await req('GET', '/defaultsettings/tenant/00000000-0000-4000-8000-000000000000', adm)).status, 404);
  });

  it('inheritance user → artist → label → catalog → tenant: each level wins over the ones above it, and the preview says which', async () => {
    const adm = a.users.admin!.token;
    const me = a.users.user!;
    const ids: Record<string, string> = {};
    ids.tenant = (await set(adm, 'tenant', 'current', 'content', 'genre', 'Tenant genre')).id;
    ids.catalog = (await set(adm, 'catalog', catalog, 'content', 'genre', 'Catalog genre')).id;
    ids.label = (await set(adm, 'label', label, 'content', 'genre', 'Label genre')).id;
    ids.artist = (await set(adm, 'artist', artist, 'content', 'genre', 'Artist genre')).id;
    ids.user = (await set(me.token, 'user', me.tenantUserId, 'content', 'genre', 'User genre')).id;
    const resolve = async (entityType: string, entityId: string) => {
      const r = await req('POST', '/defaultsettings/preview/resolve', me.token, { entityType, entityId });
      assert.equal(r.status, 200, r.text);
      return r.body.data;
    };
    const top = await resolve('user', me.tenantUserId);
    assert.deepEqual(top.chain.map((c: any) => [c.level, c.entityId]), [['user', me.tenantUserId], ['artist', artist], ['label', label], ['catalog', catalog], ['tenant', a.workspaceId]]);
    assert.deepEqual(top.chain.map((c: any) => c.name).slice(1, 4), ['Mara Vale', 'Vale Records', 'Frontline']);
    assert.deepEqual(top.settings.content.genre.overrides.map((o: any) => o.level), ['artist', 'label', 'catalog', 'tenant']);
    // every level's own view
    const order = ['user', 'artist', 'label', 'catalog', 'tenant'] as const;
    const entity = { user: me.tenantUserId, artist, label, catalog, tenant: a.workspaceId };
    for (const [i, level] of order.entries()) {
      const r = await resolve(level, entity[level]);
      assert.equal(r.chain[0].level, level);
      assert.deepEqual(r.chain.map((c: any) => c.level), order.slice(i));
      assert.deepEqual({ value: r.settings.content.genre.value, level: r.settings.content.genre.level, settingId: r.settings.content.genre.settingId }, { value: `${level[0]!.toUpperCase()}${level.slice(1)} genre`, level, settingId: ids[level] });
    }
    // removing a level's value uncovers the next one up
    for (const [i, level] of order.entries()) {
      const g = (await resolve('user', me.tenantUserId)).settings.content.genre;
      assert.equal(g.level, level);
      assert.equal(g.entityId, entity[level]);
      const token = level === 'user' ? me.token : adm;
      assert.equal((await req('DELETE', `/defaultsettings/${level}/${entity[level]}/${ids[level]}`, token)).status, 200);
      const after = (await resolve('user', me.tenantUserId)).settings.content.genre;
      // the next level up answers; after the last one, nothing does
      assert.equal(i < order.length - 1 ? after.level : after, order[i + 1]);
    }
    // built-in defaults show as level "default"
    const d = (await resolve('tenant', 'current')).settings;
    assert.deepEqual(d.ddex.territories, { value: ['Worldwide'], level: 'default', entityId: null, settingId: null, overrides: [] });
    assert.equal(d.content.language.value, 'en');
    assert.equal(d.validation.requireTrackMedia.value, false);
  });

  it('asset, product and release previews map an item to its chain; userId names a payee or leaves the user level out', async () => {
    const adm = a.users.admin!.token;
    const other = (await app.request('POST', '/labels', { token: adm, body: { name: 'Side Imprint' } })).body.data.id;
    await set(adm, 'label', other, 'ddex', 'territories', ['JP']);
    await set(adm, 'label', label, 'ddex', 'territories', ['GB', 'IE']);
    await set(a.users.user!.token, 'user', a.users.user!.tenantUserId, 'business', 'priceTier', 'Budget');
    const asset = (await req('POST', '/asset', adm, { title: 'Preview', isrc: 'GB-DSA-26-00001', artists: [artist] })).body.data.id;
    const prev = async (kind: string, body: object, token = a.users.user!.token) => {
      const r = await req('POST', `/defaultsettings/preview/${kind}`, token, body);
      assert.equal(r.status, 200, r.text);
      return r.body.data;
    };
    const pa = await prev('asset', { assetId: asset });
    assert.deepEqual(pa.chain.map((c: any) => c.level), ['user', 'artist', 'label', 'catalog', 'tenant']);
    assert.equal(pa.entityType, 'asset');
    assert.deepEqual(pa.settings.ddex.territories.value, ['GB', 'IE']);
    assert.equal(pa.settings.ddex.territories.level, 'label');
    assert.equal(pa.settings.business.priceTier.value, 'Budget');
    // no user level
    const none = await prev('asset', { assetId: asset, userId: null });
    assert.deepEqual(none.chain.map((c: any) => c.level), ['artist', 'label', 'catalog', 'tenant']);
    assert.equal(none.settings.business.priceTier, undefined);
    // a payee named by an admin
    const payee = await prev('asset', { assetId: asset, userId: a.users.user!.tenantUserId }, adm);
    assert.equal(payee.chain[0].entityId, a.users.user!.tenantUserId);
    // a product naming the other label: that label comes before its artists' label
    const product = (await req('POST', '/product', adm, { title: 'P', upc: '036000291452', label: 'side imprint', artists: [artist] })).body.data.id;
    const pp = await prev('product', { productId: product, userId: null });
    assert.deepEqual(pp.chain.map((c: any) => c.level === 'label' ? c.name : c.level), ['artist', 'Side Imprint', 'Vale Records', 'catalog', 'tenant']);
    assert.deepEqual(pp.settings.ddex.territories.value, ['JP']);
    assert.deepEqual(pp.settings.ddex.territories.overrides.map((o: any) => o.value), [['GB', 'IE']]);
    // a release by the artist
    const rel = (await req('POST', '/releases', adm, { title: 'R', artist })).body.data.id;
    const pr = await prev('release', { releaseId: rel, userId: null });
    assert.deepEqual(pr.chain.map((c: any) => c.level), ['artist', 'label', 'catalog', 'tenant']);
    assert.equal((await req('POST', '/defaultsettings/preview/release', adm, { releaseId: '00000000-0000-4000-8000-000000000000' })).status, 404);
    assert.equal((await req('POST', '/defaultsettings/preview/asset', adm, { assetId: asset, userId: '00000000-0000-4000-8000-000000000000' })).status, 404);
  });

  it('members write only their own user settings; admins write every level; guests read nothing', async () => {
    const u = a.users.user!;
    const r1 = await req('POST', `/defaultsettings/user/${a.users.admin!.tenantUserId}`, u.token, { category: 'business', key: 'x', value: 1 });
    assert.equal(r1.status, 403);
    assert.equal(r1.body.status, 'error');
    assert.equal((await req('POST', '/defaultsettings/tenant/current', u.token, { category: 'business', key: 'x', value: 1 })).status, 403);
    assert.equal((await req('POST', `/defaultsettings/artist/${artist}`, u.token, { category: 'business', key: 'x', value: 1 })).status, 403);
    const own = await set(u.token, 'user', u.tenantUserId, 'business', 'x', 1);
    assert.equal((await req('PUT', `/defaultsettings/user/${u.tenantUserId}/${own.id}`, a.users.admin!.token, { value: 2 })).status, 200);
    assert.equal((await req('GET', '/defaultsettings/tenant/current', a.users.guest!.token)).status, 403);
    assert.equal((await req('POST', '/defaultsettings/templates', u.token, { name: 'Mine', settings: [{ category: 'business', key: 'x', value: 1 }] })).status, 403);
    assert.equal((await app.request('GET', '/defaultsettings/templates')).status, 401);
  });

  it('templates: built-in and own, create from settings or from an entity, apply (keeping or overwriting), popular, read-only built-ins', async () => {
    const adm = a.users.admin!.token;
    const list = (await req('GET', '/defaultsettings/templates', a.users.user!.token)).body.data;
    assert.ok(list.some((t: any) => t.id === 'builtin-worldwide-digital' && t.builtin));
    const created = await req('POST', '/defaultsettings/templates', adm, { name: 'Nordics', description: 'Nordic deals', settings: [{ category: 'ddex', key: 'territories', value: ['SE', 'NO', 'DK', 'FI', 'IS'] }, { category: 'content', key: 'language', value: 'sv' }] });
    assert.equal(created.status, 201, created.text);
    const t = created.body.data;
    assert.equal(t.builtin, false);
    assert.equal(t.uses, 0);
    const dupName = await req('POST', '/defaultsettings/templates', adm, { name: 'nordics', settings: [{ category: 'business', key: 'x', value: 1 }] });
    assert.equal(dupName.status, 400);
    assert.match(dupName.body.message, /already exists/);
    const badItem = await req('POST', '/defaultsettings/templates', adm, { name: 'Bad', settings: [{ category: 'ddex', key: 'territories', value: ['Mars'] }] });
    assert.equal(badItem.status, 400);
    assert.match(badItem.body.details[0], /^body\.settings\[0\]\.value: "Mars"/);
    const empty = await req('POST', '/defaultsettings/templates', adm, { name: 'Empty' });
    assert.equal(empty.status, 400);
    // from an entity's own settings
    const art2 = (await req('POST', '/artist', adm, { name: 'Template Source' })).body.data.id;
    await set(adm, 'artist', art2, 'content', 'cLine', '2026 Template Source');
    const fromEntity = await req('POST', '/defaultsettings/templates', adm, { name: 'From artist', from: { entityType: 'artist', entityId: art2 } });
    assert.equal(fromEntity.status, 201, fromEntity.text);
    assert.deepEqual(fromEntity.body.data.settings, [{ category: 'content', key: 'cLine', value: '2026 Template Source' }]);
    // apply: new keys created, existing ones kept unless overwrite
    const target = (await req('POST', '/artist', adm, { name: 'Target' })).body.data.id;
    await set(adm, 'artist', target, 'content', 'language', 'en');
    const ap = await req('POST', `/defaultsettings/templates/${t.id}/apply`, adm, { entityType: 'artist', entityId: target });
    assert.equal(ap.status, 200, ap.text);
    assert.deepEqual([ap.body.data.created, ap.body.data.updated, ap.body.data.skipped], [['ddex.territories'], [], ['content.language']]);
    const ap2 = await req('POST', `/defaultsettings/templates/${t.id}/apply`, adm, { entityType: 'artist', entityId: target, overwrite: true });
    assert.deepEqual([ap2.body.data.created, ap2.body.data.updated, ap2.body.data.skipped], [[], ['ddex.territories', 'content.language'], []]);
    const own = (await req('GET', `/defaultsettings/artist/${target}`, adm)).body.data.settings;
    assert.deepEqual(own.map((s: any) => [s.key, s.value]), [['language', 'sv'], ['territories', ['SE', 'NO', 'DK', 'FI', 'IS']]]);
    await req('POST', '/defaultsettings/templates/builtin-streaming-only/apply', adm, { entityType: 'label', entityId: label });
    // popular: most applied first
    const pop = (await req('GET', '/defaultsettings/templates/popular?limit=2', a.users.user!.token)).body.data;
    assert.deepEqual(pop.map((p: any) => [p.id, p.uses]), [[t.id, 2], ['builtin-streaming-only', 1]]);
    // built-ins are read-only; own ones change and go
    const ro = await req('PUT', '/defaultsettings/templates/builtin-europe', adm, { name: 'Mine now' });
    assert.equal(ro.status, 400);
    assert.match(ro.body.message, /Built-in templates cannot be changed/);
    assert.equal((await req('DELETE', '/defaultsettings/templates/builtin-europe', adm)).status, 400);
    const upd = await req('PUT', `/defaultsettings/templates/${t.id}`, adm, { name: 'Nordic countries' });
    assert.equal(upd.body.data.name, 'Nordic countries');
    assert.equal(upd.body.data.uses, 2);
    assert.equal((await req('DELETE', `/defaultsettings/templates/${t.id}`, adm)).status, 200);
    assert.equal((await req('POST', `/defaultsettings/templates/${t.id}/apply`, adm, { entityType: 'artist', entityId: target })).status, 404);
    assert.equal((await req('PUT', '/defaultsettings/templates/builtin-nope', adm, { name: 'x' })).status, 404);
    assert.equal((await req('PUT', '/defaultsettings/templates/../x', adm, { name: 'x' })).status, 404);
  });

  it('clone copies one entity\'s own settings onto others (by category, keeping or overwriting)', async () => {
    const adm = a.users.admin!.token;
    const src = (await req('POST', '/labels', adm, { name: 'Clone Source' })).body.data.id;
    await set(adm, 'label', src, 'ddex', 'territories', ['US', 'CA']);
    await set(adm, 'label', src, 'content', 'pLine', '2026 Clone Source');
    const t1 = (await req('POST', '/artist', adm, { name: 'C1' })).body.data.id;
    const t2 = (await req('POST', '/artist', adm, { name: 'C2' })).body.data.id;
    await set(adm, 'artist', t2, 'ddex', 'territories', ['MX']);
    const r = await req('POST', '/defaultsettings/clone', adm, { source: { entityType: 'label', entityId: src }, targets: [{ entityType: 'artist', entityId: t1 }, { entityType: 'artist', entityId: t2 }] });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.data.settings, 2);
    assert.deepEqual(r.body.data.targets.map((x: any) => [x.entityId, x.created, x.skipped]), [[t1, ['content.pLine', 'ddex.territories'], []], [t2, ['content.pLine'], ['ddex.territories']]]);
    const only = await req('POST', '/defaultsettings/clone', adm, { source: { entityType: 'label', entityId: src }, targets: [{ entityType: 'artist', entityId: t2 }], categories: ['ddex'], overwrite: true });
    assert.deepEqual(only.body.data.targets[0].updated, ['ddex.territories']);
    assert.equal(only.body.data.settings, 1);
    const self = await req('POST', '/defaultsettings/clone', adm, { source: { entityType: 'label', entityId: src }, targets: [{ entityType: 'label', entityId: src }] });
    assert.equal(self.status, 400);
    const unknown = await req('POST', '/defaultsettings/clone', adm, { source: { entityType: 'label', entityId: src }, targets: [{ entityType: 'artist', entityId: '00000000-0000-4000-8000-000000000000' }] });
    assert.equal(unknown.status, 400);
    assert.match(unknown.body.details[0], /^body\.targets\[0\]/);
    // a member may clone onto their own user level only
    const mine = await req('POST', '/defaultsettings/clone', a.users.user!.token, { source: { entityType: 'label', entityId: src }, targets: [{ entityType: 'user', entityId: a.users.user!.tenantUserId }], categories: ['content'] });
    assert.equal(mine.status, 200, mine.text);
    assert.equal((await req('POST', '/defaultsettings/clone', a.users.user!.token, { source: { entityType: 'label', entityId: src }, targets: [{ entityType: 'artist', entityId: t1 }] })).status, 403);
  });

  /** A new artist on a new label, with content settings on each; the artist's id. */
  async function artistOnLabel(token: string, artist: string, label: string, labelContent: Record<string, string>, artistContent: Record<string, string>) {
    const art = (await req('POST', '/artist', token, { name: artist })).body.data.id;
    const lab = (await req('POST', '/labels', token, { name: label, artists: [art] })).body.data.id;
    for (const [k, v] of Object.entries(labelContent)) await set(token, 'label', lab, 'content', k, v);
    for (const [k, v] of Object.entries(artistContent)) await set(token, 'artist', art, 'content', k, v);
    return art as string;
  }

  it('content defaults fill new assets, products and releases where the field was not given', async () => {
    const adm = a.users.admin!.token;
    const art = await artistOnLabel(adm, 'Filled Artist', 'Filling Label', { genre: 'Jazz', labelName: 'Filling Label Ltd', pLine: '2026 Filling Label Ltd' }, { subGenre: 'Nu Jazz' });
    const asset = (await req('POST', '/asset', adm, { title: 'F', isrc: 'GB-DSA-26-00010', artists: [art] })).body.data;
    assert.deepEqual([asset.mainGenre, asset.subGenre], [['Jazz'], ['Nu Jazz']]);
    const given = (await req('POST', '/asset', adm, { title: 'G', isrc: 'GB-DSA-26-00011', artists: [art], mainGenre: ['Blues'] })).body.data;
    assert.deepEqual(given.mainGenre, ['Blues']);
    const product = (await req('POST', '/product', adm, { title: 'F', upc: '4006381333931', artists: [art] })).body.data;
    assert.deepEqual([product.mainGenre, product.label], [['Jazz'], 'Filling Label Ltd']);
    const rel = (await req('POST', '/releases', adm, { title: 'F', artist: art, metadata: { cLine: 'own' } })).body.data;
    assert.deepEqual(rel.genre, ['Jazz']);
    assert.equal(rel.label, 'Filling Label Ltd');
    assert.deepEqual(rel.metadata, { cLine: 'own', pLine: '2026 Filling Label Ltd', subGenre: 'Nu Jazz' });
    // nothing set anywhere on the chain: nothing filled (built-in defaults are not copied)
    const bare = (await req('POST', '/releases', b.users.admin!.token, { title: 'Bare' })).body.data;
    assert.deepEqual([bare.genre, bare.label, bare.metadata], [[], null, {}]);
  });

  it('bulk creates take the content defaults as single creates do', async () => {
    const adm = a.users.admin!.token;
    const art = await artistOnLabel(adm, 'Bulk Filled', 'Bulk Label', { genre: 'Soul', labelName: 'Bulk Label Ltd' }, { subGenre: 'Neo Soul' });
    const single = (await req('POST', '/asset', adm, { title: 'Bulk S', isrc: 'GB-DSA-26-00040', artists: [art] })).body.data;
    const bulk = await req('POST', '/asset/bulk', adm, { assets: [
      { title: 'Bulk A1', isrc: 'GB-DSA-26-00041', artists: [art] },
      { title: 'Bulk A2', isrc: 'GB-DSA-26-00042', artists: [art], mainGenre: ['Funk'] },
      { title: 'Bulk A3', isrc: 'GB-DSA-26-00043' },
    ] });
    assert.equal(bulk.status, 200, bulk.text);
    const row = (title: string, table = 'assets') => app.svc.db.owner(table).where({ tenant_id: a.tenantId, title }).first();
    const a1 = await row('Bulk A1');
    assert.deepEqual([a1.main_genre, a1.sub_genre], [single.mainGenre, single.subGenre]);
    assert.deepEqual([a1.main_genre, a1.sub_genre], [['Soul'], ['Neo Soul']]);
    assert.deepEqual((await row('Bulk A2')).main_genre, ['Funk'], 'a value given is kept');
    assert.deepEqual((await row('Bulk A3')).main_genre, [], 'no artist, no label: nothing set on its chain');
    const prods = await req('POST', '/product/bulk', adm, { products: [
      { title: 'Bulk P1', upc: '4006381333948', artists: [art] },
      { title: 'Bulk P2', upc: '4006381333955', artists: [art], label: 'Own Label' },
    ] });
    assert.equal(prods.status, 200, prods.text);
    const p1 = await row('Bulk P1', 'products');
    assert.deepEqual([p1.main_genre, p1.label], [['Soul'], 'Bulk Label Ltd']);
    const p2 = await row('Bulk P2', 'products');
    assert.deepEqual([p2.main_genre, p2.label], [['Soul'], 'Own Label']);
  });

  it('labels and catalogs: one label per artist, a catalog holding labels cannot go', async () => {
    const adm = a.users.admin!.token;
    const art = (await req('POST', '/artist', adm, { name: 'Mover' })).body.data.id;
    const l1 = (await req('POST', '/labels', adm, { name: 'First', artists: [art] })).body.data.id;
    const l2 = (await req('POST', '/labels', adm, { name: 'Second', artists: [art], catalogId: catalog })).body.data;
    assert.deepEqual(l2.artists, [art]);
    assert.deepEqual((await req('GET', `/labels/${l1}`, adm)).body.data.artists, []);
    assert.equal((await req('GET', `/labels/${l1}`, a.users.user!.token)).status, 403); // labels and catalogs are read by admins (docs/auth.md)
    assert.equal((await req('POST', '/labels', adm, { name: 'second' })).status, 400);
    assert.equal((await req('POST', '/labels', adm, { name: 'Third', catalogId: '00000000-0000-4000-8000-000000000000' })).status, 400);
    const inCat = (await req('GET', `/labels?catalogId=${catalog}`, adm)).body.data.map((l: any) => l.name);
    assert.deepEqual(inCat, ['Second', 'Vale Records']);
    const c = await req('DELETE', `/catalogs/${catalog}`, adm);
    assert.equal(c.status, 400);
    assert.match(c.body.message, /still holds labels/);
    assert.equal((await req('PUT', `/labels/${l2.id}`, adm, { catalogId: null })).body.data.catalogId, null);
    await set(adm, 'label', l1, 'business', 'x', 1);
    assert.equal((await req('DELETE', `/labels/${l1}`, adm)).status, 200);
    assert.equal((await req('GET', `/labels/${l1}`, adm)).status, 404);
    assert.equal((await req('GET', `/catalogs/${catalog}`, adm)).body.data.name, 'Frontline');
    assert.equal((await req('POST', '/labels', a.users.user!.token, { name: 'Nope' })).status, 403);
  });

  it('merging artists carries their settings and label to the surviving artist', async () => {
    const adm = a.users.admin!.token;
    const keep = (await req('POST', '/artist', adm, { name: 'Keeper' })).body.data.id;
    const dupe = (await req('POST', '/artist', adm, { name: 'KEEPER' })).body.data.id;
    const lab = (await req('POST', '/labels', adm, { name: 'Merge Label', artists: [dupe] })).body.data.id;
    const kept = await set(adm, 'artist', keep, 'content', 'genre', 'Soul');
    await set(adm, 'artist', dupe, 'content', 'genre', 'Funk');
    await set(adm, 'artist', dupe, 'content', 'pLine', '2026 Keeper');
    const m = await req('PUT', `/artist/${keep}/merge`, adm, { artists: [dupe] });
    assert.equal(m.status, 200, m.text);
    const own = (await req('GET', `/defaultsettings/artist/${keep}`, adm)).body.data.settings;
    assert.deepEqual(own.map((x: any) => [x.key, x.value]), [['genre', 'Soul'], ['pLine', '2026 Keeper']]);
    assert.equal(own[0].id, kept.id);
    assert.deepEqual((await req('GET', `/labels/${lab}`, adm)).body.data.artists, [keep]);
    assert.equal((await req('GET', `/defaultsettings/artist/${dupe}`, adm)).status, 404);
  });

  it("another workspace sees none of it and can change none of it", async () => {
    const adm = a.users.admin!.token;
    const mine = await set(adm, 'artist', artist, 'business', 'secretDeal', 'A only');
    const tpl = (await req('POST', '/defaultsettings/templates', adm, { name: 'A template', settings: [{ category: 'business', key: 'y', value: 1 }] })).body.data.id;
    const bo = b.users.owner!.token;
    const asset = (await req('POST', '/asset', adm, { title: 'A asset', isrc: 'GB-DSA-26-00020', artists: [artist] })).body.data.id;
    const checks: [string, string, unknown?][] = [
      ['GET', `/defaultsettings/settings/${mine.id}`],
      ['GET', `/defaultsettings/artist/${artist}`],
      ['POST', `/defaultsettings/artist/${artist}`, { category: 'business', key: 'z', value: 1 }],
      ['PUT', `/defaultsettings/artist/${artist}/${mine.id}`, { value: 'B was here' }],
      ['DELETE', `/defaultsettings/artist/${artist}/${mine.id}`],
      ['GET', `/defaultsettings/tenant/${a.workspaceId}`],
      ['GET', `/defaultsettings/user/${a.users.user!.tenantUserId}`],
      ['POST', '/defaultsettings/preview/resolve', { entityType: 'label', entityId: label }],
      ['POST', '/defaultsettings/preview/asset', { assetId: asset }],
      ['POST', `/defaultsettings/templates/${tpl}/apply`, { entityType: 'tenant', entityId: 'current' }],
      ['PUT', `/defaultsettings/templates/${tpl}`, { name: 'B' }],
      ['DELETE', `/defaultsettings/templates/${tpl}`],
      ['GET', `/labels/${label}`],
      ['PUT', `/catalogs/${catalog}`, { name: 'B' }],
    ];
    for (const [m, p, body] of checks) {
      const r = await req(m, p, bo, body);
      assert.equal(r.status, 404, `${m} ${p}: ${r.text}`);
      assert.equal(r.body.status, 'error');
    }
    const clone = await req('POST', '/defaultsettings/clone', bo, { source: { entityType: 'artist', entityId: artist }, targets: [{ entityType: 'tenant', entityId: 'current' }] });
    assert.equal(clone.status, 404);
    const bt = (await req('GET', '/defaultsettings/templates', bo)).body.data;
    assert.ok(bt.every((t: any) => t.builtin), 'B lists only built-in templates');
    const br = (await req('POST', '/defaultsettings/preview/resolve', bo, { entityType: 'tenant', entityId: 'current' })).body.data;
    assert.deepEqual(br.chain.map((c: any) => c.entityId), [b.workspaceId]);
    assert.equal(br.settings.business.secretDeal, undefined);
    assert.equal((await req('GET', `/defaultsettings/settings/${mine.id}`, adm)).body.data.value, 'A only');
  });
});
