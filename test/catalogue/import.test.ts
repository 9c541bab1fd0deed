import assert from 'node:assert/strict';
import { createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { startPartnerRun, type PartnerRun } from '../partners/helpers';
import { withTenant } from '../../src/db';
import { runFetchJob } from '../../src/modules/imports/service';

/** Catalogue import (docs/catalogue-import.md): fetch only stages; apply writes pending items once. */
describe('catalogue import', function () {
  let run: PartnerRun;
  let app: TestApp;
  let a: TestTenant;
  let b: TestTenant;
  const adm = () => a.users.admin!.token;

  before(async () => {
    run = await startPartnerRun({ workers: true });
    app = run.app;
    a = await createTestTenant(app, 'ImpA');
    b = await createTestTenant(app, 'ImpB');
  });
  after(async () => run.close());

  async function counts(t: TestTenant) {
    const q = (table: string) => app.svc.db.owner(table).where({ tenant_id: t.tenantId }).count('* as n').first();
    return { assets: Number((await q('assets'))!.n), products: Number((await q('products'))!.n) };
  }

  /** Polls the job until it settles (the worker runs it); the state is then asserted exactly. */
  async function settled(jobId: string, token = adm()) {
    for (let i = 0; i < 400; i++) {
      const r = await app.request('GET', `/job/${jobId}`, { token });
      assert.equal(r.status, 200, r.text);
      if (r.body.data.status === 'staged' || r.body.data.status === 'failed') return r.body.data;
      await new Promise((res) => setTimeout(res, 100));
    }
    throw new Error('the fetch job did not settle');
  }

  async function fetchBatch(body: unknown, token = adm()) {
    const r = await app.request('POST', '/fetch', { token, body });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(Object.keys(r.body.data).sort(), ['batchId', 'jobId']);
    return { ...r.body.data, job: await settled(r.body.data.jobId, token) };
  }

  it('lists the providers: the file always, the distributor once credentials are set', async () => {
    const before = await app.request('GET', '/providers', { token: adm() });
    assert.equal(before.status, 200, before.text);
    assert.deepEqual(before.body.data.map((p: { id: string; available: boolean }) => [p.id, p.available]), [['file', true], ['distributor', false]]);
    assert.equal((await app.request('PUT', '/ddex/distributor/credentials', { token: adm(), body: { token: 'dtok_import_0123456789abcdef' } })).status, 200);
    const after = await app.request('GET', '/providers', { token: adm() });
    assert.deepEqual(after.body.data.map((p: { id: string; available: boolean }) => [p.id, p.available]), [['file', true], ['distributor', true]]);
  });

  it('a CSV file is staged pending; the fetch writes no asset or product (rule 3)', async () => {
    const csv = 'title,isrc,upc,artists,label,releaseDate,tracks\nFirst Light,GB-ABC-26-00001,,Ada North,,,\nSecond Wind,GBABC2600002,,Ada North,,,\nDawn EP,,0886440000042,Ada North,North Label,2026-02-01,GBABC2600001;GBABC2600002\n';
    const f = await fetchBatch({ provider: 'file', query: { csv } });
    assert.equal(f.job.status, 'staged');
    assert.equal(f.job.itemCount, 3);
    assert.deepEqual(await counts(a), { assets: 0, products: 0 });
    const batch = await app.request('GET', `/batch/${f.batchId}`, { token: adm() });
    assert.equal(batch.status, 200, batch.text);
    assert.deepEqual(batch.body.data.counts, { pending: 3, imported: 0, failed: 0, rejected: 0 });
    assert.deepEqual(batch.body.data.items.map((i: { kind: string; status: string }) => [i.kind, i.status]), [['asset', 'pending'], ['asset', 'pending'], ['product', 'pending']]);
    assert.equal(batch.body.data.items[0].data.isrc, 'GBABC2600001');
    assert.deepEqual(batch.body.data.items[2].data.tracks, ['GBABC2600001', 'GBABC2600002']);

    const diff = await app.request('GET', `/batch/${f.batchId}/diff`, { token: adm() });
    assert.equal(diff.status, 200, diff.text);
    assert.ok(diff.body.data.items.every((i: { match: string }) => i.match === 'new'));

    // apply writes through the catalogue services; re-applying changes nothing (rule 2)
    const ap = await app.request('POST', '/apply', { token: adm(), body: { batchId: f.batchId } });
    assert.equal(ap.status, 200, ap.text);
    assert.deepEqual(ap.body.data, { imported: 3, failed: 0 });
    assert.deepEqual(await counts(a), { assets: 2, products: 1 });
    const product = await app.svc.db.owner('products').where({ tenant_id: a.tenantId, upc: '0886440000042' }).first();
    assert.equal(product.label, 'North Label');
    const tracks = await app.svc.db.owner('product_assets').where({ tenant_id: a.tenantId, product_id: product.id });
    assert.equal(tracks.length, 2);
    const again = await app.request('POST', '/apply', { token: adm(), body: { batchId: f.batchId } });
    assert.deepEqual(again.body.data, { imported: 0, failed: 0 });
    assert.deepEqual(await counts(a), { assets: 2, products: 1 });
    const after = await app.request('GET', `/batch/${f.batchId}`, { token: adm() });
    assert.deepEqual(after.body.data.counts, { pending: 0, imported: 3, failed: 0, rejected: 0 });
  });

  it('the diff shows staged vs current field by field; apply updates the existing record', async () => {
    const f = await fetchBatch({ provider: 'file', query: { rows: [{ title: 'First Light (Remastered)', isrc: 'GBABC2600001', version: 'Remastered' }] } });
    const diff = await app.request('GET', `/batch/${f.batchId}/diff`, { token: adm() });
    const item = diff.body.data.items[0];
    assert.equal(item.match, 'existing');
    const title = item.changes.find((c: { field: string }) => c.field === 'title');
    assert.deepEqual(title, { field: 'title', current: 'First Light', staged: 'First Light (Remastered)', changed: true });
    const isrc = item.changes.find((c: { field: string }) => c.field === 'isrc');
    assert.equal(isrc.changed, false);
    assert.equal(item.changed, 2);
    const ap = await app.request('POST', '/apply', { token: adm(), body: { itemIds: [item.itemId] } });
    assert.deepEqual(ap.body.data, { imported: 1, failed: 0 });
    const asset = await app.svc.db.owner('assets').where({ tenant_id: a.tenantId, isrc: 'GBABC2600001' }).first();
    assert.equal(asset.title, 'First Light (Remastered)');
    assert.deepEqual(await counts(a), { assets: 2, products: 1 });
  });

  it('an item that the catalogue refuses is counted failed with its reason; the others are imported', async () => {
    const f = await fetchBatch({ provider: 'file', query: { json: JSON.stringify([{ title: 'Good', isrc: 'GBABC2600010' }, { title: 'Bad', isrc: 'GBABC2600011' }]) } });
    const items = (await app.request('GET', `/batch/${f.batchId}`, { token: adm() })).body.data.items;
    // an artist id this workspace does not have: the catalogue refuses the item at apply
    const edit = await app.request('PUT', `/items/${items[1].id}`, { token: adm(), body: { artists: ['00000000-0000-4000-8000-000000000000'] } });
    assert.equal(edit.status, 200, edit.text);
    const ap = await app.request('POST', '/apply', { token: adm(), body: { batchId: f.batchId } });
    assert.deepEqual(ap.body.data, { imported: 1, failed: 1 });
    const after = (await app.request('GET', `/batch/${f.batchId}`, { token: adm() })).body.data;
    assert.deepEqual(after.counts, { pending: 0, imported: 1, failed: 1, rejected: 0 });
    assert.match(after.items[1].error, /artist/i);
    assert.equal(await app.svc.db.owner('assets').where({ tenant_id: a.tenantId, isrc: 'GBABC2600011' }).first(), undefined, 'the failed item wrote nothing');
    // a failed item is not pending: re-apply and reject leave it alone
    assert.deepEqual((await app.request('POST', '/apply', { token: adm(), body: { batchId: f.batchId } })).body.data, { imported: 0, failed: 0 });
    assert.deepEqual((await app.request('POST', '/reject', { token: adm(), body: { batchId: f.batchId } })).body.data, { rejected: 0 });
  });

  it('reject: pending → rejected; a rejected item is never applied; edits need a pending item', async () => {
    const f = await fetchBatch({ provider: 'file', query: { rows: [{ title: 'Nope', isrc: 'GBABC2600020' }, { title: 'Yes', isrc: 'GBABC2600021' }] } });
    const items = (await app.request('GET', `/batch/${f.batchId}`, { token: adm() })).body.data.items;
    const rj = await app.request('POST', '/reject', { token: adm(), body: { itemIds: [items[0].id] } });
    assert.equal(rj.status, 200, rj.text);
    assert.deepEqual(rj.body.data, { rejected: 1 });
    const ed = await app.request('PUT', `/items/${items[0].id}`, { token: adm(), body: { title: 'Changed' } });
    assert.equal(ed.status, 400, ed.text);
    assert.equal(ed.body.success, false);
    assert.equal(ed.body.error.code, 'ITEM_NOT_PENDING');
    const ap = await app.request('POST', '/apply', { token: adm(), body: { batchId: f.batchId } });
    assert.deepEqual(ap.body.data, { imported: 1, failed: 0 });
    assert.equal(await app.svc.db.owner('assets').where({ tenant_id: a.tenantId, isrc: 'GBABC2600020' }).first(), undefined);
  });

  it('the distributor provider stages the releases it holds (tracks and release), searched live', async () => {
    const s = await app.request('GET', '/search?provider=distributor&query=night', { token: adm() });
    assert.equal(s.status, 200, s.text);
    assert.deepEqual(s.body.data.map((r: { upc: string }) => r.upc), ['0886440000011']);
    const before = await counts(a);
    const f = await fetchBatch({ provider: 'distributor', query: { query: 'night' } });
    assert.equal(f.job.status, 'staged');
    assert.equal(f.job.itemCount, 3);
    assert.deepEqual(await counts(a), before, 'fetching wrote nothing (rule 3)');
    const ap = await app.request('POST', '/apply', { token: adm(), body: { batchId: f.batchId } });
    assert.deepEqual(ap.body.data, { imported: 3, failed: 0 });
    const p = await app.svc.db.owner('products').where({ tenant_id: a.tenantId, upc: '0886440000011' }).first();
    assert.equal(p.title, 'Night Drive');
    assert.equal((await app.svc.db.owner('product_assets').where({ tenant_id: a.tenantId, product_id: p.id })).length, 2);
  });

  it('a distributor that refuses the token fails the batch with a reason', async () => {
    await app.request('PUT', '/ddex/distributor/credentials', { token: b.users.admin!.token, body: { token: 'revoked_0123456789abcdef' } });
    const f = await fetchBatch({ provider: 'distributor', query: {} }, b.users.admin!.token);
    assert.equal(f.job.status, 'failed');
    assert.match(f.job.error, /refused/);
  });

  it('bad files are a 400 naming the row and field; nothing is queued', async () => {
    const cases: [unknown, string][] = [
      [{ provider: 'file', query: { rows: [{ title: 'No id' }] } }, 'query.rows[0]'],
      [{ provider: 'file', query: { rows: [{ isrc: 'GBABC2600030' }] } }, 'query.rows[0].title'],
      [{ provider: 'file', query: { rows: [{ title: 'T', isrc: 'nope' }] } }, 'query.rows[0].isrc'],
      [{ provider: 'file', query: { rows: [{ title: 'T', upc: '0886440000049' }] } }, 'query.rows[0].upc'],
      [{ provider: 'file', query: { json: '{not json' } }, 'query.json'],
      [{ provider: 'file', query: { rows: [{ title: 'T', upc: '0886440000042', releaseDate: '2026-02-30' }] } }, 'query.rows[0].releaseDate'],
      [{ provider: 'file', query: {} }, 'query'],
      [{ provider: 'ftp', query: {} }, 'provider'],
    ];
    const n = await app.svc.db.owner('catalogue_import_batches').where({ tenant_id: a.tenantId }).count('* as n').first();
    for (const [body, field] of cases) {
      const r = await app.request('POST', '/fetch', { token: adm(), body });
      assert.equal(r.status, 400, `${JSON.stringify(body)}: ${r.text}`);
      assert.equal(r.body.success, false);
      assert.ok(r.text.includes(field), `${JSON.stringify(body)} names ${field}: ${r.text}`);
    }
    const m = await app.svc.db.owner('catalogue_import_batches').where({ tenant_id: a.tenantId }).count('* as n').first();
    assert.equal(m!.n, n!.n);
    const sel = await app.request('POST', '/apply', { token: adm(), body: {} });
    assert.equal(sel.status, 400);
    assert.match(sel.text, /batchId/);
  });

  it('another workspace sees none of it: 404 on batch, job, diff, item; apply and reject touch nothing', async () => {
    const f = await fetchBatch({ provider: 'file', query: { rows: [{ title: 'Mine', isrc: 'GBABC2600040' }] } });
    const items = (await app.request('GET', `/batch/${f.batchId}`, { token: adm() })).body.data.items;
    const tb = b.users.admin!.token;
    for (const p of [`/batch/${f.batchId}`, `/batch/${f.batchId}/diff`, `/job/${f.jobId}`]) assert.equal((await app.request('GET', p, { token: tb })).status, 404, p);
    assert.equal((await app.request('PUT', `/items/${items[0].id}`, { token: tb, body: { title: 'Theirs' } })).status, 404);
    assert.equal((await app.request('POST', '/apply', { token: tb, body: { batchId: f.batchId } })).status, 404);
    assert.deepEqual((await app.request('POST', '/apply', { token: tb, body: { itemIds: [items[0].id] } })).body.data, { imported: 0, failed: 0 });
    assert.deepEqual((await app.request('POST', '/reject', { token: tb, body: { itemIds: [items[0].id] } })).body.data, { rejected: 0 });
    const still = (await app.request('GET', `/batch/${f.batchId}`, { token: adm() })).body.data;
    assert.deepEqual(still.counts, { pending: 1, imported: 0, failed: 0, rejected: 0 });
    assert.equal(still.items[0].data.title, 'Mine');
    // admin only
    assert.equal((await app.request('GET', '/providers', { token: a.users.user!.token })).status, 403);
    assert.equal((await app.request('POST', '/apply', { token: a.users.user!.token, body: { batchId: f.batchId } })).status, 403);
  });

  it('a fetch the provider never answers ends failed with the error on its last attempt, not stuck fetching', async () => {
    // a batch with no queued job, so only this test runs its fetch
    const [row] = await withTenant(app.svc.db.app, a.tenantId, (trx) =>
      trx('catalogue_import_batches').insert({ tenant_id: a.tenantId, provider: 'distributor', query: { query: '', limit: 200 } }).returning('id'));
    run.sb.distributor.inject({ kind: '5xx', status: 503, match: 'GET /v1/releases', times: 50 });
    try {
      await assert.rejects(runFetchJob(app.svc, a.tenantId, row.id), 'an attempt before the last is left to the queue to retry');
      assert.equal((await app.request('GET', `/batch/${row.id}`, { token: adm() })).body.data.status, 'fetching');
      await runFetchJob(app.svc, a.tenantId, row.id, { lastAttempt: true });
      const b = (await app.request('GET', `/batch/${row.id}`, { token: adm() })).body.data;
      assert.equal(b.status, 'failed');
      assert.equal(b.error, 'The distributor partner did not answer after every retry (503)');
    } finally {
      await fetch(`${run.sb.env.DISTRIBUTOR_API_URL}/_sandbox/faults`, { method: 'DELETE' });
    }
  });
});
