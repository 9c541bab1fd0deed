/**
 * ERN generation: gathers a release, its tracks, their media and the effective default
 * settings (the release's chain, chain.ts), refuses what a message cannot be written without
 * (each gap named), and hands plain data to builder.ts.
 *
 * Where each part comes from:
 * - sender / recipient: ddex.senderDpid, ddex.senderName (default: the workspace name),
 *   ddex.recipientDpid, ddex.recipientName;
 * - the label party: the release's label, else content.labelName, else its product's label,
 *   else the workspace name;
 * - UPC: the release's, else its product's; ISRC: the track's, else its asset's;
 * - duration and technical details: the track's media record, else the first audio file
 *   uploaded to the track's asset; a duration may also be given as track metadata.duration
 *   (seconds);
 * - genre: the release's first genre, else content.genre; P/C lines and language: the
 *   release's metadata (pLine, cLine, language), else content.pLine / cLine / language;
 * - deals: one per ddex.territories entry, each with ddex.commercialModels and ddex.useTypes,
 *   starting ddex.dealStartDate, else the release date, else today.
 */
import crypto from 'node:crypto';
import type { Trx } from '../../db';
import { clock } from '../../lib/clock';
import { NotFoundError, ValidationError } from '../../lib/errors';
import { chainForItem, resolveChain, valuesOf, UUID_RE } from '../defaultsettings/chain';
import { dateOnly } from '../catalogue/common';
import { buildErn, containerOf, MESSAGE_TYPES, type ErnTrack, type MessageType, type TechnicalDetails } from './builder';
import { catalogueRow, catalogueRows, linkedArtistNames } from '../../repositories/catalogue';

export interface GenerateInput {
  releaseId: string;
  messageType?: string;
  /** the user level of the settings chain (default: the caller) */
  userId?: string | null;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : null);
const num = (v: unknown): number | null => {
  const n = typeof v === 'string' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : null;
};
/** A duration in seconds a recording can have (under 100 hours); anything else counts as unknown. */
const seconds = (v: unknown): number | null => {
  const n = num(v);
  return n != null && n < 360_000 ? n : null;
};

function checkType(t: string | undefined): MessageType {
  const type = t ?? 'NewReleaseMessage';
  if ((MESSAGE_TYPES as readonly string[]).includes(type)) return type as MessageType;
  const hint = type === 'UpdateReleaseMessage' ? 'ERN 4.3 has no UpdateReleaseMessage: send a NewReleaseMessage again to update a release' : `supported: ${MESSAGE_TYPES.join(', ')}`;
  throw new ValidationError(`Unsupported messageType "${type}"`, [`body.messageType: ${hint}`], 'UNSUPPORTED_MESSAGE_TYPE');
}

function technicalFrom(m: Record<string, unknown> | undefined, uri: string, name: string): TechnicalDetails {
  const md = (m ?? {}) as Record<string, unknown>;
  return {
    uri,
    container: containerOf(name),
    codec: str(md.codec),
    bitrateBps: num(md.bitrate) != null ? String(md.bitrate) : null,
    channels: num(md.channels) != null ? String(md.channels) : null,
    sampleRateHz: num(md.sampleRate) != null ? String(md.sampleRate) : null,
    fileSize: num(md.fileSize),
  };
}

export async function generateErn(trx: Trx, tenantId: number, callerId: string | null, p: GenerateInput) {
  const type = checkType(p.messageType);
  const r = UUID_RE.test(p.releaseId) ? await trx('releases').where({ id: p.releaseId }).first() : null;
  if (!r) throw new NotFoundError('Release', 'RELEASE_NOT_FOUND');
  const eff = await resolveChain(trx, await chainForItem(trx, tenantId, 'release', r.id, p.userId === undefined ? callerId : p.userId));
  const content = valuesOf(eff, 'content');
  const ddex = valuesOf(eff, 'ddex');
  const rules = valuesOf(eff, 'validation');
  const workspace = await trx('tenants').where({ id: tenantId }).first('name');
  const product = r.product_id ? await catalogueRow(trx, 'products', r.product_id, ['upc', 'label']) : null;
  const meta = (r.metadata ?? {}) as Record<string, unknown>;
  const missing: string[] = [];

  const upc = str(r.upc) ?? str(product?.upc);
  if (!upc) missing.push('release.upc (set a UPC on the release or on its product)');
  if (!str(ddex.senderDpid)) missing.push('ddex.senderDpid (a default setting: the DDEX party id of the sender, PADPIDA…)');
  if (!str(ddex.recipientDpid)) missing.push('ddex.recipientDpid (a default setting: the DDEX party id of the recipient, PADPIDA…)');

  const artistName = str(r.artist_name) ?? (r.artist_id ? str((await catalogueRow(trx, 'artists', r.artist_id, ['name']))?.name) : null);
  const releaseArtists = artistName ? [artistName] : [];
  const tracks: ErnTrack[] = [];
  if (type === 'NewReleaseMessage') {
    if (!artistName) missing.push('release.artistName (or release.artist)');
    const genre = str((r.genre as string[] | null)?.[0]) ?? str(content.genre);
    if (!genre) missing.push('release.genre (or the content.genre default setting)');
    if (rules.requireReleaseDate === true && !r.release_date) missing.push('release.releaseDate (validation.requireReleaseDate is on)');
    const rows = await trx('tracks').where({ release_id: r.id }).orderBy(['position', 'created_at']);
    if (!rows.length) missing.push('release.tracks (a release needs at least one track)');
    const media = rows.length ? await trx('track_media').whereIn('track_id', rows.map((t) => t.id)) : [];
    const assetIds = rows.map((t) => t.asset_id).filter(Boolean);
    const assets = await catalogueRows(trx, 'assets', assetIds, ['id', 'isrc', 'display_artist', 'main_artist']);
    const assetArtists = await linkedArtistNames(trx, 'asset', assetIds);
    const audio = assetIds.length ? await trx('catalogue_media').whereIn('asset_id', assetIds).where({ kind: 'audio' }).orderBy(['created_at', 'id']) : [];
    rows.forEach((t, k) => {
      const at = `tracks[${k + 1}] "${t.title}"`;
      const asset = assets.find((a) => a.id === t.asset_id);
      const isrc = str(t.isrc) ?? str(asset?.isrc);
      if (!isrc) missing.push(`${at}: isrc (set it on the track or on its asset)`);
      const tm = media.find((m) => m.track_id === t.id);
      const am = audio.find((m) => m.asset_id === t.asset_id);
      const duration = seconds(tm?.metadata?.duration) ?? seconds(am?.metadata?.duration) ?? seconds((t.metadata ?? {}).duration);
      if (duration == null) missing.push(`${at}: duration (no processed audio on the track or its asset, and no metadata.duration)`);
      const technical = tm ? technicalFrom(tm.metadata, tm.url, tm.name) : am ? technicalFrom({ ...am.metadata, fileSize: am.metadata?.fileSize ?? Number(am.size) }, `resources/${am.name}`, am.name) : null;
      if (rules.requireTrackMedia === true && !(tm?.processing_status === 'processed' || am)) missing.push(`${at}: processed audio (validation.requireTrackMedia is on)`);
      const names = str(asset?.display_artist) ? [asset!.display_artist as string] : assetArtists.filter((x) => x.item_id === t.asset_id).map((x) => x.name);
      tracks.push({
        title: t.title,
        isrc: isrc ?? '',
        durationSeconds: duration ?? 0,
        artists: names.length ? names : releaseArtists,
        explicit: !!t.explicit,
        pLine: null,
        technical,
      });
    });
    if (missing.length) throw new ValidationError(`Cannot write the ERN: missing ${missing.map((m) => m.split(' (')[0]).join(', ')}`, missing, 'ERN_MISSING_DATA');
    const releaseDate = dateOnly(r.release_date);
    return finish(type, r.id, {
      tenantName: workspace.name, ddex, content, meta, upc: upc!, releaseDate,
      release: {
        title: r.title, upc: upc!, type: r.type ?? 'Single', artists: releaseArtists,
        labelName: str(r.label) ?? str(content.labelName) ?? str(product?.label) ?? workspace.name,
        genre: genre!, subGenre: str(meta.subGenre) ?? str(content.subGenre), releaseDate,
        pLine: str(meta.pLine) ?? str(content.pLine), cLine: str(meta.cLine) ?? str(content.cLine),
        parentalWarning: str(content.parentalWarning) ?? 'NotExplicit', tracks,
      },
    });
  }
  if (missing.length) throw new ValidationError(`Cannot write the ERN: missing ${missing.map((m) => m.split(' (')[0]).join(', ')}`, missing, 'ERN_MISSING_DATA');
  return finish(type, r.id, {
    tenantName: workspace.name, ddex, content, meta, upc: upc!, releaseDate: null,
    release: { title: r.title, upc: upc!, type: r.type, artists: releaseArtists, labelName: '', genre: '', subGenre: null, releaseDate: null, pLine: null, cLine: null, parentalWarning: 'NotExplicit', tracks: [] },
  });
}

async function finish(
  type: MessageType,
  releaseId: string,
  d: { tenantName: string; ddex: Record<string, unknown>; content: Record<string, unknown>; meta: Record<string, unknown>; upc: string; releaseDate: string | null; release: Parameters<typeof buildErn>[1]['release'] },
) {
  const now = clock.now();
  const messageId = `RONDO${crypto.randomUUID().replace(/-/g, '').toUpperCase()}`;
  const deals = {
    territories: d.ddex.territories as string[],
    commercialModels: d.ddex.commercialModels as string[],
    useTypes: d.ddex.useTypes as string[],
    startDate: str(d.ddex.dealStartDate) ?? d.releaseDate ?? now.toISOString().slice(0, 10),
  };
  const xml = await buildErn(type, {
    messageId,
    createdAt: now.toISOString(),
    sender: { dpid: d.ddex.senderDpid as string, name: str(d.ddex.senderName) ?? d.tenantName },
    recipient: { dpid: d.ddex.recipientDpid as string, name: str(d.ddex.recipientName) },
    controlType: (d.ddex.messageControlType as 'LiveMessage' | 'TestMessage') ?? 'LiveMessage',
    language: str(d.meta.language) ?? str(d.content.language) ?? 'en',
    release: d.release,
    deals,
  });
  return {
    messageId,
    messageType: type,
    releaseId,
    fileName: `${messageId}.xml`,
    deals: type === 'NewReleaseMessage' ? deals.territories.length : 0,
    xml,
  };
}
