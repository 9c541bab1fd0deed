import assert from 'node:assert/strict';
import { xlsxValue } from '../../../src/http/export';
import { csvQuotes, cellText, csvCell, csvRow, neutralise, trimDecimal } from '../../../src/domain/csv';
import { periodSpanOf } from '../../../src/modules/settings/periods';

describe('exports: cell rules (pure)', () => {
  it('neutralises text that a spreadsheet would read as a formula', () => {
    for (const s of ['=1+1', '+1', '-1+1', '@SUM(A1)', '\tx', '\rx']) assert.equal(neutralise(s), `'${s}`);
    for (const s of ['a=1', ' =1', "'=1", '', 'Plain']) assert.equal(neutralise(s), s);
    assert.equal(cellText('-Minus Song'), "'-Minus Song");
  });

  it('keeps numbers of numeric columns as they are, exact, and treats non-numbers there as text', () => {
    assert.equal(cellText('-1.500000000000', 'decimal'), '-1.5');
    assert.equal(cellText('123456789.123456789012', 'decimal'), '123456789.123456789012');
    assert.equal(cellText('-3', 'integer'), '-3');
    assert.equal(cellText('-1+2', 'decimal'), "'-1+2");
    assert.equal(cellText('1e5', 'decimal'), '1e5');
    assert.equal(cellText(null, 'decimal'), '');
    assert.equal(trimDecimal('10.000'), '10');
    assert.equal(trimDecimal('100'), '100');
    assert.equal(trimDecimal('0.0'), '0');
  });

  it('quotes CSV cells per RFC 4180 after the formula guard', () => {
    assert.equal(csvCell('a,b'), '"a,b"');
    assert.equal(csvCell('say "hi"'), '"say ""hi"""');
    assert.equal(csvCell('=x,y'), `"'=x,y"`);
    assert.equal(csvCell('\rline'), `"'\rline"`);
    // every usual separator: a spreadsheet splitting on `;` or tab keeps the cell whole
    assert.equal(csvCell('Song;=1+1'), '"Song;=1+1"');
    assert.equal(csvCell('a\tb'), '"a\tb"');
    assert.equal(csvCell('two\nlines'), '"two\nlines"');
    assert.deepEqual(['Song;=1+1', 'a\tb', 'x,y', 'q"', 'plain', 12].map(csvQuotes), [true, true, true, true, false, false]);
    assert.equal(csvRow(['x', '-2.50', 3], ['text', 'decimal', 'integer']), 'x,-2.5,3\r\n');
  });

  it('XLSX: numbers up to 15 significant digits, exact text beyond', () => {
    assert.equal(xlsxValue('1.123456789012', 'decimal'), 1.123456789012);
    assert.equal(xlsxValue('-0.000000000001', 'decimal'), -1e-12);
    assert.equal(xlsxValue('123456789012345', 'decimal'), 123456789012345);
    assert.equal(xlsxValue('1234567890123456', 'decimal'), '1234567890123456');
    assert.equal(xlsxValue('123456789.123456789012', 'decimal'), '123456789.123456789012');
    assert.equal(xlsxValue('9007199254740993', 'integer'), '9007199254740993');
    assert.equal(xlsxValue('=1+1'), '=1+1'); // a string cell, never a formula
    assert.equal(xlsxValue(undefined), null);
    // date columns: a day or a month is a date cell (UTC midnight); anything else stays text
    assert.deepEqual(xlsxValue('2026-10-31', 'date'), new Date(Date.UTC(2026, 9, 31)));
    assert.deepEqual(xlsxValue('2026-10', 'date'), new Date(Date.UTC(2026, 9, 1)));
    assert.equal(xlsxValue('2026-02-30', 'date'), '2026-02-30');
    assert.equal(xlsxValue('soon', 'date'), 'soon');
    assert.equal(cellText('2026-10', 'date'), '2026-10');
  });

  it('period labels: month, quarter and half-year spans', () => {
    assert.deepEqual(periodSpanOf('2026-12'), { start: '2026-12-01', end: '2027-01-01' });
    assert.deepEqual(periodSpanOf('2026-Q4'), { start: '2026-10-01', end: '2027-01-01' });
    assert.deepEqual(periodSpanOf('2026-H1'), { start: '2026-01-01', end: '2026-07-01' });
    for (const bad of ['2026-13', '2026-Q5', '2026-H3', '26-01', '2026-1']) assert.equal(periodSpanOf(bad), null);
  });
});
