import assert from 'node:assert/strict';
import { builtinPatterns, detectSource, validatePattern, WINNER_THRESHOLD } from '../../../parsers/index';
import { fixture, read } from './helpers';

/** fixture, expected winning pattern, data lines, exact per-currency totals (hand-computed). */
const CASES: [string, string, number, Record<string, string>][] = [
  ['DistroKid_1693900000000_NovaLune.tsv', 'distrokid', 24, { USD: '7.570056' }],
  ['DistroKid_1683000000000_NovaLune.tsv', 'distrokid-2023', 15, { USD: '10.88196' }],
  ['latin1-distrokid.tsv', 'distrokid-2018', 12, { USD: '0.82195668' }],
  ['tunecore-sales-report.csv', 'tunecore', 14, { EUR: '0.81098', USD: '1.7876' }],
  ['cdbaby-lowercase-isrc-quoted-barcode.txt', 'cdbaby', 11, { USD: '12.65628' }],
  ['apple-music-streaming_0723.tsv', 'apple-music-streaming', 16, { USD: '6.97332' }],
  ['no-leading-zero.tsv', 'apple-music-streaming', 10, { CAD: '1.17315' }],
  ['80012345_0723_US.txt', 'itunes-downloads', 13, { EUR: '2.8', USD: '11.2' }],
  ['YouTube_NovaLuneRecords_M_20230701_20230731_asset_raw_v1-1.csv', 'youtube-asset-raw', 20, { USD: '16.86288' }],
  ['YouTube_NovaLuneRecords_M_20230701_20230731_ADJ_asset_raw_v1-1.csv.gz', 'youtube-asset-raw', 10, { USD: '-0.05016' }],
  ['semicolon-decimal-comma.csv', 'believe', 18, { EUR: '0.335279' }],
  ['believe-english.csv', 'believe', 10, { EUR: '3358.02129' }],
  ['two-currencies.csv', 'fuga', 16, { EUR: '0.8888832', USD: '0.7901184' }],
  ['bom-header.csv', 'orchard', 12, { GBP: '3.1722' }],
  ['orchard-legacy-2018M8.csv', 'orchard', 10, { EUR: '2.75' }],
  ['utf16-bandcamp.csv', 'bandcamp', 10, { GBP: '35.7', USD: '89.25' }],
  ['soundcloud-preamble.csv', 'soundcloud', 12, { USD: '0.40188' }],
  ['DSR_NovaLune_DSPco_PremiumService_2024-Q1_FR_1of1_20240415T120000.tsv', 'ddex-dsr', 6, { EUR: '21.079' }],
  ['DSR_TEST_YouTube_AdSupport-music_2015-Q4_IS_1of1_20160121T150926.tsv', 'ddex-dsr', 6, { USD: '7' }],
  ['NOVALUNE_STANDARD_Q2_2024.csv', 'clicknclear', 5, { EUR: '27.945' }],
  ['imusician_sales_2024-05.csv', 'imusician', 12, { EUR: '1.299266' }],
  ['amuse_statement_2024-06.csv', 'amuse', 11, { USD: '6.1418' }],
  ['OFFstep_Detailed_Monthly_Report_2024-04.csv', 'offstep', 10, { USD: '3.591404' }],
  ['FinchRecords-royalty_extended.csv', 'cargo', 14, { GBP: '2.538752' }],
  ['vendas_distribuicao_digital_2024-02.csv', 'smartrights-sales', 12, { BRL: '1.55142', USD: '1.67076' }],
  ['confirmed_sales_2024-05.csv', 'confirmed-sales', 11, { EUR: '8.406', USD: '7.7985' }],
];

/** Lines without an ISRC in each fixture (album rows, merchandise, tracks the report leaves blank); none elsewhere. */
const NO_ISRC: Record<string, number> = {
  'DistroKid_1693900000000_NovaLune.tsv': 6,
  'DistroKid_1683000000000_NovaLune.tsv': 3,
  'utf16-bandcamp.csv': 7,
  'soundcloud-preamble.csv': 12,
  'DSR_NovaLune_DSPco_PremiumService_2024-Q1_FR_1of1_20240415T120000.tsv': 1,
  'NOVALUNE_STANDARD_Q2_2024.csv': 2,
  'OFFstep_Detailed_Monthly_Report_2024-04.csv': 10,
  'FinchRecords-royalty_extended.csv': 1,
  'confirmed_sales_2024-05.csv': 2,
};

describe('built-in patterns', () => {
  it('all validate against the schema', () => {
    for (const p of builtinPatterns) assert.deepEqual(validatePattern(p), { ok: true, pattern: p }, p.key);
    assert.equal(new Set(builtinPatterns.map((p) => p.key)).size, builtinPatterns.length);
  });

  for (const [file, key, n, totals] of CASES) {
    describe(file, () => {
      it(`is detected as ${key} with score >= 0.8, alone`, () => {
        const c = detectSource({ fileName: file, head: fixture(file).subarray(0, 8192) }, builtinPatterns);
        assert.equal(c[0]!.patternKey, key, JSON.stringify(c.slice(0, 2)));
        assert.ok(c[0]!.score >= WINNER_THRESHOLD, `score ${c[0]!.score}`);
        assert.ok(c.slice(1).every((x) => x.score < WINNER_THRESHOLD), 'a second winner');
      });
      it(`reads ${n} lines with exact totals`, async () => {
        const { summary, lines, errors } = await read(file, key);
        assert.deepEqual(errors, []);
        assert.equal(lines.length, n);
        assert.equal(summary.rowsIngested, n);
        assert.equal(summary.rowsFailed, 0);
        assert.deepEqual(summary.totals, totals);
        for (const l of lines) {
          assert.match(l.net, /^-?\d+(\.\d+)?$/);
          assert.match(l.currency, /^[A-Z]{3}$/);
          assert.match(l.saleMonth ?? 'missing', /^\d{4}-\d{2}-01$/);
        }
        const isrcs = lines.map((l) => l.isrc);
        assert.equal(isrcs.filter((x) => x === null).length, NO_ISRC[file] ?? 0, 'lines without an ISRC');
        for (const isrc of isrcs.filter((x) => x !== null)) assert.match(isrc, /^[A-Z]{2}[A-Z0-9]{3}\d{7}$/);
      });
    });
  }
});

describe('pattern specifics', () => {
  it('DistroKid current: OU kept, album rows without ISRC, sale type and months', async () => {
    const { lines } = await read('DistroKid_1693900000000_NovaLune.tsv', 'distrokid');
    assert.ok(lines.some((l) => l.country === 'OU'));
    assert.equal(lines[3]!.isrc, null);
    assert.equal(lines[3]!.isrcRaw, undefined);
    assert.equal(lines[0]!.saleMonth, '2023-06-01');
    assert.equal(lines[0]!.accountingPeriod, '2023-09-01');
    assert.equal(lines[0]!.saleType, 'stream');
    assert.equal(lines[0]!.aggregator, 'DistroKid');
    assert.equal(lines[1]!.trackTitle, 'Sél de Mer');
  });
  it('latin1 DistroKid 2018: accented text decoded, customer currency kept as gross', async () => {
    const { lines } = await read('latin1-distrokid.tsv', 'distrokid-2018');
    assert.equal(lines[0]!.artist, 'Élodie Müller');
    assert.equal(lines[2]!.trackTitle, 'Señorita Niña');
    assert.equal(lines[2]!.gross, '2.97'); // 3 × 0.99
    assert.equal(lines[2]!.grossCurrency, 'USD');
  });
  it('TuneCore: two currencies per row', async () => {
    const { lines } = await read('tunecore-sales-report.csv', 'tunecore');
    assert.deepEqual(
      [lines[0]!.gross, lines[0]!.grossCurrency, lines[0]!.exchangeRate, lines[0]!.net, lines[0]!.currency],
      ['0.004100', 'GBP', '0.92', '0.00377200', 'EUR'],
    );
  });
  it('CD Baby: lower-case ISRC upper-cased, quoted barcode keeps its leading zeros, US dates', async () => {
    const { lines } = await read('cdbaby-lowercase-isrc-quoted-barcode.txt', 'cdbaby');
    assert.equal(lines[0]!.isrc, 'USX9P2300000');
    assert.equal(lines[0]!.upc, '008811234560');
    assert.equal(lines[0]!.saleMonth, '2023-10-01');
    assert.equal(lines[0]!.accountingPeriod, '2023-11-01');
  });
  it('Apple Music: preamble currency/period, Row Count reconciles', async () => {
    const { summary, lines } = await read('apple-music-streaming_0723.tsv', 'apple-music-streaming');
    assert.deepEqual(summary.control, { rows: 16 });
    assert.equal(summary.reconciles, true);
    assert.deepEqual(summary.period, { start: '2023-07-01', end: '2023-07-31' });
    assert.equal(lines[0]!.country, 'US');
    assert.equal(lines[1]!.country, 'FR');
    assert.equal(lines[0]!.salePeriodEnd, '2023-07-31');
    assert.equal(lines[0]!.dsp, 'Apple Music');
  });
  it('iTunes: returns negative (quantity and amount), Total_Rows reconciles, summary block skipped', async () => {
    const { summary, lines } = await read('80012345_0723_US.txt', 'itunes-downloads');
    assert.equal(summary.reconciles, true);
    assert.equal(summary.rowsSkipped, 4);
    const r = lines.filter((l) => l.saleType === 'return');
    assert.deepEqual(r.map((l) => [l.quantity, l.net]), [['-1', '-0.70'], ['-1', '-0.70']]);
    assert.equal(lines.reduce((s, l) => s + Number(l.quantity), 0), 20); // quantities are integers here
  });
  it('YouTube: YYYYMMDD days, period from the file name', async () => {
    const { summary, lines } = await read('YouTube_NovaLuneRecords_M_20230701_20230731_asset_raw_v1-1.csv', 'youtube-asset-raw');
    assert.deepEqual(summary.period, { start: '2023-07-01', end: '2023-07-31' });
    assert.equal(lines[0]!.saleMonth, '2023-07-01');
    assert.equal(lines[0]!.trackTitle, 'Midnight Tides, Pt. 1');
  });
  it('Believe: French country names → ISO codes, decimal comma negatives', async () => {
    const { lines } = await read('semicolon-decimal-comma.csv', 'believe');
    assert.deepEqual(lines.slice(0, 5).map((l) => l.country), ['FR', 'DE', 'US', 'GB', 'BE']);
    assert.equal(lines[5]!.net, '-0.011816'); // -(56 × 0,000211)
    assert.equal(lines[2]!.saleType, 'ugc');
  });
  it('Orchard: January 2025 accounting period, empty: UPC prefix stripped', async () => {
    const { lines } = await read('bom-header.csv', 'orchard');
    assert.equal(lines[0]!.accountingPeriod, '2025-01-01');
    assert.equal(lines[1]!.upc, '0859712345677');
    assert.equal(lines[0]!.saleMonth, '2024-11-01');
    const legacy = await read('orchard-legacy-2018M8.csv', 'orchard');
    assert.equal(legacy.lines[0]!.saleMonth, '2018-08-01');
    assert.equal(legacy.lines[0]!.artist, 'Chloé');
  });
  it('Bandcamp: UTF-16, "6/24/23 11:45am" dates, item types', async () => {
    const { lines } = await read('utf16-bandcamp.csv', 'bandcamp');
    assert.equal(lines[0]!.saleMonth, '2023-06-01');
    assert.deepEqual(lines.slice(0, 3).map((l) => l.saleType), ['download', 'download', 'physical']);
    assert.equal(lines[0]!.country, 'GB');
  });
  it('iMusician: YouTube monetisation read as UGC, the statement month as accounting period', async () => {
    const { lines } = await read('imusician_sales_2024-05.csv', 'imusician');
    assert.deepEqual(lines.slice(0, 3).map((l) => l.saleType), ['stream', 'download', 'ugc']);
    assert.deepEqual([lines[0]!.saleMonth, lines[0]!.accountingPeriod, lines[0]!.upc], ['2024-01-01', '2024-05-01', '4059251234562']);
    assert.deepEqual([lines[11]!.quantity, lines[11]!.net], ['-2', '-0.012']);
  });
  it('Amuse: withdrawals (debit rows) skipped and reported, Total after the split is the net', async () => {
    const { summary, lines } = await read('amuse_statement_2024-06.csv', 'amuse');
    assert.equal(summary.rowsSkipped, 1);
    assert.deepEqual([lines[0]!.gross, lines[0]!.net], ['0.4100', '0.20500']);
    assert.deepEqual([lines[0]!.saleMonth, lines[0]!.accountingPeriod], ['2024-03-01', '2024-06-01']);
  });
  it('OFFstep: the role in brackets dropped from the artist, gross in the original currency', async () => {
    const { lines } = await read('OFFstep_Detailed_Monthly_Report_2024-04.csv', 'offstep');
    assert.equal(lines[0]!.artist, 'Nova Lune');
    assert.deepEqual([lines[1]!.gross, lines[1]!.grossCurrency, lines[1]!.exchangeRate, lines[1]!.currency], ['0.2318', 'USD', '1', 'USD']);
    assert.deepEqual([lines[2]!.grossCurrency, lines[2]!.exchangeRate], ['GBP', '1.27']);
  });
  it('Cargo: the product row has no ISRC, a negative correction is kept', async () => {
    const { lines } = await read('FinchRecords-royalty_extended.csv', 'cargo');
    assert.deepEqual([lines[6]!.isrc, lines[6]!.saleType, lines[6]!.upc], [null, 'download', '5057123456783']);
    assert.deepEqual([lines[13]!.quantity, lines[13]!.net], ['-1', '-0.632']);
    assert.equal(lines[0]!.salePeriodEnd, '2024-01-31');
  });
  it('SmartRights and confirmed-sales exports: several currencies, extra fields kept', async () => {
    const sr = await read('vendas_distribuicao_digital_2024-02.csv', 'smartrights-sales');
    assert.deepEqual([sr.lines[0]!.currency, sr.lines[1]!.currency, sr.lines[0]!.country], ['BRL', 'USD', 'BR']);
    assert.equal(sr.lines[0]!.extra?.composers, 'Ana Prado; João Lima');
    const cs = await read('confirmed_sales_2024-05.csv', 'confirmed-sales');
    assert.deepEqual(cs.lines.slice(0, 4).map((l) => l.extra?.contentType), ['t', 't', 'v', 'a']);
    assert.deepEqual([cs.lines[3]!.quantity, cs.lines[3]!.net], ['1', '7.1910']);
  });
});
