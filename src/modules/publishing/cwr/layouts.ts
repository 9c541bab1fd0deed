/**
 * CWR 2.1 and 2.2 record layouts (docs/formats.md, "CWR"): every field of every record we
 * write or read, by its 1-based start position and length as the CISAC functional
 * specification gives them. `N` fields are numeric (right-justified, zero-filled), `A`
 * fields alphanumeric (left-justified, space-filled); an empty value is blank either way.
 */
export type Version = '2.1' | '2.2';
export type Kind = 'A' | 'N';
export interface Field {
  name: string;
  start: number;
  size: number;
  kind: Kind;
}
type Spec = [name: string, start: number, size: number, kind?: Kind];

const fields = (...specs: Spec[]): Field[] => specs.map(([name, start, size, kind]) => ({ name, start, size, kind: kind ?? 'A' }));
const PREFIX: Spec[] = [['recordType', 1, 3], ['transactionSeq', 4, 8, 'N'], ['recordSeq', 12, 8, 'N']];

const HDR_21: Spec[] = [
  ['recordType', 1, 3], ['senderType', 4, 2], ['senderId', 6, 9, 'N'], ['senderName', 15, 45], ['ediVersion', 60, 5],
  ['creationDate', 65, 8, 'N'], ['creationTime', 73, 6, 'N'], ['transmissionDate', 79, 8, 'N'], ['characterSet', 87, 15],
];
const HDR_22: Spec[] = [...HDR_21, ['cwrVersion', 102, 3], ['cwrRevision', 105, 3, 'N'], ['softwarePackage', 108, 30], ['softwareVersion', 138, 30]];
const GRH: Spec[] = [['recordType', 1, 3], ['transactionType', 4, 3], ['groupId', 7, 5, 'N'], ['versionNumber', 12, 5], ['batchRequest', 17, 10, 'N'], ['submissionType', 27, 2]];
const GRT: Spec[] = [['recordType', 1, 3], ['groupId', 4, 5, 'N'], ['transactionCount', 9, 8, 'N'], ['recordCount', 17, 8, 'N'], ['currency', 25, 3], ['totalValue', 28, 10, 'N']];
const TRL: Spec[] = [['recordType', 1, 3], ['groupCount', 4, 5, 'N'], ['transactionCount', 9, 8, 'N'], ['recordCount', 17, 8, 'N']];
const WORK: Spec[] = [
  ...PREFIX, ['title', 20, 60], ['language', 80, 2], ['submitterWorkNumber', 82, 14], ['iswc', 96, 11], ['copyrightDate', 107, 8, 'N'],
  ['copyrightNumber', 115, 12], ['distributionCategory', 127, 3], ['duration', 130, 6, 'N'], ['recordedIndicator', 136, 1],
  ['textMusicRelationship', 137, 3], ['compositeType', 140, 3], ['versionType', 143, 3], ['excerptType', 146, 3], ['musicArrangement', 149, 3],
  ['lyricAdaptation', 152, 3], ['contactName', 155, 30], ['contactId', 185, 10], ['workType', 195, 2], ['grandRights', 197, 1],
  ['compositeCount', 198, 3, 'N'], ['publicationDate', 201, 8, 'N'], ['exceptionalClause', 209, 1], ['opusNumber', 210, 25],
  ['catalogueNumber', 235, 25], ['priorityFlag', 260, 1],
];
const PUBLISHER: Spec[] = [
  ...PREFIX, ['publisherSeq', 20, 2, 'N'], ['ipNumber', 22, 9], ['name', 31, 45], ['unknown', 76, 1], ['publisherType', 77, 2], ['taxId', 79, 9],
  ['ipiName', 88, 11], ['submitterAgreement', 99, 14], ['prSociety', 113, 3], ['prShare', 116, 5, 'N'], ['mrSociety', 121, 3], ['mrShare', 124, 5, 'N'],
  ['srSociety', 129, 3], ['srShare', 132, 5, 'N'], ['specialAgreements', 137, 1], ['firstRecordingRefusal', 138, 1], ['filler', 139, 1],
  ['ipiBase', 140, 13], ['isac', 153, 14], ['societyAgreement', 167, 14], ['agreementType', 181, 2], ['usaLicense', 183, 1],
];
const PUBLISHER_TERRITORY: Spec[] = [
  ...PREFIX, ['ipNumber', 20, 9], ['constant', 29, 6], ['prCollection', 35, 5, 'N'], ['mrCollection', 40, 5, 'N'], ['srCollection', 45, 5, 'N'],
  ['inclusion', 50, 1], ['tis', 51, 4, 'N'], ['sharesChange', 55, 1], ['sequence', 56, 3, 'N'],
];
const WRITER: Spec[] = [
  ...PREFIX, ['ipNumber', 20, 9], ['lastName', 29, 45], ['firstName', 74, 30], ['unknown', 104, 1], ['designation', 105, 2], ['taxId', 107, 9],
  ['ipiName', 116, 11], ['prSociety', 127, 3], ['prShare', 130, 5, 'N'], ['mrSociety', 135, 3], ['mrShare', 138, 5, 'N'], ['srSociety', 143, 3],
  ['srShare', 146, 5, 'N'], ['reversionary', 151, 1], ['firstRecordingRefusal', 152, 1], ['workForHire', 153, 1], ['filler', 154, 1],
  ['ipiBase', 155, 13], ['personalNumber', 168, 12], ['usaLicense', 180, 1],
];
const WRITER_TERRITORY: Spec[] = [
  ...PREFIX, ['ipNumber', 20, 9], ['prCollection', 29, 5, 'N'], ['mrCollection', 34, 5, 'N'], ['srCollection', 39, 5, 'N'], ['inclusion', 44, 1],
  ['tis', 45, 4, 'N'], ['sharesChange', 49, 1], ['sequence', 50, 3, 'N'],
];
const PWR_21: Spec[] = [...PREFIX, ['publisherIp', 20, 9], ['publisherName', 29, 45], ['submitterAgreement', 74, 14], ['societyAgreement', 88, 14], ['writerIp', 102, 9]];
const PWR_22: Spec[] = [...PWR_21, ['publisherSeq', 111, 2, 'N']];
const ALT: Spec[] = [...PREFIX, ['title', 20, 60], ['titleType', 80, 2], ['language', 82, 2]];
const PER: Spec[] = [...PREFIX, ['lastName', 20, 45], ['firstName', 65, 30], ['ipiName', 95, 11], ['ipiBase', 106, 13]];
const REC_21: Spec[] = [
  ...PREFIX, ['releaseDate', 20, 8, 'N'], ['constant1', 28, 60], ['releaseDuration', 88, 6, 'N'], ['constant2', 94, 5], ['albumTitle', 99, 60],
  ['albumLabel', 159, 60], ['catalogNumber', 219, 18], ['ean', 237, 13], ['isrc', 250, 12], ['recordingFormat', 262, 1], ['recordingTechnique', 263, 1],
  ['mediaType', 264, 3],
];
const REC_22: Spec[] = [
  ...REC_21, ['recordingTitle', 267, 60], ['versionTitle', 327, 60], ['displayArtist', 387, 60], ['recordLabel', 447, 60], ['isrcValidity', 507, 20],
  ['submitterRecordingId', 527, 14],
];
const ACK: Spec[] = [
  ...PREFIX, ['creationDate', 20, 8, 'N'], ['creationTime', 28, 6, 'N'], ['originalGroupId', 34, 5, 'N'], ['originalTransactionSeq', 39, 8, 'N'],
  ['originalTransactionType', 47, 3], ['creationTitle', 50, 60], ['submitterCreationNumber', 110, 20], ['recipientCreationNumber', 130, 20],
  ['processingDate', 150, 8, 'N'], ['transactionStatus', 158, 2],
];
const MSG: Spec[] = [
  ...PREFIX, ['messageType', 20, 1], ['originalRecordSeq', 21, 8, 'N'], ['messageRecordType', 29, 3], ['messageLevel', 32, 1],
  ['validationNumber', 33, 3], ['messageText', 36, 150],
];

const COMMON: Record<string, Spec[]> = {
  GRH, GRT, TRL, NWR: WORK, REV: WORK, SPU: PUBLISHER, OPU: PUBLISHER, SPT: PUBLISHER_TERRITORY, OPT: PUBLISHER_TERRITORY,
  SWR: WRITER, OWR: WRITER, SWT: WRITER_TERRITORY, OWT: WRITER_TERRITORY, ALT, PER, ACK, MSG,
};

export const LAYOUTS: Record<Version, Record<string, Field[]>> = {
  '2.1': Object.fromEntries(Object.entries({ ...COMMON, HDR: HDR_21, PWR: PWR_21, REC: REC_21 }).map(([k, v]) => [k, fields(...v)])),
  '2.2': Object.fromEntries(Object.entries({ ...COMMON, HDR: HDR_22, PWR: PWR_22, REC: REC_22 }).map(([k, v]) => [k, fields(...v)])),
};

/** Version strings each version writes: EDI standard (HDR), the group's version number (GRH), file name suffix. */
export const VERSION_TAGS: Record<Version, { edi: string; group: string; suffix: string }> = {
  '2.1': { edi: '01.10', group: '02.10', suffix: 'V21' },
  '2.2': { edi: '01.10', group: '02.20', suffix: 'V22' },
};

/** Length of a record: where its last field ends. */
export function recordLength(version: Version, type: string): number {
  const f = LAYOUTS[version][type];
  if (!f) throw new Error(`no CWR ${version} layout for ${type}`);
  const last = f[f.length - 1]!;
  return last.start + last.size - 1;
}
