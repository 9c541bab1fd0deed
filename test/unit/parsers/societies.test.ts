import assert from 'node:assert/strict';
import { builtinPatterns, detectSource, WINNER_THRESHOLD } from '../../../parsers/index';
import { fixture, pattern, read } from './helpers';

/** Society and collective statements: fixture, winning pattern, lines, exact totals, income kind. */
const CASES: [string, string, number, Record<string, string>, 'publishing' | 'recording'][] = [
  ['PRS_Statement_2024041.csv', 'prs-distribution', 6, { GBP: '41.3317' }, 'publishing'],
  ['ascap_statement_2024Q2.csv', 'ascap-statement', 5, { USD: '32.19' }, 'publishing'],
  ['bmi_royalty_statement_20242.csv', 'bmi-statement', 4, { USD: '25.2334' }, 'publishing'],
  ['MLC_Work_Summary_2024-03.tsv', 'mlc-work-summary', 5, { USD: '51.83111' }, 'publishing'],
  ['soundexchange_statement_2024Q1.csv', 'soundexchange-statement', 4, { USD: '33.997676' }, 'recording'],
];

describe('society and collective patterns', () => {
  for (const [file, key, n, totals, income] of CASES) {
    describe(file, () => {
      it(`is detected as ${key}, alone`, () => {
        const c = detectSource({ fileName: file, head: fixture(file).subarray(0, 8192) }, builtinPatterns);
        assert.equal(c[0]!.patternKey, key, JSON.stringify(c.slice(0, 2)));
        assert.ok(c[0]!.score >= WINNER_THRESHOLD, `score ${c[0]!.score}`);
        assert.ok(c.slice(1).every((x) => x.score < WINNER_THRESHOLD), 'a second winner');
        assert.equal(pattern(key).income, income);
      });
      it(`reads ${n} lines to the exact totals`, async () => {
        const { summary, lines, errors } = await read(file, key);
        assert.deepEqual(errors, []);
        assert.equal(lines.length, n);
        assert.equal(summary.rowsFailed, 0);
        assert.deepEqual(summary.totals, totals);
        for (const l of lines) assert.match(l.saleMonth ?? 'missing', /^\d{4}-\d{2}-01$/);
        if (income === 'publishing') {
          for (const l of lines) {
            assert.ok(l.extra?.workTitle, `line ${l.lineNo} has a work title`);
            assert.match(l.extra?.rightType ?? '', /^(performance|mechanical)$/);
          }
        }
      });
    });
  }

  it('PRS: writers from IP1…IP4 joined by "/", ISWC and Tunecode kept, day-first dates', async () => {
    const { lines } = await read('PRS_Statement_2024041.csv', 'prs-distribution');
    assert.deepEqual(lines[0]!.extra, { iswc: 'T-345.246.801-4', workTitle: 'Low Orbit', writers: 'Mara Vell/Jon Ostrander', societyWorkId: '105001AB', rightType: 'performance' });
    assert.equal(lines[0]!.saleMonth, '2024-01-01');
    assert.equal(lines[2]!.saleMonth, '2023-10-01');
    assert.equal(lines[3]!.extra?.iswc, undefined);
  });

  it('BMI: quarter periods (20241) read as sale and accounting months', async () => {
    const { lines } = await read('bmi_royalty_statement_20242.csv', 'bmi-statement');
    assert.equal(lines[0]!.saleMonth, '2024-01-01');
    assert.equal(lines[2]!.saleMonth, '2023-10-01');
    assert.equal(lines[0]!.extra?.societyWorkId, '12345678');
  });

  it('The MLC: mechanical lines with ISWC, song code and the writer list', async () => {
    const { lines } = await read('MLC_Work_Summary_2024-03.tsv', 'mlc-work-summary');
    assert.deepEqual(lines[0]!.extra, { iswc: 'T-345.246.801-4', workTitle: 'Low Orbit', writers: 'Mara Vell|Jon Ostrander', societyWorkId: 'LA1B2C', rightType: 'mechanical' });
    assert.equal(lines[4]!.net, '-0.03');
  });

  it('SoundExchange: recording lines with their ISRC, no work data', async () => {
    const { lines } = await read('soundexchange_statement_2024Q1.csv', 'soundexchange-statement');
    assert.deepEqual(lines.map((l) => l.isrc), ['QZES81912345', 'QZES81912346', 'QZES81912347', 'QZES81912345']);
    assert.equal(lines[0]!.extra, undefined);
  });
});
