/**
 * Media records: files of recordings and products (catalogue_media, one per name, bytes in
 * the object store) and the one audio/video link of a release track (track_media). The
 * route reads the upload from the request; these functions check the owner, store the
 * record and clean the stored bytes up when the record cannot be written.
 */
import type { AppServices } from '../../services';
import { withTenant, type Trx } from '../../db';
import { NotFoundError, ValidationError, pgCode, PG } from '../../lib/errors';
import { LocalObjectStore, objectStore } from '../../lib/storage';
import { checkTrackLink, extractMetadata, kindOf, mediaView, mimeOf, trackMediaView } from './media';
import { EDITABLE_STATUSES } from './service';

export type MediaOwner = 'asset' | 'product' | 'release';
export interface StoredUpload { name: string; key: string; size: number; mime: string | null }

const OWNER = {
  asset: { table: 'assets', col: 'asset_id', what: 'Asset' },
  product: { table: 'products', col: 'product_id', what: 'Product' },
  release: { table: 'releases', col: 'release_id', what: 'Release' },
} as const;

/**
 * Upload a media file of a recording or product: 404 before reading the body when the owner
 * does not exist; `receive` streams the body to the store under the given key prefix; the
 * metadata is read from the stored file; a file of the same name is replaced.
 */
export async function uploadCatalogueMedia(
  svc: Pick<AppServices, 'db' | 'cfg'>, tenantId: number, owner: MediaOwner, id: string,
  receive: (keyPrefix: string) => Promise<StoredUpload>,
  only?: { kinds: ReturnType<typeof kindOf>[]; what: string },
) {
  const { table, col, what } = OWNER[owner];
  const exists = await withTenant(svc.db.app, tenantId, (trx) => trx(table).where({ id }).first('id'));
  if (!exists) throw new NotFoundError(what);
  const up = await receive(`tenants/${tenantId}/${table}/${id}`);
  const store = objectStore(svc.cfg);
  if (only && !only.kinds.includes(kindOf(up.name, up.mime))) {
    await store.delete(up.key);
    throw new ValidationError(`Only ${only.what} files are accepted here`, [`${up.name} is ${kindOf(up.name, up.mime)}`], 'UNSUPPORTED_MEDIA_TYPE');
  }
  const file = store instanceof LocalObjectStore ? store.localPath(up.key) : () => store.getStream(up.key);
  const metadata = await extractMetadata(file, up.name, up.size, up.mime);
  const rowData = { kind: kindOf(up.name, up.mime), storage_key: up.key, mime_type: mimeOf(up.name, up.mime), size: up.size, metadata, updated_at: new Date() };
  try {
    const m = await withTenant(svc.db.app, tenantId, async (trx) => {
      const cur = await trx('catalogue_media').where({ [col]: id, name: up.name }).first('id');
      if (cur) return (await trx('catalogue_media').where({ id: cur.id }).update(rowData).returning('*'))[0];
      return (await trx('catalogue_media').insert({ tenant_id: tenantId, [col]: id, name: up.name, ...rowData }).returning('*'))[0];
    });
    return mediaView(m);
  } catch (err) {
    await store.delete(up.key);
    if (pgCode(err) === PG.FOREIGN_KEY_VIOLATION) throw new NotFoundError(what);
    throw err;
  }
}

/** Media files of a recording or product, by name. */
export async function listCatalogueMedia(trx: Trx, owner: MediaOwner, id: string) {
  const { table, col, what } = OWNER[owner];
  if (!(await trx(table).where({ id }).first('id'))) throw new NotFoundError(what);
  return (await trx('catalogue_media').where({ [col]: id }).orderBy('name')).map(mediaView);
}

/** Delete a media file (record and stored bytes) by name; returns the name. */
export async function deleteCatalogueMedia(trx: Trx, svc: Pick<AppServices, 'cfg'>, owner: MediaOwner, id: string, name: string): Promise<string> {
  const { col } = OWNER[owner];
  const m = await trx('catalogue_media').where({ [col]: id, name }).first();
  if (!m) throw new NotFoundError('Media');
  await trx('catalogue_media').where({ id: m.id }).delete();
  await objectStore(svc.cfg).delete(m.storage_key);
  return m.name as string;
}

/** 404 unless the release exists; 400 RELEASE_LOCKED unless it may be edited (draft, rejected). */
async function editableRelease(trx: Trx, releaseId: string): Promise<void> {
  const r = await trx('releases').where({ id: releaseId }).first('status');
  if (!r) throw new NotFoundError('Release', 'RELEASE_NOT_FOUND');
  if (!EDITABLE_STATUSES.includes(r.status)) throw new ValidationError(`A ${r.status} release cannot be edited`, [`editable statuses: ${EDITABLE_STATUSES.join(', ')}`], 'RELEASE_LOCKED');
}

/** Release artwork: an image, kept as the release's media file of that name (a file of the same name is replaced). */
export async function uploadReleaseArtwork(svc: Pick<AppServices, 'db' | 'cfg'>, tenantId: number, releaseId: string, receive: (keyPrefix: string) => Promise<StoredUpload>) {
  await withTenant(svc.db.app, tenantId, (trx) => editableRelease(trx, releaseId));
  return uploadCatalogueMedia(svc, tenantId, 'release', releaseId, receive, { kinds: ['image'], what: 'image' });
}

const ONE_MEDIA = () => new ValidationError('A track holds at most one audio or video file', ['remove the current media first'], 'TRACK_MEDIA_EXISTS');

/**
 * Link an audio or video file to a track: 404/400 before any outbound request, then the
 * link is checked (outbound guard applies) and stored for processing.
 */
export async function linkTrackMedia(
  svc: Pick<AppServices, 'db' | 'cfg'>, tenantId: number, releaseId: string, trackId: string,
  body: { url: string; name?: string; type?: 'audio' | 'video' },
) {
  await withTenant(svc.db.app, tenantId, async (trx) => {
    const t = await trx('tracks').where({ id: trackId, release_id: releaseId }).first('id');
    if (!t) throw new NotFoundError('Track', 'TRACK_NOT_FOUND');
    if (await trx('track_media').where({ track_id: trackId }).first('id')) throw ONE_MEDIA();
  });
  const link = await checkTrackLink(body.url, body.type, body.name, svc.cfg.allowPrivateOutbound);
  try {
    const m = await withTenant(svc.db.app, tenantId, async (trx) => {
      const [row] = await trx('track_media')
        .insert({
          tenant_id: tenantId, release_id: releaseId, track_id: trackId, type: link.type, name: link.name, url: body.url, is_link: true,
          release_path: `releases/${releaseId}/tracks/${trackId}/${link.name}`, processing_status: 'pending',
          metadata: { duration: null, bitrate: null, sampleRate: null, channels: null, codec: null, fileSize: link.fileSize, mimeType: link.mimeType, processedAt: null, linkValidated: true },
        })
        .returning('*');
      return row;
    });
    return trackMediaView(m);
  } catch (err) {
    if (pgCode(err) === PG.UNIQUE_VIOLATION) throw ONE_MEDIA();
    if (pgCode(err) === PG.FOREIGN_KEY_VIOLATION) throw new NotFoundError('Track', 'TRACK_NOT_FOUND');
    throw err;
  }
}

/** The media record of a track. */
export async function getTrackMedia(trx: Trx, releaseId: string, trackId: string) {
  const m = await trx('track_media').where({ track_id: trackId, release_id: releaseId }).first();
  if (!m) throw new NotFoundError('Track media');
  return trackMediaView(m);
}

/** Remove the media record of a track, and its stored file when it was uploaded. */
export async function removeTrackMedia(trx: Trx, svc: Pick<AppServices, 'cfg'>, releaseId: string, trackId: string): Promise<void> {
  const [m] = await trx('track_media').where({ track_id: trackId, release_id: releaseId }).delete().returning('storage_key');
  if (!m) throw new NotFoundError('Track media');
  if (m.storage_key) await objectStore(svc.cfg).delete(m.storage_key);
}

/** The stored objects of a release (artwork, uploaded track files): to remove once the release is deleted. */
export async function releaseObjects(trx: Trx, releaseId: string): Promise<string[]> {
  const art = await trx('catalogue_media').where({ release_id: releaseId }).pluck('storage_key');
  const tracks = await trx('track_media').where({ release_id: releaseId }).whereNotNull('storage_key').pluck('storage_key');
  return [...art, ...tracks];
}

/** Where a track's uploaded file is served (its record's cloudUrl). */
export function trackFilePath(releaseId: string, trackId: string): string {
  return `/releases/${releaseId}/tracks/${trackId}/media/file`;
}

/**
 * Upload a track's audio or video file: 404/400 (track, release locked, media already there)
 * before the body is read; the file streams to the object store, anything but audio or video is
 * refused and removed; its metadata is read from the stored object; the record is processed at once.
 */
export async function uploadTrackMedia(svc: Pick<AppServices, 'db' | 'cfg'>, tenantId: number, releaseId: string, trackId: string, receive: (keyPrefix: string) => Promise<StoredUpload>) {
  await withTenant(svc.db.app, tenantId, async (trx) => {
    await editableRelease(trx, releaseId);
    if (!(await trx('tracks').where({ id: trackId, release_id: releaseId }).first('id'))) throw new NotFoundError('Track', 'TRACK_NOT_FOUND');
    if (await trx('track_media').where({ track_id: trackId }).first('id')) throw ONE_MEDIA();
  });
  const up = await receive(`tenants/${tenantId}/releases/${releaseId}/tracks/${trackId}`);
  const store = objectStore(svc.cfg);
  const kind = kindOf(up.name, up.mime);
  try {
    if (kind !== 'audio' && kind !== 'video') throw new ValidationError('Only audio and video files are accepted for tracks', [`${up.name} is ${kind}`], 'UNSUPPORTED_MEDIA_TYPE');
    const file = store instanceof LocalObjectStore ? store.localPath(up.key) : () => store.getStream(up.key);
    const md = await extractMetadata(file, up.name, up.size, up.mime);
    const m = await withTenant(svc.db.app, tenantId, async (trx) => {
      const [row] = await trx('track_media')
        .insert({
          tenant_id: tenantId, release_id: releaseId, track_id: trackId, type: kind, name: up.name, url: `${svc.cfg.publicUrl.replace(/\/$/, '')}${trackFilePath(releaseId, trackId)}`,
          is_link: false, storage_key: up.key, release_path: `releases/${releaseId}/tracks/${trackId}/${up.name}`, processing_status: 'processed',
          metadata: { ...md, linkValidated: false },
        })
        .returning('*');
      return row;
    });
    return trackMediaView(m);
  } catch (err) {
    await store.delete(up.key);
    if (pgCode(err) === PG.UNIQUE_VIOLATION) throw ONE_MEDIA();
    if (pgCode(err) === PG.FOREIGN_KEY_VIOLATION) throw new NotFoundError('Track', 'TRACK_NOT_FOUND');
    throw err;
  }
}

/** The stored file of a track (404 when the track's media is a link or absent). */
export async function trackFile(trx: Trx, releaseId: string, trackId: string): Promise<{ key: string; name: string; mime: string }> {
  const m = await trx('track_media').where({ track_id: trackId, release_id: releaseId }).first();
  if (!m?.storage_key) throw new NotFoundError('Track file');
  return { key: m.storage_key, name: m.name, mime: mimeOf(m.name, (m.metadata as { mimeType?: string })?.mimeType ?? null) };
}
