/**
 * The .xlsx → CSV converter (src/lib/xlsx.ts) on workbooks built in memory: cell types,
 * numbers as written, dates, gaps, sheet choice, limits and corrupt input.
 */
import assert from 'node:assert/strict';
import unzipper from 'unzipper';
import { Workbook, XlsxError, excelNumber, isDateFormat, serialToIso, type XlsxLimits } from '../../../src/lib/xlsx';
import { buildXlsx } from '../../ingest/xlsx-writer';
import { zipBuffers } from '../../ingest/zip-writer';

const LIMITS: XlsxLimits = { maxExpandedBytes: 1024 ** 3, maxRatio: 200, ratioFloorBytes: 1024 * 1024, maxSharedStringsBytes: 64 * 1024 * 1024 };

async function csvOf(buf: Buffer, limits = LIMITS, opts = {}): Promise<string> {
  const dir = await unzipper.Open.buffer(buf);
  const wb = await Workbook.open(dir.files, limits);
  const parts: Buffer[] = [];
  for await (const c of wb.csv(opts)) parts.push(c as Buffer);
  const s = Buffer.concat(parts).toString('utf8');
  assert.equal(s.charCodeAt(0), 0xfeff, 'CSV starts with a UTF-8 BOM');
  return s.slice(1);
}

/** A workbook from raw parts (for what the builder does not write). */
function rawXlsx(sheet: string, sst?: string, styles?: string, workbookPr = ''): Buffer {
  return zipBuffers([
    { name: '[Content_Types].xml', data: '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>' },
    { name: 'xl/workbook.xml', data: `<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">${workbookPr}<sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>` },
    { name: 'xl/_rels/workbook.xml.rels', data: '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="/xl/worksheets/data.xml"/></Relationships>' },
    { name: 'xl/worksheets/data.xml', data: sheet },
    ...(sst ? [{ name: 'xl/sharedStrings.xml', data: sst }] : []),
    ...(styles ? [{ name: 'xl/styles.xml', data: styles }] : []),
  ]);
}

describe('xlsx → CSV converter', () => {
  it('numbers keep their written text; 16+ significant digits (a printed double) are rounded to 15 in decimal arithmetic', () => {
    assert.equal(excelNumber('0.0213'), '0.0213');
    assert.equal(excelNumber('1.2E-3'), '1.2E-3');
    assert.equal(excelNumber('-12.5'), '-12.5');
    assert.equal(excelNumber('12.345678901234'), '12.345678901234');
    assert.equal(excelNumber('0.021299999999999999'), '0.0213');
    assert.equal(excelNumber('0.10000000000000001'), '0.1');
    assert.equal(excelNumber('-3.3333333333333335'), '-3.33333333333333');
    assert.equal(excelNumber('9.9999999999999999E-3'), '0.01');
    assert.equal(excelNumber('99999999999999999'), '100000000000000000');
    assert.equal(excelNumber('1.0000000000000001E+20'), '100000000000000000000');
    assert.equal(excelNumber('0.000000000000000000'), '0.000000000000000000');
  });

  it('date formats and serials (1900 and 1904 systems)', () => {
    for (const f of ['dd/mm/yyyy', 'mmmm d, yyyy', '[$-409]mmm-yy', 'yyyy-mm', 'mmm', 'd-mmm']) assert.equal(isDateFormat(f), true, f);
    for (const f of ['General', '#,##0.00', 'h:mm', '[h]:mm:ss', 'mm:ss', '0.00" m"', '@']) assert.equal(isDateFormat(f), false, f);
    assert.equal(serialToIso('45672', false), '2025-01-15');
    assert.equal(serialToIso('45672.75', false), '2025-01-15');
    assert.equal(serialToIso('1', false), '1900-01-01');
    assert.equal(serialToIso('59', false), '1900-02-28');
    assert.equal(serialToIso('61', false), '1900-03-01');
    assert.equal(serialToIso('0', true), null);
    assert.equal(serialToIso('44210', true), '2025-01-15');
    assert.equal(serialToIso('abc', false), null);
  });

  it('shared, inline, rich and formula strings, booleans, errors, numbers, dates; gaps keep their columns and rows', async () => {
    const xlsx = buildXlsx([
      {
        name: 'Statement',
        rows: [
          ['NAME', 'WHEN', 'AMOUNT', 'NOTE', 'FLAG', 'EXTRA'],
          ['a, "quoted"', { date: 45672 }, { n: '0.021299999999999999' }, null, { bool: true }, null],
          null, // a missing row
          [{ inline: 'inline\nline' }, { date: 45672, style: 2 }, { n: '1.2E-3' }, { str: 'ab' }, { bool: false }],
          ['x', null, { styledNumber: '1234.5' }],
          [null, null, null], // a row element without cells
          ['last', { n: '45672' }, { n: '-7' }],
        ],
      },
    ]);
    const csv = await csvOf(xlsx);
    assert.equal(
      csv,
      [
        'NAME,WHEN,AMOUNT,NOTE,FLAG,EXTRA',
        '"a, ""quoted""",2025-01-15,0.0213,,TRUE,',
        '',
        '"inline\nline",2025-01-15,1.2E-3,ab,FALSE,',
        'x,,1234.5,,,',
        '',
        'last,45672,-7,,,',
        '',
      ].join('\n'),
    );
  });

  it('rich text runs joined, phonetic runs dropped, _xHHHH_ escapes, prefixed elements, 1904 dates, cells without references', async () => {
    const sst = `<x:sst xmlns:x="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><x:si><x:r><x:t>Bold</x:t></x:r><x:r><x:t xml:space="preserve"> and plain</x:t></x:r><x:rPh sb="0" eb="1"><x:t>ふりがな</x:t></x:rPh></x:si><x:si><x:t>line_x000D_break &amp; more</x:t></x:si><x:si><x:t><![CDATA[<cdata>]]></x:t></x:si></x:sst>`;
    const styles = `<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><cellStyleXfs count="1"><xf numFmtId="14"/></cellStyleXfs><cellXfs count="2"><xf numFmtId="0"/><xf numFmtId="15"/></cellXfs></styleSheet>`;
    const sheet = `<x:worksheet xmlns:x="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><x:sheetData><x:row><x:c t="s"><x:v>0</x:v></x:c><x:c t="s"><x:v>1</x:v></x:c><x:c t="s"><x:v>2</x:v></x:c><x:c s="1"><x:v>44210</x:v></x:c><x:c t="e"><x:v>#N/A</x:v></x:c></x:row><x:row><x:c s="0"><x:v>44211</x:v></x:c></x:row></x:sheetData></x:worksheet>`;
    const csv = await csvOf(rawXlsx(sheet, sst, styles, '<workbookPr date1904="1"/>'));
    assert.equal(csv, 'Bold and plain,"line\rbreak & more",<cdata>,2025-01-15,#N/A\n44211,,,,\n');
  });

  it('semicolon delimiter and decimal comma for a pattern that wants them', async () => {
    const xlsx = buildXlsx([{ name: 'S', rows: [['A', 'B'], ['x;y', { n: '-0.000211' }]] }]);
    assert.equal(await csvOf(xlsx, LIMITS, { delimiter: ';', decimalComma: true }), 'A;B\n"x;y";-0,000211\n');
  });

  it('reads the first visible worksheet with data (empty and hidden sheets are passed over)', async () => {
    const xlsx = buildXlsx([
      { name: 'Hidden', rows: [['SECRET']], hidden: true },
      { name: 'Empty', rows: [] },
      { name: 'Data', rows: [['H1', 'H2'], ['1', '2']] },
      { name: 'Other', rows: [['NOT', 'THIS']] },
    ]);
    assert.equal(await csvOf(xlsx), 'H1,H2\n1,2\n');
  });

  it('limits: shared strings over the bound, an entry over the ratio, a lying size; corrupt XML and data fail with XlsxError', async () => {
    const many = buildXlsx([{ name: 'S', rows: Array.from({ length: 200 }, (_v, i) => [`string number ${i} with some length`]) }]);
    await assert.rejects(csvOf(many, { ...LIMITS, maxSharedStringsBytes: 1000 }), (e: Error) => e instanceof XlsxError && /shared strings exceed 1000 bytes/.test(e.message));

    // Excel's 32,767-character cell limit, a CSV row that would not fit in memory: refused, not built
    const longShared = buildXlsx([{ name: 'S', rows: [['x'.repeat(40_000)]] }]);
    await assert.rejects(csvOf(longShared), (e: Error) => e instanceof XlsxError && /longer than 32767 characters/.test(e.message));
    const longInline = rawXlsx(`<worksheet><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>${'y'.repeat(240_000)}</t></is></c></row></sheetData></worksheet>`);
    await assert.rejects(csvOf(longInline), (e: Error) => e instanceof XlsxError && /longer than 32767 characters/.test(e.message));
    const wideShared = buildXlsx([{ name: 'S', rows: [Array.from({ length: 600 }, () => 'z'.repeat(30_000))] }]);
    await assert.rejects(csvOf(wideShared), (e: Error) => e instanceof XlsxError && /row 1 is longer than \d+ characters as CSV/.test(e.message));

    const bombRows = `<row>${'<c><v>0</v></c>'.repeat(10)}</row>`.repeat(20_000);
    const bomb = rawXlsx(`<worksheet><sheetData>${bombRows}</sheetData></worksheet>`);
    await assert.rejects(csvOf(bomb), (e: Error) => e instanceof XlsxError && /Refused: workbook entry "xl\/worksheets\/data.xml" expands \d+:1/.test(e.message));

    const liar = zipBuffers([
      { name: '[Content_Types].xml', data: '<Types/>' },
      { name: 'xl/workbook.xml', data: '<workbook><sheets><sheet name="S" sheetId="1"/></sheets></workbook>' },
      { name: 'xl/worksheets/sheet1.xml', data: `<worksheet><sheetData>${'<row><c><v>1</v></c></row>'.repeat(10_000)}</sheetData></worksheet>`, lieAboutSize: 100 },
    ]);
    await assert.rejects(csvOf(liar), (e: Error) => e instanceof XlsxError && /expands beyond its declared size/.test(e.message));

    await assert.rejects(csvOf(rawXlsx('<worksheet><sheetData><row><c><v>1</v></row></sheetData></worksheet>')), (e: Error) => e instanceof XlsxError && /not well-formed XML/.test(e.message));
    await assert.rejects(csvOf(rawXlsx('<worksheet><sheetData><row><c t="s"><v>7</v></c></row></sheetData></worksheet>')), (e: Error) => e instanceof XlsxError && /shared string 7 does not exist/.test(e.message));

    const good = buildXlsx([{ name: 'S', rows: Array.from({ length: 2000 }, (_v, i) => [`r${i}`, { n: String(i) }]) }]);
    // corrupt the deflated sheet data (it is the 5th entry, after 4 small ones)
    const bad = Buffer.from(good);
    const at = bad.indexOf(Buffer.from('xl/worksheets/sheet1.xml')) + 'xl/worksheets/sheet1.xml'.length + 40;
    for (let i = at; i < at + 64; i++) bad[i] = bad[i]! ^ 0x5a;
    await assert.rejects(csvOf(bad), (e: Error) => e instanceof XlsxError && /corrupt|well-formed/.test(e.message));

    const notWorkbook = zipBuffers([{ name: 'a.csv', data: 'x' }]);
    await assert.rejects(csvOf(notWorkbook), (e: Error) => e instanceof XlsxError && /not an xlsx workbook/.test(e.message));
  });
});
