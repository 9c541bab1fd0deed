/**
 * File routes (docs/ingestion.md, docs/uploads.md) and GET /file/sources. Errors in the catalogue shape;
 * success bodies `{success:true, message, data}`.
 */
import type Router from '@koa/router';
import { PassThrough } from 'node:stream';
import { dataRoute, defineRoutes, route } from '../../http/route';
import { DataAnswer, DateIn, PageQuery, Strict, Type, Uuid, type TSchema } from '../../http/schema';
import { sortQuery } from '../../http/list-sort';
import type { Trx } from '../../db';
import type { AppServices } from '../../services';
import { NotFoundError, UnauthorizedError, ValidationError } from '../../lib/errors';
import {
  deleteFileEverywhere, FILE_SORT, getFile, isOwnWorkspace, listFiles, optionsFrom,
  makeTheFile, registerStored, reprocessFile, rerunDecompress, resendPending, storageKey, store, uploadMessage,
} from './service';
import { adoptSignedUpload, assertUploadUnused, createUploadUrl, registeredFile } from './signed-upload';
import { receiveMultipart, receiveRaw, UPLOAD_LIMITS } from '../../http/upload';
import { assertStorageRoom, storageRoom } from '../../domain/quota';
import { streamErrors, streamFileEvents, visibleFile } from './streams';
import { fileSources } from '../sources/service';
import { confirmSession, DetectionAnswer, detectionSession, dropUploadIntent, ProcessingAnswer, processingJob, recordUploadIntent, SessionAnswer, uploadIntent } from './reference-flow';
import * as Res from './responses';

/** The cloud-drive routes of the spec only refuse (docs/decisions.md, "No cloud-drive import"). */
const DRIVE_REFUSAL =
  'Importing from a cloud drive is not available: download the statement from the drive and upload it here (several files or a zip at once), or let a script send it with a signed upload URL';

/** Statement ingestion: the file routes (the source/pattern routes are mounted just before, in modules/index.ts). */
export function registerIngestionRoutes(router: Router, svc: AppServices): void {
  registerFileRoutes(router, svc);
}

const IdParams = Type.Object({ id: Uuid });
/** The period an admin may give a file when naming or re-reading its source (dates, YYYY-MM-DD). */
const PERIOD_CHOICE = {
  periodStart: Type.Optional(DateIn()),
  periodEnd: Type.Optional(DateIn()),
  accountingPeriod: Type.Optional(DateIn()),
};
const Source = Type.String({ minLength: 1, maxLength: 200 });

/** POST /file/<action>/:id (admin): a file's source (pattern id, key or workspace source id) and optionally its period, then the file is read. */
function sourceChoiceRoute<C>(
  path: string, summary: string, source: TSchema, message: string,
  run: (svc: AppServices, trx: Trx, tenantId: number, id: string, choice: C) => Promise<unknown>,
) {
  return route({
    method: 'post', path, summary, access: 'admin', params: IdParams, body: Strict({ source, ...PERIOD_CHOICE }), responses: { 200: DataAnswer(Res.FileView, true) },
    async handler({ svc, trx, tenantId, params, body }) {
      return { success: true, message, data: await run(svc, trx, tenantId, params.id, body as C) };
    },
  });
}
const Bool = Type.Union([Type.Boolean(), Type.Literal('true'), Type.Literal('false')]);
const UploadOptionsProps = {
  autoProcessIfConfident: Type.Optional(Bool),
  forceManualConfirmation: Type.Optional(Bool),
  force: Type.Optional(Bool),
  reprocess: Type.Optional(Bool),
};
export function registerFileRoutes(router: Router, svc: AppServices): void {
  const uploadUrl = route({
    method: 'post',
    path: '/file/upload-url',
    responses: { 201: Res.PostFileUploadUrl },
    summary: 'A signed, expiring URL to PUT a statement to (then POST /file/createroyalty, or /file/confirm-upload-completion with the fileId): Rondo\'s own on the local store, a presigned S3 PUT on the S3 store. `url` and `uploadUrl` are the same URL',
    access: 'admin',
    status: 201,
    body: Strict({ fileName: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })), contentType: Type.Optional(Type.String({ maxLength: 200 })) }),
    async handler({ tenantId, auth, body }) {
      const u = await createUploadUrl(svc, tenantId, auth.tenantUserId);
      await recordUploadIntent(svc, tenantId, u.fileId, { fileName: body.fileName, contentType: body.contentType, by: auth.tenantUserId });
      return { success: true, message: 'Upload URL created', data: { ...u, url: u.uploadUrl } };
    },
  });

  /** A file PUT to a signed upload URL, registered (once: a second call answers the file) and its processing started. */
  async function registerSignedUpload(tenantId: number, by: string | null, fileId: string, fileName: string, contentType: string | null, o: Record<string, unknown>, done: string) {
    const existing = await registeredFile(svc, tenantId, fileId);
    if (existing) return { success: true, message: 'Already registered', data: existing };
    const st = await adoptSignedUpload(svc, tenantId, fileId, UPLOAD_LIMITS.statementBytes);
    await assertStorageRoom(svc.db.owner, tenantId, st.size, () => store(svc).delete(st.key)); // a direct-to-S3 upload is sized only now
    const options = optionsFrom(o);
    const newFile = { id: fileId, originalName: fileName, contentType, storageKey: st.key, size: st.size, sha256: st.sha256, options, uploadedBy: by };
    const r = await registerStored(svc, tenantId, newFile, false);
    await dropUploadIntent(svc, tenantId, fileId);
    return { success: true, message: uploadMessage(r, options, done), data: r };
  }

  defineRoutes(router, svc, { tag: 'Files', errorShape: 'catalogue' }, [
    route({
      method: 'post',
      path: '/file/royalty', responses: { 201: Res.PostFileRoyalty },
      summary: 'Upload a statement (multipart, field "file"; optional fields autoProcessIfConfident, forceManualConfirmation, reprocess (a duplicate re-reads its original in place), force (a duplicate replaces its original)). Streams to storage; answers at once',
      access: 'admin',
      status: 201,
      rawBody: true,
      noTransaction: true,
      query: Type.Object(UploadOptionsProps),
      async handler({ ctx, tenantId, auth, query }) {
        const { file, fields } = await receiveMultipart({ stream: ctx.req, headers: ctx.req.headers }, store(svc), (id) => storageKey(tenantId, id), {
          requireFile: { code: 'FILE_REQUIRED', message: 'No "file" part in the upload' },
          quota: await storageRoom(svc.db.owner, tenantId),
        });
        if (!file) throw new ValidationError('No "file" part in the upload', [], 'FILE_REQUIRED');
        const options = optionsFrom({ ...(query as Record<string, unknown>), ...fields });
        const r = await registerStored(svc, tenantId, { id: file.id, originalName: file.fileName, contentType: file.contentType, storageKey: file.key, size: file.size, sha256: file.sha256, options, uploadedBy: auth.tenantUserId });
        return { success: true, message: uploadMessage(r, options, 'File uploaded'), data: r };
      },
    }),
    uploadUrl,
    { ...uploadUrl, path: '/file/getuUloadurl', summary: 'Legacy alias of POST /file/upload-url' },
    route({
      method: 'put',
      path: '/file/upload/:token', responses: { 200: Res.PutFileUploadByToken },
      summary: 'The target of a signed upload URL: the raw request body is the file (streamed to storage)',
      access: 'public',
      rawBody: true,
      params: Type.Object({ token: Type.String({ minLength: 20, maxLength: 4000 }) }),
      async handler({ ctx, params }) {
        let claims: { sub: string; key: string; fid: string };
        try {
          claims = await svc.signer.verify<{ key: string; fid: string }>(params.token, 'upload');
        } catch {
          throw new UnauthorizedError('Invalid or expired upload URL', 'INVALID_UPLOAD_URL');
        }
        await assertUploadUnused(svc, Number(claims.sub), claims.fid);
        const r = await receiveRaw({ stream: ctx.req, headers: ctx.req.headers }, store(svc), claims.key, UPLOAD_LIMITS.statementBytes, await storageRoom(svc.db.owner, Number(claims.sub)));
        return { success: true, message: 'Stored; now POST /file/createroyalty', data: { fileId: claims.fid, key: claims.key, size: r.size, sha256: r.sha256 } };
      },
    }),
    route({
      method: 'post',
      path: '/file/createroyalty', responses: { 201: Res.PostFileCreateroyalty },
      summary: 'Register a statement PUT to a signed upload URL and start processing it',
      access: 'admin',
      status: 201,
      body: Strict({
        key: Type.Optional(Type.String({ maxLength: 600 })),
        fileId: Type.Optional(Uuid),
        fileName: Type.String({ minLength: 1, maxLength: 500 }),
        contentType: Type.Optional(Type.String({ maxLength: 200 })),
        ...UploadOptionsProps,
      }),
      noTransaction: true,
      async handler({ body, tenantId, auth }) {
        const m = body.key ? /^t(\d+)\/files\/([0-9a-f-]{36})\/original$/.exec(body.key) : null;
        const fileId = m ? m[2]! : body.fileId;
        if (!fileId || (m && Number(m[1]) !== tenantId)) throw new ValidationError('key or fileId must name an upload URL of this workspace', [], 'INVALID_UPLOAD_KEY');
        return registerSignedUpload(tenantId, auth.tenantUserId, fileId, body.fileName, body.contentType ?? null, body as Record<string, unknown>, 'File registered');
      },
    }),
    route({
      method: 'post',
      path: '/file/confirm-upload-completion',
      summary: 'The reference clients\' step after their PUT to an upload URL: registers the file under its fileId (the name given to POST /file/upload-url, unless fileName is sent) and starts its processing. Answers the file and its detection `sessionId` (the file id)',
      access: 'admin',
      status: 201,
      body: Strict({ fileId: Uuid, fileName: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })), contentType: Type.Optional(Type.String({ maxLength: 200 })), ...UploadOptionsProps }),
      noTransaction: true,
      responses: { 201: DataAnswer(SessionAnswer, true) },
      async handler({ body, tenantId, auth }) {
        const intent = await uploadIntent(svc, tenantId, body.fileId);
        const fileName = body.fileName ?? intent?.fileName ?? `statement-${body.fileId}`;
        const r = await registerSignedUpload(tenantId, auth.tenantUserId, body.fileId, fileName, body.contentType ?? intent?.contentType ?? null, body as Record<string, unknown>, 'Upload completed; detection started');
        return { ...r, data: { ...r.data, sessionId: r.data.id, jobId: null } };
      },
    }),
    route({
      method: 'post',
      path: '/file/upload-from-drive',
      summary: 'Import from a cloud drive: not offered (400 DRIVE_NOT_CONFIGURED; docs/decisions.md)',
      access: 'admin',
      rawBody: true,
      undocumented: true,
      handler() {
        throw new ValidationError(DRIVE_REFUSAL, [], 'DRIVE_NOT_CONFIGURED');
      },
    }),
    route({
      method: 'post',
      path: '/file/get-drive-signed-url',
      summary: 'Signed URL for a cloud drive: not offered (400 DRIVE_NOT_CONFIGURED; docs/decisions.md)',
      access: 'admin',
      rawBody: true,
      undocumented: true,
      handler() {
        throw new ValidationError(DRIVE_REFUSAL, [], 'DRIVE_NOT_CONFIGURED');
      },
    }),
    route({
      method: 'get',
      path: '/file/sources', responses: { 200: Res.GetFileSources },
      summary: 'Sources: includeAll=true (default) all active public sources; false the workspace\'s configured ones',
      access: 'user',
      scope: 'workspace',
      query: Type.Object({ includeAll: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')])) }),
      async handler({ trx, query }) {
        const data = await fileSources(svc, trx, query.includeAll !== 'false');
        return { success: true, message: 'Sources', data };
      },
    }),
    route({
      method: 'post',
      path: '/file/resend-pending-files', responses: { 200: Res.PostFileResendPendingFiles },
      summary: 'Re-queue every file of the workspace stuck before the end of the pipeline',
      access: 'admin',
      async handler({ trx, tenantId }) {
        const files = await resendPending(svc, trx, tenantId);
        return { success: true, message: `${files.length} file(s) re-queued`, data: { requeued: files.length, files } };
      },
    }),
    route({
      method: 'put',
      path: '/file/royalty/decompress/:tenant/:id', responses: { 200: Res.PutFileRoyaltyDecompressByTenantById },
      summary: 'Re-run decompression (and the steps after it) for a file',
      access: 'admin',
      params: Type.Object({ tenant: Type.String({ maxLength: 64 }), id: Uuid }),
      async handler({ trx, tenantId, params }) {
        if (!(await isOwnWorkspace(trx, tenantId, params.tenant))) throw new NotFoundError('File');
        return { success: true, message: 'Decompression queued', data: await rerunDecompress(svc, trx, tenantId, params.id) };
      },
    }),
    sourceChoiceRoute(
      '/file/reprocess/:id',
      'Read a file again in place (a duplicate upload: its original; an archive: its statements), with a new or corrected source or its own; its lines are replaced, never copied',
      Type.Optional(Source), 'File queued to be read again', reprocessFile,
    ),
    route({
      method: 'post',
      path: '/file/confirm-detection/:id',
      summary: 'Name the source of a file (pattern id, key or workspace source id) and optionally its period; queues the ingest. The reference clients\' {"confirmed": true} without a source confirms the detected one (a file already past its detection is answered as it is). Answers the file with its processing `jobId` (the file id)',
      access: 'admin',
      params: IdParams,
      body: Strict({ source: Type.Optional(Source), confirmed: Type.Optional(Type.Boolean()), ...PERIOD_CHOICE }),
      responses: { 200: DataAnswer(SessionAnswer, true) },
      async handler({ trx, tenantId, params, body }) {
        const { file: f, queued } = await confirmSession(svc, trx, tenantId, params.id, body);
        return { success: true, message: queued ? 'Detection confirmed; ingest queued' : 'Already confirmed', data: { ...f, sessionId: f.id, jobId: f.id } };
      },
    }),
    dataRoute({
      method: 'get',
      path: '/file/detection/:sessionId',
      summary: 'The reference clients\' detection polling: where the detection of a file stands (`state`: pending, awaiting_confirmation, confirmed, archive, failed), its source, confidence and candidates. The session id is the file id',
      access: 'admin',
      params: Type.Object({ sessionId: Uuid }),
      message: 'Detection',
      data: DetectionAnswer,
      run: ({ trx, params }) => detectionSession(trx, params.sessionId),
    }),
    dataRoute({
      method: 'get',
      path: '/file/processing/:jobId',
      summary: 'The reference clients\' processing polling: the payload of the Socket.io progress events (status pending, processing, completed or failed; progress 0–100; metadata). The job id is the file id',
      access: 'admin',
      params: Type.Object({ jobId: Uuid }),
      message: 'Processing',
      data: ProcessingAnswer,
      run: ({ trx, params }) => processingJob(trx, params.jobId),
    }),
    route({
      method: 'post',
      path: '/file/replace-original/:id',
      summary: 'Make a duplicate upload the file instead of the earlier copy of the same bytes (as an upload with force=true): it is read, then the earlier copy\'s lines are removed',
      access: 'admin',
      params: IdParams,
      responses: { 200: Type.Object({ success: Type.Literal(true), message: Type.String(), data: Type.Object({ id: Uuid, status: Type.String(), duplicateOf: Type.Union([Uuid, Type.Null()]) }, { additionalProperties: true }) }) },
      async handler({ trx, tenantId, params }) {
        return { success: true, message: 'The upload is being read; it replaces the earlier copy', data: await makeTheFile(svc, trx, tenantId, params.id) };
      },
    }),
    route({
      method: 'get',
      path: '/file/', responses: { 200: Res.GetFile },
      summary: 'Statement files (paged; filter by status (comma-separated), source (key, name or id), period (YYYY-MM), periodStart/periodEnd, parentId; topLevel=true: none of an archive\'s members)',
      access: 'admin',
      query: Type.Object({
        page: PageQuery.page,
        size: PageQuery.size,
        ...sortQuery(FILE_SORT, 'createdAt', 'Part of the file name'),
        status: Type.Optional(Type.String({ maxLength: 200 })),
        source: Type.Optional(Type.String({ maxLength: 200 })),
        period: Type.Optional(Type.String({ maxLength: 10 })),
        periodStart: PERIOD_CHOICE.periodStart,
        periodEnd: PERIOD_CHOICE.periodEnd,
        parentId: Type.Optional(Uuid),
        topLevel: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')])),
      }),
      async handler({ trx, query }) {
        const r = await listFiles(trx, { ...query, topLevel: query.topLevel === 'true', page: query.page ?? 1, size: query.size ?? 20 });
        return { success: true, message: 'Files', ...r };
      },
    }),
    route({
      method: 'get',
      path: '/file/:id', responses: { 200: Res.GetFileById },
      summary: 'One file: status, progress, source and confidence, periods, counts, totals, control totals, first errors, children',
      access: 'admin',
      params: IdParams,
      async handler({ trx, params }) {
        return { success: true, message: 'File', data: await getFile(trx, params.id) };
      },
    }),
    route({
      method: 'get',
      path: '/file/:id/errors', responses: { 200: Res.GetFileByIdErrors },
      summary: 'Every rejected line as CSV (line_no, reason, raw), streamed',
      access: 'admin',
      params: IdParams,
      noTransaction: true,
      async handler({ ctx, tenantId, params }) {
        const f = await visibleFile(svc, tenantId, params.id);
        const out = new PassThrough();
        ctx.set('Content-Type', 'text/csv; charset=utf-8');
        ctx.set('Content-Disposition', `attachment; filename="${String(f.original_name).replace(/[^\w.-]+/g, '_')}.errors.csv"`);
        ctx.body = out;
        void streamErrors(svc, tenantId, params.id, out);
      },
    }),
    route({
      method: 'get',
      path: '/file/:id/events', responses: { 200: Res.GetFileByIdEvents },
      summary: 'Server-sent events: `progress` with status, progress and counts on every change, until processed or failed',
      access: 'admin',
      params: IdParams,
      noTransaction: true,
      async handler({ ctx, tenantId, params }) {
        await visibleFile(svc, tenantId, params.id);
        const out = new PassThrough();
        ctx.req.socket.setTimeout(0);
        ctx.set('Content-Type', 'text/event-stream');
        ctx.set('Cache-Control', 'no-cache');
        ctx.set('Connection', 'keep-alive');
        ctx.set('X-Accel-Buffering', 'no');
        ctx.compress = false; // events reach the client as written, never held in a compressor's buffer
        ctx.status = 200;
        ctx.body = out;
        let closed = false;
        ctx.req.on('close', () => (closed = true));
        void streamFileEvents(svc, tenantId, params.id, out, () => closed);
      },
    }),
    route({
      method: 'delete',
      path: '/file/:id', responses: { 200: Res.DeleteFileById },
      summary: 'Delete a file, its children, lines, errors, derived data and stored objects',
      access: 'admin',
      params: IdParams,
      noTransaction: true,
      async handler({ tenantId, params }) {
        return { success: true, message: 'File deleted', data: { deleted: await deleteFileEverywhere(svc, tenantId, params.id) } };
      },
    }),
  ]);
}
