/**
 * DDEX DSR flat files read by the published record layouts. Fixtures: DDEX's own DSRF
 * library samples (a UGC report its validator accepts, one it rejects) and a Basic Audio
 * 1.2 report built cell by cell from the published layouts (see the fixtures' NOTICE).
 * Variants of the Basic Audio file are made by editing its cells here.
 */
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { readStatement, detectSource, builtinPatterns, type CanonicalLine, type LineError } from '../../../parsers/index';
import { WINNER_THRESHOLD } from '../../../parsers/detect';
import { DSR_RECORDS } from '../../../parsers/dsr-records';
import { fixture, pattern, read } from './helpers';

const BASIC = 'DSR_NovaLune_DSPco_PremiumService_2024-Q1_FR_1of1_20240415T120000.tsv';
const UGC = 'DSR_TEST_YouTube_AdSupport-music_2015-Q4_IS_1of1_20160121T150926.tsv';
const UGC_INVALID = 'DSR_PADPIDA2014999999Z_PADPIDA2014111801Y_AdSupport_2015-02_AU_1of1_20140617T092522.tsv';
/** Single-record-block variant (profiles 1.2), built cell by cell from the published SR01/SR02/SR03/SRFO layouts. */
const BASIC_SRB = 'DSR_NovaLune_DSPco_PremiumService_2024-04_FR_1of1_20240515T120000.tsv';
const UGC_SRB = 'DSR_NovaLune_VideoCo_AdSupport-music_2024-04_GB_1of1_20240510T090000.tsv';
const UGC_SRB_SR06 = 'DSR_NovaLune_VideoCo_AdSupport-music_2024-04_GB_1of1_20240510T100000.tsv';

/** The Basic Audio fixture with one record's cell replaced (line and cell 1-based as in the file / the standard). */
function edited(edit: (rows: string[][]) => void): Buffer {
  const rows = fixture(BASIC).toString('utf8').trimEnd().split('\n').map((l) => l.split('\t'));
  edit(rows);
  return Buffer.from(rows.map((r) => r.join('\t')).join('\n') + '\n');
}
async function readBuf(buf: Buffer, fileName = BASIC) {
  const lines: CanonicalLine[] = [];
  const errors: LineError[] = [];
  const summary = await readStatement(Readable.from([buf]), { fileName, pattern: pattern('ddex-dsr') }, {
    lines: (b) => void lines.push(...b),
    error: (e) => void errors.push(e),
  });
  return { summary, lines, errors };
}

describe('DDEX DSR flat files (published layouts)', () => {
  it('knows the published sales records at their own cell positions', () => {
    const cells = (t: string) => DSR_RECORDS.get(t)!.cells.map((c) => c.name);
    assert.deepEqual(cells('SU01').slice(5, 9), ['IsRoyaltyBearing', 'SalesUpgrade', 'Usages', 'Returns']);
    assert.equal(DSR_RECORDS.get('SU02')!.byName.get('NumberOfStreams')!.pos, 7);
    assert.equal(DSR_RECORDS.get('SU02')!.byName.has('NetRevenue'), false);
    assert.deepEqual(cells('SU03.01').slice(0, 6), ['BlockId', 'SalesTransactionId', 'SummaryRecordId', 'DspReleaseId', 'Usages', 'NetRevenue']);
    assert.equal(DSR_RECORDS.get('SY02.02')!.byName.get('CurrencyOfReporting')!.pos, 10);
    // the single-record-block variant's records (BasicAudioProfileSRB and UGC 1.2)
    assert.deepEqual(['SR01', 'SR02', 'SR03', 'SR06', 'SRFO'].map((t) => [t, DSR_RECORDS.get(t)?.role]), [['SR01', 'sale'], ['SR02', 'sale'], ['SR03', 'sale'], ['SR06', 'sale'], ['SRFO', 'foot']]);
    assert.deepEqual(cells('SR01').slice(32, 37), ['SalesTransactionId', 'IsRoyaltyBearing', 'SalesUpgrade', 'Downloads', 'Returns']);
    assert.equal(DSR_RECORDS.get('SR02')!.byName.get('NumberOfStreams')!.pos, 34);
    assert.deepEqual(cells('SR03').slice(30, 33), ['SalesTransactionId', 'Usages', 'NetRevenue']);
    assert.deepEqual(cells('SRFO'), ['NumberOfLinesInReport', 'NumberOfSummaryRecords']);
  });

  it('Basic Audio 1.2, single-record-block variant: SR01 downloads (Downloads − Returns, not SalesUpgrade) and SR02 streams, release and resource from the record itself, summaries reconciled', async () => {
    const c = detectSource({ fileName: BASIC_SRB, head: fixture(BASIC_SRB).subarray(0, 8192) }, builtinPatterns);
    assert.equal(c[0]!.patternKey, 'ddex-dsr');
    assert.ok(c[0]!.score >= WINNER_THRESHOLD, `score ${c[0]!.score}`);
    const { summary, lines, errors } = await read(BASIC_SRB, 'ddex-dsr');
    assert.deepEqual(errors, []);
    assert.deepEqual(lines.map((l) => [l.lineNo, l.saleType, l.isrc, l.trackTitle, l.artist, l.upc, l.releaseTitle, l.label, l.quantity, l.net, l.currency, l.country]), [
      [4, 'download', 'QZES81911001', 'Track 1.1', 'Nova Lune', '859712345004', 'Album 1', 'Nova Lune Records', '2', '2', 'EUR', 'FR'],
      [5, 'download', 'QZES81911002', 'Track 1.2', 'Nova Lune', '859712345004', 'Album 1', 'Nova Lune Records', '1', '1', 'EUR', 'FR'],
      [6, 'stream', 'QZES81911001', 'Track 1.1', 'Nova Lune', '859712345004', 'Album 1', 'Nova Lune Records', '600', '2.4', 'EUR', 'FR'],
      [7, 'stream', 'QZES81911002', 'Track 1.2', 'Nova Lune', '859712345004', 'Album 1', 'Nova Lune Records', '400', '1.6', 'EUR', 'FR'],
    ]);
    assert.deepEqual(summary.totals, { EUR: '7' });
    assert.deepEqual(summary.control, {
      rows: 8,
      summaryRecords: 2,
      blocks: 0,
      summaries: [
        { summaryRecordId: '1', record: 'SY01.01', lineNo: 2, currency: 'EUR', lines: 2, usages: { file: '4', read: '4' }, net: { file: '3.00', read: '3' }, reconciles: true },
        { summaryRecordId: '2', record: 'SY02.02', lineNo: 3, currency: 'EUR', lines: 2, usages: { file: '1000', read: '1000' }, net: { file: '4.00', read: '4' }, reconciles: true },
      ],
    });
    assert.equal(summary.reconciles, true);
    assert.deepEqual(summary.period, { start: '2024-04-01', end: '2024-04-30' });
  });

  it('UGC 1.2, single-record-block variant: SR03 records with their own usages, revenue and validity period; SRFO counts checked', async () => {
    const { summary, lines, errors } = await read(UGC_SRB, 'ddex-dsr');
    assert.deepEqual(errors, []);
    assert.deepEqual(lines.map((l) => [l.isrc, l.trackTitle, l.releaseTitle, l.quantity, l.net, l.saleType, l.salePeriodStart, l.salePeriodEnd, l.currency, l.country]), [
      ['QZES81911001', 'Track 1.1', 'Low Orbit (video)', '3000', '7.50', 'ugc', '2024-04-01', '2024-04-30', 'GBP', 'GB'],
      ['QZES81911002', 'Track 1.2', 'Low Orbit (video)', '1500', '3.75', 'ugc', '2024-04-01', '2024-04-30', 'GBP', 'GB'],
      ['QZES81911003', 'Track 1.3', 'Low Orbit (video)', '500', '1.25', 'ugc', '2024-04-01', '2024-04-30', 'GBP', 'GB'],
    ]);
    assert.deepEqual(summary.totals, { GBP: '12.5' });
    assert.deepEqual(summary.control!.summaries, [
      { summaryRecordId: '1', record: 'SY02.02', lineNo: 2, currency: 'GBP', lines: 3, usages: { file: '5000', read: '5000' }, net: { file: '12.50', read: '12.5' }, reconciles: true },
    ]);
    assert.equal(summary.reconciles, true);
    const srfo = fixture(UGC_SRB).toString('utf8').replace('SRFO\t6\t1', 'SRFO\t7\t1');
    await assert.rejects(readBuf(Buffer.from(srfo), UGC_SRB), /line 6, SRFO record: cell 1 \(NumberOfLinesInReport\) says 7, the file has 6 lines/);
    const sr03 = fixture(UGC_SRB).toString('utf8').replace('U2\t1500\t', 'U2\tmany\t');
    assert.deepEqual((await readBuf(Buffer.from(sr03), UGC_SRB)).errors.map((e) => [e.lineNo, e.reason]), [[4, 'SR03 cell 32 (Usages): "many" is not a decimal number']]);
  });

  it('Basic Audio 1.2: downloads and streams read, each summary reconciled exactly (lines, usages, revenue)', async () => {
    const { summary, lines, errors } = await read(BASIC, 'ddex-dsr');
    assert.deepEqual(errors, []);
    assert.equal(summary.rowsIngested, 6);
    assert.deepEqual(summary.totals, { EUR: '21.079' });
    assert.equal(summary.reconciles, true);
    assert.deepEqual(summary.control, {
      rows: 18,
      summaryRecords: 2,
      blocks: 2,
      summaries: [
        { summaryRecordId: '1', record: 'SY01.01', lineNo: 3, currency: 'EUR', lines: 2, usages: { file: '4', read: '4' }, net: { file: '13.279', read: '13.279' }, reconciles: true },
        { summaryRecordId: '2', record: 'SY02.02', lineNo: 4, currency: 'EUR', lines: 4, usages: { file: '1503', read: '1503' }, net: { file: '7.80', read: '7.8' }, reconciles: true },
      ],
    });
    // an album download (no resource): the SalesUpgrade flag is not the usage count; priced downloads share by price × units
    const album = lines.find((l) => l.lineNo === 13)!;
    assert.deepEqual([album.isrc, album.upc, album.releaseTitle, album.saleType, album.quantity, album.net], [null, '859712345004', 'Album 1', 'download', '2', '12.586']);
    // a track download with one return: 2 usages − 1 return
    const track = lines.find((l) => l.lineNo === 17)!;
    assert.deepEqual([track.isrc, track.trackTitle, track.quantity, track.net], ['QZES81912001', 'Track 2.1', '1', '0.693']);
    // streams: NumberOfStreams, the summary's 7.80 shared by streams (not the per-stream price)
    const streams = lines.filter((l) => l.saleType === 'stream');
    assert.deepEqual(streams.map((l) => l.quantity), ['400', '350', '300', '453']);
    assert.deepEqual(streams.map((l) => l.net), ['2.075848303393', '1.816367265469', '1.556886227545', '2.350898203593']);
    assert.deepEqual([lines[0]!.country, lines[0]!.dsp, lines[0]!.currency, lines[0]!.saleMonth], ['FR', 'DSPco', 'EUR', '2024-01-01']);
    assert.deepEqual(summary.period, { start: '2024-01-01', end: '2024-03-31' });
  });

  it("DDEX's UGC sample: detected, 6 of 6 usage records read with their own revenue, FOOT counts reconciled", async () => {
    const c = detectSource({ fileName: UGC, head: fixture(UGC).subarray(0, 8192) }, builtinPatterns);
    assert.equal(c[0]!.patternKey, 'ddex-dsr');
    assert.ok(c[0]!.score >= WINNER_THRESHOLD, `score ${c[0]!.score}`);
    const { summary, lines, errors } = await read(UGC, 'ddex-dsr');
    assert.deepEqual(errors, []);
    assert.equal(lines.length, 6);
    assert.deepEqual(lines.map((l) => [l.isrc, l.quantity, l.net]), [
      ['USSM19803037', '7810', '2.0'], ['USUV71101875', '2045', '2.0'], ['USRH10903879', '18', '0.0'],
      ['USRH10903879', '4', '0.0'], ['USRH10903879', '258', '0.0'], ['USRH10903879', '75', '3.0'],
    ]);
    assert.deepEqual(lines.map((l) => l.saleType), Array(6).fill('ugc'));
    assert.deepEqual([lines[2]!.salePeriodStart, lines[2]!.salePeriodEnd, lines[2]!.country, lines[2]!.currency], ['2015-10-01', '2015-10-02', 'IS', 'USD']);
    assert.deepEqual(summary.totals, { USD: '7' });
    // its four summary records share one SummaryRecordId (one per rights controller): counted, not compared
    assert.deepEqual(summary.control, { rows: 35, summaryRecords: 4, blocks: 3, summaries: [] });
    assert.equal(summary.reconciles, true);
  });

  it('UGC 1.2, single-record-block SR06 (usages, no revenue cell): the summary\'s allocated revenue shared by usages, reconciled', async () => {
    const { summary, lines, errors } = await read(UGC_SRB_SR06, 'ddex-dsr');
    assert.deepEqual(errors, []);
    assert.deepEqual(lines.map((l) => [l.lineNo, l.isrc, l.trackTitle, l.quantity, l.net, l.saleType, l.salePeriodStart]), [
      [3, 'QZES81911001', 'Track 1.1', '3000', '7.5', 'ugc', '2024-04-01'],
      [4, 'QZES81911002', 'Track 1.2', '1500', '3.75', 'ugc', '2024-04-01'],
      [5, 'QZES81911003', 'Track 1.3', '500', '1.25', 'ugc', '2024-04-01'],
    ]);
    assert.deepEqual(summary.totals, { GBP: '12.5' });
    assert.deepEqual(summary.control!.summaries!.map((c) => [c.record, c.lines, c.usages, c.net, c.reconciles]), [['SY02.02', 3, { file: '5000', read: '5000' }, { file: '12.50', read: '12.5' }, true]]);
  });

  it("the sample DDEX's validator rejects is rejected, naming the record and cell", async () => {
    await assert.rejects(read(UGC_INVALID, 'ddex-dsr'), /line 1, HEAD record: cell 6 \(FileNumber\) is mandatory/);
    // HEAD's FileNumber and NumberOfFiles are integers in the published layout
    await assert.rejects(readBuf(edited((r) => void (r[0]![7] = 'one'))), /line 1, HEAD record: cell 7 \(NumberOfFiles\): "one" is not an integer/);
  });

  it("DDEX's second UGC sample (an LI01 record left out, FOOT not updated) is refused naming FOOT's line count: a missing line is never guessed harmless", async () => {
    await assert.rejects(read('DSR_TEST2_YouTube_AdSupport-music_2015-Q4_IS_1of1_20160121T150926.tsv', 'ddex-dsr'), /line 34, FOOT record: cell 1 \(NumberOfLinesInFile\) says 35, the file has 34 lines/);
  });

  it('a FOOT that does not match the file is an error naming its cell', async () => {
    const lines = edited((r) => void (r[r.length - 1]![1] = '19'));
    await assert.rejects(readBuf(lines), /line 18, FOOT record: cell 1 \(NumberOfLinesInFile\) says 19, the file has 18 lines/);
    const blocks = edited((r) => void (r[r.length - 1]![4] = '3'));
    await assert.rejects(readBuf(blocks), /cell 4 \(NumberOfBlocksInFile\) says 3, the file has 2 blocks/);
    const sums = edited((r) => void (r[r.length - 1]![3] = '1'));
    await assert.rejects(readBuf(sums), /cell 3 \(NumberOfSummaryRecords\) says 1, the file has 2 summary records/);
  });

  it('a summary record with a bad cell, or of an unpublished version, stops the read', async () => {
    await assert.rejects(readBuf(edited((r) => void (r[2]![11] = '13,279'))), /line 3, SY01.01 record: cell 11 \(NetRevenue\): "13,279" is not a decimal number/);
    await assert.rejects(readBuf(edited((r) => void (r[3]![0] = 'SY02.07'))), /line 4, SY02.07 record: record type "SY02.07" is not a published layout .*SY02, SY02.01, SY02.02/);
    // a summary's currency and the HEAD's usage dates are typed cells too
    await assert.rejects(readBuf(edited((r) => void (r[3]![10] = 'euro'))), /line 4, SY02.02 record: cell 10 \(CurrencyOfReporting\): "euro" is not a currency code/);
    await assert.rejects(readBuf(edited((r) => void (r[0]![8] = '2024-13-01'))), /line 1, HEAD record: cell 8 \(UsageStartDate\): "2024-13-01" is not a date/);
  });

  it('a sales record with a bad cell or an unknown summary is an error line naming the cell; the summary then does not reconcile', async () => {
    const { summary, errors, lines } = await readBuf(edited((r) => {
      r[6]![7] = 'many'; // SU02 NumberOfStreams
      r[16]![2] = '9'; // SU01 SummaryRecordId
    }));
    assert.deepEqual(errors.map((e) => [e.lineNo, e.reason]), [
      [7, 'SU02 cell 7 (NumberOfStreams): "many" is not an integer'],
      [17, 'SU01 cell 2 (SummaryRecordId): no summary record has id "9"'],
    ]);
    assert.equal(lines.length, 4);
    assert.equal(summary.reconciles, false);
    const s1 = summary.control!.summaries!.find((s) => s.summaryRecordId === '1')!;
    assert.deepEqual([s1.usages, s1.net, s1.reconciles], [{ file: '4', read: '2' }, { file: '13.279', read: '13.279' }, false]);
  });
});
