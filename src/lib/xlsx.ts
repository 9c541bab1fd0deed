/**
 * Streaming .xlsx → CSV text, so a workbook statement goes through the same detection and
 * the same source patterns (papaparse, parsers/read.ts) as the CSV layout of its source.
 *
 * - Input: the zip's central directory (unzipper `Open`, random access: the stored object is
 *   read by ranged reads), so sharedStrings.xml and styles.xml are read first wherever the
 *   writer put them in the zip, then the sheet is streamed.
 * - Sheet: the first visible worksheet in workbook order that has a row with a value (an empty
 *   first sheet falls through to the next). Chart sheets and hidden sheets are ignored.
 * - Cells: shared strings (rich text runs joined, phonetic runs dropped), inline strings,
 *   formula results (`str`, cached values), booleans (TRUE/FALSE), errors (#N/A…) as written.
 *   Numbers keep the XML's text (never a JS float: `<v>0.0213</v>` stays "0.0213",
 *   `1.2E-3` stays as written — normDecimal reads it); a number written with 16 or more
 *   significant digits is a binary-float artefact of the writer (Excel writes the double
 *   0.0213 as 0.021299999999999999) and is rounded, in decimal string arithmetic, to the 15
 *   significant digits Excel itself keeps and shows. A serial number in a cell whose
 *   number format is a date (built-in 14–17, 22, 27–36, 50–58; or a custom format with d,
 *   y, or m without h/s) becomes ISO `YYYY-MM-DD` (1900 and 1904 date systems; the time of
 *   day is dropped). Cells of type `d` (ISO text) keep their date.
 * - Layout: a cell's column comes from its `r="C5"` reference (gaps stay empty fields); a
 *   missing row becomes an empty line (so a CSV line number is the spreadsheet's row
 *   number); rows are padded with empty fields to the widest row seen so far (Excel omits
 *   trailing empty cells); a row without any value is an empty line.
 * - Memory is flat in the sheet size: the sheet XML is decoded and parsed chunk by chunk
 *   (saxes), each chunk's rows are yielded before the next chunk is read (back-pressure).
 *   Shared strings are held, compactly (UTF-8 in 1 MiB slabs + three integer arrays), up to
 *   `maxSharedStringsBytes`.
 * - Limits (zip bombs): each entry read counts its real bytes against its declared size, the
 *   expansion ratio and the archive's total; declared sizes are checked before reading.
 *
 * Problems with the workbook itself are `XlsxError` (a clear message; never retried).
 */
import { Readable } from 'node:stream';
import path from 'node:path';
import { SaxesParser, type SaxesTagPlain } from 'saxes';

export class XlsxError extends Error {}

/** Marks an error of the object store read under a workbook (retryable, not the workbook's fault). */
export function markStoreError<E>(e: E): E {
  if (e && typeof e === 'object') (e as { rondoStoreError?: boolean }).rondoStoreError = true;
  return e;
}
export function isStoreError(e: unknown): boolean {
  return !!(e && typeof e === 'object' && (e as { rondoStoreError?: boolean }).rondoStoreError);
}

export interface XlsxLimits {
  /** Sum of expanded sizes of the entries read. */
  maxExpandedBytes: number;
  /** Expanded / compressed, per entry. */
  maxRatio: number;
  /** Entries below this are not ratio-checked. */
  ratioFloorBytes: number;
  /** UTF-8 bytes of the shared strings table held in memory. */
  maxSharedStringsBytes: number;
}

/** What the reader needs of a zip entry (unzipper's `File`). */
export interface ZipEntry {
  path: string;
  type: string;
  compressedSize: number;
  uncompressedSize: number;
  stream(): NodeJS.ReadableStream & { destroy?(err?: Error): void };
}

const MAX_ROWS = 1_048_576;
const MAX_COLS = 16_384;
/** Excel's own limit on a cell's text; raw XML text may be longer by its escapes (`_x000D_`, 7 chars for 1). */
const MAX_CELL_CHARS = 32_767;
const MAX_RAW_CELL_CHARS = MAX_CELL_CHARS * 7;
/** A CSV line longer than this is refused (as the reader refuses a longer record). */
const MAX_LINE_CHARS = 16 * 1024 * 1024;
/** Bytes kept per shared string beside its text (three Uint32 arrays). */
const SHARED_STRING_OVERHEAD = 12;

/** A zip is a workbook when it holds `[Content_Types].xml` and `xl/workbook.xml`. */
export function isWorkbook(files: ZipEntry[]): boolean {
  const names = new Set(files.map((f) => f.path.toLowerCase()));
  return names.has('[content_types].xml') && names.has('xl/workbook.xml');
}

/** By name: .xlsx / .xlsm (macro-enabled, same format). */
export function hasWorkbookName(fileName: string | null | undefined): boolean {
  return !!fileName && /\.xls[xm]$/i.test(fileName);
}

/** Legacy binary Excel (.xls, OLE2 compound file): not read. */
export function isOle2(head: Buffer): boolean {
  return head.length >= 8 && head.readUInt32BE(0) === 0xd0cf11e0 && head.readUInt32BE(4) === 0xa1b11ae1;
}

const local = (name: string): string => {
  const i = name.indexOf(':');
  return i === -1 ? name : name.slice(i + 1);
};

/** Decodes OOXML `_xHHHH_` escapes (control characters in strings). */
function unescapeOoxml(s: string): string {
  if (s.indexOf('_x') === -1) return s;
  return s.replace(/_x([0-9A-Fa-f]{4})_/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));
}

/** Column letters of a cell reference → 0-based index; -1 when there are none. */
function colOf(ref: string): number {
  let n = 0, i = 0;
  for (; i < ref.length; i++) {
    const c = ref.charCodeAt(i) | 0x20; // lower-case letters
    if (c < 97 || c > 122) break;
    n = n * 26 + (c - 96);
  }
  return i === 0 ? -1 : n - 1;
}

// ------------------------------------------------------------------------------- numbers

const NUM = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/**
 * The number text as written, unless it has 16+ significant digits (a double printed in
 * full): then rounded half-up to 15 significant digits, as plain decimal text. No float.
 */
export function excelNumber(text: string): string {
  const m = NUM.exec(text);
  if (!m) return text;
  const int = m[2] ?? '', frac = m[3] ?? '';
  const all = int + frac;
  let lead = 0;
  while (lead < all.length && all[lead] === '0') lead++;
  if (all.length - lead <= 15) return text;
  let point = int.length + (m[4] ? Number(m[4]) : 0); // digits of `all` before the decimal point
  const keep = all.slice(0, lead + 15).split('');
  if (all.charCodeAt(lead + 15) >= 53) {
    let i = keep.length - 1;
    for (; i >= 0; i--) {
      if (keep[i] === '9') keep[i] = '0';
      else {
        keep[i] = String.fromCharCode(keep[i]!.charCodeAt(0) + 1);
        break;
      }
    }
    if (i < 0) {
      keep.unshift('1');
      point++;
    }
  }
  let digits = keep.join('');
  let out: string;
  if (point <= 0) out = '0.' + '0'.repeat(-point) + digits;
  else {
    if (digits.length < point) digits = digits.padEnd(point, '0');
    const i = digits.slice(0, point).replace(/^0+(?=\d)/, '');
    const f = digits.slice(point);
    out = f ? `${i}.${f}` : i;
  }
  if (out.indexOf('.') !== -1) out = out.replace(/0+$/, '').replace(/\.$/, '');
  if (/^0(\.0*)?$/.test(out)) return '0';
  return m[1] === '-' ? '-' + out : out;
}

// ------------------------------------------------------------------------------- dates

const BUILTIN_DATE_FORMATS = new Set([14, 15, 16, 17, 22, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 50, 51, 52, 53, 54, 55, 56, 57, 58]);

/** Whether a number format code shows a date (not a pure time, not a number). */
export function isDateFormat(code: string): boolean {
  let s = code.split(';')[0] ?? '';
  if (/\[(h+|m+|s+)\]/i.test(s)) return false; // elapsed time
  s = s.replace(/"[^"]*"/g, '').replace(/\\./g, '').replace(/\[[^\]]*\]/g, '').toLowerCase();
  if (/[dy]/.test(s)) return true;
  return /m/.test(s) && !/[hs]/.test(s);
}

const DAY_MS = 86_400_000;
const EPOCH_1900 = Date.UTC(1899, 11, 30);
const EPOCH_1904 = Date.UTC(1904, 0, 1);

/** Serial day number → 'YYYY-MM-DD' (null when it is not a plausible date). */
export function serialToIso(text: string, date1904: boolean): string | null {
  const v = Number(text); // a date serial, not an amount
  if (!Number.isFinite(v) || v < 1 || v > 2_958_465) return null;
  let days = Math.floor(v);
  if (!date1904 && days < 61) {
    if (days === 60) return '1900-02-29'; // Excel's fictitious day (kept as Excel shows it)
    days += 1; // before it, serials are one day off the 1899-12-30 epoch
  }
  const d = new Date((date1904 ? EPOCH_1904 : EPOCH_1900) + days * DAY_MS);
  return d.toISOString().slice(0, 10);
}

// ------------------------------------------------------------------------------- shared strings

const SLAB = 1024 * 1024;

/** Strings as UTF-8 in 1 MiB slabs: ~12 bytes of overhead per string instead of a JS string each. */
class StringTable {
  private slabs: Buffer[] = [Buffer.allocUnsafe(SLAB)];
  private cur = 0;
  private pos = 0;
  private slab = new Uint32Array(1024);
  private start = new Uint32Array(1024);
  private len = new Uint32Array(1024);
  n = 0;
  bytes = 0;

  add(s: string): void {
    if (this.n === this.slab.length) {
      const grow = (a: Uint32Array) => {
        const b = new Uint32Array(a.length * 2);
        b.set(a);
        return b;
      };
      this.slab = grow(this.slab);
      this.start = grow(this.start);
      this.len = grow(this.len);
    }
    const size = Buffer.byteLength(s);
    if (size > SLAB / 4) {
      // a long string gets a buffer of its own; the current slab stays current
      this.slabs.push(Buffer.from(s));
      this.slab[this.n] = this.slabs.length - 1;
      this.start[this.n] = 0;
    } else {
      if (this.pos + size > SLAB) {
        this.slabs.push(Buffer.allocUnsafe(SLAB));
        this.cur = this.slabs.length - 1;
        this.pos = 0;
      }
      this.slabs[this.cur]!.write(s, this.pos);
      this.slab[this.n] = this.cur;
      this.start[this.n] = this.pos;
      this.pos += size;
    }
    this.len[this.n] = size;
    this.n++;
    this.bytes += size;
  }

  get(i: number): string | undefined {
    if (i < 0 || i >= this.n) return undefined;
    const s = this.start[i]!;
    return this.slabs[this.slab[i]!]!.toString('utf8', s, s + this.len[i]!);
  }
}

// ------------------------------------------------------------------------------- reading entries

interface Sax {
  open(name: string, attrs: Record<string, string>): void;
  close?(name: string): void;
  text?(t: string): void;
}

export interface CsvOptions {
  /** Field delimiter of the CSV produced (default ','). */
  delimiter?: string;
  /** Write numbers with a decimal comma (for a pattern whose format.decimal is ','). */
  decimalComma?: boolean;
}

interface SheetRef {
  name: string;
  path: string;
}

/** An opened workbook: its shared strings, date styles and worksheets, ready to stream as CSV. */
export class Workbook {
  private expanded = 0;
  private strings = new StringTable();
  private dateStyles: boolean[] = [];
  private date1904 = false;
  private sheets: SheetRef[] = [];
  private byPath: Map<string, ZipEntry>;

  private constructor(files: ZipEntry[], private readonly limits: XlsxLimits) {
    this.byPath = new Map(files.filter((f) => f.type === 'File').map((f) => [f.path.replace(/^\/+/, '').toLowerCase(), f]));
  }

  /**
   * Reads workbook.xml, its relationships, styles and shared strings; the sheets are streamed
   * later by csv(). `strings: false` only checks the structure and the declared sizes of the
   * entries a read would expand (the decompress step's check).
   */
  static async open(files: ZipEntry[], limits: XlsxLimits, opts: { strings?: boolean } = {}): Promise<Workbook> {
    if (!isWorkbook(files)) throw new XlsxError('The file is not an xlsx workbook (no [Content_Types].xml and xl/workbook.xml in the zip)');
    const wb = new Workbook(files, limits);
    await wb.load(opts.strings !== false);
    return wb;
  }

  /** The sheet that will be read first (name), for messages. */
  get firstSheet(): string | null {
    return this.sheets[0]?.name ?? null;
  }

  private entry(p: string): ZipEntry | undefined {
    return this.byPath.get(p.toLowerCase());
  }

  private ratioLimit(compressed: number): number {
    return Math.max(this.limits.ratioFloorBytes, compressed * this.limits.maxRatio);
  }

  private checkDeclared(f: ZipEntry): void {
    if (f.uncompressedSize > this.ratioLimit(f.compressedSize))
      throw new XlsxError(`Refused: workbook entry "${f.path}" expands ${Math.round(f.uncompressedSize / Math.max(1, f.compressedSize))}:1 (limit ${this.limits.maxRatio}:1)`);
  }

  /** Decoded text of an entry, chunk by chunk, its real bytes counted against the limits. */
  private async *text(f: ZipEntry): AsyncGenerator<string> {
    this.checkDeclared(f);
    if (this.expanded + f.uncompressedSize > this.limits.maxExpandedBytes)
      throw new XlsxError(`Refused: the workbook expands beyond ${this.limits.maxExpandedBytes} bytes`);
    const limit = Math.min(f.uncompressedSize, this.ratioLimit(f.compressedSize), this.limits.maxExpandedBytes - this.expanded);
    const st = f.stream();
    let n = 0;
    let td: InstanceType<typeof TextDecoder> | null = null;
    try {
      for await (const chunk of st as AsyncIterable<Buffer>) {
        n += chunk.length;
        this.expanded += chunk.length;
        if (n > limit) throw new XlsxError(`Refused: workbook entry "${f.path}" expands beyond its declared size or the archive limits`);
        if (td === null) {
          const utf16 = chunk.length >= 2 && chunk[0] === 0xff && chunk[1] === 0xfe;
          td = new TextDecoder(utf16 ? 'utf-16le' : 'utf-8');
        }
        const s = td.decode(chunk, { stream: true });
        if (s) yield s;
      }
      if (td) {
        const tail = td.decode();
        if (tail) yield tail;
      }
    } catch (e) {
      // a failing object store is not a corrupt workbook: its error goes through, so the job is retried
      if (e instanceof XlsxError || isStoreError(e)) throw e;
      throw new XlsxError(`The xlsx workbook is corrupt or truncated (entry "${f.path}"): ${(e as Error).message}`);
    } finally {
      st.destroy?.();
    }
  }

  /** Parses a whole (small) entry with SAX callbacks. */
  private async parse(f: ZipEntry, h: Sax): Promise<void> {
    const p = this.parser(f.path, h);
    for await (const s of this.text(f)) p.write(s);
    p.close();
  }

  private parser(where: string, h: Sax): SaxesParser<{ xmlns: false; position: false }> {
    const p = new SaxesParser<{ xmlns: false; position: false }>({ xmlns: false, position: false });
    p.on('error', (e: Error) => {
      throw new XlsxError(`The xlsx workbook is corrupt: "${where}" is not well-formed XML (${e.message})`);
    });
    p.on('opentag', (t: SaxesTagPlain) => h.open(local(t.name), t.attributes as Record<string, string>));
    if (h.close) {
      const close = h.close;
      p.on('closetag', (t: SaxesTagPlain) => close(local(t.name)));
    }
    if (h.text) {
      p.on('text', h.text);
      p.on('cdata', h.text);
    }
    return p;
  }

  private rels(base: string): Promise<Map<string, { type: string; target: string }>> {
    const dir = path.posix.dirname(base);
    const relsPath = `${dir}/_rels/${path.posix.basename(base)}.rels`;
    const out = new Map<string, { type: string; target: string }>();
    const f = this.entry(relsPath);
    if (!f) return Promise.resolve(out);
    return this.parse(f, {
      open(name, a) {
        if (name !== 'Relationship' || !a.Id || !a.Target || a.TargetMode === 'External') return;
        const target = a.Target.startsWith('/') ? a.Target.slice(1) : path.posix.normalize(`${dir}/${a.Target}`);
        out.set(a.Id, { type: a.Type ?? '', target });
      },
    }).then(() => out);
  }

  private async load(full: boolean): Promise<void> {
    const rels = await this.rels('xl/workbook.xml');
    const declared: { name: string; rid: string; hidden: boolean }[] = [];
    await this.parse(this.entry('xl/workbook.xml')!, {
      open: (name, a) => {
        if (name === 'workbookPr') this.date1904 = a.date1904 === '1' || a.date1904 === 'true';
        else if (name === 'sheet') {
          const rid = Object.entries(a).find(([k]) => k !== 'id' && local(k) === 'id')?.[1] ?? a.id ?? '';
          declared.push({ name: a.name ?? '', rid, hidden: a.state === 'hidden' || a.state === 'veryHidden' });
        }
      },
    });
    const ofType = (t: string) => [...rels.values()].find((r) => r.type.endsWith(`/${t}`))?.target;
    for (const s of declared) {
      const r = rels.get(s.rid);
      if (r && !r.type.endsWith('/worksheet')) continue; // chart sheets, dialog sheets
      const p = r?.target ?? `xl/worksheets/sheet${declared.indexOf(s) + 1}.xml`;
      if (!s.hidden && this.entry(p)) this.sheets.push({ name: s.name, path: p });
    }
    if (this.sheets.length === 0) throw new XlsxError('The xlsx workbook has no (visible) worksheet');

    const styles = this.entry(ofType('styles') ?? 'xl/styles.xml');
    const shared = this.entry(ofType('sharedStrings') ?? 'xl/sharedStrings.xml');
    const toRead = [styles, shared, ...this.sheets.map((s) => this.entry(s.path))].filter((f): f is ZipEntry => !!f);
    let expands = 0;
    for (const f of toRead) {
      this.checkDeclared(f);
      expands += f.uncompressedSize;
    }
    if (expands > this.limits.maxExpandedBytes) throw new XlsxError(`Refused: the workbook expands to ${expands} bytes (limit ${this.limits.maxExpandedBytes})`);
    if (!full) return;
    if (styles) await this.loadStyles(styles);
    if (shared) await this.loadStrings(shared);
  }

  private async loadStyles(f: ZipEntry): Promise<void> {
    const custom = new Map<number, string>();
    const xfs: number[] = [];
    let inCellXfs = false;
    await this.parse(f, {
      open(name, a) {
        if (name === 'numFmt' && a.numFmtId !== undefined) custom.set(Number(a.numFmtId), a.formatCode ?? '');
        else if (name === 'cellXfs') inCellXfs = true;
        else if (name === 'xf' && inCellXfs) xfs.push(Number(a.numFmtId ?? 0));
      },
      close(name) {
        if (name === 'cellXfs') inCellXfs = false;
      },
    });
    this.dateStyles = xfs.map((id) => (custom.has(id) ? isDateFormat(custom.get(id)!) : BUILTIN_DATE_FORMATS.has(id)));
  }

  private async loadStrings(f: ZipEntry): Promise<void> {
    const table = this.strings;
    const max = this.limits.maxSharedStringsBytes;
    let cur: string | null = null;
    let inT = false, phonetic = 0;
    await this.parse(f, {
      open(name) {
        if (name === 'si') cur = '';
        else if (name === 't') inT = true;
        else if (name === 'rPh') phonetic++;
      },
      close(name) {
        if (name === 't') inT = false;
        else if (name === 'rPh') phonetic--;
        else if (name === 'si' && cur !== null) {
          const text = unescapeOoxml(cur);
          if (text.length > MAX_CELL_CHARS) throw new XlsxError(`Refused: a shared string is longer than ${MAX_CELL_CHARS} characters (Excel's limit)`);
          table.add(text);
          cur = null;
          if (table.bytes + SHARED_STRING_OVERHEAD * table.n > max) throw new XlsxError(`Refused: the workbook's shared strings exceed ${max} bytes`);
        }
      },
      text(t) {
        if (inT && phonetic === 0 && cur !== null) {
          cur += t;
          if (cur.length > MAX_RAW_CELL_CHARS) throw new XlsxError(`Refused: a shared string is longer than ${MAX_CELL_CHARS} characters (Excel's limit)`);
        }
      },
    });
  }

  /** The first worksheet with data, as UTF-8 CSV (with a BOM) — see the module comment. */
  csv(opts: CsvOptions = {}): Readable {
    return Readable.from(this.csvChunks(opts), { objectMode: false });
  }

  private async *csvChunks(opts: CsvOptions): AsyncGenerator<Buffer> {
    yield Buffer.from('\ufeff');
    for (const sheet of this.sheets) {
      let any = false;
      for await (const chunk of this.sheetCsv(sheet, opts)) {
        any = true;
        yield chunk;
      }
      if (any) return;
    }
  }

  private async *sheetCsv(sheet: SheetRef, opts: CsvOptions): AsyncGenerator<Buffer> {
    const f = this.entry(sheet.path)!;
    const delim = opts.delimiter ?? ',';
    const decimalComma = !!opts.decimalComma;
    const strings = this.strings;
    const dateStyles = this.dateStyles;
    const date1904 = this.date1904;
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

    const p = this.parser(sheet.path, {
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

    for await (const s of this.text(f)) {
      p.write(s);
      if (out.length >= 64 * 1024) {
        csvBytes += out.length;
        if (csvBytes > this.limits.maxExpandedBytes) throw new XlsxError(`Refused: the sheet as CSV exceeds ${this.limits.maxExpandedBytes} bytes`);
        yield Buffer.from(out);
        out = '';
      }
      if (done) break; // what follows sheetData (merged cells, page setup…) is not needed
    }
    if (!done) p.close(); // a document that ends early fails here
    if (out) yield Buffer.from(out);
  }
}
