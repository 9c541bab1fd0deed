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
import { BUILTIN_DATE_FORMATS, MAX_CELL_CHARS, MAX_RAW_CELL_CHARS, SHARED_STRING_OVERHEAD, XlsxError, isDateFormat, local, saxParser, unescapeOoxml, type Sax } from './xlsx-values';
import { StringTable } from './xlsx-strings';
import { sheetCsv, type CsvOptions, type SheetRef } from './xlsx-sheet';

export { XlsxError, excelNumber, isDateFormat, serialToIso } from './xlsx-values';
export type { CsvOptions } from './xlsx-sheet';

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
    const p = saxParser(f.path, h);
    for await (const s of this.text(f)) p.write(s);
    p.close();
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
      const text = this.text(this.entry(sheet.path)!);
      const input = { sheet, text, strings: this.strings, dateStyles: this.dateStyles, date1904: this.date1904, maxCsvBytes: this.limits.maxExpandedBytes };
      for await (const chunk of sheetCsv(input, opts)) {
        any = true;
        yield chunk;
      }
      if (any) return;
    }
  }
}
