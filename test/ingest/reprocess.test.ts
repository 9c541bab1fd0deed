/**
 * Reading a statement again never stores a second copy of its lines: a duplicate upload names
 * its original and the reprocess route; the route (or an upload with reprocess=true) reads the
 * original again in place under a corrected source; an upload with force=true becomes the file
 * and removes the earlier copy's lines in the same transaction, also across a crash and retry.
 */
import assert from 'node:assert/strict';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { upload, waitFile, seedRates, fixture } from './helpers';
import { ingestTestHooks } from '../../src/modules/files/pipeline';

const WITHHOLDING = [
  'Month,Song,ISRC,Store,Amount,Withholding,Currency',
  '2024-01,Low Orbit,USRC17607839,Spotify,10.00,1.50,USD',
  '2024-01,Paper Suns,USRC17607840,Apple Music,3.33,0.33,USD',
  '2024-02,Glass Tide,USRC17607841,Deezer,0.07,0,USD',
  '',
].join('\n');

function withholdingPattern(net: Record<string, unknown>) {
  return {
    key: 'acme-withholding', name: 'Acme', aggregator: 'Acme', layout: 'table',
    detect: { headers: ['Month', 'Song', 'Amount', 'Withholding'] },
    format: { delimiter: ',', encoding: 'auto' },
    columns: { saleMonth: { from: 'Month' }, trackTitle: { from: 'Song' }, isrc: { from: 'ISRC' }, dsp: { from: 'Store' }, net, currency: { from: 'Currency' } },
  };
}

describe('reading a statement again: in place, never a second copy', function () {
  this.timeout(120_000);
  let app: TestApp;
  let a: TestTenant;
  let b: TestTenant;
  let admin: string;

  before(async () => {
    app = await startTestApp({ workers: true });
    a = await createTestTenant(app, 'Reprocess A');
    b = await createTestTenant(app, 'Reprocess B');
    await seedRates(app, a.tenantId, b.tenantId);
    admin = a.users.admin!.token;
  });
  after(async () => {
    delete ingestTestHooks.afterBatch;
    await app?.close();
  });

  async function linesOf(...fileIds: string[]): Promise<Record<string, number>> {
    const rows = await app.svc.db.owner('royalty_lines').whereIn('file_id', fileIds).groupBy('file_id').select('file_id', app.svc.db.owner.raw('count(*)::int as n'));
    return Object.fromEntries(fileIds.map((id) => [id, rows.find((r) => r.file_id === id)?.n ?? 0]));
  }

  it('a duplicate upload names its original and the reprocess route, which reads the original again under the corrected source', async () => {
    const up = await upload(app, admin, 'acme_202401.csv', WITHHOLDING, { forceManualConfirmation: 'true' });
    const id = up.body.data.id;
    assert.equal((await waitFile(app, admin, id)).status, 'needs_confirmation');
    const saved = await app.request('POST', '/sources', { token: admin, body: { pattern: withholdingPattern({ from: 'Amount' }) } });
    assert.equal(saved.status, 201, saved.text);
    assert.equal((await app.request('POST', `/file/confirm-detection/${id}`, { token: admin, body: { source: 'acme-withholding' } })).status, 200);
    assert.deepEqual((await waitFile(app, admin, id, ['processed', 'failed'])).totals, { USD: '13.4' });

    // the pattern was wrong (the amount is before withholding): corrected as version 2
    const src = (await app.request('GET', '/sources', { token: admin })).body.data.find((s: any) => s.source.key === 'acme-withholding');
    const fixed = withholdingPattern({ compute: { op: 'difference', of: ['Amount', 'Withholding'] } });
    assert.equal((await app.request('PUT', `/sources/${src.id}`, { token: admin, body: { pattern: fixed } })).status, 200);

    // the same file uploaded again is not read: the answer names the original and the way to read it again
    const again = await upload(app, admin, 'acme_202401 (1).csv', WITHHOLDING);
    assert.equal(again.status, 201, again.text);
    assert.equal(again.body.message, 'Duplicate file: not ingested again');
    assert.equal(again.body.data.status, 'failed');
    assert.equal(again.body.data.duplicateOf, id);
    assert.deepEqual(again.body.data.reprocess, { method: 'POST', path: `/file/reprocess/${id}` });
    assert.ok(again.body.data.error.includes(`POST /file/reprocess/${id}`), again.body.data.error);

    // the route, called on the duplicate, reads the original in place with its source's current version
    const r = await app.request('POST', `/file/reprocess/${again.body.data.id}`, { token: admin, body: {} });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.data.id, id);
    const f = await waitFile(app, admin, id, ['processed', 'failed']);
    assert.equal(f.status, 'processed', f.error);
    assert.deepEqual(f.totals, { USD: '11.57' });
    assert.equal(f.source.version, 2);
    assert.deepEqual(await linesOf(id, again.body.data.id), { [id]: 3, [again.body.data.id]: 0 });

    // an upload with reprocess=true reads the original again in place (here under version 3)
    assert.equal((await app.request('PUT', `/sources/${src.id}`, { token: admin, body: { pattern: withholdingPattern({ from: 'Withholding' }) } })).status, 200);
    const third = await upload(app, admin, 'acme_202401 (2).csv', WITHHOLDING, { reprocess: 'true' });
    assert.equal(third.status, 201, third.text);
    assert.equal(third.body.message, 'Duplicate file: the original is read again in place');
    assert.equal(third.body.data.duplicateOf, id);
    const g = await waitFile(app, admin, id, ['processed', 'failed']);
    assert.equal(g.status, 'processed', g.error);
    assert.deepEqual([g.totals, g.source.version], [{ USD: '1.83' }, 3]);
    assert.deepEqual(await linesOf(id, again.body.data.id, third.body.data.id), { [id]: 3, [again.body.data.id]: 0, [third.body.data.id]: 0 });

    // a source named that does not exist is refused: the file stays as it is
    const bad = await app.request('POST', `/file/reprocess/${id}`, { token: admin, body: { source: 'no-such-source' } });
    assert.equal(bad.status, 400, bad.text);
    assert.equal(bad.body.error.code, 'UNKNOWN_SOURCE');
  });

  it('force=true makes the new upload the file: the earlier copy\'s lines are removed when its lines are stored', async () => {
    const name = 'tunecore-sales-report.csv';
    const first = await waitFile(app, admin, (await upload(app, admin, name, fixture(name))).body.data.id, ['processed', 'failed']);
    assert.equal(first.status, 'processed', first.error);
    const revenue = async () => (await app.request('GET', '/royalty/', { token: admin })).body.data.total.revenue;
    const before = await revenue();
    const plainDup = (await upload(app, admin, name, fixture(name))).body.data;
    assert.equal(plainDup.duplicateOf, first.id);
    const forced = await upload(app, admin, name, fixture(name), { force: 'true' });
    assert.equal(forced.status, 201, forced.text);
    assert.equal(forced.body.message, 'File uploaded; it replaces the earlier copy of the same bytes');
    const f = await waitFile(app, admin, forced.body.data.id, ['processed', 'failed']);
    assert.equal(f.status, 'processed', f.error);
    assert.equal(f.duplicateOf, null, 'the forced upload is now the file');
    assert.deepEqual(f.totals, first.totals);
    const old = (await app.request('GET', `/file/${first.id}`, { token: admin })).body.data;
    assert.deepEqual([old.status, old.duplicateOf, old.counts, old.totals], ['failed', f.id, null, null]);
    assert.ok(old.error.startsWith(`Replaced by file ${f.id}`), old.error);
    // an earlier duplicate upload now points at the file that replaced its original
    const dupNow = (await app.request('GET', `/file/${plainDup.id}`, { token: admin })).body.data;
    assert.deepEqual([dupNow.status, dupNow.duplicateOf, dupNow.reprocess.path], ['failed', f.id, `/file/reprocess/${f.id}`]);
    assert.ok(dupNow.error.startsWith(`Duplicate of file ${f.id}`), dupNow.error);
    assert.deepEqual(await linesOf(first.id, f.id), { [first.id]: 0, [f.id]: 14 });
    assert.equal(await revenue(), before, 'the earlier copy\'s earnings and rollups went with its lines');
    // the next upload of the same bytes is a duplicate of the file that replaced it
    const next = await upload(app, admin, name, fixture(name));
    assert.equal(next.body.data.duplicateOf, f.id);
    assert.deepEqual(await linesOf(first.id, f.id, next.body.data.id), { [first.id]: 0, [f.id]: 14, [next.body.data.id]: 0 });
  });

  it('a forced upload that crashes mid-COPY leaves the earlier copy whole; the retry replaces it once', async () => {
    const name = 'two-currencies.csv';
    const first = await waitFile(app, admin, (await upload(app, admin, name, fixture(name))).body.data.id, ['processed', 'failed']);
    assert.equal(first.status, 'processed', first.error);
    let seen: Record<string, number> | null = null;
    let forcedId = '';
    ingestTestHooks.afterBatch = async (fileId, _batch, attempt) => {
      if (fileId !== forcedId || attempt !== 1) return;
      seen = await linesOf(first.id, forcedId);
      throw new Error('simulated crash: worker killed mid-COPY');
    };
    try {
      const forced = await upload(app, admin, 'two-currencies again.csv', fixture(name), { force: 'true' });
      forcedId = forced.body.data.id;
      const f = await waitFile(app, admin, forcedId, ['processed', 'failed'], 60_000);
      assert.equal(f.status, 'processed', f.error);
      assert.equal(f.attempts, 2);
      assert.deepEqual(seen, { [first.id]: 16, [forcedId]: 0 }, 'while the forced copy was being read, the earlier copy stayed whole');
      assert.deepEqual(await linesOf(first.id, forcedId), { [first.id]: 0, [forcedId]: 16 });
      assert.deepEqual(f.totals, first.totals);
    } finally {
      delete ingestTestHooks.afterBatch;
    }
  });

  it('a file read from detection is read again from detection, in place; only by the workspace\'s admins', async () => {
    const name = 'believe-english.csv';
    const f = await waitFile(app, admin, (await upload(app, admin, name, fixture(name))).body.data.id, ['processed', 'failed']);
    assert.equal(f.status, 'processed', f.error);
    const other = await app.request('POST', `/file/reprocess/${f.id}`, { token: b.users.admin!.token, body: {} });
    assert.equal(other.status, 404, other.text);
    const user = await app.request('POST', `/file/reprocess/${f.id}`, { token: a.users.user!.token, body: {} });
    assert.equal(user.status, 403, user.text);
    const r = await app.request('POST', `/file/reprocess/${f.id}`, { token: admin, body: {} });
    assert.equal(r.status, 200, r.text);
    const g = await waitFile(app, admin, f.id, ['processed', 'failed']);
    assert.equal(g.status, 'processed', g.error);
    assert.deepEqual(g.totals, f.totals);
    assert.deepEqual(await linesOf(f.id), { [f.id]: 10 });
  });
});
