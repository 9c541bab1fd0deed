/**
 * Release, track and media routes. Catalogue error shape.
 * Reads: guest+; create/update/submit/feedback/tracks/media link: user+; review: admin+;
 * delete: admin+. Asset/product media upload and delete: admin+.
 */
import type Router from '@koa/router';
import path from 'node:path';
import { checkingOwnership, defineRoutes, route } from '../../http/route';
import { DataAnswer, PageQuery, Strict, Type, Uuid } from '../../http/schema';
import type { AppServices } from '../../services';
import { ValidationError } from '../../lib/errors';
import { objectStore } from '../../lib/storage';
import { IdParams } from '../catalogue/schemas';
import * as R from './service';
import { assertOwnItemOfPath } from '../catalogue/common';
import * as M from './media-service';
import { isMultipart, receiveMultipart, receiveRaw, UPLOAD_LIMITS, type UploadSource } from '../../http/upload';
import { storageRoom } from '../../http/quota';
import * as Res from './responses';

const Str = (max = 500) => Type.String({ maxLength: max });
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
const TrackBody = Strict({
  title: Type.String({ minLength: 1, maxLength: 500 }),
  asset: Type.Optional(Type.Union([Uuid, Type.Null()])),
  isrc: Type.Optional(Nullable(Str(40))),
  position: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  explicit: Type.Optional(Type.Boolean()),
  metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});
const ReleaseProps = {
  title: Type.String({ minLength: 1, maxLength: 500 }),
  artistName: Type.Optional(Nullable(Str())),
  artist: Type.Optional(Type.Union([Uuid, Type.Null()])),
  product: Type.Optional(Type.Union([Uuid, Type.Null()])),
  type: Type.Optional(Str(50)),
  format: Type.Optional(Str(50)),
  releaseDate: Type.Optional(Nullable(Type.String({ format: 'date' }))),
  upc: Type.Optional(Nullable(Str(40))),
  label: Type.Optional(Nullable(Str())),
  genre: Type.Optional(Type.Array(Str(100), { maxItems: 20 })),
  metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
};
const ReleaseBody = Strict({ ...ReleaseProps, tracks: Type.Optional(Type.Array(TrackBody, { maxItems: 200 })) });
const ReleasePatch = Type.Partial(Strict(ReleaseProps), { additionalProperties: false, minProperties: 1 });
const TrackParams = Type.Object({ id: Uuid, trackId: Uuid });

/** Stream the single file part of a multipart body (or a raw body with ?name=) to the store. */
async function receiveUpload(src: UploadSource, rawName: string, svc: AppServices, tenantId: number, keyPrefix: string): Promise<{ name: string; key: string; size: number; mime: string | null }> {
  const store = objectStore(svc.cfg);
  const quota = await storageRoom(svc.db.owner, tenantId); // the plan's storage limit: nothing past it is kept
  if (!isMultipart(src.headers)) {
    const name = sanitize(rawName);
    if (!name) throw new ValidationError('Upload needs a file', ['send multipart/form-data with a "file" part, or a raw body with ?name='], 'NO_FILE');
    const key = `${keyPrefix}/${name}`;
    const st = await receiveRaw(src, store, key, UPLOAD_LIMITS.mediaBytes, quota);
    return { name, key, size: st.size, mime: String(src.headers['content-type'] ?? '') || null };
  }
  const { file } = await receiveMultipart(src, store, (_id, fileName) => (sanitize(fileName) ? `${keyPrefix}/${sanitize(fileName)}` : null), {
    fileField: null,
    maxBytes: UPLOAD_LIMITS.mediaBytes,
    requireFile: { code: 'NO_FILE', message: 'Upload needs a file' },
    quota,
  });
  if (!file) throw new ValidationError('Upload needs a file', ['multipart body has no "file" part'], 'NO_FILE');
  return { name: sanitize(file.fileName), key: file.key, size: file.size, mime: file.contentType };
}

function sanitize(name: string): string {
  return path.basename(name.replace(/\\/g, '/')).replace(/[^\w.\- ()]/g, '_').slice(0, 200).replace(/^\.+/, '');
}

function mediaRoutes(svc: AppServices, entity: 'asset' | 'product') {
  return [
    route({
      method: 'post', path: `/${entity}/:id/media`, responses: { 201: DataAnswer(Res.MediaView, true) }, summary: `Upload a media file of a ${entity} (multipart "file"); streams to the object store, metadata extracted (admin)`,
      access: 'admin', status: 201, params: IdParams, rawBody: true, noTransaction: true,
      // a raw (not multipart) body names its file here
      query: Type.Object({ name: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'File name of a raw (not multipart) body', examples: ['cover.jpg'] })) }),
      async handler({ ctx, tenantId, params, query }) {
        const data = await M.uploadCatalogueMedia(svc, tenantId, entity, params.id, (prefix) =>
          receiveUpload({ stream: ctx.req, headers: ctx.req.headers }, query.name ?? '', svc, tenantId, prefix));
        return { success: true, message: 'Media uploaded', data };
      },
    }),
    route({
      method: 'get', path: `/${entity}/:id/media`, responses: { 200: DataAnswer(Type.Array(Res.MediaView), true) }, summary: `Media files of a ${entity}`, access: 'guest', params: IdParams,
      async handler({ trx, params }) {
        return { success: true, message: 'Media', data: await M.listCatalogueMedia(trx, entity, params.id) };
      },
    }),
    route({
      method: 'delete', path: `/${entity}/:id/media/:mediaName`, responses: { 200: DataAnswer(Type.Object({ name: Type.String() }), true) }, summary: `Delete a media file of a ${entity} by name (admin)`, access: 'admin',
      params: Type.Object({ id: Uuid, mediaName: Type.String({ minLength: 1, maxLength: 300 }) }),
      async handler({ trx, params }) {
        const name = await M.deleteCatalogueMedia(trx, svc, entity, params.id, params.mediaName);
        return { success: true, message: 'Media deleted', data: { name } };
      },
    }),
  ];
}

export function registerReleaseRoutes(router: Router, svc: AppServices): void {
  defineRoutes(router, svc, { tag: 'Media', errorShape: 'catalogue', scope: 'own' }, checkingOwnership([...mediaRoutes(svc, 'asset'), ...mediaRoutes(svc, 'product')], assertOwnItemOfPath));
  defineRoutes(router, svc, { tag: 'Release', errorShape: 'catalogue', scope: 'own' }, checkingOwnership([
    route({
      method: 'post', path: '/releases', responses: { 201: Res.PostReleases }, summary: 'Create a release (draft), optionally with tracks; writes in-app notifications', access: 'user', status: 201, body: ReleaseBody,
      async handler({ trx, tenantId, auth, body }) {
        return { success: true, message: 'Release created', data: await R.createRelease(trx, tenantId, auth, body) };
      },
    }),
    route({
      method: 'get', path: '/releases', responses: { 200: Res.GetReleases }, summary: 'List releases (paged; search title/artist/UPC; filter by status, artist)', access: 'guest',
      query: Type.Object({ ...PageQuery, status: Type.Optional(Type.Union(R.RELEASE_STATUSES.map((s) => Type.Literal(s)))), artist: Type.Optional(Uuid) }),
      async handler({ trx, auth, query }) {
        return { success: true, message: 'Releases', ...(await R.listReleases(trx, auth, query)) };
      },
    }),
    route({
      method: 'get', path: '/releases/stats', responses: { 200: Res.GetReleasesStats }, summary: 'Release counts by status, and tracks', access: 'guest',
      async handler({ trx, auth }) {
        return { success: true, message: 'Release stats', data: await R.releaseStats(trx, auth) };
      },
    }),
    route({
      method: 'get', path: '/releases/:id', responses: { 200: Res.GetReleasesById }, summary: 'One release with its tracks', access: 'guest', params: IdParams,
      async handler({ trx, params }) {
        return { success: true, message: 'Release', data: await R.getRelease(trx, params.id) };
      },
    }),
    route({
      method: 'put', path: '/releases/:id', responses: { 200: Res.PutReleasesById }, summary: 'Update a release (draft or rejected only)', access: 'user', params: IdParams, body: ReleasePatch,
      async handler({ trx, params, body }) {
        return { success: true, message: 'Release updated', data: await R.updateRelease(trx, params.id, body) };
      },
    }),
    route({
      method: 'delete', path: '/releases/:id', responses: { 200: Res.DeleteReleasesById }, summary: 'Delete a release with its tracks and media records (admin)', access: 'admin', params: IdParams,
      async handler({ trx, params }) {
        await R.deleteRelease(trx, params.id);
        return { success: true, message: 'Release deleted', data: { id: params.id } };
      },
    }),
    route({
      method: 'post', path: '/releases/:id/submit', responses: { 200: Res.PostReleasesByIdSubmit }, summary: 'Submit: draft|rejected → submitted (needs a track)', access: 'user', params: IdParams,
      body: Strict({ message: Type.Optional(Type.String({ maxLength: 5000 })) }),
      async handler({ trx, tenantId, auth, params, body }) {
        return { success: true, message: 'Release submitted', data: await R.submitRelease(trx, tenantId, auth, params.id, body.message) };
      },
    }),
    route({
      method: 'post', path: '/releases/:id/review', responses: { 200: Res.PostReleasesByIdReview }, summary: 'Review (admin): submitted → in_review|approved|rejected; in_review → approved|rejected', access: 'admin', params: IdParams,
      body: Strict({ status: Type.Union([Type.Literal('in_review'), Type.Literal('approved'), Type.Literal('rejected')]), message: Type.Optional(Type.String({ maxLength: 5000 })) }),
      async handler({ trx, tenantId, auth, params, body }) {
        return { success: true, message: `Release ${body.status.replace('_', ' ')}`, data: await R.reviewRelease(trx, tenantId, auth, params.id, body.status, body.message) };
      },
    }),
    route({
      method: 'post', path: '/releases/:id/feedback', responses: { 200: Res.PostReleasesByIdFeedback }, summary: 'Leave feedback; admins may send a submitted/in_review release back to draft (requestChanges)', access: 'user', params: IdParams,
      body: Strict({ message: Type.String({ minLength: 1, maxLength: 5000 }), requestChanges: Type.Optional(Type.Boolean()) }),
      async handler({ trx, tenantId, auth, params, body }) {
        return { success: true, message: 'Feedback recorded', data: await R.feedbackRelease(trx, tenantId, auth, params.id, body.message, body.requestChanges) };
      },
    }),
    route({
      method: 'get', path: '/releases/:id/feedback', responses: { 200: Res.GetReleasesByIdFeedback }, summary: 'Status moves and feedback of a release, oldest first', access: 'guest', params: IdParams,
      async handler({ trx, params }) {
        return { success: true, message: 'Release feedback', data: await R.releaseEvents(trx, params.id) };
      },
    }),
    route({
      method: 'post', path: '/releases/:id/tracks', responses: { 201: Res.PostReleasesByIdTracks }, summary: 'Add a track (writes an in-app notification)', access: 'user', status: 201, params: IdParams, body: TrackBody,
      async handler({ trx, tenantId, auth, params, body }) {
        return { success: true, message: 'Track created', data: await R.addTrack(trx, tenantId, auth, params.id, body) };
      },
    }),
    route({
      method: 'put', path: '/releases/:id/tracks/:trackId', responses: { 200: Res.PostReleasesByIdTracks }, summary: 'Update a track', access: 'user', params: TrackParams, body: Type.Partial(TrackBody, { additionalProperties: false, minProperties: 1 }),
      async handler({ trx, params, body }) {
        return { success: true, message: 'Track updated', data: await R.updateTrack(trx, params.id, params.trackId, body) };
      },
    }),
    route({
      method: 'delete', path: '/releases/:id/tracks/:trackId', responses: { 200: DataAnswer(Type.Object({ id: Type.String() }), true) }, summary: 'Delete a track', access: 'user', params: TrackParams,
      async handler({ trx, params }) {
        await R.deleteTrack(trx, params.id, params.trackId);
        return { success: true, message: 'Track deleted', data: { id: params.trackId } };
      },
    }),
    route({
      method: 'post', path: '/releases/:id/tracks/:trackId/media/link', responses: { 200: Res.PostReleasesByIdTracksByTrackIdMediaLink }, summary: 'Link an audio or video file to a track (one per track; link validated, stored for processing)', access: 'user', params: TrackParams, noTransaction: true,
      body: Strict({ url: Type.String({ format: 'uri', maxLength: 2000 }), name: Type.Optional(Type.String({ minLength: 1, maxLength: 300 })), type: Type.Optional(Type.Union([Type.Literal('audio'), Type.Literal('video')])) }),
      async handler({ tenantId, params, body }) {
        return { success: true, message: 'Media link stored for processing', data: await M.linkTrackMedia(svc, tenantId, params.id, params.trackId, body) };
      },
    }),
    route({
      method: 'get', path: '/releases/:id/tracks/:trackId/media', responses: { 200: Res.GetReleasesByIdTracksByTrackIdMedia }, summary: 'The media record of a track', access: 'guest', params: TrackParams,
      async handler({ trx, params }) {
        return { success: true, message: 'Track media', data: await M.getTrackMedia(trx, params.id, params.trackId) };
      },
    }),
    route({
      method: 'delete', path: '/releases/:id/tracks/:trackId/media', responses: { 200: Res.DeleteReleasesByIdTracksByTrackIdMedia }, summary: 'Remove the media of a track', access: 'user', params: TrackParams,
      async handler({ trx, params }) {
        await M.removeTrackMedia(trx, params.id, params.trackId);
        return { success: true, message: 'Track media removed', data: null };
      },
    }),
  ], (trx, auth, path, params) => (path.startsWith('/releases/:id') ? R.assertReleaseVisible(trx, auth, params.id!) : Promise.resolve())));
}
