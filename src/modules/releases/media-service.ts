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

export type MediaOwner = 'asset' | 'product';
export interface StoredUpload { name: string; key: string; size: number; mime: string | null }

const OWNER = {
  asset: { table: 'assets', col: 'asset_id', what: 'Asset' },
  product: { table: 'products', col: 'product_id', what: 'Product' },
} as const;

/**
 * Upload a media file of a recording or product: 404 before reading the body when the owner
 * does not exist; `receive` streams the body to the store under the given key prefix; the
 * metadata is read from the stored file; a file of the same name is replaced.
 */
export async function uploadCatalogueMedia(
  svc: Pick<AppServices, 'db' | 'cfg'>, tenantId: number, owner: MediaOwner, id: string,
  receive: (keyPrefix: string) => Promise<StoredUpload>,
) {
  const { table, col, what } = OWNER[owner];
  const exists = await withTenant(svc.db.app, tenantId, (trx) => trx(table).where({ id }).first('id'));
  if (!exists) throw new NotFoundError(what);
  const up = await receive(`tenants/${tenantId}/${table}/${id}`);
  const store = objectStore(svc.cfg);
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

/** Remove the media record of a track. */
export async function removeTrackMedia(trx: Trx, releaseId: string, trackId: string): Promise<void> {
  if (!(await trx('track_media').where({ track_id: trackId, release_id: releaseId }).delete())) throw new NotFoundError('Track media');
}
