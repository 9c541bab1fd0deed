/**
 * Source patterns as data, through HTTP: super-admin patterns used by the very next upload,
 * versions kept, pattern creator (dry run), tenant sources isolated, roles.
 */
import assert from 'node:assert/strict';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { fixture, upload, waitFile, seedRates } from './helpers';

/** A made-up distributor layout ("Rondo Test Distributor"), written for these tests only. */
function testPattern(over: Record<string, unknown> = {}) {
  return {
    key: 'rondo-test-distributor',
    name: 'Rondo Test Distributor',
    aggregator: 'RTD',
    layout: 'table',
    detect: { fileName: '^rtd_.*\\.csv$', headers: ['Month', 'Track', 'Recording Code', 'Territory', 'Payable', 'Cur'] },
    format: { delimiter: ',', encoding: 'auto' },
    columns: {
      saleMonth: { from: 'Month' },
      trackTitle: { from: 'Track' },
      isrc: { from: 'Recording Code' },
      country: { from: 'Territory' },
      net: { from: 'Payable' },
      currency: { from: 'Cur' },
    },
    ...over,
  };
}
const RTD = 'Month,Track,Recording Code,Territory,Payable,Cur\n2024-03,Low Orbit,qzes81912345,DE,1.25,EUR\n2024-03,Paper Suns,QZES81912346,FR,0.75,EUR\n2024-03,Paper Suns,QZES81912346,US,2.5,USD\n';

describe('statement ingestion: sources and patterns', function () {
  this.timeout(90_000);
  let app: TestApp;
  let a: TestTenant;
  let b: TestTenant;
  let god: string;
  let rtdId: string;
  let firstFile: string;

  before(async () => {
    app = await startTestApp({ workers: true });
    a = await createTestTenant(app, 'Src A');
    b = await createTestTenant(app, 'Src B');
    await seedRates(app, a.tenantId, b.tenantId);
    god = (await app.svc.auth.createApiKey('god', {})).token;
  });
  after(async () => app?.close());

  it('super-admin only: tenant owners get 403, anonymous 401; GET /pattern-creator/sources is gone (404)', async () => {
    const owner = a.users.owner!.token;
    for (const [m, p] of [['GET', '/sources/admin'], ['POST', '/sources/admin'], ['GET', '/pattern-creator/schema'], ['POST', '/pattern-creator/validate'], ['POST', '/pattern-creator/dry-run']]) {
      assert.equal((await app.request(m!, p!, { token: owner, body: m === 'POST' ? { pattern: testPattern() } : undefined })).status, 403, `${m} ${p}`);
      assert.equal((await app.request(m!, p!)).status, 401, `${m} ${p}`);
    }
    assert.equal((await app.request('GET', '/pattern-creator/sources', { token: god })).status, 404);
    const list = await app.request('GET', '/sources/admin', { token: god });
    assert.equal(list.status, 200);
    assert.equal(list.body.status, 'success');
    const keys = list.body.data.map((s: any) => s.key);
    for (const k of ['distrokid', 'distrokid-2023', 'distrokid-2018', 'tunecore', 'cdbaby', 'apple-music-streaming', 'itunes-downloads', 'youtube-asset-raw', 'believe', 'fuga', 'orchard', 'bandcamp', 'soundcloud', 'ddex-dsr'])
      assert.ok(keys.includes(k), k);
    assert.ok(list.body.data.every((s: any) => s.builtin && s.scope === 'global'));
  });

  it('an invalid pattern is refused with the validator\'s reasons', async () => {
    const r = await app.request('POST', '/sources/admin', { token: god, body: { pattern: { key: 'x', name: 'x' } } });
    assert.equal(r.status, 400);
    assert.equal(r.body.status, 'error');
    assert.ok(r.body.details.length > 0);
    const v = await app.request('POST', '/pattern-creator/validate', { token: god, body: { pattern: testPattern({ detect: { headers: ['A'], fileName: '([' } }) } });
    assert.equal(v.body.data.valid, false);
    assert.match(v.body.data.errors.join(' '), /regular expression/);
  });

  it('dry run: detection scores and the first mapped lines of a sample, nothing saved', async () => {
    const fd = new FormData();
    fd.append('pattern', JSON.stringify(testPattern()));
    fd.append('file', new Blob([RTD]), 'rtd_march.csv');
    const r = await app.request('POST', '/pattern-creator/dry-run', { token: god, raw: fd });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.data.detection[0].patternKey, 'rondo-test-distributor');
    assert.ok(r.body.data.detection[0].score >= 0.8);
    assert.equal(r.body.data.read.lines.length, 3);
    assert.equal(r.body.data.read.lines[0].isrc, 'QZES81912345');
    assert.deepEqual(r.body.data.read.summary.totals, { EUR: '2', USD: '2.5' });
    const fd2 = new FormData();
    fd2.append('file', new Blob([fixture('tunecore-sales-report.csv')]), 'tunecore-sales-report.csv');
    const r2 = await app.request('POST', '/pattern-creator/dry-run', { token: god, raw: fd2 });
    assert.equal(r2.body.data.detection[0].patternKey, 'tunecore', 'without a pattern: the active ones');
    assert.equal((await app.request('GET', '/sources/admin', { token: god })).body.data.some((s: any) => s.key === 'rondo-test-distributor'), false);
  });

  it('a pattern posted by a super-admin is used for the very next upload', async () => {
    const before = await upload(app, a.users.admin!.token, 'rtd_march.csv', RTD);
    assert.equal((await waitFile(app, a.users.admin!.token, before.body.data.id)).status, 'needs_confirmation');
    const c = await app.request('POST', '/sources/admin', { token: god, body: { pattern: testPattern() } });
    assert.equal(c.status, 201, c.text);
    rtdId = c.body.data.id;
    assert.equal(c.body.data.version, 1);
    const r = await upload(app, a.users.admin!.token, 'rtd_march_2.csv', RTD + '\n');
    const f = await waitFile(app, a.users.admin!.token, r.body.data.id);
    assert.equal(f.status, 'processed', f.error);
    assert.deepEqual(f.source, { id: rtdId, key: 'rondo-test-distributor', name: 'Rondo Test Distributor', version: 1 });
    assert.deepEqual(f.totals, { EUR: '2', USD: '2.5' });
    firstFile = f.id;
    // the file waiting for confirmation can now be confirmed with it
    const conf = await app.request('POST', `/file/confirm-detection/${before.body.data.id}`, { token: a.users.admin!.token, body: { source: rtdId } });
    assert.equal(conf.status, 200, conf.text);
    assert.equal((await waitFile(app, a.users.admin!.token, before.body.data.id, ['processed', 'failed'])).counts.rowsIngested, 3);
  });

  it('changing a pattern keeps the old version; each file records the version that read it', async () => {
    const p2 = testPattern({ dsp: 'RTD Store', columns: { ...testPattern().columns, dsp: { const: 'RTD Store' } } });
    const u = await app.request('PUT', `/sources/admin/${rtdId}`, { token: god, body: { pattern: p2 } });
    assert.equal(u.status, 200, u.text);
    assert.equal(u.body.data.version, 2);
    assert.deepEqual(u.body.data.versions.map((v: any) => v.version), [1, 2]);
    const same = await app.request('PUT', `/sources/admin/${rtdId}`, { token: god, body: { pattern: p2 } });
    assert.equal(same.body.data.version, 2, 'an identical definition is not a new version');
    const r = await upload(app, a.users.admin!.token, 'rtd_april.csv', RTD.replace(/2024-03/g, '2024-04'));
    const f = await waitFile(app, a.users.admin!.token, r.body.data.id);
    assert.equal(f.source.version, 2);
    const dsps = await app.svc.db.owner('royalty_lines').where({ file_id: f.id }).distinct('dsp');
    assert.deepEqual(dsps.map((d: any) => d.dsp), ['RTD Store']);
    const old = await waitFile(app, a.users.admin!.token, firstFile);
    assert.equal(old.source.version, 1);
    // re-running the old file reads it with the version it recorded
    await app.request('PUT', `/file/royalty/decompress/${a.tenantId}/${firstFile}`, { token: a.users.admin!.token });
    const again = await waitFile(app, a.users.admin!.token, firstFile, ['processed', 'failed']);
    assert.ok(again.source.version >= 1);
  });

  it('deleting: a posted pattern goes, a built-in is only deactivated', async () => {
    const ys = (await app.request('GET', '/sources/admin', { token: god })).body.data.find((s: any) => s.key === 'soundcloud');
    const d1 = await app.request('DELETE', `/sources/admin/${ys.id}`, { token: god });
    assert.equal(d1.body.data.result, 'deactivated');
    const all = await app.request('GET', '/file/sources', { token: a.users.user!.token });
    assert.ok(!all.body.data.some((s: any) => s.key === 'soundcloud'), 'inactive sources are not listed');
    const r = await upload(app, a.users.admin!.token, 'soundcloud-preamble.csv', fixture('soundcloud-preamble.csv'));
    assert.equal((await waitFile(app, a.users.admin!.token, r.body.data.id)).status, 'needs_confirmation');
    await app.request('PUT', `/sources/admin/${ys.id}`, { token: god, body: { active: true } });
    const tmp = await app.request('POST', '/sources/admin', { token: god, body: { pattern: testPattern({ key: 'rtd-temp', name: 'temp' }) } });
    const d2 = await app.request('DELETE', `/sources/admin/${tmp.body.data.id}`, { token: god });
    assert.equal(d2.body.data.result, 'deleted');
    assert.equal((await app.request('GET', `/sources/admin/${tmp.body.data.id}`, { token: god })).status, 404);
  });

  it('tenant sources: own patterns are isolated between tenants', async () => {
    const own = testPattern({ key: 'label-own', name: 'Label own layout', detect: { fileName: '^own_.*\\.csv$', headers: ['Month', 'Track', 'Recording Code', 'Territory', 'Payable', 'Cur'] } });
    const c = await app.request('POST', '/sources', { token: a.users.admin!.token, body: { pattern: own } });
    assert.equal(c.status, 201, c.text);
    assert.equal(c.body.data.source.scope, 'tenant');
    const aSource = c.body.data.id;
    const fa = await waitFile(app, a.users.admin!.token, (await upload(app, a.users.admin!.token, 'own_may.csv', RTD.replace(/2024-03/g, '2024-05'))).body.data.id);
    assert.equal(fa.status, 'processed');
    assert.equal(fa.source.key, 'label-own', 'the tenant pattern wins for its own file names');
    // B does not see or use A's pattern
    const bt = b.users.owner!.token;
    assert.deepEqual((await app.request('GET', '/sources', { token: bt })).body.data, []);
    assert.equal((await app.request('GET', `/sources/${aSource}`, { token: bt })).status, 404);
    assert.equal((await app.request('PUT', `/sources/${aSource}`, { token: bt, body: { name: 'stolen' } })).status, 404);
    assert.equal((await app.request('POST', `/sources/${aSource}/deactivate`, { token: bt })).status, 404);
    assert.equal((await app.request('POST', '/sources', { token: bt, body: { sourceId: c.body.data.source.id } })).status, 404);
    const fb = await waitFile(app, bt, (await upload(app, bt, 'own_may.csv', 'Month,Track,Recording Code,Territory,Payable,Cur\n2024-05,X,QZES81912345,DE,1,EUR\n')).body.data.id);
    assert.notEqual(fb.source?.key, 'label-own');
    assert.equal((await app.request('POST', `/file/confirm-detection/${fb.id}`, { token: bt, body: { source: 'label-own' } })).status, 400, 'B cannot name A\'s pattern');
    assert.equal((await app.request('GET', `/file/${fa.id}`, { token: bt })).status, 404);
    const sa = await app.request('GET', `/sources/${aSource}`, { token: a.users.user!.token });
    assert.equal(sa.body.data.name, 'Label own layout');
    // a new version of the tenant's own pattern; global ones are read-only here
    const u = await app.request('PUT', `/sources/${aSource}`, { token: a.users.admin!.token, body: { pattern: { ...own, name: 'Label own layout v2' } } });
    assert.equal(u.status, 200, u.text);
    assert.deepEqual(u.body.data.versions.map((v: any) => v.version), [1, 2]);
    const g = await app.request('POST', '/sources', { token: a.users.admin!.token, body: { sourceKey: 'tunecore' } });
    assert.equal(g.status, 201, g.text);
    const gu = await app.request('PUT', `/sources/${g.body.data.id}`, { token: a.users.admin!.token, body: { pattern: own } });
    assert.equal(gu.status, 400);
    const dupe = await app.request('POST', '/sources', { token: a.users.admin!.token, body: { sourceKey: 'tunecore' } });
    assert.equal(dupe.status, 400);
    const mine = await app.request('GET', '/file/sources?includeAll=false', { token: a.users.user!.token });
    assert.deepEqual(mine.body.data.map((s: any) => s.source.key).sort(), ['label-own', 'tunecore']);
  });

  it('deactivating a configured source takes it out of this tenant\'s detection only', async () => {
    const list = (await app.request('GET', '/sources', { token: a.users.admin!.token })).body.data;
    const tc = list.find((s: any) => s.source.key === 'tunecore');
    const d = await app.request('POST', `/sources/${tc.id}/deactivate`, { token: a.users.admin!.token });
    assert.equal(d.body.data.active, false);
    const body = fixture('tunecore-sales-report.csv');
    const fa = await waitFile(app, a.users.admin!.token, (await upload(app, a.users.admin!.token, 'tunecore-sales-report.csv', body)).body.data.id);
    assert.notEqual(fa.status === 'processed' && fa.source.key === 'tunecore', true);
    const fb = await waitFile(app, b.users.admin!.token, (await upload(app, b.users.admin!.token, 'tunecore-sales-report.csv', body)).body.data.id);
    assert.equal(fb.source.key, 'tunecore');
    assert.equal(fb.status, 'processed');
    const re = await app.request('POST', `/sources/${tc.id}/activate`, { token: a.users.admin!.token });
    assert.equal(re.body.data.active, true);
  });

  it('a file in the wrong encoding for its pattern fails cleanly', async () => {
    const strict = testPattern({ key: 'label-utf8', name: 'UTF-8 only', detect: { fileName: '^utf8_.*\\.csv$', headers: ['Month', 'Track', 'Recording Code', 'Territory', 'Payable', 'Cur'] }, format: { delimiter: ',', encoding: 'utf-8' } });
    assert.equal((await app.request('POST', '/sources', { token: a.users.admin!.token, body: { pattern: strict } })).status, 201);
    const latin1 = Buffer.from(RTD.replace('Low Orbit', 'Sél de Mer') + '2024-03,Café,QZES81912347,FR,1,EUR\n'.repeat(3000), 'latin1');
    const f = await waitFile(app, a.users.admin!.token, (await upload(app, a.users.admin!.token, 'utf8_march.csv', latin1)).body.data.id, ['processed', 'failed', 'needs_confirmation']);
    assert.equal(f.status, 'failed');
    assert.match(f.error, /not valid UTF-8/);
    assert.equal(Number((await app.svc.db.owner('royalty_lines').where({ file_id: f.id }).count({ n: '*' }))[0]!.n), 0);
  });

  it('role limits on tenant sources', async () => {
    assert.equal((await app.request('GET', '/sources', { token: a.users.user!.token })).status, 200);
    assert.equal((await app.request('GET', '/sources', { token: a.users.guest!.token })).status, 403);
    assert.equal((await app.request('POST', '/sources', { token: a.users.user!.token, body: { sourceKey: 'fuga' } })).status, 403);
    const any = (await app.request('GET', '/sources', { token: a.users.user!.token })).body.data[0];
    assert.equal((await app.request('POST', `/sources/${any.id}/deactivate`, { token: a.users.user!.token })).status, 403);
    assert.equal((await app.request('PUT', `/sources/${any.id}`, { token: a.users.user!.token, body: { name: 'n' } })).status, 403);
    assert.equal((await app.request('GET', '/file/sources', { token: a.users.guest!.token })).status, 403);
  });
});
