/**
 * The draft proposes the right roles for every built-in table layout's fixture: each column a
 * built-in pattern maps to one of the draft's roles gets that role, and the pattern the draft
 * proposes is valid. Quarters and half-years are read natively as periods.
 */
import assert from 'node:assert/strict';
import { builtinPatterns, detectSource, draftPattern, ROLE_FIELD, validatePattern, normalise } from '../../../parsers/index';
import { fixture, readWith } from './helpers';

const FIXTURES: [string, string][] = [
  ['DistroKid_1693900000000_NovaLune.tsv', 'distrokid'],
  ['DistroKid_1683000000000_NovaLune.tsv', 'distrokid-2023'],
  ['latin1-distrokid.tsv', 'distrokid-2018'],
  ['tunecore-sales-report.csv', 'tunecore'],
  ['cdbaby-lowercase-isrc-quoted-barcode.txt', 'cdbaby'],
  ['apple-music-streaming_0723.tsv', 'apple-music-streaming'],
  ['no-leading-zero.tsv', 'apple-music-streaming'],
  ['80012345_0723_US.txt', 'itunes-downloads'],
  ['YouTube_NovaLuneRecords_M_20230701_20230731_asset_raw_v1-1.csv', 'youtube-asset-raw'],
  ['semicolon-decimal-comma.csv', 'believe'],
  ['believe-english.csv', 'believe'],
  ['two-currencies.csv', 'fuga'],
  ['bom-header.csv', 'orchard'],
  ['orchard-legacy-2018M8.csv', 'orchard'],
  ['utf16-bandcamp.csv', 'bandcamp'],
  ['soundcloud-preamble.csv', 'soundcloud'],
  ['imusician_sales_2024-05.csv', 'imusician'],
  ['amuse_statement_2024-06.csv', 'amuse'],
  ['OFFstep_Detailed_Monthly_Report_2024-04.csv', 'offstep'],
  ['FinchRecords-royalty_extended.csv', 'cargo'],
  ['vendas_distribuicao_digital_2024-02.csv', 'smartrights-sales'],
  ['confirmed_sales_2024-05.csv', 'confirmed-sales'],
  ['PRS_Statement_2024041.csv', 'prs-distribution'],
  ['ascap_statement_2024Q2.csv', 'ascap-statement'],
  ['bmi_royalty_statement_20242.csv', 'bmi-statement'],
  ['MLC_Work_Summary_2024-03.tsv', 'mlc-work-summary'],
  ['soundexchange_statement_2024Q1.csv', 'soundexchange-statement'],
];

const FIELD_ROLES: Record<string, string[]> = {};
for (const [role, field] of Object.entries(ROLE_FIELD)) (FIELD_ROLES[field] ??= []).push(role);

describe('draft pattern from a sample', () => {
  it('covers every built-in table layout', () => {
    const keys = new Set(FIXTURES.map(([, k]) => k));
    for (const p of builtinPatterns.filter((x) => x.layout === 'table' && x.format.header !== 'none')) assert.ok(keys.has(p.key), `a fixture for ${p.key}`);
  });

  for (const [file, key] of FIXTURES) {
    it(`${file}: the roles of every column ${key} maps`, () => {
      const p = builtinPatterns.find((x) => x.key === key)!;
      const d = draftPattern(fixture(file), file);
      assert.notEqual(d.headerLine, null);
      const byName = new Map(d.columns.filter((c) => c.name).map((c) => [normalise.headerKey(c.name!), c]));
      let checked = 0;
      for (const [field, m] of Object.entries(p.columns)) {
        if (!m?.from || !FIELD_ROLES[field]) continue;
        const names = Array.isArray(m.from) ? m.from : [m.from];
        const col = names.map((n) => byName.get(normalise.headerKey(n))).find((c) => c);
        if (!col) continue; // a column of another version of the layout
        assert.ok(FIELD_ROLES[field]!.includes(col.role ?? ''), `${col.name}: ${field} expected, draft says ${col.role}`);
        assert.ok(col.confidence >= 0.5 && col.confidence < 1, `${col.name} confidence ${col.confidence}`);
        checked++;
      }
      assert.ok(checked >= 4, `${checked} roles checked`);
      assert.deepEqual(validatePattern(d.pattern).ok, true, JSON.stringify(validatePattern(d.pattern)));
    });
  }

  it('NOVALUNE_STANDARD_Q2_2024.csv (header-less, row kinds): the roles clicknclear maps by position on its most common kind', () => {
    const d = draftPattern(fixture('NOVALUNE_STANDARD_Q2_2024.csv'), 'NOVALUNE_STANDARD_Q2_2024.csv');
    assert.equal(d.headerLine, null);
    const p = builtinPatterns.find((x) => x.key === 'clicknclear')!;
    // a header-less file has no names: titles and artists are text alike and are left to the admin
    let checked = 0;
    for (const [field, m] of Object.entries(p.columns)) {
      if (m?.column === undefined || !FIELD_ROLES[field] || field === 'trackTitle' || field === 'artist') continue;
      assert.ok(FIELD_ROLES[field]!.includes(d.columns[m.column]?.role ?? ''), `column ${m.column}: ${field} expected, draft says ${d.columns[m.column]?.role}`);
      checked++;
    }
    assert.equal(checked, 6);
  });

  it('a header-less file whose first cell is a record kind gets row kinds: data, other sales, totals', async () => {
    const file = 'NOVALUNE_STANDARD_Q2_2024.csv';
    const d = draftPattern(fixture(file), file);
    const rk = d.pattern.rowKinds!;
    assert.equal(rk.cell, 0);
    assert.deepEqual(rk.kinds.map((k) => [k.values, k.where ?? null, k.use]), [
      [['S'], { 1: ['M'] }, 'data'],
      [['S'], { 1: ['P'] }, 'data'],
      [['T'], { 1: ['M'] }, 'total'],
      [['T'], { 1: ['P'] }, 'total'],
    ]);
    // the publishing sale row has its cells elsewhere: its currency moves one cell left
    assert.deepEqual(rk.kinds[1]!.columns?.currency, { column: 9 });
    // the totals rows: their count of sales and their currency, by position
    assert.deepEqual([rk.kinds[2]!.rowCountCell, rk.kinds[2]!.columns?.currency], [4, { column: 5 }]);
    assert.deepEqual(d.pattern.detect.headers, ['S', 'T']);
    assert.deepEqual(validatePattern(d.pattern).ok, true, JSON.stringify(validatePattern(d.pattern)));
    // the draft reads the whole file as it is: every row of a known kind, the five sales as lines
    const { lines, errors, summary } = await readWith(file, d.pattern);
    assert.deepEqual(errors, []);
    assert.equal(lines.length, 5);
    assert.equal(summary.rowsFailed, 0);
    const c = detectSource({ fileName: file, head: fixture(file) }, [d.pattern]);
    assert.equal(c[0]!.confidence.schema, 1);
  });

  it('a header-less file is drafted with column positions', () => {
    const d = draftPattern(Buffer.from('S,2024-03,USRC17607839,Low Orbit,DE,12,1.25,EUR\nS,2024-03,USRC17607840,Paper Suns,FR,3,0.75,EUR\n'), 'x.csv');
    assert.equal(d.headerLine, null);
    assert.equal(d.pattern.format.header, 'none');
    assert.deepEqual(d.columns.map((c) => c.role), [null, 'date', 'isrc', null, 'country', 'quantity', 'amount', 'currency']);
    assert.deepEqual(d.pattern.columns.isrc, { column: 2 });
  });

  it('reads quarters and half-years in the common spellings', () => {
    const q1 = { month: '2024-01-01', start: '2024-01-01', end: '2024-03-31' };
    for (const v of ['1Q2024', '2024Q1', '20241', 'Q1 2024', '2024-Q1', '1Q 2024', 'q1-2024']) assert.deepEqual(normalise.parseDateValue(v), q1, v);
    const h2 = { month: '2024-07-01', start: '2024-07-01', end: '2024-12-31' };
    for (const v of ['2024-H2', '2024H2', 'H2 2024', '2H2024', '2024 S2']) assert.deepEqual(normalise.parseDateValue(v), h2, v);
    for (const v of ['20245', '2024Q5', 'H3 2024']) assert.equal(normalise.parseDateValue(v), undefined, v);
  });
});
