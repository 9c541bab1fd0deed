/**
 * Table layout (CSV and workbook statements): a preamble of key/value rows, a header row
 * found among the first rows by the pattern's columns, then data rows mapped to canonical
 * lines; row rules skip rows or stop the read, and give the control row count.
 */
import type { CanonicalLine } from './types';
import type { SourcePattern, RowRule } from './schema';
import { compileMapper, RowError, type Getter } from './map';
import { headerKey, normDate, monthEnd } from './normalise';
import { matchHeader, HEADER_SEARCH_ROWS } from './header';
import type { Output, RowHandler } from './output';

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
export function statementPeriod(
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


function preambleEntry(row: string[], into: Map<string, string>): void {
  const cells = row.filter((c) => c.trim() !== '');
  if (cells.length >= 2) into.set(headerKey(cells[0]!), cells[1]!.trim());
  else if (cells.length === 1) {
    const m = /^\s*([^:=]+?)\s*[:=]\s*(.*)$/.exec(cells[0]!);
    if (m) into.set(headerKey(m[1]!), m[2]!.trim());
  }
}

export class TableHandler implements RowHandler {
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
