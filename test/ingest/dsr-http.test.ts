/**
 * DDEX DSR flat files through the real upload route, the workers and Postgres: DDEX's own UGC
 * sample (no RE records) is recognised without asking and all 6 of its usage records are stored;
 * DDEX's rejected sample fails with the record and cell named; the Basic Audio 1.2 report's
 * downloads and streams are stored with their own usages and their summary's revenue; reports of
 * the single-record-block variant (SR01/SR02, SR03) are read the same way.
 */
import assert from 'node:assert/strict';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { fixture, upload, waitFile, seedRates } from './helpers';

const BASIC = 'DSR_NovaLune_DSPco_PremiumService_2024-Q1_FR_1of1_20240415T120000.tsv';
const UGC = 'DSR_TEST_YouTube_AdSupport-music_2015-Q4_IS_1of1_20160121T150926.tsv';
const UGC_INVALID = 'DSR_PADPIDA2014999999Z_PADPIDA2014111801Y_AdSupport_2015-02_AU_1of1_20140617T092522.tsv';

describe('DDEX DSR files uploaded and stored', function () {
  this.timeout(120_000);
  let app: TestApp;
  let t: TestTenant;
  let admin: string;
  before(async () => {
    app = await startTestApp({ workers: true });
    t = await createTestTenant(app, 'DSR uploads');
    await seedRates(app, t.tenantId);
    admin = t.users.admin!.token;
  });
  after(async () => app?.close());

  const stored = (fileId: string) =>
    app.svc.db.owner('royalty_lines').where({ file_id: fileId }).orderBy('line_no')
      .select('line_no', 'isrc', 'upc', 'quantity', app.svc.db.owner.raw('net::text as net'), 'currency', 'sale_type', 'country');

  it("DDEX's UGC sample (no RE records): recognised without asking, all 6 usage records stored with their own revenue", async () => {
    const f = await waitFile(app, admin, (await upload(app, admin, UGC, fixture(UGC))).body.data.id, ['processed', 'failed', 'needs_confirmation'], 60_000);
    assert.equal(f.status, 'processed', `${f.status} ${f.error} ${JSON.stringify(f.detection?.candidates?.[0])}`);
    assert.equal(f.source.key, 'ddex-dsr');
    assert.deepEqual(f.counts, { rowsRead: 6, rowsIngested: 6, rowsFailed: 0, rowsSkipped: 0 });
    assert.deepEqual(f.totals, { USD: '7' });
    assert.deepEqual(f.controlTotals, { rows: 35, summaryRecords: 4, blocks: 3, summaries: [] });
    assert.deepEqual(f.salePeriod, { start: '2015-10-01', end: '2015-12-31' });
    const lines = await stored(f.id);
    assert.deepEqual(lines.map((l: any) => [l.line_no, l.isrc, String(l.quantity), Number(l.net), l.currency.trim(), l.sale_type, l.country]), [
      [17, 'USSM19803037', '7810', 2, 'USD', 'ugc', 'IS'], [22, 'USUV71101875', '2045', 2, 'USD', 'ugc', 'IS'],
      [27, 'USRH10903879', '18', 0, 'USD', 'ugc', 'IS'], [29, 'USRH10903879', '4', 0, 'USD', 'ugc', 'IS'],
      [31, 'USRH10903879', '258', 0, 'USD', 'ugc', 'IS'], [33, 'USRH10903879', '75', 3, 'USD', 'ugc', 'IS'],
    ]);
  });

  it("the sample DDEX's validator rejects fails, its error naming the record and the cell", async () => {
    const f = await waitFile(app, admin, (await upload(app, admin, UGC_INVALID, fixture(UGC_INVALID))).body.data.id, ['processed', 'failed', 'needs_confirmation'], 60_000);
    assert.equal(f.status, 'failed', `${f.status} ${JSON.stringify(f.detection?.candidates?.[0])}`);
    assert.match(f.error, /line 1, HEAD record: cell 6 \(FileNumber\) is mandatory/);
    assert.equal((await stored(f.id)).length, 0);
  });

  it('Basic Audio 1.2: downloads counted by Usages − Returns (not the SalesUpgrade flag), streams by NumberOfStreams, revenue from the summaries, not the per-stream price', async () => {
    const f = await waitFile(app, admin, (await upload(app, admin, BASIC, fixture(BASIC))).body.data.id, ['processed', 'failed', 'needs_confirmation'], 60_000);
    assert.equal(f.status, 'processed', `${f.status} ${f.error}`);
    assert.equal(f.reconciles, true);
    assert.deepEqual(f.totals, { EUR: '21.079' });
    const lines = await stored(f.id);
    assert.deepEqual(lines.map((l: any) => [l.line_no, l.sale_type, String(l.quantity), l.net]), [
      [7, 'stream', '400', '2.075848303393'], [9, 'stream', '350', '1.816367265469'], [12, 'stream', '300', '1.556886227545'],
      [13, 'download', '2', '12.586'], [16, 'stream', '453', '2.350898203593'], [17, 'download', '1', '0.693'],
    ]);
    assert.equal(lines.find((l: any) => l.line_no === 13).upc, '859712345004');
  });

  it('the single-record-block variant (Basic Audio SR01/SR02, UGC SR03): recognised, stored, reconciled with its summaries', async () => {
    const expected: [string, number, Record<string, string>, [number, string, string, string][]][] = [
      ['DSR_NovaLune_DSPco_PremiumService_2024-04_FR_1of1_20240515T120000.tsv', 4, { EUR: '7' }, [[4, 'download', '2', '2'], [5, 'download', '1', '1'], [6, 'stream', '600', '2.4'], [7, 'stream', '400', '1.6']]],
      ['DSR_NovaLune_VideoCo_AdSupport-music_2024-04_GB_1of1_20240510T090000.tsv', 3, { GBP: '12.5' }, [[3, 'ugc', '3000', '7.50'], [4, 'ugc', '1500', '3.75'], [5, 'ugc', '500', '1.25']]],
    ];
    for (const [name, n, totals, rows] of expected) {
      const f = await waitFile(app, admin, (await upload(app, admin, name, fixture(name))).body.data.id, ['processed', 'failed', 'needs_confirmation'], 60_000);
      assert.equal(f.status, 'processed', `${name}: ${f.status} ${f.error}`);
      assert.equal(f.source.key, 'ddex-dsr');
      assert.equal(f.counts.rowsIngested, n);
      assert.deepEqual(f.totals, totals);
      assert.equal(f.reconciles, true);
      const lines = await stored(f.id);
      assert.deepEqual(lines.map((l: any) => [l.line_no, l.sale_type, String(l.quantity), l.net]), rows);
    }
  });
});
