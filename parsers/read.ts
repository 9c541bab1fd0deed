/**
 * Streaming statement reader: bytes → decoded text → papaparse (core Parser, fed chunk by
 * chunk, `header:false`, never `fastMode:true`) → compiled column mapping → batches of
 * CanonicalLine to the sink, awaited (back-pressure; memory stays flat).
 *
 * Why papaparse's core `Parser` and not `Papa.parse(stream, {chunk})`: its stream streamer
 * keeps queueing input while the chunk callback is "paused", so a slow sink would let
 * memory grow; driving the Parser from our own `for await` loop gives true back-pressure
 * and the raw text of each chunk (to count physical lines exactly).
 */
import Papa from 'papaparse';
import Decimal from 'decimal.js';
import type { Readable } from 'node:stream';
import type { LineSink, ReadStatement, ReadSummary } from './types';
import { validatePattern } from './schema';
import { monthEnd } from './normalise';
import { decodeChunks, decodeHead, guessNewline, peekHead, resolveEncoding, sniffDelimiter } from './text';
import { Output } from './output';
import { TableHandler } from './table';
import { DsrHandler } from './dsr';

export { statementPeriod } from './table';

/**
 * Lines per sink call. Small on purpose: a line object should die young. With 5,000-line
 * batches every line outlived a scavenge and garbage collection took a quarter of the
 * ingest's JS time (bench/parse.ts (c): 4.4 s → 3.3 s per 1M lines at 250). The ingest's
 * database round trips for new match keys are batched separately (line-copy.ts).
 */
export const BATCH_SIZE = 250;
/** A record longer than this (chars) means an unterminated quote: stop instead of buffering the file. */
const MAX_RECORD_CHARS = 16 * 1024 * 1024;
const HEAD_BYTES = 64 * 1024;

/** Reads a statement: see the module comment. Rejects on undecodable text or a header that does not match. */
export const readStatement: ReadStatement = async (input: Readable, opts, sink: LineSink): Promise<ReadSummary> => {
  const v = validatePattern(opts.pattern);
  if (!v.ok) throw new Error(`invalid source pattern: ${v.errors.join('; ')}`);
  const pattern = v.pattern;
  const { head, all } = await peekHead(input, HEAD_BYTES);
  const enc = resolveEncoding(pattern.format.encoding, head);
  const headText = decodeHead(head, enc);
  const delimiter = pattern.format.delimiter === 'auto' ? sniffDelimiter(headText) : pattern.format.delimiter;
  const newline = guessNewline(headText);
  const dsr = pattern.layout === 'ddex-dsr';
  // DSR cells are never quoted: a NUL quote char keeps '"' literal.
  const quoteChar = dsr ? '\u0000' : '"';
  const parser = new Papa.Parser({ delimiter, newline, quoteChar });
  const out = new Output(sink, delimiter);
  const override = opts.periodOverride ?? null;
  const handler = dsr
    ? new DsrHandler(pattern, out, opts.fileName, override)
    : new TableHandler(pattern, out, opts.fileName, override);
  const nlChar = newline === '\r' ? '\r' : '\n';

  let lineNo = 1;
  let partial = '';
  const consume = async (text: string, last: boolean): Promise<void> => {
    const res = parser.parse(text, 0, !last) as Papa.ParseResult<string[]>;
    partial = last ? '' : text.slice(res.meta.cursor);
    if (partial.length > MAX_RECORD_CHARS)
      throw new Error(`record starting at line ${lineNo} is longer than ${MAX_RECORD_CHARS} characters (unterminated quote?)`);
    const rows = res.data;
    const quoted = !dsr && text.indexOf('"') !== -1;
    let errs: Map<number, string> | null = null;
    for (const e of res.errors) {
      if (e.row === undefined) continue;
      (errs ??= new Map()).set(e.row, `malformed record: ${e.message}`);
    }
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      handler.row(row, lineNo, errs?.get(i) ?? null);
      lineNo++;
      if (quoted) {
        for (let j = 0; j < row.length; j++) {
          const c = row[j]!;
          for (let k = c.indexOf(nlChar); k !== -1; k = c.indexOf(nlChar, k + 1)) lineNo++;
        }
      }
      if (out.batch.length >= BATCH_SIZE) {
        const b = out.batch;
        out.batch = [];
        await sink.lines(b);
      }
    }
  };

  for await (const chunk of decodeChunks(all, enc, pattern.format.encoding === 'auto')) {
    await consume(partial + chunk, false);
  }
  await consume(partial, true);
  handler.finish();
  if (out.batch.length) {
    const b = out.batch;
    out.batch = [];
    await sink.lines(b);
  }

  let reconciles: boolean | null = null;
  const control: ReadSummary["control"] = handler.control;
  if (control?.rows !== undefined) {
    reconciles =
      handler instanceof DsrHandler
        ? handler.reconciles
        : control.rows === out.rowsIngested + out.rowsFailed;
  }
  if (control?.totals !== undefined) {
    const read = out.totals.result();
    const same = Object.keys(control.totals).length === Object.keys(read).length &&
      Object.entries(control.totals).every(([c, v]) => read[c] !== undefined && new Decimal(read[c]!).eq(v as string));
    reconciles = (reconciles ?? true) && same;
  }
  // the widest of the lines' own periods and their sale months (a file may mix quarters and months)
  const lastMonthEnd = out.maxMonth ? monthEnd(out.maxMonth) : null;
  const period = handler.period ?? {
    start: out.minStart !== null && out.minMonth !== null ? (out.minStart < out.minMonth ? out.minStart : out.minMonth) : out.minStart ?? out.minMonth,
    end: out.maxEnd !== null && lastMonthEnd !== null ? (out.maxEnd > lastMonthEnd ? out.maxEnd : lastMonthEnd) : out.maxEnd ?? lastMonthEnd,
  };
  return {
    rowsRead: out.rowsRead,
    rowsIngested: out.rowsIngested,
    rowsFailed: out.rowsFailed,
    rowsSkipped: out.rowsSkipped,
    totals: out.totals.result(),
    control,
    reconciles,
    period,
    ...(out.skippedRows ? { skipped: { rows: out.skippedRows, totals: out.skippedTotals.result() } } : {}),
    ...(out.warnings ? { warnings: out.warnings } : {}),
    ...(out.expenseRows ? { expenses: { rows: out.expenseRows, totals: out.expenseTotals.result() } } : {}),
    ...(out.deductionRows ? { deductions: { rows: out.deductionRows, totals: out.deductionTotals.result() } } : {}),
    ...(out.missingColumns.length ? { missingColumns: out.missingColumns } : {}),
  };
};
