/**
 * Table layout (CSV and workbook statements): a preamble of key/value rows, a header row
 * found among the first rows by the pattern's columns, then data rows mapped to canonical
 * lines; row rules skip rows or stop the read, and give the control row count.
 */
import type { CanonicalLine } from './types';
import type { SourcePattern, RowRule, FieldMapping } from './schema';
import { compileMapper, mappingGetter, mappingMissing, RowError, type Getter } from './map';
import { fiscalOf, headerKey, normCurrency, normDate, normDecimal, monthEnd } from './normalise';
import { matchHeader, HEADER_SEARCH_ROWS } from './header';
import { DecimalTotals, type Output, type RowHandler } from './output';

interface CompiledRule {
  get: Getter;
  equals: Set<string> | null;
  re: RegExp | null;
  maxFilled: number | null;
  action: 'skip' | 'stop' | 'total' | 'deduction' | 'expense';
  rowCountCell: number | null;
  amountCell: number | null;
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
      action: r.action ?? 'skip',
      rowCountCell: r.rowCountCell ?? null,
      amountCell: r.amountCell ?? null,
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

type Mapper = (row: string[], lineNo: number) => CanonicalLine;
interface CompiledKind {
  values: Set<string>;
  where: [number, Set<string>][];
  use: 'data' | 'skip' | 'total' | 'deduction' | 'expense';
  map: Mapper;
  /** Only net and currency: the amount of a skipped or totals row (its other cells need not read). */
  amount: Mapper;
  rowCountCell: number | null;
}

/** The pattern reduced to its amount and currency. */
function amountOnly(pattern: SourcePattern, columns: SourcePattern['columns']): SourcePattern {
  return { ...pattern, columns: { net: columns.net, currency: columns.currency }, extra: undefined };
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
    const a = startRaw ? normDate(startRaw, pattern.format.dayFirst, fiscalOf(pattern.format)) : null;
    if (!a) return null;
    const b = endRaw ? normDate(endRaw, pattern.format.dayFirst, fiscalOf(pattern.format)) : null;
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
  private map!: Mapper;
  private amount!: Mapper;
  private rules: CompiledRule[] = [];
  private kindGet: Getter | null = null;
  private kinds: CompiledKind[] = [];
  private readonly noHeader: boolean;
  control: { rows?: number; totals?: Record<string, string> } | null = null;
  period: { start: string | null; end: string | null } | null = null;

  constructor(
    private readonly pattern: SourcePattern,
    private readonly out: Output,
    private readonly fileName: string,
    private readonly override: { start: string; end: string } | null,
  ) {
    this.noHeader = pattern.format.header === 'none';
  }

  row(row: string[], lineNo: number, parseError: string | null): void {
    if (this.phase === 'data') return this.data(row, lineNo, parseError);
    if (row.length === 1 && row[0] === '') return;
    if (this.phase === 'stopped') {
      this.out.rowsSkipped++;
      return;
    }
    if (this.noHeader) {
      // No header row: data starts after the fixed number of lines (a preamble, if any).
      if (lineNo > (this.pattern.format.linesBeforeHeader ?? 0)) {
        this.startData(null);
        return this.data(row, lineNo, parseError);
      }
      if (this.pattern.format.preamble === 'keyValue') preambleEntry(row, this.preamble);
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

  private startData(header: string[] | null): void {
    this.ncols = header?.length ?? 0;
    const index = new Map<string, number>();
    header?.forEach((h, i) => {
      const k = headerKey(h);
      if (k !== '' && !index.has(k)) index.set(k, i);
    });
    const resolve = (name: string): Getter | null => {
      const i = index.get(headerKey(name));
      return i === undefined ? null : (r) => r[i] ?? '';
    };
    this.period = this.override ?? statementPeriod(this.pattern, this.fileName, this.preamble);
    const ctx = {
      fileName: this.fileName,
      preamble: this.preamble,
      resolve,
      periodMonth: this.period?.start ? this.period.start.slice(0, 8) + '01' : null,
    };
    this.map = compileMapper(this.pattern, ctx);
    this.amount = compileMapper(amountOnly(this.pattern, this.pattern.columns), ctx);
    this.rules = compileRules(this.pattern.rows ?? [], resolve);
    this.currencyGet = mappingGetter('currency', this.pattern.columns.currency, resolve, this.pattern.format.decimal ?? '.').get;
    const missing = this.out.missingColumns;
    const note = (field: string, m: FieldMapping | undefined) => {
      if (m) for (const c of mappingMissing(m, resolve)) if (!missing.some((x) => x.field === field && x.column === c)) missing.push({ field, column: c });
    };
    if (header) {
      for (const [f, m] of Object.entries(this.pattern.columns)) note(f, m);
      for (const [f, m] of Object.entries(this.pattern.extra ?? {})) note(`extra.${f}`, m);
      for (const r of this.pattern.rows ?? []) if (r.column !== undefined && !resolve(r.column)) missing.push({ field: 'rows', column: r.column });
    }
    const rk = this.pattern.rowKinds;
    if (rk) {
      const byName = rk.column !== undefined ? resolve(rk.column) : null;
      const cell = rk.cell ?? 0;
      this.kindGet = byName ?? ((r) => r[cell] ?? '');
      if (header && rk.column !== undefined && !byName) missing.push({ field: 'rowKinds', column: rk.column });
      this.kinds = rk.kinds.map((k) => {
        const columns = { ...this.pattern.columns, ...(k.columns ?? {}) } as SourcePattern['columns'];
        if (header) for (const [f, m] of Object.entries(k.columns ?? {})) note(f, m);
        return {
          values: new Set(k.values.map((v) => v.trim().toLowerCase())),
          where: Object.entries(k.where ?? {}).map(([c, vs]) => [+c, new Set(vs.map((v) => v.trim().toLowerCase()))] as [number, Set<string>]),
          use: k.use,
          map: compileMapper({ ...this.pattern, columns, extra: { ...this.pattern.extra, ...k.extra } }, ctx),
          amount: compileMapper(amountOnly(this.pattern, columns), ctx),
          rowCountCell: k.rowCountCell ?? null,
        };
      });
    }
    this.phase = 'data';
  }

  /** A skipped row: counted, and its amount added to the skipped totals when the mapping reads one. */
  private skip(row: string[], lineNo: number, map: Mapper): void {
    this.out.rowsSkipped++;
    this.out.skippedRows++;
    try {
      const l = map(row, lineNo);
      this.out.skippedTotals.add(l.currency, l.net);
    } catch {
      // a summary row need not carry an amount
    }
  }

  /**
   * A cost, recharge or fee row: not a sale (never a negative line), counted with the amount it
   * takes off (made positive) per currency. An amount that cannot be read is a line error.
   */
  private deduction(row: string[], lineNo: number, map: Mapper): void {
    let l: CanonicalLine;
    try {
      l = map(row, lineNo);
    } catch (e) {
      if (e instanceof RowError) return this.out.bad(lineNo, `deduction row: ${e.message}`, row, e);
      throw e;
    }
    this.out.rowsSkipped++;
    this.out.deductionRows++;
    this.out.deductionTotals.add(l.currency, l.net.startsWith('-') ? l.net.slice(1) : l.net);
  }

  /**
   * A cost, recharge or fee row recorded as an expense: mapped as a line (its recording, product
   * and month say whose cost it is; when those cells do not read, the amount alone), its amount
   * made positive, and handed to the sink. Never a sale. An unreadable amount is a line error.
   */
  private expense(row: string[], lineNo: number, map: Mapper, amount: Mapper): void {
    let l: CanonicalLine;
    try {
      l = map(row, lineNo);
    } catch (e) {
      if (!(e instanceof RowError)) throw e;
      try {
        l = amount(row, lineNo);
      } catch (e2) {
        if (e2 instanceof RowError) return this.out.bad(lineNo, `expense row: ${e2.message}`, row, e2);
        throw e2;
      }
    }
    delete l.notes;
    const net = l.net.startsWith('-') ? l.net.slice(1) : l.net;
    if (/^[0.]*$/.test(net)) {
      this.out.rowsSkipped++; // a zero cost is no expense
      return;
    }
    l = { ...l, net };
    this.out.rowsSkipped++;
    this.out.expenseRows++;
    this.out.expenseTotals.add(l.currency, net);
    if (l.saleMonth === null) l.saleMonth = this.period?.start ? this.period.start.slice(0, 8) + '01' : null;
    this.out.sink.expense?.(l);
  }

  /** A control-total row: its amount (mapped, or one cell) and currency, and its row count. */
  private total(row: string[], lineNo: number, map: Mapper, amountCell: number | null, rowCountCell: number | null): void {
    this.out.rowsSkipped++;
    const control = (this.control ??= {});
    if (rowCountCell !== null) {
      const n = Number.parseInt((row[rowCountCell] ?? '').replace(/[\s,.]/g, ''), 10);
      if (Number.isFinite(n)) control.rows = (control.rows ?? 0) + n;
    }
    let net: string | null | undefined = null, currency: string | null = null;
    try {
      const l = map(row, lineNo);
      net = l.net;
      currency = l.currency;
    } catch (e) {
      if (!(e instanceof RowError)) throw e;
      // the amount cell may be elsewhere (amountCell): the currency alone, from this row
      try {
        currency = normCurrency(this.currencyOf(row)) ;
      } catch {
        currency = null;
      }
    }
    if (amountCell !== null) net = normDecimal(row[amountCell] ?? '', this.pattern.format.decimal ?? '.');
    if (net && currency) {
      (this.out.controlTotals ??= new DecimalTotals()).add(currency, net);
      control.totals = this.out.controlTotals.result();
    }
  }

  private currencyGet: Getter | null | undefined;
  /** The raw currency of a row through the pattern's currency mapping (its column, or its constant). */
  private currencyOf(row: string[]): string {
    const m = this.pattern.columns.currency;
    return this.currencyGet?.(row) || m.const || m.default || '';
  }

  private kindOf(row: string[]): CompiledKind | null {
    const v = this.kindGet!(row).trim().toLowerCase();
    for (const k of this.kinds) {
      if (!k.values.has(v)) continue;
      if (k.where.every(([c, vs]) => vs.has((row[c] ?? '').trim().toLowerCase()))) return k;
    }
    return null;
  }

  private data(row: string[], lineNo: number, parseError: string | null): void {
    const out = this.out;
    if (row.length === 1 && row[0] === '') return; // blank line
    for (let i = 0; i < this.rules.length; i++) {
      const r = this.rules[i]!;
      if (!ruleMatches(r, row)) continue;
      out.rowsRead++;
      if (r.action === 'total') this.total(row, lineNo, this.amount, r.amountCell, r.rowCountCell);
      else if (r.action === 'deduction') this.deduction(row, lineNo, this.amount);
      else if (r.action === 'expense') this.expense(row, lineNo, this.map, this.amount);
      else {
        if (r.rowCountCell !== null) {
          const n = Number.parseInt((row[r.rowCountCell] ?? '').replace(/[\s,.]/g, ''), 10);
          if (Number.isFinite(n)) this.control = { ...this.control, rows: n };
        }
        if (r.action === 'stop') {
          out.rowsSkipped++;
          this.phase = 'stopped';
        } else this.skip(row, lineNo, this.amount);
      }
      return;
    }
    out.rowsRead++;
    if (parseError !== null) return out.bad(lineNo, parseError, row);
    let map = this.map;
    if (this.kindGet !== null) {
      const k = this.kindOf(row);
      if (k === null) {
        if (this.pattern.rowKinds!.other === 'skip') return this.skip(row, lineNo, () => { throw new RowError('no amount'); });
        return out.bad(lineNo, `unknown row kind "${this.kindGet(row).trim()}"`, row);
      }
      if (k.use === 'skip') return this.skip(row, lineNo, k.amount);
      if (k.use === 'total') return this.total(row, lineNo, k.amount, null, k.rowCountCell);
      if (k.use === 'deduction') return this.deduction(row, lineNo, k.amount);
      if (k.use === 'expense') return this.expense(row, lineNo, k.map, k.amount);
      map = k.map;
    } else if (!this.noHeader && row.length !== this.ncols) {
      let extraEmpty = row.length > this.ncols;
      for (let i = this.ncols; extraEmpty && i < row.length; i++) if (row[i] !== '') extraEmpty = false;
      if (!extraEmpty) return out.bad(lineNo, `expected ${this.ncols} fields, found ${row.length}`, row);
    }
    try {
      out.good(map(row, lineNo), row);
    } catch (e) {
      if (e instanceof RowError) out.bad(lineNo, e.message, row, e);
      else throw e;
    }
  }

  finish(): void {
    if (this.phase === 'pre' && !this.noHeader) this.fail(this.preRows ? `the first ${this.preRows} lines` : 'empty file');
  }
}
