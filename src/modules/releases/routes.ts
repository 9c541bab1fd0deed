/**
 * Release, track and media routes. Catalogue error shape.
 * Reads: guest+; create/update/submit/feedback/tracks/media link: user+; review: admin+;
 * delete: admin+. Asset/product media upload and delete: admin+.
 */
import { sortQuery } from '../../http/list-sort';
import type Router from '@koa/router';
import path from 'node:path';
import { checkingOwnership, defineRoutes, route } from '../../http/route';
import { DataAnswer, PageQuery, Strict, Type, Uuid, type TSchema } from '../../http/schema';
import type { AppServices } from '../../services';
import { ValidationError } from '../../lib/errors';
import { isObject, type ReferenceNames } from '../../http/reference-names';
import { objectStore } from '../../lib/storage';
import { IdParams } from '../catalogue/schemas';
import * as R from './service';
import { assertOwnItemOfPath } from '../catalogue/common';
import * as M from './media-service';
import { isMultipart, receiveMultipart, receiveRaw, UPLOAD_LIMITS, type UploadSource } from '../../http/upload';
import { storageRoom } from '../../domain/quota';
import * as Res from './responses';

const Str = (max = 500) => Type.String({ maxLength: max });
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
const TrackBody = Strict({
  title: Type.String({ minLength: 1, maxLength: 500 }),
  asset: Type.Optional(Type.Union([Uuid, Type.Null()])),
  isrc: Type.Optional(Nullable(Str(40))),
  ISRC: Type.Optional(Nullable(Type.String({ maxLength: 40, description: 'the reference service\'s spelling of isrc (not both)' }))),
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

/** Stream the one multipart part named `field` to the store (multipart only). */
async function receivePart(src: UploadSource, field: string, svc: AppServices, tenantId: number, keyPrefix: string): Promise<{ name: string; key: string; size: number; mime: string | null }> {
  const quota = await storageRoom(svc.db.owner, tenantId);
  const { file } = await receiveMultipart(src, objectStore(svc.cfg), (_id, fileName) => (sanitize(fileName) ? `${keyPrefix}/${sanitize(fileName)}` : null), {
    fileField: field,
    maxBytes: UPLOAD_LIMITS.mediaBytes,
    requireFile: { code: 'NO_FILE', message: `Upload needs a "${field}" part with a file name` },
    quota,
  });
  return { name: sanitize(file!.fileName), key: file!.key, size: file!.size, mime: file!.contentType };
}

/** The reference service's `ISRC` is Rondo's `isrc`: either, not two different ones. */
function oneIsrc<T extends { isrc?: string | null; ISRC?: string | null }>(b: T): Omit<T, 'ISRC'> {
  const { ISRC, ...rest } = b;
  if (ISRC === undefined) return rest;
  if (rest.isrc !== undefined && rest.isrc !== ISRC) throw new ValidationError('isrc and ISRC differ', ['send one of isrc and ISRC'], 'INVALID_ISRC');
  return { ...rest, isrc: ISRC };
}

/** A track answered with the reference's `ISRC` beside `isrc` (its body takes either: TrackBody, oneIsrc). */
const withIsrc = (t: unknown) => (isObject(t) && 'isrc' in t && !('ISRC' in t) ? { ...t, ISRC: t.isrc } : t);
const TRACK_NAMES: ReferenceNames = { rename: {}, about: 'ISRC is isrc (the body takes either, not two different ones); answers carry both.', answer: (t) => withIsrc(t) as Record<string, unknown> };
/** A release in the reference's product/release names: UPC, release_date, display_artist; its tracks answered with ISRC. */
const RELEASE_NAMES: ReferenceNames = {
  rename: { UPC: 'upc', release_date: 'releaseDate', display_artist: 'artistName' },
  about: "UPC, release_date and display_artist are upc, releaseDate and artistName; tracks take ISRC for isrc. Answers carry both names, the tracks' ISRC too.",
  answer: (r) => (Array.isArray(r.tracks) ? { ...r, tracks: r.tracks.map(withIsrc) } : r),
};

const MediaFile = Type.Object({
  id: Uuid, name: Type.String(), kind: Type.String({ examples: ['image'] }), mimeType: Type.String({ examples: ['image/png'] }), size: Type.Integer(),
  metadata: Type.Record(Type.String(), Type.Unknown()), storageKey: Type.String(), createdAt: Type.String({ format: 'date-time' }), updatedAt: Type.String({ format: 'date-time' }),
});
const N = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
const TrackMedia = Type.Object({
  cloudId: Uuid, cloudUrl: Type.String(), type: Type.String({ examples: ['audio'] }), name: Type.String(), isLink: Type.Boolean(), releasePath: Type.String(), processingStatus: Type.String({ examples: ['processed'] }),
  metadata: Type.Object({
    duration: N(Type.Number()), bitrate: N(Type.String()), sampleRate: N(Type.String()), channels: N(Type.String()), codec: N(Type.String()),
    fileSize: N(Type.Integer()), mimeType: N(Type.String()), processedAt: N(Type.String()), linkValidated: Type.Boolean(),
  }),
  createdAt: N(Type.String({ format: 'date-time' })),
});
const Track = Type.Object({
  id: Uuid, release: Uuid, asset: N(Uuid), title: Type.String(), isrc: N(Type.String()), position: Type.Integer(), explicit: Type.Boolean(),
  metadata: Type.Record(Type.String(), Type.Unknown()), createdAt: Type.String({ format: 'date-time' }), updatedAt: Type.String({ format: 'date-time' }),
});
const Answer = <T extends TSchema>(data: T) => Type.Object({ success: Type.Literal(true), message: Type.String(), data });
const ReleaseAnswer = Answer(Type.Object({ id: Uuid, status: Type.Union(R.RELEASE_STATUSES.map((st) => Type.Literal(st))) }, { additionalProperties: true, description: 'the release (as GET /releases/{id} answers it)' }));
const Stats = Type.Object({
  releaseId: Uuid,
  status: Type.Union(R.RELEASE_STATUSES.map((st) => Type.Literal(st))),
  tracks: Type.Integer(),
  tracksWithMedia: Type.Integer({ description: 'tracks with an audio or video file or link' }),
  tracksWithUploadedFile: Type.Integer(),
  tracksWithIsrc: Type.Integer(),
  durationSeconds: Type.Union([Type.Number(), Type.Null()], { description: 'sum of the known track durations; null when none is known' }),
  artworkFiles: Type.Integer(),
  feedback: Type.Integer({ description: 'status moves and feedback messages' }),
  submittedAt: N(Type.String({ format: 'date-time' })),
  reviewedAt: N(Type.String({ format: 'date-time' })),
});
const Decision = Strict({ message: Type.Optional(Type.String({ maxLength: 5000 })), reason: Type.Optional(Type.String({ maxLength: 5000, description: 'the same as message (either)' })) });

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
      method: 'post', path: '/releases', responses: { 201: Res.PostReleases }, summary: 'Create a release (draft), optionally with tracks; writes in-app notifications', access: 'user', status: 201, body: ReleaseBody, referenceNames: RELEASE_NAMES,
      async handler({ trx, tenantId, auth, body }) {
        return { success: true, message: 'Release created', data: await R.createRelease(trx, tenantId, auth, { ...body, tracks: body.tracks?.map(oneIsrc) }) };
      },
    }),
    route({
      method: 'get', path: '/releases', responses: { 200: Res.GetReleases }, summary: 'List releases (paged; search title/artist/UPC; filter by status, artist)', access: 'guest', referenceNames: RELEASE_NAMES,
      query: Type.Object({ page: PageQuery.page, size: PageQuery.size, ...sortQuery(R.RELEASE_SORT, 'createdAt', "Part of the title or the artist's name, or the UPC"), status: Type.Optional(Type.Union(R.RELEASE_STATUSES.map((s) => Type.Literal(s)))), artist: Type.Optional(Uuid) }),
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
      method: 'get', path: '/releases/:id', responses: { 200: Res.GetReleasesById }, summary: 'One release with its tracks', access: 'guest', params: IdParams, referenceNames: RELEASE_NAMES,
      async handler({ trx, params }) {
        return { success: true, message: 'Release', data: await R.getRelease(trx, params.id) };
      },
    }),
    route({
      method: 'put', path: '/releases/:id', responses: { 200: Res.PutReleasesById }, summary: 'Update a release (draft or rejected only)', access: 'user', params: IdParams, body: ReleasePatch, referenceNames: RELEASE_NAMES,
      async handler({ trx, params, body }) {
        return { success: true, message: 'Release updated', data: await R.updateRelease(trx, params.id, body) };
      },
    }),
    route({
      method: 'delete', path: '/releases/:id', responses: { 200: Res.DeleteReleasesById }, summary: 'Delete a release with its tracks and media records (admin)', access: 'admin', params: IdParams,
      async handler({ trx, params }) {
        const objects = await M.releaseObjects(trx, params.id);
        await R.deleteRelease(trx, params.id);
        for (const key of objects) await objectStore(svc.cfg).delete(key);
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
      method: 'post', path: '/releases/:id/review', summary: 'Review (admin): submitted → in_review|approved|rejected; in_review → approved|rejected. No body (or no status): submitted → in_review', access: 'admin', params: IdParams,
      body: Strict({ status: Type.Optional(Type.Union([Type.Literal('in_review'), Type.Literal('approved'), Type.Literal('rejected')])), message: Type.Optional(Type.String({ maxLength: 5000 })) }),
      responses: { 200: ReleaseAnswer },
      async handler({ trx, tenantId, auth, params, body }) {
        const to = body.status ?? 'in_review';
        return { success: true, message: `Release ${to.replace('_', ' ')}`, data: await R.reviewRelease(trx, tenantId, auth, params.id, to, body.message) };
      },
    }),
    route({
      method: 'post', path: '/releases/:id/approve', summary: 'Approve (admin): submitted | in_review → approved; optional message (or reason)', access: 'admin', params: IdParams, body: Decision,
      responses: { 200: ReleaseAnswer },
      async handler({ trx, tenantId, auth, params, body }) {
        return { success: true, message: 'Release approved', data: await R.reviewRelease(trx, tenantId, auth, params.id, 'approved', body.message ?? body.reason) };
      },
    }),
    route({
      method: 'post', path: '/releases/:id/reject', summary: 'Reject (admin): submitted | in_review → rejected; optional message (or reason), sent to the submitter', access: 'admin', params: IdParams, body: Decision,
      responses: { 200: ReleaseAnswer },
      async handler({ trx, tenantId, auth, params, body }) {
        return { success: true, message: 'Release rejected', data: await R.reviewRelease(trx, tenantId, auth, params.id, 'rejected', body.message ?? body.reason) };
      },
    }),
    route({
      method: 'get', path: '/releases/:id/stats', summary: 'One release in figures: tracks, their media and ISRCs, duration, artwork, feedback (royalties: GET /releases/{id}/analytics)', access: 'guest', params: IdParams,
      responses: { 200: Answer(Stats) },
      async handler({ trx, params }) {
        return { success: true, message: 'Release stats', data: await R.releaseStatsOf(trx, params.id) };
      },
    }),
    route({
      method: 'post', path: '/releases/:id/media/files', summary: 'Upload the release artwork (multipart "files": one image; a file of the same name is replaced); draft or rejected releases', access: 'user', status: 201, params: IdParams, rawBody: true, noTransaction: true,
      responses: { 201: Answer(Type.Array(MediaFile)) },
      async handler({ ctx, tenantId, params }) {
        const m = await M.uploadReleaseArtwork(svc, tenantId, params.id, (prefix) => receivePart({ stream: ctx.req, headers: ctx.req.headers }, 'files', svc, tenantId, prefix));
        return { success: true, message: 'Artwork uploaded', data: [m] };
      },
    }),
    route({
      method: 'get', path: '/releases/:id/media', summary: 'The release artwork files', access: 'guest', params: IdParams,
      responses: { 200: Answer(Type.Array(MediaFile)) },
      async handler({ trx, params }) {
        return { success: true, message: 'Release media', data: await M.listCatalogueMedia(trx, 'release', params.id) };
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
      method: 'post', path: '/releases/:id/tracks', responses: { 201: Res.PostReleasesByIdTracks }, summary: 'Add a track (writes an in-app notification); isrc also as ISRC', access: 'user', status: 201, params: IdParams, body: TrackBody, referenceNames: TRACK_NAMES,
      async handler({ trx, tenantId, auth, params, body }) {
        return { success: true, message: 'Track created', data: await R.addTrack(trx, tenantId, auth, params.id, oneIsrc(body)) };
      },
    }),
    route({
      method: 'get', path: '/releases/:id/tracks', summary: 'The tracks of a release in order, each with its media record (or null)', access: 'guest', params: IdParams, referenceNames: TRACK_NAMES,
      responses: { 200: Answer(Type.Array(Type.Object({ ...Track.properties, media: N(TrackMedia) }))) },
      async handler({ trx, params }) {
        return { success: true, message: 'Tracks', data: await R.listTracks(trx, params.id) };
      },
    }),
    route({
      method: 'put', path: '/releases/:id/tracks/:trackId', responses: { 200: Res.PostReleasesByIdTracks }, summary: 'Update a track', access: 'user', params: TrackParams, referenceNames: TRACK_NAMES, body: Type.Partial(TrackBody, { additionalProperties: false, minProperties: 1 }),
      async handler({ trx, params, body }) {
        return { success: true, message: 'Track updated', data: await R.updateTrack(trx, params.id, params.trackId, oneIsrc(body)) };
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
      method: 'post', path: '/releases/:id/tracks/:trackId/media/file', summary: 'Upload the audio or video file of a track (multipart "file"; one per track; metadata read from the stored file); draft or rejected releases', access: 'user', status: 201, params: TrackParams, rawBody: true, noTransaction: true,
      responses: { 201: Answer(TrackMedia) },
      async handler({ ctx, tenantId, params }) {
        const data = await M.uploadTrackMedia(svc, tenantId, params.id, params.trackId, (prefix) => receivePart({ stream: ctx.req, headers: ctx.req.headers }, 'file', svc, tenantId, prefix));
        return { success: true, message: 'Track file uploaded', data };
      },
    }),
    route({
      method: 'get', path: '/releases/:id/tracks/:trackId/media/file', summary: "The track's uploaded file (its media record's cloudUrl); 404 for a link", access: 'guest', params: TrackParams,
      responses: { 200: Type.String({ description: 'the file', contentMediaType: 'audio/wav', examples: ['RIFF…WAVEfmt …data…'] }) },
      async handler({ ctx, trx, params }) {
        const f = await M.trackFile(trx, params.id, params.trackId);
        ctx.type = f.mime;
        ctx.set('Content-Disposition', `attachment; filename="${f.name.replace(/"/g, '')}"`);
        ctx.set('X-Content-Type-Options', 'nosniff');
        ctx.body = await objectStore(svc.cfg).getStream(f.key);
        return undefined;
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
        await M.removeTrackMedia(trx, svc, params.id, params.trackId);
        return { success: true, message: 'Track media removed', data: null };
      },
    }),
  ], (trx, auth, path, params) => (path.startsWith('/releases/:id') ? R.assertReleaseVisible(trx, auth, params.id!) : Promise.resolve())));
}
