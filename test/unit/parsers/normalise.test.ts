import assert from 'node:assert/strict';
import { normalise as n } from '../../../parsers/index';

describe('normalisers', () => {
  it('normDecimal', () => {
    const cases: [string, n.DecimalStyle, string | null | undefined][] = [
      ['0.000211', '.', '0.000211'], ['-0,000211', ',', '-0.000211'], ['.021330', '.', '0.021330'], ['-.5', '.', '-0.5'],
      ['1.234,56', ',', '1234.56'], ['1,234.56', '.', '1234.56'], ['1.234,56', 'auto', '1234.56'], ['1,5', 'auto', '1.5'],
      ['1,234', 'auto', '1234'], ['(12.50)', '.', '-12.50'], ['12.50-', '.', '-12.50'], ['+3', '.', '3'],
      ['1.5E-7', '.', '0.00000015'], ['2e3', '.', '2000'], ['$1,000.10', '.', '1000.10'], ['1 234,5 €', ',', '1234.5'],
      ['007.5', '.', '7.5'], ['-0', '.', '0'], ['', '.', null], ['  ', '.', null], ['abc', '.', undefined], ['1.2.3', '.', undefined],
      ['0.123456789012345678', '.', '0.123456789012345678'], ['1.234.567', ',', '1234567'], ['1.234', ',', '1234'],
    ];
    for (const [raw, style, want] of cases) assert.equal(n.normDecimal(raw, style), want, `${raw} (${style})`);
  });

  it('parseDateValue / normDate', () => {
    const cases: [string, boolean, n.NormDate | null | undefined][] = [
      ['2023-07', false, { month: '2023-07-01', start: null, end: null }],
      ['2023-07-15', false, { month: '2023-07-01', start: '2023-07-15', end: '2023-07-15' }],
      ['20230715', false, { month: '2023-07-01', start: '2023-07-15', end: '2023-07-15' }],
      ['202307', false, { month: '2023-07-01', start: null, end: null }],
      ['10/15/2023 12:00:00 AM', false, { month: '2023-10-01', start: '2023-10-15', end: '2023-10-15' }],
      ['6/24/23 11:45am', false, { month: '2023-06-01', start: '2023-06-24', end: '2023-06-24' }],
      ['03/04/2023', true, { month: '2023-04-01', start: '2023-04-03', end: '2023-04-03' }],
      ['31/01/2024', false, { month: '2024-01-01', start: '2024-01-31', end: '2024-01-31' }],
      ['January 2025', false, { month: '2025-01-01', start: null, end: null }],
      ['Janvier 2025', false, { month: '2025-01-01', start: null, end: null }],
      ['févr. 2024', false, { month: '2024-02-01', start: null, end: null }],
      ['Dezember 2023', false, { month: '2023-12-01', start: null, end: null }],
      ['2018M8', false, { month: '2018-08-01', start: null, end: null }],
      ['07/2023', false, { month: '2023-07-01', start: null, end: null }],
      ['2024-Q1', false, { month: '2024-01-01', start: '2024-01-01', end: '2024-03-31' }],
      ['Q4 2023', false, { month: '2023-10-01', start: '2023-10-01', end: '2023-12-31' }],
      ['2024-01-01--2024-02-29', false, { month: '2024-01-01', start: '2024-01-01', end: '2024-02-29' }],
      ['2023-07-01T10:00:00Z', false, { month: '2023-07-01', start: '2023-07-01', end: '2023-07-01' }],
      ['', false, null], ['2024-13', false, undefined], ['2023-02-30', false, undefined], ['soon', false, undefined],
    ];
    for (const [raw, dayFirst, want] of cases) {
      assert.deepEqual(n.parseDateValue(raw, dayFirst), want, raw);
      assert.deepEqual(n.normDate(raw, dayFirst), want, `memo ${raw}`);
    }
  });

  it('normIsrc: invalid → undefined (reader stores null + isrcRaw)', () => {
    const cases: [string, string | null | undefined][] = [
      ['USRC17607839', 'USRC17607839'], ['us-rc1-76-07839', 'USRC17607839'], ['usrc17607839', 'USRC17607839'],
      [' US RC1 76 07839 ', 'USRC17607839'], ['="USRC17607839"', 'USRC17607839'], ['', null],
      ['USRC1760783', undefined], ['not an isrc', undefined], ['12RC17607839', undefined],
    ];
    for (const [raw, want] of cases) assert.equal(n.normIsrc(raw), want, raw);
  });

  it('normUpc keeps leading zeros, strips guards', () => {
    const cases: [string, string | null | undefined][] = [
      ['008811234560', '008811234560'], ['"008811234560"', '008811234560'], ['="0008811234560"', '0008811234560'],
      ['empty:0859712345677', '0859712345677'], ["'0859712345677", '0859712345677'], ['0-85971-23456-7', '085971234567'],
      ['', null], ['empty:', null], ['8.85971E+11', undefined], ['ABC', undefined],
    ];
    for (const [raw, want] of cases) assert.equal(n.normUpc(raw), want, raw);
  });

  it('normCountry', () => {
    const cases: [string, string | null][] = [
      ['US', 'US'], ['us', 'US'], ['USA', 'US'], ['United States', 'US'], ['États-Unis', 'US'], ['Etats-Unis', 'US'],
      ['France', 'FR'], ['Allemagne', 'DE'], ['Germany', 'DE'], ['Royaume-Uni', 'GB'], ['UK', 'GB'], ['United Kingdom', 'GB'],
      ['Korea, Republic of', 'KR'], ['Japon', 'JP'], ['Brazil', 'BR'], ['OU', 'OU'], ['WW', 'WW'], ['', null],
      ['Narnia', 'Narnia'],
    ];
    for (const [raw, want] of cases) assert.equal(n.normCountry(raw), want, raw);
  });

  it('normSaleType', () => {
    const cases: [string, string | null][] = [
      ['Streaming', 'stream'], ['Audio Streams', 'stream'], ['OnDemandStream', 'stream'], ['Download', 'download'],
      ['PermanentDownload', 'download'], ['Album Download', 'download'], ['UGC', 'ugc'], ['Content ID', 'ugc'],
      ['Refund', 'return'], ['Vinyl', 'physical'], ['Téléchargement', 'download'], ['stream', 'stream'], ['', null],
      ['Mystery', 'other'],
    ];
    for (const [raw, want] of cases) assert.equal(n.normSaleType(raw), want, raw);
  });

  it('negate / makeNegative / headerKey', () => {
    assert.equal(n.negateDecimal('1.5'), '-1.5');
    assert.equal(n.negateDecimal('-1.5'), '1.5');
    assert.equal(n.negateDecimal('0.00'), '0.00');
    assert.equal(n.makeNegative('-2'), '-2');
    assert.equal(n.makeNegative('2'), '-2');
    assert.equal(n.headerKey('\ufeffTotal  Royalty Bearing Plays'), n.headerKey('total royalty bearing plays'));
    assert.equal(n.headerKey('Pays / Région'), 'paysregion');
    assert.notEqual(n.headerKey('# Units Sold'), n.headerKey('Units Sold'));
  });
});
