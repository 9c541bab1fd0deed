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
import type { Readable } from 'node:stream';
import type { CanonicalLine, LineSink, ReadStatement, ReadSummary } from './types';
import { validatePattern, type SourcePattern, type RowRule } from './schema';
import { compileMapper, RowError, type Getter } from './map';
import { headerKey, normDate, monthEnd } from './normalise';
import { matchHeader, HEADER_SEARCH_ROWS } from './header';
import { decodeChunks, decodeHead, guessNewline, peekHead, resolveEncoding, sniffDelimiter } from './text';

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

/**
 * Exact per-currency sums without a decimal object per row: each value is summed as a
 * scaled integer per (currency, scale). Values of ≤ 15 digits go into a JS number (exact
 * below 2^53; flushed into a BigInt before it could lose precision); longer ones straight
 * into the BigInt. Combined and formatted once at the end.
 */
export class DecimalTotals {
  private sums = new Map<string, Map<number, { n: number; big: bigint }>>();
  private lastCur = '';
  private lastMap: Map<number, { n: number; big: bigint }> | null = null;
  add(currency: string, v: string): void {
    let m = this.lastMap;
    if (currency !== this.lastCur || m === null) {
      m = this.sums.get(currency) ?? null;
      if (m === null) this.sums.set(currency, (m = new Map()));
      this.lastCur = currency;
      this.lastMap = m;
    }
    const dot = v.indexOf('.');
    const scale = dot === -1 ? 0 : v.length - dot - 1;
    const digits = dot === -1 ? v : v.slice(0, dot) + v.slice(dot + 1);
    let acc = m.get(scale);
    if (acc === undefined) m.set(scale, (acc = { n: 0, big: 0n }));
    if (digits.length <= 15) {
      acc.n += +digits;
      if (acc.n > 4503599627370496 || acc.n < -4503599627370496) {
        acc.big += BigInt(acc.n);
        acc.n = 0;
      }
    } else acc.big += BigInt(digits);
  }
  result(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const cur of [...this.sums.keys()].sort()) {
      const m = this.sums.get(cur)!;
      let max = 0;
      for (const s of m.keys()) if (s > max) max = s;
      let total = 0n;
      for (const [s, v] of m) total += (v.big + BigInt(v.n)) * 10n ** BigInt(max - s);
      out[cur] = formatScaled(total, max);
    }
    return out;
  }
}

/** BigInt at a decimal scale → minimal decimal string ('-12.5', '0'). */
export function formatScaled(v: bigint, scale: number): string {
  const neg = v < 0n;
  let s = (neg ? -v : v).toString();
  if (scale > 0) {
    s = s.padStart(scale + 1, '0');
    s = (s.slice(0, -scale) + '.' + s.slice(-scale)).replace(/\.?0+$/, '');
  }
  return neg && s !== '0' ? '-' + s : s;
}

function rawRecord(row: string[], delimiter: string): string {
  return row
    .map((c) => (c.includes(delimiter) || c.includes('"') || c.includes('\n') || c.includes('\r') ? `"${c.replace(/"/g, '""')}"` : c))
    .join(delimiter);
}

interface RowHandler {
  row(row: string[], lineNo: number, parseError: string | null): void;
  finish(): void;
}

/** Shared state: counters, batch, totals, sink. */
class Output {
  rowsRead = 0;
  rowsIngested = 0;
  rowsFailed = 0;
  rowsSkipped = 0;
  batch: CanonicalLine[] = [];
  totals = new DecimalTotals();
  minMonth: string | null = null;
  maxMonth: string | null = null;
  minStart: string | null = null;
  maxEnd: string | null = null;
  constructor(readonly sink: LineSink, readonly delimiter: string) {}
  good(line: CanonicalLine): void {
    this.rowsIngested++;
    this.totals.add(line.currency, line.net);
    const m = line.saleMonth;
    if (m !== null) {
      if (this.minMonth === null || m < this.minMonth) this.minMonth = m;
      if (this.maxMonth === null || m > this.maxMonth) this.maxMonth = m;
    }
    if (line.salePeriodStart !== null && (this.minStart === null || line.salePeriodStart < this.minStart))
      this.minStart = line.salePeriodStart;
    if (line.salePeriodEnd !== null && (this.maxEnd === null || line.salePeriodEnd > this.maxEnd)) this.maxEnd = line.salePeriodEnd;
    this.batch.push(line);
  }
  bad(lineNo: number, reason: string, row: string[]): void {
    this.rowsFailed++;
    this.sink.error({ lineNo, reason, raw: rawRecord(row, this.delimiter) });
  }
}

interface CompiledRule {
  get: Getter;
  equals: Set<string> | null;
  re: RegExp | null;
  maxFilled: number | null;
  stop: boolean;
  rowCountCell: number | null;
}

function compileRules(rules: RowRule[], resolve: (name: string) => Getter | null): CompiledRule[] {
  return rules.map((r) => {
    let get: Getter | null = null;
    if (r.column !== undefined) get = resolve(r.column);
    if (!get) {
      const cell = r.cell ?? 0;
      get = (row) => row[cell] ?? '';
    }
    return {
      get,
      equals: r.equals ? new Set(r.equals.map((e) => e.trim().toLowerCase())) : null,
      re: r.matches ? new RegExp(r.matches, 'i') : null,
      maxFilled: r.maxFilledCells ?? null,
      stop: r.action === 'stop',
      rowCountCell: r.rowCountCell ?? null,
    };
  });
}

function ruleMatches(r: CompiledRule, row: string[]): boolean {
  const v = r.get(row).trim();
  if (r.equals !== null && !r.equals.has(v.toLowerCase())) return false;
  if (r.re !== null && !r.re.test(v)) return false;
  if (r.maxFilled !== null) {
    let filled = 0;
    for (const c of row) if (c.trim() !== '') filled++;
    if (filled > r.maxFilled) return false;
  }
  return true;
}

/** Period from file name / preamble, as 'YYYY-MM-DD' bounds. */
function statementPeriod(
  pattern: SourcePattern,
  fileName: string,
  preamble: Map<string, string>,
): { start: string | null; end: string | null } | null {
  const p = pattern.period;
  if (!p) return null;
  const fromValue = (startRaw?: string, endRaw?: string) => {
    const a = startRaw ? normDate(startRaw, pattern.format.dayFirst) : null;
    if (!a) return null;
    const b = endRaw ? normDate(endRaw, pattern.format.dayFirst) : null;
    return { start: a.start ?? a.month, end: (b ? b.end ?? monthEnd(b.month) : null) ?? a.end ?? monthEnd(a.month) };
  };
  if (p.preambleStart) {
    const r = fromValue(preamble.get(headerKey(p.preambleStart)), p.preambleEnd ? preamble.get(headerKey(p.preambleEnd)) : undefined);
    if (r) return r;
  }
  if (p.fileName) {
    const m = new RegExp(p.fileName, 'i').exec(fileName);
    if (m?.groups) {
      const r = fromValue(m.groups.start, m.groups.end);
      if (r) return r;
    }
  }
  return null;
}

export { statementPeriod };

function preambleEntry(row: string[], into: Map<string, string>): void {
  const cells = row.filter((c) => c.trim() !== '');
  if (cells.length >= 2) into.set(headerKey(cells[0]!), cells[1]!.trim());
  else if (cells.length === 1) {
    const m = /^\s*([^:=]+?)\s*[:=]\s*(.*)$/.exec(cells[0]!);
    if (m) into.set(headerKey(m[1]!), m[2]!.trim());
  }
}

class TableHandler implements RowHandler {
  private phase: 'pre' | 'data' | 'stopped' = 'pre';
  private preRows = 0;
  private preamble = new Map<string, string>();
  private bestMiss: { coverage: number; missing: string[] } = { coverage: -1, missing: [] };
  private ncols = 0;
  private map!: (row: string[], lineNo: number) => CanonicalLine;
  private rules: CompiledRule[] = [];
  control: { rows?: number } | null = null;
  period: { start: string | null; end: string | null } | null = null;

  constructor(
    private readonly pattern: SourcePattern,
    private readonly out: Output,
    private readonly fileName: string,
    private readonly override: { start: string; end: string } | null,
  ) {}

  row(row: string[], lineNo: number, parseError: string | null): void {
    if (this.phase === 'data') return this.data(row, lineNo, parseError);
    if (row.length === 1 && row[0] === '') return;
    if (this.phase === 'stopped') {
      this.out.rowsSkipped++;
      return;
    }
    this.header(row, lineNo);
  }

  private header(row: string[], lineNo: number): void {
    const fixed = this.pattern.format.linesBeforeHeader;
    const isCandidate = fixed === undefined || lineNo > fixed;
    if (isCandidate) {
      const m = matchHeader(row, this.pattern);
      if (m.coverage === 1) return this.startData(row);
      if (m.coverage > this.bestMiss.coverage) this.bestMiss = m;
      if (fixed !== undefined) this.fail(`line ${lineNo}`);
    }
    if (this.pattern.format.preamble === 'keyValue') preambleEntry(row, this.preamble);
    if (++this.preRows >= HEADER_SEARCH_ROWS && fixed === undefined) this.fail(`the first ${HEADER_SEARCH_ROWS} lines`);
  }

  private fail(where: string): never {
    throw new Error(
      `header does not match source pattern "${this.pattern.key}" (${where}): ` +
        `missing column(s) ${this.bestMiss.missing.map((m) => JSON.stringify(m)).join(', ') || '(no header found)'}`,
    );
  }

  private startData(header: string[]): void {
    this.ncols = header.length;
    const index = new Map<string, number>();
    header.forEach((h, i) => {
      const k = headerKey(h);
      if (k !== '' && !index.has(k)) index.set(k, i);
    });
    const resolve = (name: string): Getter | null => {
      const i = index.get(headerKey(name));
      return i === undefined ? null : (r) => r[i] ?? '';
    };
    this.period = this.override ?? statementPeriod(this.pattern, this.fileName, this.preamble);
    this.map = compileMapper(this.pattern, {
      fileName: this.fileName,
      preamble: this.preamble,
      resolve,
      periodMonth: this.period?.start ? this.period.start.slice(0, 8) + '01' : null,
    });
    this.rules = compileRules(this.pattern.rows ?? [], resolve);
    this.phase = 'data';
  }

  private data(row: string[], lineNo: number, parseError: string | null): void {
    const out = this.out;
    if (row.length === 1 && row[0] === '') return; // blank line
    for (let i = 0; i < this.rules.length; i++) {
      const r = this.rules[i]!;
      if (!ruleMatches(r, row)) continue;
      out.rowsRead++;
      out.rowsSkipped++;
      if (r.rowCountCell !== null) {
        const n = Number.parseInt((row[r.rowCountCell] ?? '').replace(/[\s,.]/g, ''), 10);
        if (Number.isFinite(n)) this.control = { rows: n };
      }
      if (r.stop) this.phase = 'stopped';
      return;
    }
    out.rowsRead++;
    if (parseError !== null) return out.bad(lineNo, parseError, row);
    if (row.length !== this.ncols) {
      let extraEmpty = row.length > this.ncols;
      for (let i = this.ncols; extraEmpty && i < row.length; i++) if (row[i] !== '') extraEmpty = false;
      if (!extraEmpty) return out.bad(lineNo, `expected ${this.ncols} fields, found ${row.length}`, row);
    }
    try {
      out.good(this.map(row, lineNo));
    } catch (e) {
      if (e instanceof RowError) out.bad(lineNo, e.message, row);
      else throw e;
    }
  }

  finish(): void {
    if (this.phase === 'pre') this.fail(this.preRows ? `the first ${this.preRows} lines` : 'empty file');
  }
}

/**
 * DDEX DSR flat file: records are identified by cell 0. HEAD and summary (SY) records
 * are kept; RE/AS records are kept per block (BlockId); every sale (SU) record is joined
 * to its summary (SummaryRecordId), release (TransactedRelease, else the block's first
 * release) and resource (TransactedResource) and mapped with `from: 'ALIAS.Field'`.
 * FOOT's line count is reconciled with the physical lines read.
 */
class DsrHandler implements RowHandler {
  private recs: { prefix: string; role: string; alias: string; fields: Record<string, number> }[];
  private cur: Record<string, string[] | undefined> = {};
  private summaries = new Map<string, string[]>();
  private releases = new Map<string, string[]>();
  private resources = new Map<string, string[]>();
  private block: string | null = null;
  private map: ((row: string[], lineNo: number) => CanonicalLine) | null = null;
  private lines = 0;
  control: { rows?: number } | null = null;
  period: { start: string | null; end: string | null } | null = null;
  private sawHead = false;

  constructor(
    private readonly pattern: SourcePattern,
    private readonly out: Output,
    private readonly fileName: string,
    private readonly override: { start: string; end: string } | null,
  ) {
    this.recs = pattern.dsr!.records;
  }

  private field(alias: string, name: string): number | undefined {
    return this.recs.find((r) => r.alias === alias && r.fields[name] !== undefined)?.fields[name];
  }

  private compile(): void {
    const cur = this.cur;
    const resolve = (name: string): Getter | null => {
      const dot = name.indexOf('.');
      if (dot === -1) return null;
      const alias = name.slice(0, dot), f = name.slice(dot + 1);
      const i = this.field(alias, f);
      if (i === undefined) return null;
      return () => cur[alias]?.[i] ?? '';
    };
    const head = cur.HEAD;
    const get = (f: string) => {
      const i = this.field('HEAD', f);
      return i === undefined ? undefined : head?.[i];
    };
    const preamble = new Map<string, string>();
    for (const r of this.recs.filter((r) => r.role === 'head'))
      for (const [k, i] of Object.entries(r.fields)) if (head?.[i]) preamble.set(headerKey(k), head[i]!);
    this.period = this.override ?? statementPeriod(this.pattern, this.fileName, preamble);
    if (!this.period) {
      const a = get('UsageStartDate'), b = get('UsageEndDate');
      const da = a ? normDate(a) : null, db = b ? normDate(b) : null;
      if (da) this.period = { start: da.start ?? da.month, end: db ? db.end ?? monthEnd(db.month) : da.end ?? monthEnd(da.month) };
    }
    this.map = compileMapper(this.pattern, {
      fileName: this.fileName,
      preamble,
      resolve,
      periodMonth: this.period?.start ? this.period.start.slice(0, 8) + '01' : null,
    });
  }

  row(row: string[], lineNo: number, parseError: string | null): void {
    if (row.length === 1 && row[0] === '') return;
    this.lines++;
    const type = row[0]!;
    if (type.startsWith('#')) return; // comment / column-heading lines some senders add
    const rec = this.recs.find((r) => type.startsWith(r.prefix));
    if (!rec) return; // MW, RU, LI… records carry nothing a royalty line needs
    const f = rec.fields;
    switch (rec.role) {
      case 'head':
        this.cur[rec.alias] = row;
        this.sawHead = true;
        this.map = null;
        return;
      case 'summary':
        this.summaries.set(row[f.SummaryRecordId ?? 1] ?? '', row);
        return;
      case 'foot': {
        this.cur[rec.alias] = row;
        const i = f[this.pattern.dsr!.footLinesField ?? 'NumberOfLinesInFile'];
        const n = i === undefined ? NaN : Number.parseInt(row[i] ?? '', 10);
        if (Number.isFinite(n)) this.control = { rows: n };
        return;
      }
      case 'release':
      case 'resource': {
        const b = row[f.BlockId ?? 1] ?? '';
        if (b !== this.block) {
          this.block = b;
          this.releases.clear();
          this.resources.clear();
        }
        const ref = row[f.ReleaseReference ?? f.ResourceReference ?? 2] ?? '';
        (rec.role === 'release' ? this.releases : this.resources).set(ref, row);
        return;
      }
      case 'sale': {
        const out = this.out;
        out.rowsRead++;
        if (!this.sawHead) throw new Error(`not a DSR file for pattern "${this.pattern.key}": sales record before HEAD`);
        if (parseError !== null) return out.bad(lineNo, parseError, row);
        if (this.map === null) this.compile();
        const sy = this.summaries.get(row[f.SummaryRecordId ?? 2] ?? '');
        if (!sy) return out.bad(lineNo, `unknown SummaryRecordId "${row[f.SummaryRecordId ?? 2]}"`, row);
        const relRef = f.TransactedRelease !== undefined ? row[f.TransactedRelease] : undefined;
        const resRef = f.TransactedResource !== undefined ? row[f.TransactedResource] : undefined;
        this.cur.SY = sy;
        this.cur.SU = row;
        this.cur.RE = relRef ? this.releases.get(relRef) : this.releases.values().next().value;
        this.cur.AS = resRef ? this.resources.get(resRef) : undefined;
        if (resRef && !this.cur.AS) return out.bad(lineNo, `TransactedResource "${resRef}" not found in block ${this.block}`, row);
        try {
          out.good(this.map!(row, lineNo));
        } catch (e) {
          if (e instanceof RowError) out.bad(lineNo, e.message, row);
          else throw e;
        }
        return;
      }
    }
  }

  /** Non-empty lines in the file (DSR FOOT counts every data line, HEAD and FOOT included). */
  linesInFile(): number {
    return this.lines;
  }

  finish(): void {
    if (!this.sawHead) throw new Error(`header does not match source pattern "${this.pattern.key}": no HEAD record found`);
  }
}

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
  if (handler.control?.rows !== undefined) {
    reconciles =
      handler instanceof DsrHandler
        ? handler.control.rows === handler.linesInFile()
        : handler.control.rows === out.rowsIngested + out.rowsFailed;
  }
  const period = handler.period ?? {
    start: out.minStart ?? out.minMonth,
    end: out.maxEnd ?? (out.maxMonth ? monthEnd(out.maxMonth) : null),
  };
  return {
    rowsRead: out.rowsRead,
    rowsIngested: out.rowsIngested,
    rowsFailed: out.rowsFailed,
    rowsSkipped: out.rowsSkipped,
    totals: out.totals.result(),
    control: handler.control,
    reconciles,
    period,
  };
};
