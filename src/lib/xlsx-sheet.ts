/**
 * One worksheet as CSV text, streamed: cells by their `r` reference, values by type and
 * style (shared strings, inline strings, booleans, errors, numbers as written, date serials
 * as ISO dates), missing rows as empty lines, rows padded to the widest so far. See xlsx.ts.
 */
import { MAX_CELL_CHARS, MAX_COLS, MAX_LINE_CHARS, MAX_RAW_CELL_CHARS, MAX_ROWS, XlsxError, colOf, excelNumber, saxParser, serialToIso, unescapeOoxml } from './xlsx-values';
import type { StringTable } from './xlsx-strings';

export interface CsvOptions {
  /** Field delimiter of the CSV produced (default ','). */
  delimiter?: string;
  /** Write numbers with a decimal comma (for a pattern whose format.decimal is ','). */
  decimalComma?: boolean;
}

export interface SheetRef {
  name: string;
  path: string;
}
export interface SheetInput {
  sheet: SheetRef;
  /** The sheet entry's decoded text, chunk by chunk. */
  text: AsyncIterable<string>;
  strings: StringTable;
  /** By cell style index: whether its number format shows a date. */
  dateStyles: boolean[];
  date1904: boolean;
  /** The CSV produced may not exceed this many characters. */
  maxCsvBytes: number;
}

export async function* sheetCsv(input: SheetInput, opts: CsvOptions): AsyncGenerator<Buffer> {
  const { sheet } = input;
  const delim = opts.delimiter ?? ',';
  const decimalComma = !!opts.decimalComma;
  const { strings, dateStyles, date1904 } = input;
  const dates = new Map<string, string | null>(); // serial text → ISO date (statements repeat a few dates)
  const needsQuote = (v: string) =>
    v.indexOf(delim) !== -1 || v.indexOf('"') !== -1 || v.indexOf('\n') !== -1 || v.indexOf('\r') !== -1;

  let out = '';
  let csvBytes = 0;
  let lastRow = 0;
  let width = 0;
  let pendingBlank = 0; // empty rows not yet written (only written before a later row with data)
  let cells: string[] = [];
  let rowNo = 0;
  let col = -1;
  let type = '', style = -1;
  let v = '';
  let inV = false, inIs = false, inT = false, phonetic = 0;
  let inSheetData = false, done = false;

  const value = (): string => {
    switch (type) {
      case 's': {
        if (v === '') return '';
        const s = strings.get(Number(v));
        if (s === undefined) throw new XlsxError(`The xlsx workbook is corrupt: shared string ${v} does not exist (sheet "${sheet.name}", row ${rowNo})`);
        return s;
      }
      case 'inlineStr':
      case 'str':
        return unescapeOoxml(v);
      case 'b':
        return v === '1' || v === 'true' ? 'TRUE' : v === '' ? '' : 'FALSE';
      case 'e':
        return v;
      case 'd':
        return /^\d{4}-\d{2}-\d{2}/.test(v) ? v.slice(0, 10) : v;
      default: {
        const t = v.trim();
        if (t === '') return '';
        if (style >= 0 && dateStyles[style]) {
          let d = dates.get(t);
          if (d === undefined) {
            d = serialToIso(t, date1904);
            if (dates.size < 10_000) dates.set(t, d);
          }
          if (d !== null) return d;
        }
        const n = excelNumber(t);
        return decimalComma ? n.replace('.', ',') : n;
      }
    }
  };

  const endRow = () => {
    let last = cells.length - 1;
    while (last >= 0 && (cells[last] === undefined || cells[last] === '')) last--;
    if (rowNo > lastRow) {
      // rows missing since the last one are empty lines (a line number is the row number)
      pendingBlank += rowNo - lastRow - 1;
      lastRow = rowNo;
    }
    cells.length = last + 1;
    if (last < 0) {
      pendingBlank++; // written only if a row with data follows
      return;
    }
    if (pendingBlank) {
      out += '\n'.repeat(pendingBlank);
      pendingBlank = 0;
    }
    if (last + 1 > width) width = last + 1;
    let line = '';
    for (let i = 0; i < width; i++) {
      const c = i <= last ? cells[i] : undefined;
      if (i) line += delim;
      if (c !== undefined && c !== '') line += needsQuote(c) ? `"${c.replace(/"/g, '""')}"` : c;
      if (line.length > MAX_LINE_CHARS) throw new XlsxError(`Refused: row ${rowNo} is longer than ${MAX_LINE_CHARS} characters as CSV (sheet "${sheet.name}")`);
    }
    out += line + '\n';
    cells = [];
  };

  const p = saxParser(sheet.path, {
    open(name, a) {
      if (!inSheetData) {
        if (name === 'sheetData') inSheetData = true;
        return;
      }
      switch (name) {
        case 'row': {
          const r = a.r !== undefined ? Number(a.r) : lastRow + 1;
          if (!Number.isInteger(r) || r < 1 || r > MAX_ROWS) throw new XlsxError(`The xlsx workbook is corrupt: row number "${a.r}" (sheet "${sheet.name}")`);
          rowNo = r;
          cells = [];
          col = -1;
          return;
        }
        case 'c': {
          const ref = a.r;
          let c = ref !== undefined ? colOf(ref) : col + 1;
          if (c < 0) c = col + 1;
          if (c >= MAX_COLS) throw new XlsxError(`The xlsx workbook is corrupt: cell "${ref}" is beyond column XFD (sheet "${sheet.name}")`);
          col = c;
          type = a.t ?? 'n';
          style = a.s !== undefined ? Number(a.s) : -1;
          v = '';
          return;
        }
        case 'v':
          inV = true;
          return;
        case 'is':
          inIs = true;
          return;
        case 't':
          if (inIs) inT = true;
          return;
        case 'rPh':
          phonetic++;
          return;
      }
    },
    close(name) {
      if (!inSheetData) return;
      switch (name) {
        case 'v':
          inV = false;
          return;
        case 't':
          inT = false;
          return;
        case 'is':
          inIs = false;
          return;
        case 'rPh':
          phonetic--;
          return;
        case 'c':
          if (col >= 0) cells[col] = value();
          return;
        case 'row':
          endRow();
          return;
        case 'sheetData':
          inSheetData = false;
          done = true;
          return;
      }
    },
    text(t) {
      if (inV || (inT && phonetic === 0)) {
        v += t;
        if (v.length > MAX_RAW_CELL_CHARS) throw new XlsxError(`Refused: cell ${col >= 0 ? col + 1 : '?'} of row ${rowNo} is longer than ${MAX_CELL_CHARS} characters (Excel's limit; sheet "${sheet.name}")`);
      }
    },
  });

  for await (const s of input.text) {
    p.write(s);
    if (out.length >= 64 * 1024) {
      csvBytes += out.length;
      if (csvBytes > input.maxCsvBytes) throw new XlsxError(`Refused: the sheet as CSV exceeds ${input.maxCsvBytes} bytes`);
      yield Buffer.from(out);
      out = '';
    }
    if (done) break; // what follows sheetData (merged cells, page setup…) is not needed
  }
  if (!done) p.close(); // a document that ends early fails here
  if (out) yield Buffer.from(out);
}
