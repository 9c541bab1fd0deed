/**
 * The ingest's hot path after the reader: a batch of canonical lines (with their in-flight
 * match and currency) → COPY text for royalty_lines. Kept apart from the job code so the
 * JS cost of a million lines can be measured without a database (bench/parse.ts).
 */
import type { CanonicalLine, LineError } from '../../../parsers/types';
import type { LineMatch, LineMatcher } from '../royalty/prefill';

/** Columns COPYed into royalty_lines: the reader's, then the match and currency the ingest fills in flight (prefill.ts). */
export const LINE_COLUMNS = [
  'tenant_id', 'file_id', 'line_no', 'sale_month', 'sale_period_start', 'sale_period_end', 'accounting_period', 'dsp', 'country',
  'isrc', 'upc', 'track_title', 'artist', 'release_title', 'label', 'sale_type', 'quantity', 'gross', 'gross_currency', 'net',
  'currency', 'exchange_rate', 'aggregator', 'isrc_raw', 'upc_raw',
  'asset_id', 'product_id', 'artist_id', 'match_status', 'base_currency', 'fx_rate', 'base_amount',
] as const;

const NEEDS_ESCAPE = /[\\\t\n\r\u0000]/;
/** A value in COPY text format. */
export function cp(v: string | null | undefined): string {
  if (v === null || v === undefined) return '\\N';
  if (!NEEDS_ESCAPE.test(v)) return v;
  return v.replace(/\u0000/g, '').replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DEC = /^-?\d+(\.\d+)?$/;
const CUR = /^[A-Z]{3}$/;
/** A reason to reject a line the database would refuse (never expected from the engine: one bad line must not fail a COPY). */
export function badLine(l: CanonicalLine): string | null {
  if (!CUR.test(l.currency)) return `invalid currency "${l.currency}"`;
  if (!DEC.test(l.net)) return `invalid net amount "${l.net}"`;
  if (!DEC.test(l.quantity)) return `invalid quantity "${l.quantity}"`;
  if (l.gross !== null && !DEC.test(l.gross)) return `invalid gross amount "${l.gross}"`;
  if (l.exchangeRate !== null && !DEC.test(l.exchangeRate)) return `invalid exchange rate "${l.exchangeRate}"`;
  for (const d of [l.saleMonth, l.salePeriodStart, l.salePeriodEnd, l.accountingPeriod]) if (d !== null && !DATE.test(d)) return `invalid date "${d}"`;
  return null;
}

const N = '\\N';
const NO_MATCH = `${N}\t${N}\t${N}\t${N}`;
/** Lines waiting for their match keys before one round trip resolves them. */
const PENDING_MAX = 5000;

/** Formats batches of one file's lines; counts what it refused and the accounting periods it saw. */
export class LineCopyFormatter {
  /** Lines refused here (reported through onError; not in the COPY). */
  failed = 0;
  /** Accounting periods of the lines (at most 1000 kept). */
  readonly accSeen = new Set<string>();
  private readonly prefix: string;
  private pending: CanonicalLine[] = [];
  private out = Buffer.allocUnsafe(1 << 20);

  constructor(
    tenantId: number,
    fileId: string,
    private readonly accOverride: string | null,
    private readonly matcher: LineMatcher | null,
    private readonly onError: (e: LineError) => void,
  ) {
    this.prefix = `${tenantId}\t${fileId}\t`;
  }

  /**
   * COPY text of the lines whose match is known now; lines with a new match key wait (at most
   * PENDING_MAX of them) and are written once their keys are resolved in one round trip.
   * The reader hands over small batches so line objects die young (measured: 5,000-line
   * batches spent a quarter of the JS time in garbage collection); the round trips stay
   * per PENDING_MAX new-key lines, not per batch.
   */
  async add(batch: CanonicalLine[]): Promise<Buffer | null> {
    const matcher = this.matcher;
    if (!matcher) return this.format(batch, null);
    let known: CanonicalLine[] | null = null;
    let ms: (LineMatch | null)[] | null = null;
    for (let i = 0; i < batch.length; i++) {
      const l = batch[i]!;
      const m = matcher.get(l.isrc ?? '', l.upc ?? '', l.trackTitle ?? '', l.artist ?? '', l.releaseTitle ?? '', l.dsp ?? '');
      if (m === undefined) this.pending.push(l);
      else {
        (known ??= []).push(l);
        (ms ??= []).push(m);
      }
    }
    const text = known ? this.format(known, ms) : null;
    if (this.pending.length < PENDING_MAX) return text;
    const rest = await this.flush();
    return text && rest ? Buffer.concat([text, rest]) : text ?? rest;
  }

  /** Resolves the waiting lines' keys and returns their COPY text ('' when none wait). */
  async flush(): Promise<Buffer | null> {
    const matcher = this.matcher;
    const lines = this.pending;
    if (!matcher || lines.length === 0) return null;
    this.pending = [];
    if (matcher.hasPending) await matcher.resolve();
    const ms = lines.map((l) => matcher.get(l.isrc ?? '', l.upc ?? '', l.trackTitle ?? '', l.artist ?? '', l.releaseTitle ?? '', l.dsp ?? '') ?? null);
    return this.format(lines, ms);
  }

  /** COPY text of the batch (one line per good line). */
  format(batch: CanonicalLine[], ms: (LineMatch | null)[] | null): Buffer {
    const matcher = this.matcher;
    const prefix = this.prefix;
    let out = this.out;
    let off = 0;
    for (let i = 0; i < batch.length; i++) {
      const l = batch[i]!;
      const bad = badLine(l);
      if (bad) {
        this.failed++;
        this.onError({ lineNo: l.lineNo, reason: bad, raw: JSON.stringify(l) });
        continue;
      }
      let acc = l.accountingPeriod;
      if (acc === null && this.accOverride) acc = this.accOverride;
      if (acc !== null && this.accSeen.size < 1000) this.accSeen.add(acc);
      const m = ms === null ? null : ms[i];
      const fx = matcher ? matcher.convert(l.currency, l.grossCurrency, l.exchangeRate, l.saleMonth, l.net) : null;
      // cp() only for free text: dates, identifiers, sale types, amounts and currency codes are
      // canonical by construction (normalise.ts) and checked by badLine() above.
      const line = `${prefix}${l.lineNo}\t${l.saleMonth ?? N}\t${l.salePeriodStart ?? N}\t${l.salePeriodEnd ?? N}\t${acc ?? N}\t${cp(l.dsp)}\t${cp(l.country)}\t${l.isrc ?? N}\t${l.upc ?? N}\t${cp(l.trackTitle)}\t${cp(l.artist)}\t${cp(l.releaseTitle)}\t${cp(l.label)}\t${cp(l.saleType)}\t${l.quantity}\t${l.gross ?? N}\t${cp(l.grossCurrency)}\t${l.net}\t${l.currency}\t${l.exchangeRate ?? N}\t${cp(l.aggregator)}\t${cp(l.isrcRaw)}\t${cp(l.upcRaw)}\t${
        m ? m.copy : NO_MATCH}\t${
        fx ? `${matcher!.base}\t${fx[0]}\t${fx[1]}` : `${N}\t${N}\t${N}`}\n`;
      // Each line straight into bytes: a batch-long string of millions of pieces, flattened and
      // encoded at the end, cost more than the rest of the formatting (measured).
      if (out.length - off < line.length * 3) {
        const bigger = Buffer.allocUnsafe(Math.max(out.length * 2, off + line.length * 3));
        out.copy(bigger, 0, 0, off);
        out = this.out = bigger;
      }
      off += out.write(line, off, 'utf8');
    }
    // a copy: the scratch buffer is reused for the next batch while this one may still be queued
    return Buffer.from(out.subarray(0, off));
  }
}
