/**
 * The ingest's hot path after the reader: a batch of canonical lines (with their in-flight
 * match and currency) → COPY text for royalty_lines. Kept apart from the job code so the
 * JS cost of a million lines can be measured without a database (bench/parse.ts).
 */
import type { CanonicalLine, LineError } from '../../../parsers/types';
import { own, type LineMatch, type LineMatcher } from '../royalty/prefill';

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
const NO_FX = `\t${N}\t${N}\t${N}`;
/** Lines waiting for their match keys before one round trip resolves them. */
const PENDING_MAX = 5000;

/**
 * A waiting line's own copies of its long strings. A line may wait for thousands of lines (a
 * new key late in a file waits until PENDING_MAX lines wait): holding slices of the parser's
 * chunks, 5,000 waiting lines kept up to 5,000 chunks of text alive (measured: the worker ran
 * out of its 160 MB heap at 5M lines).
 */
function detach(l: CanonicalLine): CanonicalLine {
  const r = l as unknown as Record<string, unknown>;
  for (const k in r) {
    const v = r[k];
    if (typeof v === 'string' && v.length >= 13) r[k] = own(v);
  }
  return l;
}

/** Formats batches of one file's lines; counts what it refused and the accounting periods it saw. */
export class LineCopyFormatter {
  /** Lines refused here (reported through onError; not in the COPY). */
  failed = 0;
  /** Accounting periods of the lines (at most 1000 kept). */
  readonly accSeen = new Set<string>();
  private readonly prefix: string;
  private pending: CanonicalLine[] = [];
  private readonly w = new CopyBytes();

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
      if (m === undefined) this.pending.push(detach(l));
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

  /** Resolves the waiting lines' keys and returns their COPY text (null when none wait). */
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
    const w = this.w;
    w.reset(batch.length * 400);
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
      // Every value straight into bytes, escaped as it is copied: no string per line, no tree of
      // partial strings to flatten and encode (measured: that was half the ingest's JS time).
      w.ascii(this.prefix);
      w.ascii(String(l.lineNo));
      w.tab(); w.text(l.saleMonth);
      w.tab(); w.text(l.salePeriodStart);
      w.tab(); w.text(l.salePeriodEnd);
      w.tab(); w.text(acc);
      w.tab(); w.text(l.dsp);
      w.tab(); w.text(l.country);
      w.tab(); w.text(l.isrc);
      w.tab(); w.text(l.upc);
      w.tab(); w.text(l.trackTitle);
      w.tab(); w.text(l.artist);
      w.tab(); w.text(l.releaseTitle);
      w.tab(); w.text(l.label);
      w.tab(); w.text(l.saleType);
      w.tab(); w.text(l.quantity);
      w.tab(); w.text(l.gross);
      w.tab(); w.text(l.grossCurrency);
      w.tab(); w.text(l.net);
      w.tab(); w.text(l.currency);
      w.tab(); w.text(l.exchangeRate);
      w.tab(); w.text(l.aggregator);
      w.tab(); w.text(l.isrcRaw);
      w.tab(); w.text(l.upcRaw);
      w.tab(); w.ascii(m ? m.copy : NO_MATCH);
      if (fx) {
        w.tab(); w.text(matcher!.base);
        w.tab(); w.text(fx[0]);
        w.tab(); w.text(fx[1]);
      } else w.ascii(NO_FX);
      w.nl();
    }
    return w.take();
  }
}

/**
 * Writes COPY text bytes into a growing scratch Buffer: UTF-8 encoded in JS, COPY escapes
 * (backslash, tab, newline, carriage return; NUL dropped) applied on the way, NULL as \N.
 */
class CopyBytes {
  private buf = Buffer.allocUnsafe(1 << 20);
  private off = 0;

  reset(expect: number): void {
    this.off = 0;
    if (this.buf.length < expect) this.buf = Buffer.allocUnsafe(expect);
  }

  private room(n: number): void {
    if (this.buf.length - this.off >= n) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.off + n));
    this.buf.copy(bigger, 0, 0, this.off);
    this.buf = bigger;
  }

  tab(): void {
    if (this.off >= this.buf.length) this.room(1);
    this.buf[this.off++] = 9;
  }

  nl(): void {
    if (this.off >= this.buf.length) this.room(1);
    this.buf[this.off++] = 10;
  }

  /** A string known to be ASCII and free of COPY escapes. */
  ascii(s: string): void {
    const n = s.length;
    this.room(n);
    const buf = this.buf;
    let o = this.off;
    for (let k = 0; k < n; k++) buf[o++] = s.charCodeAt(k);
    this.off = o;
  }

  /** A value (NULL → \N), escaped and UTF-8 encoded. */
  text(s: string | null | undefined): void {
    if (s === null || s === undefined) {
      this.room(2);
      this.buf[this.off++] = 92;
      this.buf[this.off++] = 78;
      return;
    }
    const n = s.length;
    this.room(n * 3);
    const buf = this.buf;
    let o = this.off;
    for (let k = 0; k < n; k++) {
      let c = s.charCodeAt(k);
      if (c < 128) {
        if (c > 13 && c !== 92) buf[o++] = c;
        else if (c === 9) (buf[o++] = 92), (buf[o++] = 116);
        else if (c === 10) (buf[o++] = 92), (buf[o++] = 110);
        else if (c === 13) (buf[o++] = 92), (buf[o++] = 114);
        else if (c === 92) (buf[o++] = 92), (buf[o++] = 92);
        else if (c !== 0) buf[o++] = c;
      } else if (c < 0x800) {
        buf[o++] = 0xc0 | (c >> 6);
        buf[o++] = 0x80 | (c & 63);
      } else {
        if (c >= 0xd800 && c < 0xdc00 && k + 1 < n) {
          let j = k + 1;
          while (j < n - 1 && s.charCodeAt(j) === 0) j++; // NULs are dropped: a pair may close after them
          const d = s.charCodeAt(j);
          if (d >= 0xdc00 && d < 0xe000) {
            c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
            k = j;
            buf[o++] = 0xf0 | (c >> 18);
            buf[o++] = 0x80 | ((c >> 12) & 63);
            buf[o++] = 0x80 | ((c >> 6) & 63);
            buf[o++] = 0x80 | (c & 63);
            continue;
          }
        }
        if (c >= 0xd800 && c < 0xe000) c = 0xfffd; // a lone surrogate: the replacement character, as Buffer.from does
        buf[o++] = 0xe0 | (c >> 12);
        buf[o++] = 0x80 | ((c >> 6) & 63);
        buf[o++] = 0x80 | (c & 63);
      }
    }
    this.off = o;
  }

  /** The bytes written since reset(), as their own Buffer (the scratch is reused). */
  take(): Buffer {
    return Buffer.from(this.buf.subarray(0, this.off));
  }
}
