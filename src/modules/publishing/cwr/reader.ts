/**
 * Reads a CWR 2.1 or 2.2 file (a registration file we wrote, or a society's acknowledgement
 * file) back into its works and acknowledgements, checking the envelope: HDR first, TRL
 * last, every group between GRH and GRT, and the transaction and record counts of GRT and
 * TRL against what the file holds. Pure.
 */
import { societyOfCisac } from './societies';
import { CwrError, parseRecord, shareOf } from './codec';
import type { Version } from './layouts';
import type { CwrPublisher, CwrWork, CwrWriter } from './model';

export interface CwrAck {
  /** The group and transaction of the file we sent that this acknowledges. */
  originalGroupId: number;
  originalTransactionSeq: number;
  originalTransactionType: string;
  title: string;
  /** Our work number, and the society's. */
  submitterWorkNumber: string;
  societyWorkNumber: string;
  processingDate: string;
  /** CWR transaction status: AS, AC, RA, SR, CO, DU, NP, RJ … */
  status: string;
  messages: string[];
}

export interface CwrRead {
  version: Version;
  header: Record<string, string>;
  works: CwrWork[];
  acks: CwrAck[];
  groups: { transactionType: string; transactionCount: number; recordCount: number }[];
  /** Records of types without a layout here (inside a transaction: counted, not read), as `line n: XXX`. */
  skipped: string[];
}

/** Transaction header records: each opens a transaction of its group. */
const TRANSACTION_HEADS = new Set(['NWR', 'REV', 'ISW', 'EXC', 'ACK', 'AGR']);

const seconds = (hhmmss: string) => (hhmmss && /^\d{6}$/.test(hhmmss) && hhmmss !== '000000'
  ? Number(hhmmss.slice(0, 2)) * 3600 + Number(hhmmss.slice(2, 4)) * 60 + Number(hhmmss.slice(4, 6)) : null);
const orNull = (s: string | undefined) => (s ? s : null);

export function readCwr(text: string): CwrRead {
  const lines = text.split(/\r?\n/).map((l, i) => ({ l: l.replace(/\r$/, ''), n: i + 1 })).filter((x) => x.l.length > 0);
  const first = lines[0];
  if (!first || !first.l.startsWith('HDR')) throw new CwrError('the file does not start with an HDR record', first?.n ?? 1);
  const version: Version = first.l.length > 101 && first.l.slice(101, 104) === '2.2' ? '2.2' : '2.1';
  const header = parseRecord(version, first.l).values!;
  const works: CwrWork[] = [];
  const acks: CwrAck[] = [];
  const groups: CwrRead['groups'] = [];
  let group: { type: string; start: number; transactions: number } | null = null;
  let work: CwrWork | null = null;
  let ack: CwrAck | null = null;
  let transactions = 0;
  let trailer = false;
  const skipped: string[] = [];

  lines.slice(1).forEach(({ l, n }, idx) => {
    if (trailer) throw new CwrError('a record after TRL', n);
    const { type, values } = parseRecord(version, l);
    if (!values) {
      // a record type we do not read (VER, ORN, XRF, an agreement …): it still counts in the group
      if (!group) throw new CwrError(`unknown record type ${JSON.stringify(type)} outside a group`, n);
      if (TRANSACTION_HEADS.has(type)) {
        group.transactions += 1;
        work = null;
        ack = null;
      }
      skipped.push(`line ${n}: ${type}`);
      return;
    }
    const r = values;
    const inGroup = () => {
      if (!group) throw new CwrError(`${type} outside a group (no GRH before it)`, n);
      return group;
    };
    const inWork = () => {
      if (!work) throw new CwrError(`${type} outside a work transaction`, n);
      return work;
    };
    switch (type) {
      case 'GRH':
        if (group) throw new CwrError('GRH inside an open group (no GRT before it)', n);
        group = { type: r.transactionType!, start: idx, transactions: 0 };
        break;
      case 'GRT': {
        const g = inGroup();
        const records = idx - g.start + 1;
        if (Number(r.transactionCount) !== g.transactions) throw new CwrError(`GRT says ${Number(r.transactionCount)} transactions, the group has ${g.transactions}`, n);
        if (Number(r.recordCount) !== records) throw new CwrError(`GRT says ${Number(r.recordCount)} records, the group has ${records}`, n);
        groups.push({ transactionType: g.type, transactionCount: g.transactions, recordCount: records });
        transactions += g.transactions;
        group = null;
        work = null;
        ack = null;
        break;
      }
      case 'TRL':
        if (group) throw new CwrError('TRL inside an open group', n);
        if (Number(r.groupCount) !== groups.length) throw new CwrError(`TRL says ${Number(r.groupCount)} groups, the file has ${groups.length}`, n);
        if (Number(r.transactionCount) !== transactions) throw new CwrError(`TRL says ${Number(r.transactionCount)} transactions, the file has ${transactions}`, n);
        if (Number(r.recordCount) !== lines.length) throw new CwrError(`TRL says ${Number(r.recordCount)} records, the file has ${lines.length}`, n);
        trailer = true;
        break;
      case 'NWR':
      case 'REV': {
        const g = inGroup();
        if (!ack) g.transactions += 1; // inside an ACK transaction the work is the society's echo
        work = {
          transactionType: type, title: r.title!, code: r.submitterWorkNumber!, iswc: orNull(r.iswc), language: orNull(r.language),
          duration: seconds(r.duration!), alternateTitles: [], publishers: [], writers: [], performers: [], recordings: [],
        };
        if (!ack) works.push(work);
        else if (!ack.submitterWorkNumber) ack.submitterWorkNumber = work.code;
        break;
      }
      case 'ACK':
        inGroup().transactions += 1;
        work = null;
        ack = {
          originalGroupId: Number(r.originalGroupId), originalTransactionSeq: Number(r.originalTransactionSeq), originalTransactionType: r.originalTransactionType!,
          title: r.creationTitle!, submitterWorkNumber: r.submitterCreationNumber!, societyWorkNumber: r.recipientCreationNumber!,
          processingDate: r.processingDate!, status: r.transactionStatus!, messages: [],
        };
        acks.push(ack);
        break;
      case 'MSG':
        if (!ack) throw new CwrError('MSG outside an acknowledgement', n);
        ack.messages.push(r.messageText!);
        break;
      case 'SPU':
      case 'OPU': {
        const p: CwrPublisher = {
          code: r.ipNumber!, name: r.name!, ipi: orNull(r.ipiName), society: societyOfCisac(r.prSociety!), controlled: type === 'SPU',
          type: r.publisherType!, prShare: shareOf(r.prShare!), mrShare: shareOf(r.mrShare!), srShare: shareOf(r.srShare!),
        };
        inWork().publishers.push(p);
        break;
      }
      case 'SWR':
      case 'OWR': {
        const w: CwrWriter = {
          code: r.ipNumber!, lastName: r.lastName!, firstName: r.firstName!, ipi: orNull(r.ipiName), society: societyOfCisac(r.prSociety!),
          controlled: type === 'SWR', designation: r.designation!, prShare: shareOf(r.prShare!), mrShare: shareOf(r.mrShare!), srShare: shareOf(r.srShare!),
          publisherCode: null,
        };
        inWork().writers.push(w);
        break;
      }
      case 'PWR': {
        const w = inWork().writers.find((x) => x.code === r.writerIp);
        if (!w) throw new CwrError(`PWR names writer ${r.writerIp}, who is not on the work`, n);
        w.publisherCode = r.publisherIp!;
        break;
      }
      case 'SPT':
      case 'OPT':
      case 'SWT':
      case 'OWT':
        inWork();
        break;
      case 'ALT':
        inWork().alternateTitles.push({ title: r.title!, type: r.titleType!, language: orNull(r.language) });
        break;
      case 'PER':
        inWork().performers.push([r.lastName, r.firstName].filter(Boolean).join(' '));
        break;
      case 'REC':
        inWork().recordings.push({
          isrc: orNull(r.isrc), title: r.recordingTitle ?? '', displayArtist: orNull(r.displayArtist), releaseDate: orNull(r.releaseDate), duration: seconds(r.releaseDuration!),
        });
        break;
      default:
        throw new CwrError(`unexpected record type ${type}`, n); // HDR again
    }
  });
  if (!trailer) throw new CwrError('the file has no TRL record');
  return { version, header, works, acks, groups, skipped };
}
