import type { CanonicalLine } from './types';
import type { SourcePattern } from './schema';
import { compileMapper, RowError, type Getter } from './map';
import { headerKey, normDate, monthEnd } from './normalise';
import { statementPeriod } from './table';
import type { Output, RowHandler } from './output';

/**
 * DDEX DSR flat file: records are identified by cell 0. HEAD and summary (SY) records
 * are kept; RE/AS records are kept per block (BlockId); every sale (SU) record is joined
 * to its summary (SummaryRecordId), release (TransactedRelease, else the block's first
 * release) and resource (TransactedResource) and mapped with `from: 'ALIAS.Field'`.
 * FOOT's line count is reconciled with the physical lines read.
 */
export class DsrHandler implements RowHandler {
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
          if (e instanceof RowError) out.bad(lineNo, e.message, row, e);
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
