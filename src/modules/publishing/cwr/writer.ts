/**
 * Writes a CWR 2.1 or 2.2 registration file: HDR, one group per transaction type (NWR, then
 * REV) with GRH … GRT, TRL. Each work is one transaction: NWR/REV, SPU (+SPT) per controlled
 * publisher and OPU per other publisher, SWR (+SWT, PWR) per controlled writer and OWR per
 * other writer, ALT, PER, REC. Counts: GRT has the group's transactions and records (GRH and
 * GRT included), TRL the file's groups, transactions and records (HDR and TRL included).
 * Pure: the lines are joined with CR LF.
 */
import { societyCisac } from './societies';
import { cwrShare, formatRecord, type Values } from './codec';
import { VERSION_TAGS } from './layouts';
import type { CwrFile, CwrWork } from './model';

/** World, in the CISAC TIS territory codes: every SPT and SWT claims it. */
export const WORLD_TIS = '2136';

const ymd = (d: Date) => d.toISOString().slice(0, 10).replace(/-/g, '');
const hms = (d: Date) => d.toISOString().slice(11, 19).replace(/:/g, '');
const hhmmss = (seconds: number | null) => {
  if (seconds === null) return null;
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  return `${String(Math.min(h, 99)).padStart(2, '0')}${String(m).padStart(2, '0')}${String(seconds % 60).padStart(2, '0')}`;
};

/** The records of one work's transaction, numbered `seq` in its group. */
function transaction(file: CwrFile, w: CwrWork, seq: number): string[] {
  const v = file.version;
  const out: string[] = [];
  const rec = (type: string, values: Values) => out.push(formatRecord(v, type, { transactionSeq: seq, recordSeq: out.length, ...values }));
  rec(w.transactionType, {
    title: w.title, language: w.language, submitterWorkNumber: w.code, iswc: w.iswc, distributionCategory: 'POP', duration: hhmmss(w.duration),
    recordedIndicator: w.recordings.length ? 'Y' : 'U', textMusicRelationship: 'MTX', versionType: 'ORI', grandRights: 'N', exceptionalClause: 'N', priorityFlag: 'N',
  });
  w.publishers.forEach((p, i) => {
    rec(p.controlled ? 'SPU' : 'OPU', {
      publisherSeq: i + 1, ipNumber: p.code, name: p.name, publisherType: p.type, ipiName: p.ipi,
      prSociety: societyCisac(p.society), prShare: cwrShare(p.prShare), mrSociety: societyCisac(p.society), mrShare: cwrShare(p.mrShare),
      srSociety: societyCisac(p.society), srShare: cwrShare(p.srShare), firstRecordingRefusal: 'N',
    });
    if (p.controlled) {
      rec('SPT', { ipNumber: p.code, prCollection: cwrShare(p.prShare), mrCollection: cwrShare(p.mrShare), srCollection: cwrShare(p.srShare), inclusion: 'I', tis: WORLD_TIS, sharesChange: 'N', sequence: 1 });
    }
  });
  for (const wr of w.writers) {
    rec(wr.controlled ? 'SWR' : 'OWR', {
      ipNumber: wr.code, lastName: wr.lastName, firstName: wr.firstName, designation: wr.designation, ipiName: wr.ipi,
      prSociety: societyCisac(wr.society), prShare: cwrShare(wr.prShare), mrSociety: societyCisac(wr.society), mrShare: cwrShare(wr.mrShare),
      srSociety: societyCisac(wr.society), srShare: cwrShare(wr.srShare), firstRecordingRefusal: wr.controlled ? 'N' : null,
    });
    if (!wr.controlled) continue;
    rec('SWT', { ipNumber: wr.code, prCollection: cwrShare(wr.prShare), mrCollection: cwrShare(wr.mrShare), srCollection: cwrShare(wr.srShare), inclusion: 'I', tis: WORLD_TIS, sharesChange: 'N', sequence: 1 });
    const pub = w.publishers.findIndex((p) => p.code === wr.publisherCode && p.controlled);
    if (pub >= 0) rec('PWR', { publisherIp: w.publishers[pub]!.code, publisherName: w.publishers[pub]!.name, writerIp: wr.code, publisherSeq: v === '2.2' ? pub + 1 : null });
  }
  for (const a of w.alternateTitles) rec('ALT', { title: a.title, titleType: a.type, language: a.language });
  for (const name of w.performers) rec('PER', { lastName: name });
  for (const r of w.recordings) {
    rec('REC', {
      releaseDate: r.releaseDate, releaseDuration: hhmmss(r.duration), isrc: r.isrc, recordingFormat: 'A', recordingTechnique: 'U',
      ...(v === '2.2' ? { recordingTitle: r.title, displayArtist: r.displayArtist } : {}),
    });
  }
  return out;
}

/** The whole file as text (CR LF after every record), with its counts. */
export function writeCwr(file: CwrFile): { text: string; transactionCount: number; recordCount: number } {
  const v = file.version;
  const tags = VERSION_TAGS[v];
  const lines: string[] = [
    formatRecord(v, 'HDR', {
      senderType: file.sender.type, senderId: file.sender.ipi.slice(-9), senderName: file.sender.name, ediVersion: tags.edi,
      creationDate: ymd(file.createdAt), creationTime: hms(file.createdAt), transmissionDate: ymd(file.createdAt),
      ...(v === '2.2' ? { cwrVersion: '2.2', cwrRevision: 1, softwarePackage: file.software?.name ?? 'RONDO', softwareVersion: file.software?.version ?? '' } : {}),
    }),
  ];
  let groups = 0;
  let transactions = 0;
  for (const type of ['NWR', 'REV'] as const) {
    const works = file.works.filter((w) => w.transactionType === type);
    if (!works.length) continue;
    groups += 1;
    const start = lines.length;
    lines.push(formatRecord(v, 'GRH', { transactionType: type, groupId: groups, versionNumber: tags.group, batchRequest: 0 }));
    works.forEach((w, i) => lines.push(...transaction(file, w, i)));
    lines.push(formatRecord(v, 'GRT', { groupId: groups, transactionCount: works.length, recordCount: lines.length - start + 1 }));
    transactions += works.length;
  }
  lines.push(formatRecord(v, 'TRL', { groupCount: groups, transactionCount: transactions, recordCount: lines.length + 1 }));
  return { text: lines.map((l) => `${l}\r\n`).join(''), transactionCount: transactions, recordCount: lines.length };
}
