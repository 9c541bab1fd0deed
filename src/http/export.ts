/**
 * Table exports: a route that declares `export: {…}` (route.ts) answers `?format=csv` and
 * `?format=xlsx` as well as its JSON. The rows come from an async iterator (a service's; it
 * never sees Koa) read inside the request's tenant transaction and written as they come,
 * with back-pressure: nothing is buffered beyond one chunk, so a million-row export runs in
 * constant memory. Rules (docs/exports.md):
 *
 *  - CSV (RFC 4180, UTF-8, CRLF): a text cell that starts with `=`, `+`, `-`, `@`, a tab or a
 *    carriage return is prefixed with `'` (formula-injection guard); decimal and integer
 *    columns are written as they are when they are plain numbers (`-12.5` stays `-12.5`)
 *    and neutralised as text otherwise. Money is the exact decimal string of the JSON answer.
 *  - XLSX: one worksheet, typed cells. A decimal is a number cell when it has at most 15
 *    significant digits (a double holds it and Excel shows it exactly), else a text cell
 *    with the exact decimal. A date column's `YYYY-MM-DD` / `YYYY-MM` is a date cell
 *    (formatted yyyy-mm-dd / yyyy-mm). Text cells are string cells, never formulas.
 */
import type { Context } from 'koa';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { once } from 'node:events';
import { Type, type TSchema } from '@sinclair/typebox';
import { csvRow, trimDecimal, type ColumnKind } from '../domain/csv';

export type ExportFormat = 'json' | 'csv' | 'xlsx';
export const EXPORT_FORMATS: ExportFormat[] = ['json', 'csv', 'xlsx'];
export const CSV_TYPE = 'text/csv; charset=utf-8';
export const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** The query parameter every exporting route gains. */
export const FormatParam = Type.Optional(
  Type.Union(EXPORT_FORMATS.map((f) => Type.Literal(f)), {
    description: '`json` (default), `csv` (text/csv, streamed, formula-safe) or `xlsx` (one worksheet, streamed); csv and xlsx answer every row (no paging)',
  }),
);

/** A route's query schema with `format` added. */
export function withFormatParam(query: TSchema | undefined): TSchema {
  const q = query as { properties?: Record<string, TSchema>; additionalProperties?: boolean } | undefined;
  return Type.Object({ ...(q?.properties ?? {}), format: FormatParam }, q?.additionalProperties === false ? { additionalProperties: false } : {});
}

/** `date`: a day (`YYYY-MM-DD`) or a month (`YYYY-MM`) as text in JSON and CSV, a date cell in XLSX. */
export interface ExportColumn {
  /** Key of the row object. */
  key: string;
  /** Header cell (default: the key). */
  header?: string;
  kind?: ColumnKind;
}

export interface ExportTable {
  format: Exclude<ExportFormat, 'json'>;
  /** File name without extension. */
  filename: string;
  columns: ExportColumn[];
  rows: AsyncIterable<Record<string, unknown>> | Iterable<Record<string, unknown>>;
  /** Told of an error after the answer started (the connection is then cut). */
  onError?: (err: unknown) => void;
}

const NUMERIC = /^-?\d+(\.\d+)?$/;
const INTEGER = /^-?\d+$/;
const DAY_OR_MONTH = /^(\d{4})-(\d{2})(?:-(\d{2}))?$/;

/** Significant digits of a plain decimal string. */
function significantDigits(s: string): number {
  const digits = s.replace(/^-/, '').replace('.', '').replace(/^0+/, '');
  return digits.length;
}

/** XLSX value: numbers where a double holds them exactly as written, dates of date columns, else exact text. */
export function xlsxValue(v: unknown, kind: ColumnKind = 'text'): string | number | Date | null {
  if (v === null || v === undefined) return null;
  const s = v instanceof Date ? v.toISOString() : String(v);
  if (kind === 'date') {
    const m = DAY_OR_MONTH.exec(s);
    if (m) {
      const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3] ?? 1)));
      // only a real calendar day (2026-02-30 stays text)
      if (d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3] ?? 1)) return d;
    }
    return s;
  }
  if (kind === 'decimal' && NUMERIC.test(s)) {
    const t = trimDecimal(s);
    return significantDigits(t) <= 15 ? Number(t) : t;
  }
  if (kind === 'integer' && INTEGER.test(s)) return Number.isSafeInteger(Number(s)) ? Number(s) : s;
  return s;
}

type StreamState = { length?: number };
type Piped = { writableLength?: number; readableLength?: number; _writableState?: StreamState; _readableState?: StreamState };

/** Bytes the worksheet's XML stream holds that the zip (deflate) has not taken yet. */
function sheetBacklog(ws: unknown): number {
  // exceljs' sheet stream (a StreamBuf) ignores write()'s answer: what it buffers, and what the
  // stream it pipes into holds (archiver's readable-stream PassThrough, whose lengths live in
  // its states), is the producer's lead over deflate. Read defensively: internals, not API.
  const s = (ws as { _stream?: { buffers?: unknown[]; bufSize?: number; pipes?: Piped[] } })._stream;
  if (!s) return 0;
  const own = (s.buffers?.length ?? 0) > 1 ? (s.buffers!.length - 1) * (s.bufSize ?? 0) : 0;
  const held = (p: Piped) => (p.writableLength ?? p._writableState?.length ?? 0) + (p.readableLength ?? p._readableState?.length ?? 0);
  return own + (s.pipes ?? []).reduce((a, p) => a + held(p), 0);
}

/**
 * Every few hundred rows: let deflate and the socket run (a macrotask; the row source may
 * answer from its buffer in microtasks only), then wait while the client or the zip lags.
 */
async function xlsxBackPressure(ws: unknown, res: Context['res']): Promise<void> {
  await new Promise((r) => setImmediate(r));
  if (res.writableNeedDrain) await once(res, 'drain');
  while (sheetBacklog(ws) > 1024 * 1024 && !res.destroyed) await new Promise((r) => setTimeout(r, 2));
  if (res.destroyed) throw new Error('client went away');
}

async function* csvChunks(first: IteratorResult<Record<string, unknown>>, it: AsyncIterator<Record<string, unknown>>, columns: ExportColumn[]) {
  const kinds = columns.map((c) => c.kind);
  let buf = csvRow(columns.map((c) => c.header ?? c.key));
  let r = first;
  while (!r.done) {
    const row = r.value;
    buf += csvRow(columns.map((c) => row[c.key]), kinds);
    if (buf.length >= 64 * 1024) {
      yield buf;
      buf = '';
    }
    r = await it.next();
  }
  if (buf) yield buf;
}

function safeFilename(name: string): string {
  return name.replace(/[^\w.-]+/g, '_').slice(0, 120) || 'export';
}

/**
 * Writes the table to the response and resolves when the last byte is out (so the caller's
 * transaction, which feeds the rows, stays open until then). The first row is read before
 * any header is sent: an error there answers in the route's error shape. A later error (or
 * the client going away) ends the connection; the iterator is closed either way.
 */
export async function sendTable(ctx: Context, table: ExportTable): Promise<void> {
  const source = table.rows as AsyncIterable<Record<string, unknown>> & Iterable<Record<string, unknown>>;
  const it: AsyncIterator<Record<string, unknown>> = Symbol.asyncIterator in source ? source[Symbol.asyncIterator]() : Readable.from(source)[Symbol.asyncIterator]();
  const first = await it.next();
  const ext = table.format;
  ctx.respond = false;
  const res = ctx.res;
  res.statusCode = 200;
  res.setHeader('Content-Type', ext === 'csv' ? CSV_TYPE : XLSX_TYPE);
  res.setHeader('Content-Disposition', `attachment; filename="${safeFilename(table.filename)}.${ext}"`);
  res.setHeader('Cache-Control', 'no-store');
  try {
    if (ext === 'csv') {
      await pipeline(Readable.from(csvChunks(first, it, table.columns)), res);
      return;
    }
    const { default: ExcelJS } = await import('exceljs'); // on the first XLSX export, not at start (docs/operations.md)
    const wb = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: res, useStyles: true, useSharedStrings: false });
    const ws = wb.addWorksheet('data');
    ws.addRow(table.columns.map((c) => c.header ?? c.key)).commit();
    const kinds = table.columns.map((c) => c.kind);
    let r = first;
    let n = 0;
    while (!r.done) {
      const row = r.value;
      const values = table.columns.map((c, i) => xlsxValue(row[c.key], kinds[i]));
      const added = ws.addRow(values);
      values.forEach((v, i) => {
        // a month shows as a month, a day as a day
        if (v instanceof Date) added.getCell(i + 1).numFmt = String(row[table.columns[i]!.key]).length === 7 ? 'yyyy-mm' : 'yyyy-mm-dd';
      });
      added.commit();
      if (++n % 200 === 0) await xlsxBackPressure(ws, res);
      r = await it.next();
    }
    ws.commit();
    const done = once(res, 'finish');
    await wb.commit();
    await done;
  } catch (err) {
    table.onError?.(err);
    res.destroy();
  } finally {
    await it.return?.();
  }
}
