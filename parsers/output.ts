/**
 * What a statement read produces besides its lines: exact per-currency totals, counts of
 * rows read, ingested, failed and skipped, the sale month range, and the batch handed to
 * the sink. Shared by the table and DSR row handlers.
 */
import type { CanonicalLine, LineError, LineSink } from './types';

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

export function rawRecord(row: string[], delimiter: string): string {
  return row
    .map((c) => (c.includes(delimiter) || c.includes('"') || c.includes('\n') || c.includes('\r') ? `"${c.replace(/"/g, '""')}"` : c))
    .join(delimiter);
}

export interface RowHandler {
  row(row: string[], lineNo: number, parseError: string | null): void;
  finish(): void;
}

/** Shared state: counters, batch, totals, sink. */
export class Output {
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
  /** Lines kept with a warning. */
  warnings = 0;
  good(line: CanonicalLine, row?: string[]): void {
    this.rowsIngested++;
    if (line.notes !== undefined) {
      for (const n of line.notes) {
        this.warnings++;
        this.sink.error({
          lineNo: line.lineNo,
          reason: `line ${line.lineNo} kept without its ${n.field.toUpperCase()}: ${n.reason}`,
          raw: row ? rawRecord(row, this.delimiter) : '',
          detail: { field: n.field, column: n.column, value: n.value },
          kept: true,
        });
      }
      delete line.notes;
    }
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
  /** Rows skipped by a rule or row kind, and what they held (reported beside the totals). */
  skippedRows = 0;
  skippedTotals = new DecimalTotals();
  /** Cost, recharge and fee rows (rule action `deduction`): counted, with the amounts they take off. */
  deductionRows = 0;
  deductionTotals = new DecimalTotals();
  /** Cost rows read as expenses (rule action / row kind `expense`): handed to the sink's `expense`. */
  expenseRows = 0;
  expenseTotals = new DecimalTotals();
  /** Control totals read from the file's own total rows. */
  controlTotals: DecimalTotals | null = null;
  missingColumns: { field: string; column: string }[] = [];
  bad(lineNo: number, reason: string, row: string[], detail?: { field?: string; column?: string; value?: string }): void {
    this.rowsFailed++;
    const e: LineError = { lineNo, reason, raw: rawRecord(row, this.delimiter) };
    if (detail?.field !== undefined) e.detail = { field: detail.field, column: detail.column ?? '', value: detail.value ?? '' };
    this.sink.error(e);
  }
}
