/**
 * Readers that need no workarounds, on a layout that is not built in: a windows-1252 file
 * (’ “ ” – Œ are not control characters), period codes such as `P03 24(Mar 24)` read without
 * value maps, decimal commas with thousands separators, UPCs that lost their leading zero
 * padded back when the check digit says so, ISRCs upper-cased without separators.
 */
import assert from 'node:assert/strict';
import { draftPattern, normalise, sniffEncoding, validatePattern } from '../../../parsers/index';
import { fixture, readWith } from './helpers';

const F = 'westbank_royalties_P03-24.csv';
const westbank = {
  key: 'westbank', name: 'Westbank', aggregator: 'Westbank', layout: 'table',
  detect: { headers: ['Period', 'Royalty'] },
  format: { delimiter: ';', encoding: 'auto', decimal: ',' },
  columns: {
    saleMonth: { from: 'Period' }, artist: { from: 'Artist' }, trackTitle: { from: 'Title' }, upc: { from: 'UPC' },
    isrc: { from: 'ISRC' }, quantity: { from: 'Units' }, net: { from: 'Royalty' }, currency: { const: 'EUR' },
  },
} as any;

describe('readers that need no workarounds', () => {
  it('a windows-1252 file is sniffed as such and its punctuation read as text', async () => {
    assert.deepEqual(sniffEncoding(fixture(F)), { encoding: 'windows-1252', bom: false });
    const { lines, errors } = await readWith(F, westbank);
    assert.deepEqual(errors, []);
    assert.deepEqual(lines.map((l) => [l.artist, l.trackTitle]), [
      ['Zoë’s Band', '“Café” Nights'], ['Zoë’s Band', 'Naïve – Edit'], ['Zoë’s Band', 'Œuvre n°1'],
    ]);
    assert.equal(draftPattern(fixture(F), F).encoding, 'windows-1252');
  });

  it('an explicit single-byte code page is a pattern encoding; latin1 reads as windows-1252', async () => {
    for (const encoding of ['windows-1252', 'latin1'])
      assert.equal((await readWith(F, { ...westbank, format: { ...westbank.format, encoding } })).lines[0]!.artist, 'Zoë’s Band', encoding);
    assert.equal(validatePattern({ ...westbank, format: { ...westbank.format, encoding: 'windows-1251' } }).ok, true);
    const cyr = Buffer.from([0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2, 0x3b, 0xec, 0xe8, 0xf0, 0x0a]); // "Привет;мир" in windows-1251
    assert.equal(sniffEncoding(cyr).encoding, 'windows-1251');
  });

  it('period codes, decimal commas and thousands separators, padded UPCs and clean ISRCs', async () => {
    const { lines, summary } = await readWith(F, westbank);
    assert.deepEqual(lines.map((l) => l.saleMonth), ['2024-03-01', '2024-03-01', '2024-04-01']);
    assert.deepEqual(lines.map((l) => [l.quantity, l.net]), [['1234', '1234.56'], ['10', '12.50'], ['3', '0.75']]);
    assert.deepEqual(summary.totals, { EUR: '1247.81' });
    assert.deepEqual(lines.map((l) => l.upc), ['012345678905', '012345678905', '4006381333931']);
    assert.deepEqual(lines.map((l) => l.isrc), ['GBA1B2400001', 'GBA1B2400002', 'GBA1B2400003']);
  });

  it('the period forms statements use, read without value maps', () => {
    const mar = { month: '2024-03-01', start: null, end: null };
    for (const v of ['P03 24(Mar 24)', 'P03 24', 'P3/2024', 'Period 03 2024', '2024 P03', '2024_03', '202403', '2024 03', '03_2024', 'Mar 24', 'Mar-24', "March '24", 'März 2024', '(Mar 24)'])
      assert.deepEqual(normalise.parseDateValue(v), mar, v);
    const q1 = { month: '2024-01-01', start: '2024-01-01', end: '2024-03-31' };
    for (const v of ['Q1 24', '24Q1', '1Q24', "Q1'24"]) assert.deepEqual(normalise.parseDateValue(v), q1, v);
    for (const v of ['15 Mar 2024', 'Mar 15, 2024', '15. März 2024']) assert.deepEqual(normalise.parseDateValue(v), { month: '2024-03-01', start: '2024-03-15', end: '2024-03-15' }, v);
    for (const v of ['P13 24', 'Total', 'Mars Bar']) assert.equal(normalise.parseDateValue(v), undefined, v);
  });

  it('fiscal periods count from the layout\'s fiscal-year start (FY24 P03, FY2024 Q1), without value maps', async () => {
    const april = { startMonth: 4 } as const; // named by the year it ends: FY2024 = April 2023 – March 2024
    assert.deepEqual(normalise.parseDateValue('FY24 P03', false, april), { month: '2023-06-01', start: null, end: null });
    assert.deepEqual(normalise.parseDateValue('FY2024 P10', false, april), { month: '2024-01-01', start: null, end: null });
    assert.deepEqual(normalise.parseDateValue('FY2024 Q1', false, april), { month: '2023-04-01', start: '2023-04-01', end: '2023-06-30' });
    assert.deepEqual(normalise.parseDateValue('Q4 FY24', false, april), { month: '2024-01-01', start: '2024-01-01', end: '2024-03-31' });
    assert.deepEqual(normalise.parseDateValue('FY24-H2', false, april), { month: '2023-10-01', start: '2023-10-01', end: '2024-03-31' });
    assert.deepEqual(normalise.parseDateValue('FY2024', false, april), { month: '2023-04-01', start: '2023-04-01', end: '2024-03-31' });
    // named by the year it starts in (July): FY2024 = July 2024 – June 2025
    assert.deepEqual(normalise.parseDateValue('FY2024 P07', false, { startMonth: 7, namedBy: 'start' }), { month: '2025-01-01', start: null, end: null });
    // a layout with a fiscal year reads its accounting period codes as fiscal periods; without one P03 is March
    assert.deepEqual(normalise.parseDateValue('P03 24', false, april), { month: '2023-06-01', start: null, end: null });
    assert.deepEqual(normalise.parseDateValue('FY24 P03'), { month: '2024-03-01', start: null, end: null });
    for (const v of ['FY24 P13', 'FY24 Q5', 'FY P03']) assert.equal(normalise.parseDateValue(v, false, april), undefined, v);

    const northgate = {
      key: 'northgate', name: 'Northgate', aggregator: 'Northgate', layout: 'table',
      detect: { headers: ['Fiscal Period', 'Net GBP'] },
      format: { delimiter: ',', encoding: 'auto', fiscalYearStart: 4 },
      columns: { saleMonth: { from: 'Fiscal Period' }, trackTitle: { from: 'Track' }, isrc: { from: 'ISRC' }, upc: { from: 'UPC' }, quantity: { from: 'Units' }, net: { from: 'Net GBP' }, currency: { const: 'GBP' } },
    } as any;
    assert.equal(validatePattern(northgate).ok, true);
    const { lines, errors, summary } = await readWith('northgate_fiscal_FY24.csv', northgate);
    assert.deepEqual(errors, []);
    assert.deepEqual(lines.map((l) => [l.saleMonth, l.salePeriodStart, l.salePeriodEnd]), [
      ['2023-04-01', null, null], ['2023-06-01', null, null], ['2024-01-01', '2024-01-01', '2024-03-31'], ['2024-03-01', null, null],
    ]);
    assert.deepEqual(summary.totals, { GBP: '2.76' });
    assert.deepEqual(summary.period, { start: '2023-04-01', end: '2024-03-31' });
  });

  it('a UPC/EAN with a wrong check digit: the line is kept without it, with a warning naming the line and value', async () => {
    const eastgate = {
      key: 'eastgate', name: 'Eastgate', aggregator: 'Eastgate', layout: 'table',
      detect: { headers: ['Barcode', 'Net'] }, format: { delimiter: ',', encoding: 'auto' },
      columns: { saleMonth: { from: 'Month' }, trackTitle: { from: 'Title' }, isrc: { from: 'ISRC' }, upc: { from: 'Barcode' }, quantity: { from: 'Units' }, net: { from: 'Net' }, currency: { const: 'EUR' } },
    } as any;
    const { lines, errors, warnings, summary } = await readWith('eastgate_barcodes_2024-03.csv', eastgate);
    assert.deepEqual(errors, []);
    assert.equal(summary.rowsFailed, 0);
    assert.equal(summary.rowsIngested, 4);
    assert.deepEqual(summary.totals, { EUR: '1.25' }); // every line's money is kept
    assert.deepEqual(lines.map((l) => [l.upc, l.upcRaw]), [
      ['4006381333931', undefined], [null, '4006381333932'], ['96385074', undefined], [null, '12345678901'],
    ]);
    assert.deepEqual(lines.map((l) => l.isrc), ['GBA1B2400001', 'GBA1B2400001', 'GBA1B2400002', 'GBA1B2400002']);
    assert.equal(summary.warnings, 2);
    assert.deepEqual(warnings.map((w) => [w.lineNo, w.kept, w.detail, w.reason]), [
      [3, true, { field: 'upc', column: 'Barcode', value: '4006381333932' }, 'line 3 kept without its UPC: UPC/EAN "4006381333932" has a wrong check digit (the last digit should be 1)'],
      [5, true, { field: 'upc', column: 'Barcode', value: '12345678901' }, 'line 5 kept without its UPC: UPC/EAN "12345678901" has a wrong check digit (the last digit should be 5)'],
    ]);
    assert.equal(lines.some((l) => 'notes' in l), false);
  });

  it('a UPC is padded only when the padded code has a right check digit', () => {
    assert.equal(normalise.normUpc('12345678905'), '012345678905');
    assert.equal(normalise.normUpc('12345678901'), '12345678901');
    assert.equal(normalise.normUpc('="0859712345004"'), '0859712345004');
  });
});
