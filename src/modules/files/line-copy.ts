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
  'currency', 'exchange_rate', 'aggregator', 'isrc_raw', 'upc_raw', 'extra',
  'asset_id', 'product_id', 'artist_id', 'match_status', 'base_currency', 'fx_rate', 'base_amount', 'share_set_id',
] as const;

const NEEDS_ESCAPE = /[\\\t\n\r\u0000]/;
/** A value in COPY text format. */
export function cp(v: string | null | undefined): string {
  if (v === null || v === undefined) return '\\N';
  if (!NEEDS_ESCAPE.test(v)) return v;
  return v.replace(/\u0000/g, '').replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
}

/**
 * A line's extra fields as the text of a jsonb value, or null. jsonb holds neither NUL nor a
 * lone surrogate: those are dropped / replaced (U+FFFD) so one odd cell cannot fail a COPY.
 */
export function extraJson(extra: Record<string, string> | undefined): string | null {
  if (extra === undefined) return null;
  const clean: Record<string, string> = {};
  const ok = (s: string) => s.replace(/\u0000/g, '').replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
  for (const [k, v] of Object.entries(extra)) clean[ok(k)] = ok(v);
  return JSON.stringify(clean);
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
/** Lines waiting for their match keys before a round trip is started for them. */
const PENDING_MAX = 5000;
/** Lines that may wait in all while a round trip is under way; past it, add() waits for the round. */
const WAITING_MAX = 2 * PENDING_MAX;

/**
 * A line waiting for its match key, kept as its COPY bytes around the match's place plus its
 * key (own copies of the six strings), not as the reader's line object.
 * Why bytes: waiting lines outlive the reader's batches. Kept as objects, they made V8
 * allocate every later line in the old generation ("allocation-site pretenuring": the mapper's
 * line objects were seen to survive at the start of a file, where most lines wait). Measured at
 * 1M lines: 55 full collections and 8.3 s of worker CPU per ingest, against 8 and 5.8 s once
 * nothing the reader allocates outlives a batch. Own copies of the key: a slice of a 64 KB
 * parser chunk would keep the whole chunk alive (the worker once ran out of heap at 5M lines).
 */
interface Waiting {
  key: [string, string, string, string, string, string];
  bytes: Buffer;
  /** Where the match's four columns go in `bytes`. */
  at: number;
  /** Whether the line was converted (only then is its share set stored with it). */
  fx: boolean;
}

/** Formats batches of one file's lines; counts what it refused and the accounting periods it saw. */
export class LineCopyFormatter {
  /** Lines refused here (reported through onError; not in the COPY). */
  failed = 0;
  /** Accounting periods of the lines (at most 1000 kept). */
  readonly accSeen = new Set<string>();
  /** Lines written; of them matched, paid (with a share set), partial (no recording or no product), undecided (left to the allocation step). */
  private readonly counts = { lines: 0, matched: 0, paid: 0, partial: 0, undecided: 0 };
  private readonly prefix: string;
  /** Lines waiting for their match keys. */
  private pending: Waiting[] = [];
  /** The round trip under way (at most one), and how it ended. */
  private round: Promise<void> | null = null;
  private roundDone = false;
  private roundError: unknown = null;
  private readonly w = new CopyBytes();
  private readonly ww = new CopyBytes(1 << 12);

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
   * COPY text of the lines whose match is known now; lines with a new match key wait and are
   * written once a round trip has resolved their keys. A round starts when PENDING_MAX lines
   * wait and runs while the reader goes on (measured: the ingest stood still for each round,
   * 6 rounds and 0.85 s of a 1M-line file); add() waits for it only when WAITING_MAX lines wait.
   * The reader hands over small batches so line objects die young (measured: 5,000-line
   * batches spent a quarter of the JS time in garbage collection); the round trips stay
   * per PENDING_MAX new-key lines, not per batch.
   */
  async add(batch: CanonicalLine[]): Promise<Buffer | null> {
    const matcher = this.matcher;
    if (!matcher) return this.format(batch, null);
    if (this.roundError) throw this.roundError;
    let known: CanonicalLine[] | null = null;
    let ms: (LineMatch | null)[] | null = null;
    for (let i = 0; i < batch.length; i++) {
      const l = batch[i]!;
      const isrc = l.isrc ?? '', upc = l.upc ?? '', title = l.trackTitle ?? '', artist = l.artist ?? '', release = l.releaseTitle ?? '', dsp = l.dsp ?? '';
      const m = matcher.get(isrc, upc, title, artist, release, dsp);
      if (m === undefined) this.wait(l, [own(isrc), own(upc), own(title), own(artist), own(release), own(dsp)]);
      else {
        (known ??= []).push(l);
        (ms ??= []).push(m);
      }
    }
    let text = known ? this.format(known, ms) : null;
    if (this.round && this.roundDone) text = join(text, this.settle());
    if (!this.round && this.pending.length >= PENDING_MAX && matcher.hasPending) this.startRound(matcher);
    if (this.round && this.pending.length >= WAITING_MAX) {
      await this.round;
      text = join(text, this.settle());
    }
    return text;
  }

  /** Resolves every waiting line's keys and returns their COPY text (null when none wait). */
  async flush(): Promise<Buffer | null> {
    const matcher = this.matcher;
    if (!matcher) return null;
    if (this.round) await this.round;
    const text = this.settle();
    if (this.pending.length === 0) return text;
    if (matcher.hasPending) await matcher.resolve();
    const waiting = this.pending;
    this.pending = [];
    return join(text, this.formatWaiting(waiting, waiting.map((x) => matcher.get(...x.key) ?? null)));
  }

  private startRound(matcher: LineMatcher): void {
    this.roundDone = false;
    this.round = matcher.resolve().then(
      () => void (this.roundDone = true),
      (e: unknown) => {
        this.roundError = e;
        this.roundDone = true;
      },
    );
  }

  /** After a round: the COPY text of the waiting lines it resolved (the others wait on). */
  private settle(): Buffer | null {
    if (!this.round) return null;
    this.round = null;
    if (this.roundError) throw this.roundError;
    const matcher = this.matcher!;
    const still: Waiting[] = [];
    const done: Waiting[] = [];
    const ms: (LineMatch | null)[] = [];
    for (const x of this.pending) {
      const m = matcher.get(...x.key);
      if (m === undefined) still.push(x);
      else {
        done.push(x);
        ms.push(m);
      }
    }
    this.pending = still;
    return done.length ? this.formatWaiting(done, ms) : null;
  }

  /** The accounting period a line is stored with; undefined when the line is refused (reported). */
  private accept(l: CanonicalLine): string | null | undefined {
    const bad = badLine(l);
    if (bad) {
      this.failed++;
      this.onError({ lineNo: l.lineNo, reason: bad, raw: JSON.stringify(l) });
      return undefined;
    }
    let acc = l.accountingPeriod;
    if (acc === null && this.accOverride) acc = this.accOverride;
    if (acc !== null && this.accSeen.size < 1000) this.accSeen.add(acc);
    return acc;
  }

  /** A line that waits for its match: its bytes now, the match's place marked. */
  private wait(l: CanonicalLine, key: Waiting['key']): void {
    const acc = this.accept(l);
    if (acc === undefined) return;
    const w = this.ww;
    w.reset(0);
    this.head(w, l, acc);
    const at = w.length;
    const fx = this.tail(w, l);
    this.pending.push({ key, bytes: w.take(), at, fx });
  }

  /** COPY text of the batch (one line per good line). */
  format(batch: CanonicalLine[], ms: (LineMatch | null)[] | null): Buffer {
    const w = this.w;
    w.reset(batch.length * 400);
    for (let i = 0; i < batch.length; i++) {
      const l = batch[i]!;
      const acc = this.accept(l);
      if (acc === undefined) continue;
      const m = ms === null ? null : ms[i];
      this.head(w, l, acc);
      w.ascii(m ? m.copy : NO_MATCH);
      const fx = this.tail(w, l);
      this.count(m, fx);
      end(w, fx ? m : null);
    }
    return w.take();
  }

  private formatWaiting(waiting: Waiting[], ms: (LineMatch | null)[]): Buffer {
    const w = this.w;
    w.reset(waiting.length * 400);
    for (let i = 0; i < waiting.length; i++) {
      const x = waiting[i]!;
      const m = ms[i];
      w.bytes(x.bytes, 0, x.at);
      w.ascii(m ? m.copy : NO_MATCH);
      w.bytes(x.bytes, x.at, x.bytes.length);
      this.count(m, x.fx);
      end(w, x.fx ? m : null);
    }
    return w.take();
  }

  private count(m: LineMatch | null | undefined, fx: boolean): void {
    const c = this.counts;
    c.lines++;
    if (!m || !fx || !m.decided) c.undecided++;
    if (!m) return;
    if (m.status !== 'unmatched') c.matched++;
    if (fx && m.set !== null) c.paid++;
    if (m.partial) c.partial++;
  }

  /**
   * What the file records for its allocation (docs/engine.md, "Decided while stored"): the
   * matcher's snapshot, and the counts when every line written was decided in flight.
   */
  inFlight(): { ingest_snapshot: string | null; decided_in_flight: string | null } {
    const { undecided, ...counts } = this.counts;
    const all = this.matcher !== null && undecided === 0 && counts.lines > 0;
    return { ingest_snapshot: this.matcher?.snapshot ?? null, decided_in_flight: all ? JSON.stringify(counts) : null };
  }

  /** The columns before the match, and the tab before it. */
  private head(w: CopyBytes, l: CanonicalLine, acc: string | null): void {
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
    w.tab(); w.text(extraJson(l.extra));
    w.tab();
  }

  /** The currency columns after the match; whether the line was converted. */
  private tail(w: CopyBytes, l: CanonicalLine): boolean {
    const matcher = this.matcher;
    const fx = matcher ? matcher.convert(l.currency, l.grossCurrency, l.exchangeRate, l.saleMonth, l.net) : null;
    if (fx) {
      w.tab(); w.text(matcher!.base);
      w.tab(); w.text(fx[0]);
      w.tab(); w.text(fx[1]);
    } else w.ascii(NO_FX);
    return fx !== null;
  }
}

/** The share set decided in flight (of a converted line: prefill.ts) and the line's end. */
function end(w: CopyBytes, m: LineMatch | null | undefined): void {
  w.tab();
  w.text(m ? m.set : null);
  w.nl();
}

function join(a: Buffer | null, b: Buffer | null): Buffer | null {
  return a && b ? Buffer.concat([a, b]) : a ?? b;
}

/**
 * Writes COPY text bytes into a growing scratch Buffer: UTF-8 encoded in JS, COPY escapes
 * (backslash, tab, newline, carriage return; NUL dropped) applied on the way, NULL as \N.
 */
class CopyBytes {
  private buf: Buffer;
  private off = 0;

  constructor(size = 1 << 20) {
    this.buf = Buffer.allocUnsafe(size);
  }

  get length(): number {
    return this.off;
  }

  /** Bytes already in COPY text form. */
  bytes(src: Buffer, start: number, end: number): void {
    this.room(end - start);
    this.off += src.copy(this.buf, this.off, start, end);
  }

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

/** A cost row the pattern read as an expense, as a `file_expense_lines` row (kept with the file; made expenses after its allocation). */
export function expenseRow(tenantId: number, fileId: string, l: CanonicalLine): Record<string, unknown> {
  return { tenant_id: tenantId, file_id: fileId, line_no: l.lineNo, isrc: l.isrc, upc: l.upc, title: l.trackTitle ?? l.releaseTitle, sale_month: l.saleMonth, amount: l.net, currency: l.currency };
}
