import type { CanonicalLine, DsrSummaryCheck } from './types';
import type { SourcePattern } from './schema';
import { compileMapper, RowError, type Getter } from './map';
import { headerKey, normDate, monthEnd } from './normalise';
import { statementPeriod } from './table';
import { formatScaled, type Output, type RowHandler } from './output';
import { DSR_BASES, DSR_RECORDS, checkCells, dsrVersions, srView, type DsrRecordDef, type DsrRole } from './dsr-records';

/** What a DSR file's own control records say, and what was read against them. */
export interface DsrControl {
  rows: number;
  summaryRecords: number;
  blocks: number;
  /** Per summary record with its own usages and revenue; summaries shared by several rights controllers are not compared. */
  summaries: DsrSummaryCheck[];
}

interface Rec {
  def: DsrRecordDef;
  row: string[];
  lineNo: number;
}

/** A sales record without a revenue cell (SU01, SU02): its share of the summary's revenue is set at the end. */
interface Pending {
  line: CanonicalLine;
  summary: string;
  units: bigint;
  price: string | null;
}

/** Allocation scale: royalty_lines.net is numeric(28,12). */
const SCALE = 12;

function scaled(v: string, scale: number): bigint {
  const neg = v.startsWith('-');
  const s = neg ? v.slice(1) : v;
  const [i, f = ''] = s.split('.');
  const n = BigInt((i || '0') + f.padEnd(scale, '0').slice(0, scale));
  return neg ? -n : n;
}

/** An error that makes the file invalid under the DSR standard (the read stops). */
function invalid(lineNo: number, type: string, what: string): Error {
  return new Error(`DSR file invalid: line ${lineNo}, ${type} record: ${what}`);
}

/**
 * DDEX DSR flat file, read by the published record layouts (dsr-records.ts): every record
 * by its own record type and version. HEAD, summary (SY) and FOOT records are checked
 * cell by cell (a fault stops the read with the line, record and cell); RE/AS/MW records
 * are kept per block (BlockId); every sales record (SU01 downloads, SU02 streams, SU03
 * UGC usages) is checked, joined to its summary, release and resource, and mapped with
 * `from: 'ALIAS.Field'`. Sales records without a revenue cell (SU01, SU02) share their
 * summary's revenue (AllocatedNetRevenue, else NetRevenue) in proportion to
 * price × units (units alone when a record has no price), rounded to 12 places by largest
 * remainder so the shares add up to the summary exactly. FOOT's counts (lines, summary
 * records, blocks) must match the file; each summary's usages and revenue are compared
 * with its sales records.
 *
 * Virtual fields besides the published names: `SU.Units` (SU01 Usages − Returns, SU02
 * NumberOfStreams, SU03 Usages), `SU.NetRevenue` (the allocated share for SU01/SU02),
 * `SU.PeriodStart`/`SU.PeriodEnd` (ValidityPeriod, else HEAD's usage dates), `SU.SaleType`
 * ('ugc' in a UGC profile report, else the summary's UseType); a name
 * missing in a version falls back to its other published name (Currency ↔
 * CurrencyOfReporting, Usages ↔ NumberOfStreams, DspResourceId ↔ DspReleaseId); a
 * multi-value cell gives its first value.
 */
export class DsrHandler implements RowHandler {
  private custom: { prefix: string; def: DsrRecordDef }[];
  private cur: Record<string, Rec | undefined> = {};
  private summaries = new Map<string, Rec[]>();
  private summaryCount = 0;
  private releases = new Map<string, Rec>();
  private resources = new Map<string, Rec>();
  private resourcesByDspId = new Map<string, Rec>();
  private block: string | null = null;
  private blocks = 0;
  private map: ((row: string[], lineNo: number) => CanonicalLine) | null = null;
  private lines = 0;
  private emptyLines = 0;
  private pending: Pending[] = [];
  private allocated = '';
  /** Per summary id: lines, gross usages and net read. */
  private read = new Map<string, { lines: number; usages: bigint; net: bigint }>();
  private foot: Rec | null = null;
  control: DsrControl | null = null;
  period: { start: string | null; end: string | null } | null = null;
  reconciles: boolean | null = null;
  private sawHead = false;

  constructor(
    private readonly pattern: SourcePattern,
    private readonly out: Output,
    private readonly fileName: string,
    private readonly override: { start: string; end: string } | null,
  ) {
    // A pattern's own record layouts (a sender's deviation) win over the published ones.
    this.custom = (pattern.dsr?.records ?? []).map((r) => {
      const cells = Object.entries(r.fields).map(([name, pos]) => ({ name, pos, required: false, multi: false, kind: 's' as const }));
      return { prefix: r.prefix, def: { type: r.prefix, role: r.role as DsrRole, alias: r.alias, cells, byName: new Map(cells.map((c) => [c.name, c])) } };
    });
  }

  private defOf(type: string): DsrRecordDef | null {
    for (const c of this.custom) if (type.startsWith(c.prefix)) return c.def;
    return DSR_RECORDS.get(type) ?? null;
  }

  private static SYNONYMS: Record<string, string[]> = {
    Currency: ['CurrencyOfReporting'],
    CurrencyOfReporting: ['Currency'],
    Usages: ['NumberOfStreams', 'Downloads'],
    DspResourceId: ['DspReleaseId'],
  };

  /** A cell of the current record of an alias by name ('' when absent). */
  private cell(alias: string, name: string): string {
    const r = this.cur[alias];
    if (!r) return '';
    let c = r.def.byName.get(name);
    if (!c) for (const s of DsrHandler.SYNONYMS[name] ?? []) if ((c = r.def.byName.get(s))) break;
    if (!c) return '';
    const v = r.row[c.pos] ?? '';
    if (!c.multi) return v;
    const bar = v.indexOf('|');
    return bar === -1 ? v : v.slice(0, bar);
  }

  private virtual(alias: string, name: string): string {
    if (alias === 'SU') {
      const su = this.cur.SU;
      if (name === 'Units' && su) {
        if (su.def.byName.has('Returns')) {
          const u = this.cell('SU', 'Usages'), r = this.cell('SU', 'Returns');
          return /^-?\d+$/.test(u) && /^-?\d+$/.test(r) ? (BigInt(u) - BigInt(r)).toString() : u;
        }
        return this.cell('SU', 'Usages');
      }
      if (name === 'NetRevenue' && su && !su.def.byName.has('NetRevenue')) return this.allocated;
      if (name === 'SaleType') return /ugc/i.test(this.cell('HEAD', 'Profile')) ? 'ugc' : this.cell('SY', 'UseType');
      if (name === 'PeriodStart') return this.cell('SU', 'ValidityPeriodStart') || this.cell('HEAD', 'UsageStartDate');
      if (name === 'PeriodEnd') return this.cell('SU', 'ValidityPeriodEnd') || this.cell('HEAD', 'UsageEndDate');
    }
    return this.cell(alias, name);
  }

  private compile(): void {
    const resolve = (name: string): Getter | null => {
      const dot = name.indexOf('.');
      if (dot === -1) return null;
      const alias = name.slice(0, dot), f = name.slice(dot + 1);
      return () => this.virtual(alias, f);
    };
    const preamble = new Map<string, string>();
    const head = this.cur.HEAD;
    if (head) for (const c of head.def.cells) if (head.row[c.pos]) preamble.set(headerKey(c.name), head.row[c.pos]!);
    this.period = this.override ?? statementPeriod(this.pattern, this.fileName, preamble);
    if (!this.period) {
      const a = this.cell('HEAD', 'UsageStartDate'), b = this.cell('HEAD', 'UsageEndDate');
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

  private enterBlock(rec: Rec): void {
    const c = rec.def.byName.get('BlockId');
    const b = c ? (rec.row[c.pos] ?? '') : '';
    if (b !== this.block) {
      this.block = b;
      this.blocks++;
      this.releases.clear();
      this.resources.clear();
      this.resourcesByDspId.clear();
      this.cur.MW = undefined;
    }
  }

  private get(rec: Rec, name: string): string {
    const c = rec.def.byName.get(name);
    return c ? (rec.row[c.pos] ?? '').trim() : '';
  }

  row(row: string[], lineNo: number, parseError: string | null): void {
    if (row.length === 1 && row[0] === '') {
      this.emptyLines++; // counted only when a record follows (a trailing newline is no line)
      return;
    }
    this.lines += this.emptyLines + 1;
    this.emptyLines = 0;
    const type = row[0]!.trim();
    if (type.startsWith('#')) return; // commented-out records (FOOT counts them)
    const def = this.defOf(type);
    if (!def) {
      if (DSR_BASES.has(type.slice(0, 4)) && ['HE', 'SY', 'SU', 'SR', 'FO'].includes(type.slice(0, 2)))
        throw invalid(lineNo, type, `record type "${type}" is not a published layout this reader knows (published: ${dsrVersions(type.slice(0, 4)).join(', ')})`);
      return; // RU, LI, RE02… records carry nothing a royalty line needs
    }
    const rec: Rec = { def, row, lineNo };
    const strict = this.custom.length === 0 || !this.custom.some((c) => c.def === def);
    switch (def.role) {
      case 'head': {
        if (this.sawHead) throw invalid(lineNo, type, 'a second HEAD record');
        const fault = strict ? checkCells(def, row) : null;
        if (fault) throw invalid(lineNo, type, fault);
        this.cur.HEAD = rec;
        this.sawHead = true;
        this.map = null;
        return;
      }
      case 'summary': {
        if (!this.sawHead) throw invalid(lineNo, type, 'summary record before HEAD');
        const fault = strict ? checkCells(def, row) : null;
        if (fault) throw invalid(lineNo, type, fault);
        const id = this.get(rec, 'SummaryRecordId');
        const list = this.summaries.get(id);
        if (list) list.push(rec);
        else this.summaries.set(id, [rec]);
        this.summaryCount++;
        return;
      }
      case 'foot': {
        const fault = strict ? checkCells(def, row) : null;
        if (fault) throw invalid(lineNo, type, fault);
        this.foot = rec;
        return;
      }
      case 'release':
      case 'resource':
      case 'work': {
        this.enterBlock(rec);
        if (def.role === 'release') this.releases.set(this.get(rec, 'ReleaseReference'), rec);
        else if (def.role === 'resource') {
          this.resources.set(this.get(rec, 'ResourceReference'), rec);
          this.resourcesByDspId.set(this.get(rec, 'DspResourceId'), rec);
        } else this.cur.MW = rec;
        return;
      }
      case 'sale':
        return this.sale(rec, strict, parseError);
      case 'other':
        return;
    }
  }

  private sale(rec: Rec, strict: boolean, parseError: string | null): void {
    const { row, lineNo, def } = rec;
    const out = this.out;
    out.rowsRead++;
    if (!this.sawHead) throw invalid(lineNo, def.type, 'sales record before HEAD');
    if (parseError !== null) return out.bad(lineNo, parseError, row);
    const single = !def.byName.has('BlockId'); // a single-record-block SR record carries its release, resource and work
    if (!single) this.enterBlock(rec);
    const fault = strict ? checkCells(def, row) : null;
    if (fault) return out.bad(lineNo, `${def.type} ${fault}`, row);
    if (this.map === null) this.compile();
    let sid = this.get(rec, 'SummaryRecordId');
    if (sid === '' && this.summaries.size === 1) sid = this.summaries.keys().next().value!;
    const sy = this.summaries.get(sid);
    if (!sy) {
      const c = def.byName.get('SummaryRecordId');
      return out.bad(lineNo, `${def.type} cell ${c?.pos ?? '?'} (SummaryRecordId): no summary record has id "${sid}"`, row);
    }
    const relRef = this.get(rec, 'TransactedRelease');
    const resRef = this.get(rec, 'TransactedResource');
    const dspRes = this.get(rec, 'DspResourceId') || this.get(rec, 'DspReleaseId');
    this.cur.SY = sy[0];
    this.cur.SU = rec;
    if (single) {
      this.cur.RE = { ...rec, def: srView(def, 'Release') };
      this.cur.AS = { ...rec, def: srView(def, 'Resource') };
      this.cur.MW = { ...rec, def: srView(def, 'Work') };
    } else {
      this.cur.RE = relRef ? this.releases.get(relRef) : this.releases.values().next().value;
      if (relRef && !this.cur.RE)
        return out.bad(lineNo, `${def.type} cell ${def.byName.get('TransactedRelease')!.pos} (TransactedRelease): no release "${relRef}" in block ${this.block}`, row);
      if (resRef) {
        this.cur.AS = this.resources.get(resRef);
        if (!this.cur.AS)
          return out.bad(lineNo, `${def.type} cell ${def.byName.get('TransactedResource')!.pos} (TransactedResource): no resource "${resRef}" in block ${this.block}`, row);
      } else if (dspRes) this.cur.AS = this.resourcesByDspId.get(dspRes) ?? (this.resources.size === 1 ? this.resources.values().next().value : undefined);
      else this.cur.AS = def.byName.has('TransactedResource') ? undefined : this.resources.size === 1 ? this.resources.values().next().value : undefined;
    }
    const ownNet = def.byName.has('NetRevenue');
    this.allocated = '0';
    let line: CanonicalLine;
    try {
      line = this.map!(row, lineNo);
    } catch (e) {
      if (e instanceof RowError) return out.bad(lineNo, e.message, row, e);
      throw e;
    }
    const gross = this.get(rec, 'Usages') || this.get(rec, 'NumberOfStreams') || this.get(rec, 'Downloads') || '0';
    const stat = this.read.get(sid) ?? { lines: 0, usages: 0n, net: 0n };
    this.read.set(sid, stat);
    stat.lines++;
    stat.usages += /^-?\d+$/.test(gross) ? BigInt(gross) : scaled(gross, 0);
    if (ownNet) {
      stat.net += scaled(line.net, SCALE);
      out.good(line);
    } else {
      const units = this.virtual('SU', 'Units');
      const price = this.get(rec, 'PriceConsumerPaidExcSalesTax');
      // units to 6 places (SR02's NumberOfStreams is a decimal): the same scale for every record, so the shares are unchanged
      this.pending.push({ line, summary: sid, units: /^-?\d+(?:\.\d+)?$/.test(units) ? scaled(units, 6) : 0n, price: price === '' ? null : price });
    }
  }

  /** The revenue a summary record gives its sales records: the recipient's allocation when it has one. */
  private summaryNet(sy: Rec): string {
    return this.get(sy, 'AllocatedNetRevenue') || this.get(sy, 'NetRevenue') || '0';
  }
  private summaryUsages(sy: Rec): string {
    const a = this.get(sy, 'AllocatedUsages');
    return a && !a.includes('|') ? a : this.get(sy, 'Usages') || this.get(sy, 'TotalUsages') || '0';
  }

  /** Shares each summary's revenue among its SU01/SU02 records (largest remainder, 12 places). */
  private allocate(): void {
    const bySummary = new Map<string, Pending[]>();
    for (const p of this.pending) {
      const l = bySummary.get(p.summary);
      if (l) l.push(p);
      else bySummary.set(p.summary, [p]);
    }
    for (const [sid, list] of bySummary) {
      const sy = this.summaries.get(sid)!;
      if (sy.length > 1) {
        for (const p of list)
          this.out.bad(p.line.lineNo, `SummaryRecordId "${sid}" is shared by ${sy.length} summary records; a sales record without a revenue cell cannot tell which one's revenue it shares`, []);
        continue;
      }
      const total = scaled(this.summaryNet(sy[0]!), SCALE);
      const byPrice = list.every((p) => p.price !== null);
      const weights = list.map((p) => (byPrice ? p.units * scaled(p.price!, SCALE) : p.units));
      let W = weights.reduce((a, b) => a + b, 0n);
      if (W === 0n) {
        weights.fill(1n);
        W = BigInt(list.length);
      }
      const shares = weights.map((w) => (total * w) / W); // BigInt division truncates toward zero
      const rems = weights.map((w, i) => ({ i, r: (total * w) % W }));
      let left = total - shares.reduce((a, b) => a + b, 0n);
      const step = left >= 0n ? 1n : -1n;
      rems.sort((a, b) => (step > 0n ? (b.r > a.r ? 1 : b.r < a.r ? -1 : a.i - b.i) : (a.r > b.r ? 1 : a.r < b.r ? -1 : a.i - b.i)));
      for (let k = 0; left !== 0n; k = (k + 1) % rems.length) {
        shares[rems[k]!.i]! += step;
        left -= step;
      }
      const stat = this.read.get(sid)!;
      list.forEach((p, i) => {
        p.line.net = formatScaled(shares[i]!, SCALE);
        stat.net += shares[i]!;
      });
    }
    this.pending.sort((a, b) => a.line.lineNo - b.line.lineNo);
    for (const p of this.pending) if (p.line.net !== '') this.out.good(p.line);
    this.pending = [];
  }

  /** Non-empty lines in the file (DSR FOOT counts every line, HEAD, FOOT and comments included). */
  linesInFile(): number {
    return this.lines;
  }

  finish(): void {
    if (!this.sawHead) throw new Error(`header does not match source pattern "${this.pattern.key}": no HEAD record found`);
    const shared = new Set<string>();
    for (const [sid, sy] of this.summaries) if (sy.length > 1) shared.add(sid);
    for (const p of this.pending) if (shared.has(p.summary)) p.line.net = '';
    this.allocate();
    const foot = this.foot;
    if (!foot) throw new Error('DSR file invalid: no FOOT record (the file is incomplete)');
    const footCell = (name: string): { pos: number; v: number } | null => {
      const c = foot.def.byName.get(name);
      const raw = c ? (foot.row[c.pos] ?? '').trim() : '';
      return c && raw !== '' ? { pos: c.pos, v: Number.parseInt(raw, 10) } : null;
    };
    // SRFO (single-record-block variant, always one file) counts the report's lines
    const linesField = this.pattern.dsr?.footLinesField ?? (foot.def.byName.has('NumberOfLinesInFile') ? 'NumberOfLinesInFile' : 'NumberOfLinesInReport');
    const lines = footCell(linesField);
    const sums = footCell('NumberOfSummaryRecords');
    const blocks = footCell('NumberOfBlocksInFile');
    const check = (c: { pos: number; v: number } | null, name: string, actual: number, what: string) => {
      if (c && c.v !== actual)
        throw invalid(foot.lineNo, foot.def.type, `cell ${c.pos} (${name}) says ${c.v}, the file has ${actual} ${what}`);
    };
    check(lines, linesField, this.lines, 'lines');
    check(sums, 'NumberOfSummaryRecords', this.summaryCount, 'summary records');
    check(blocks, 'NumberOfBlocksInFile', this.blocks, 'blocks');

    // Each summary with its own usages and revenue against its sales records (a single-file report only:
    // a split report's summaries cover every file).
    const files = Number.parseInt(this.cell('HEAD', 'NumberOfFiles') || '1', 10);
    const checks: DsrSummaryCheck[] = [];
    if (files === 1) {
      for (const [sid, sy] of this.summaries) {
        const r = sy[0]!;
        if (sy.length > 1 || !/^SY0[123]/.test(r.def.type)) continue;
        const got = this.read.get(sid) ?? { lines: 0, usages: 0n, net: 0n };
        const fileNet = this.summaryNet(r), fileUsages = this.summaryUsages(r);
        const readNet = formatScaled(got.net, SCALE), readUsages = got.usages.toString();
        const ok = scaled(fileNet, SCALE) === got.net && scaled(fileUsages, 0) === got.usages;
        checks.push({
          summaryRecordId: sid,
          record: r.def.type,
          lineNo: r.lineNo,
          currency: this.get(r, 'CurrencyOfReporting') || this.get(r, 'Currency'),
          lines: got.lines,
          usages: { file: fileUsages, read: readUsages },
          net: { file: fileNet, read: readNet },
          reconciles: ok,
        });
      }
    }
    this.control = { rows: lines?.v ?? this.lines, summaryRecords: this.summaryCount, blocks: this.blocks, summaries: checks };
    this.reconciles = checks.every((c) => c.reconciles);
  }
}
