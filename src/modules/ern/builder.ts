/**
 * ERN 4.3 message writer: plain data in, XML out (xmlbuilder2 escapes every text and
 * attribute). No database here; service.ts gathers the data and refuses what is missing.
 *
 * References are local anchors: parties P…, resources A…, technical details T…, the
 * release R0 (xs:ID / xs:IDREF in the schema, so every reference must resolve).
 */
import Decimal from 'decimal.js';

export const ERN_NAMESPACE = 'http://ddex.net/xml/ern/43';
/** Version of the allowed-value sets the ERN 4.3 schema imports (checked by the tests against the published AVS file). */
export const AVS_VERSION_ID = '3';
export const MESSAGE_TYPES = ['NewReleaseMessage', 'PurgeReleaseMessage'] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];

export interface Party { dpid: string; name: string | null }
export interface TechnicalDetails {
  uri: string;
  container: string | null;
  codec: string | null;
  bitrateBps: string | null;
  channels: string | null;
  sampleRateHz: string | null;
  fileSize: number | null;
}
export interface ErnTrack {
  title: string;
  isrc: string;
  durationSeconds: number;
  artists: string[];
  explicit: boolean;
  pLine: string | null;
  technical: TechnicalDetails | null;
}
export interface ErnRelease {
  title: string;
  upc: string;
  type: string;
  artists: string[];
  labelName: string;
  genre: string;
  subGenre: string | null;
  releaseDate: string | null;
  pLine: string | null;
  cLine: string | null;
  parentalWarning: string;
  tracks: ErnTrack[];
}
export interface ErnDeals {
  territories: string[];
  commercialModels: string[];
  useTypes: string[];
  startDate: string;
}
export interface ErnInput {
  messageId: string;
  createdAt: string;
  sender: Party;
  recipient: Party;
  controlType: 'LiveMessage' | 'TestMessage';
  language: string;
  release: ErnRelease;
  deals: ErnDeals;
}

const RELEASE_TYPES = ['Album', 'EP', 'Single', 'ClassicalAlbum', 'DjMix', 'MultimediaAlbum', 'MultimediaSingle', 'PlayList', 'VideoAlbum', 'VideoSingle', 'Bundle'];
const CODECS: [RegExp, string][] = [[/^pcm/i, 'PCM'], [/flac/i, 'FLAC'], [/layer ?3|mp3/i, 'MP3'], [/layer ?2|mp2/i, 'MP2'], [/aac/i, 'AAC'], [/vorbis/i, 'Vorbis'], [/wma|windows media/i, 'WMA'], [/alaw/i, 'ALaw'], [/mulaw|µ-?law/i, 'MuLaw']];
const CONTAINERS: Record<string, string> = { wav: 'WAV', wave: 'WAV', aif: 'AIFF', aiff: 'AIFF', mp4: 'MP4', m4a: 'MP4', ogg: 'Ogg', oga: 'Ogg', mov: 'QuickTime' };

/** ISO 8601 duration of a number of seconds: 215.3 → PT3M35.3S. */
export function isoDuration(seconds: number): string {
  const ms = Math.round(seconds * 1000);
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = new Decimal(ms % 60_000).div(1000).toString();
  return `PT${h ? `${h}H` : ''}${m}M${s}S`;
}

export function containerOf(name: string): string | null {
  const ext = name.split('.').pop()?.toLowerCase() ?? '';
  return CONTAINERS[ext] ?? null;
}

function releaseType(t: string) {
  const hit = RELEASE_TYPES.find((r) => r.toLowerCase() === t.trim().toLowerCase());
  return hit ? hit : { '@UserDefinedValue': t, '#': 'UserDefined' };
}

function codecOf(c: string) {
  const hit = CODECS.find(([re]) => re.test(c));
  return hit ? hit[1] : { '@UserDefinedValue': c, '#': 'UserDefined' };
}

function partyName(name: string) {
  return { FullName: name };
}

function header(i: ErnInput) {
  const party = (p: Party) => ({ PartyId: p.dpid, ...(p.name ? { PartyName: partyName(p.name) } : {}) });
  return {
    MessageThreadId: i.messageId,
    MessageId: i.messageId,
    MessageSender: party(i.sender),
    MessageRecipient: party(i.recipient),
    MessageCreatedDateTime: i.createdAt,
    MessageControlType: i.controlType,
  };
}

function technical(t: TechnicalDetails, ref: string) {
  const file: Record<string, unknown> = { Type: 'AudioFile' };
  if (t.container) file.ContainerFormat = t.container;
  if (t.codec) file.AudioCodecType = codecOf(t.codec);
  if (t.bitrateBps) file.BitRate = { '@UnitOfMeasure': 'kbps', '#': new Decimal(t.bitrateBps).div(1000).toString() };
  if (t.channels) file.NumberOfChannels = t.channels;
  if (t.sampleRateHz) file.SamplingRate = { '@UnitOfMeasure': 'Hz', '#': new Decimal(t.sampleRateHz).toString() };
  file.File = { URI: t.uri, ...(t.fileSize != null ? { FileSize: String(t.fileSize) } : {}) };
  return { TechnicalResourceDetailsReference: ref, DeliveryFile: file };
}

function newRelease(i: ErnInput) {
  const r = i.release;
  // parties: the label, then every artist name once
  const names = [...new Set([...r.artists, ...r.tracks.flatMap((t) => t.artists)])];
  const artistRef = (n: string) => `PA${names.indexOf(n) + 1}`;
  const parties = [
    { PartyReference: 'PL1', PartyName: partyName(r.labelName) },
    ...names.map((n) => ({ PartyReference: artistRef(n), PartyName: partyName(n) })),
  ];
  const displayArtists = (list: string[]) => list.map((n, k) => ({ '@SequenceNumber': String(k + 1), ArtistPartyReference: artistRef(n), DisplayArtistRole: 'MainArtist' }));
  const year = r.releaseDate?.slice(0, 4) ?? null;
  const line = (kind: 'P' | 'C', text: string | null) => (text ? { ...(year ? { Year: year } : {}), [`${kind}LineText`]: text } : null);
  const recordings = r.tracks.map((t, k) => {
    const pl = line('P', t.pLine ?? r.pLine);
    return {
      ResourceReference: `A${k + 1}`,
      Type: 'MusicalWorkSoundRecording',
      SoundRecordingEdition: {
        ResourceId: { ISRC: t.isrc },
        ...(pl ? { PLine: pl } : {}),
        ...(t.technical ? { TechnicalDetails: technical(t.technical, `T${k + 1}`) } : {}),
      },
      DisplayTitleText: t.title,
      DisplayTitle: { TitleText: t.title },
      DisplayArtistName: t.artists.join(', '),
      DisplayArtist: displayArtists(t.artists),
      Duration: isoDuration(t.durationSeconds),
      ParentalWarningType: t.explicit ? 'Explicit' : r.parentalWarning,
    };
  });
  const total = r.tracks.reduce((s, t) => s + Math.round(t.durationSeconds * 1000), 0) / 1000;
  const pl = line('P', r.pLine);
  const cl = line('C', r.cLine);
  const release = {
    ReleaseReference: 'R0',
    ReleaseType: releaseType(r.type),
    ReleaseId: { ICPN: r.upc },
    DisplayTitleText: r.title,
    DisplayTitle: { TitleText: r.title },
    DisplayArtistName: r.artists.join(', '),
    DisplayArtist: displayArtists(r.artists),
    ReleaseLabelReference: 'PL1',
    ...(pl ? { PLine: pl } : {}),
    ...(cl ? { CLine: cl } : {}),
    Duration: isoDuration(total),
    Genre: { GenreText: r.genre, ...(r.subGenre ? { SubGenre: r.subGenre } : {}) },
    ...(r.releaseDate ? { ReleaseDate: r.releaseDate, OriginalReleaseDate: r.releaseDate } : {}),
    ParentalWarningType: r.tracks.some((t) => t.explicit) ? 'Explicit' : r.parentalWarning,
    ResourceGroup: {
      ResourceGroupContentItem: r.tracks.map((_, k) => ({ SequenceNumber: String(k + 1), ReleaseResourceReference: `A${k + 1}` })),
    },
  };
  // one deal per territory, each with every commercial model and use type
  const deals = i.deals.territories.map((territory) => ({
    DealTerms: {
      TerritoryCode: territory,
      ValidityPeriod: { StartDate: i.deals.startDate },
      CommercialModelType: i.deals.commercialModels,
      UseType: i.deals.useTypes,
    },
  }));
  return {
    MessageHeader: header(i),
    PartyList: { Party: parties },
    ResourceList: { SoundRecording: recordings },
    ReleaseList: { Release: release },
    DealList: { ReleaseDeal: { DealReleaseReference: 'R0', Deal: deals } },
  };
}

function purge(i: ErnInput) {
  return {
    MessageHeader: header(i),
    PurgedRelease: { ReleaseId: { ICPN: i.release.upc }, Title: { TitleText: i.release.title } },
  };
}

/** xmlbuilder2 is loaded on the first message, not at start (the API process's memory, docs/operations.md). */
export async function buildErn(type: MessageType, i: ErnInput): Promise<string> {
  const { create } = await import('xmlbuilder2');
  const body = type === 'NewReleaseMessage' ? newRelease(i) : purge(i);
  // characters XML 1.0 cannot carry (control characters, lone surrogates) are dropped,
  // so imported text never makes a message that is not well-formed
  const doc = create({ version: '1.0', encoding: 'UTF-8', invalidCharReplacement: '' }, {
    [`ern:${type}`]: {
      '@xmlns:ern': ERN_NAMESPACE,
      '@LanguageAndScriptCode': i.language,
      '@AvsVersionId': AVS_VERSION_ID,
      ...body,
    },
  });
  return doc.end({ prettyPrint: true, wellFormed: true });
}
