/**
 * Builds real .xlsx workbooks for tests (OOXML parts zipped by zip-writer.ts), the way Excel
 * lays them out: worksheets before styles and shared strings in the zip, shared strings for
 * text, numbers as written, dates as serial numbers in date-styled cells.
 *
 * Cells: a string → shared string; `{ n: '0.0213' }` → number cell with that literal text;
 * `{ date: 45672, style?: 1|2 }` → serial in a date-formatted cell (1 = built-in 14 m/d/yyyy,
 * 2 = custom dd/mm/yyyy); `{ inline: 'x' }` → inline string; `{ bool: true }`; `{ str: 'x' }`
 * → formula string result; `{ styledNumber: '1234.5' }` → number in a #,##0.00 cell (not a
 * date); null → no <c> element (a gap). A row given as null is not written (a missing row).
 */
import { zipBuffers } from './zip-writer';

export type Cell =
  | string
  | { n: string }
  | { date: number; style?: 1 | 2 }
  | { inline: string }
  | { bool: boolean }
  | { str: string }
  | { styledNumber: string }
  | null;

export interface SheetSpec {
  name: string;
  rows: (Cell[] | null)[];
  hidden?: boolean;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export function colName(i: number): string {
  let s = '';
  for (let n = i + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}

const STYLES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">
<numFmts count="2"><numFmt numFmtId="164" formatCode="dd/mm/yyyy"/><numFmt numFmtId="165" formatCode="#,##0.00&quot; m&quot;"/></numFmts>
<fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts>
<fills count="1"><fill><patternFill patternType="none"/></fill></fills>
<borders count="1"><border/></borders>
<cellStyleXfs count="2"><xf numFmtId="0" fontId="0"/><xf numFmtId="14" fontId="0"/></cellStyleXfs>
<cellXfs count="4"><xf numFmtId="0" fontId="0" xfId="0"/><xf numFmtId="14" fontId="0" xfId="0" applyNumberFormat="1"/><xf numFmtId="164" fontId="0" xfId="0" applyNumberFormat="1"/><xf numFmtId="4" fontId="0" xfId="0" applyNumberFormat="1"/></cellXfs>
</styleSheet>`;

export function buildXlsx(sheets: SheetSpec[], opts: { date1904?: boolean; extraEntries?: { name: string; data: string }[] } = {}): Buffer {
  const strings: string[] = [];
  const index = new Map<string, number>();
  const shared = (s: string) => {
    let i = index.get(s);
    if (i === undefined) {
      i = strings.length;
      strings.push(s);
      index.set(s, i);
    }
    return i;
  };
  const sheetXml = (sh: SheetSpec) => {
    let maxCol = 0;
    const rows: string[] = [];
    sh.rows.forEach((row, ri) => {
      if (row === null) return;
      const r = ri + 1;
      const cells: string[] = [];
      row.forEach((c, ci) => {
        if (c === null) return;
        maxCol = Math.max(maxCol, ci);
        const ref = `${colName(ci)}${r}`;
        if (typeof c === 'string') cells.push(`<c r="${ref}" t="s"><v>${shared(c)}</v></c>`);
        else if ('n' in c) cells.push(`<c r="${ref}"><v>${c.n}</v></c>`);
        else if ('date' in c) cells.push(`<c r="${ref}" s="${c.style ?? 1}"><v>${c.date}</v></c>`);
        else if ('inline' in c) cells.push(`<c r="${ref}" t="inlineStr"><is><t xml:space="preserve">${esc(c.inline)}</t></is></c>`);
        else if ('bool' in c) cells.push(`<c r="${ref}" t="b"><v>${c.bool ? 1 : 0}</v></c>`);
        else if ('str' in c) cells.push(`<c r="${ref}" t="str"><f>CONCAT("a","b")</f><v>${esc(c.str)}</v></c>`);
        else cells.push(`<c r="${ref}" s="3"><v>${c.styledNumber}</v></c>`);
      });
      rows.push(`<row r="${r}" spans="1:${row.length}">${cells.join('')}</row>`);
    });
    return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">
<dimension ref="A1:${colName(maxCol)}${sh.rows.length}"/><sheetViews><sheetView workbookViewId="0"/></sheetViews><sheetFormatPr defaultRowHeight="15"/>
<sheetData>${rows.join('\n')}</sheetData>
<mergeCells count="1"><mergeCell ref="A1:B1"/></mergeCells><pageMargins left="0.7" right="0.7" top="0.75" bottom="0.75" header="0.3" footer="0.3"/>
</worksheet>`;
  };
  const sheetParts = sheets.map((sh, i) => ({ name: `xl/worksheets/sheet${i + 1}.xml`, data: sheetXml(sh) }));
  const sst = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="${strings.length}" uniqueCount="${strings.length}">${strings
    .map((s) => `<si><t xml:space="preserve">${esc(s)}</t></si>`)
    .join('')}</sst>`;
  const ct = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>${sheets
    .map((_s, i) => `<Override PartName="/xl/worksheets/sheet${i + 1}.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`)
    .join('')}<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/><Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>`;
  const rootRels = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`;
  const wb = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><workbookPr${opts.date1904 ? ' date1904="1"' : ''}/><bookViews><workbookView/></bookViews><sheets>${sheets
    .map((s, i) => `<sheet name="${esc(s.name)}" sheetId="${i + 1}"${s.hidden ? ' state="hidden"' : ''} r:id="rId${i + 1}"/>`)
    .join('')}</sheets></workbook>`;
  const n = sheets.length;
  const wbRels = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${sheets
    .map((_s, i) => `<Relationship Id="rId${i + 1}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet${i + 1}.xml"/>`)
    .join('')}<Relationship Id="rId${n + 1}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/><Relationship Id="rId${n + 2}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/></Relationships>`;
  return zipBuffers([
    { name: '[Content_Types].xml', data: ct },
    { name: '_rels/.rels', data: rootRels },
    { name: 'xl/workbook.xml', data: wb },
    { name: 'xl/_rels/workbook.xml.rels', data: wbRels },
    ...sheetParts, // before styles and shared strings, as Excel writes them
    { name: 'xl/styles.xml', data: STYLES },
    { name: 'xl/sharedStrings.xml', data: sst },
    ...(opts.extraEntries ?? []),
  ]);
}
