/**
 * File routes (spec 4.3 "File", 4.2 GET /file/sources). Errors in the catalogue shape;
 * success bodies `{success:true, message, data}`.
 */
import type Router from '@koa/router';
import crypto from 'node:crypto';
import { PassThrough } from 'node:stream';
import { defineRoutes, route } from '../../http/route';
import { PageQuery, Strict, Type, Uuid } from '../../http/schema';
import type { AppServices } from '../../services';
import { withTenant } from '../../db';
import { clock } from '../../lib/clock';
import { NotFoundError, UnauthorizedError, ValidationError } from '../../lib/errors';
import {
  confirmDetection, deleteFile, getFile, getFileRow, listFiles, optionsFrom, publicFile, registerFile, removeObjects,
  rerunDecompress, resendPending, storageKey, store, TERMINAL_STATUSES, uploadKey,
} from './service';
import { MAX_UPLOAD_BYTES, receiveMultipart } from './upload';
import { isDirectUploadStore } from '../../lib/storage';
import { fileSources } from '../sources/service';

/** Statement ingestion: the file routes (the source/pattern routes are mounted just before, in modules/index.ts). */
export function registerIngestionRoutes(router: Router, svc: AppServices): void {
  registerFileRoutes(router, svc);
}

const IdParams = Type.Object({ id: Uuid });
const Bool = Type.Union([Type.Boolean(), Type.Literal('true'), Type.Literal('false')]);
const UploadOptionsProps = {
  autoProcessIfConfident: Type.Optional(Bool),
  forceManualConfirmation: Type.Optional(Bool),
  force: Type.Optional(Bool),
};
export function registerFileRoutes(router: Router, svc: AppServices): void {
  const uploadUrl = route({
    method: 'post',
    path: '/file/upload-url',
    summary: 'A signed, expiring URL to PUT a statement to (then POST /file/createroyalty): Rondo\'s own on the local store, a presigned S3 PUT on the S3 store',
    access: 'admin',
    status: 201,
    body: Strict({ fileName: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })), contentType: Type.Optional(Type.String({ maxLength: 200 })) }),
    async handler({ tenantId, auth }) {
      const fileId = crypto.randomUUID();
      const key = storageKey(tenantId, fileId);
      const ttl = svc.cfg.uploadUrlTtlSeconds;
      const expiresAt = new Date((clock.nowSeconds() + ttl) * 1000).toISOString();
      const s = store(svc);
      const uploadUrl = isDirectUploadStore(s)
        ? await s.presignPut(uploadKey(tenantId, fileId), ttl)
        : `${svc.cfg.publicUrl}/file/upload/${await svc.signer.signPurpose('upload', String(tenantId), ttl, { key, fid: fileId, by: auth.tenantUserId })}`;
      return { success: true, message: 'Upload URL created', data: { uploadUrl, method: 'PUT', fileId, key, expiresAt } };
    },
  });

  defineRoutes(router, svc, { tag: 'Files', errorShape: 'catalogue' }, [
    route({
      method: 'post',
      path: '/file/royalty',
      summary: 'Upload a statement (multipart, field "file"; optional fields autoProcessIfConfident, forceManualConfirmation, force). Streams to storage; answers at once',
      access: 'admin',
      status: 201,
      rawBody: true,
      noTransaction: true,
      query: Type.Object(UploadOptionsProps),
      async handler({ ctx, tenantId, auth, query }) {
        const s = store(svc);
        const { file, fields } = await receiveMultipart(ctx, s, (id) => storageKey(tenantId, id));
        if (!file) throw new ValidationError('No "file" part in the upload', [], 'FILE_REQUIRED');
        const options = optionsFrom({ ...(query as Record<string, unknown>), ...fields });
        try {
          return await withTenant(svc.db.app, tenantId, async (trx) => {
            await registerFile(svc, trx, tenantId, { id: file.id, originalName: file.fileName, contentType: file.contentType, storageKey: file.key, size: file.size, sha256: file.sha256, options, uploadedBy: auth.tenantUserId });
            const r = await getFile(trx, file.id);
            return { success: true, message: r.duplicateOf && !options.force ? 'Duplicate file: not ingested again' : 'File uploaded', data: r };
          });
        } catch (err) {
          await s.delete(file.key);
          throw err;
        }
      },
    }),
    uploadUrl,
    { ...uploadUrl, path: '/file/getuUloadurl', summary: 'Legacy alias of POST /file/upload-url' },
    route({
      method: 'put',
      path: '/file/upload/:token',
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
        const tenantId = Number(claims.sub);
        const taken = await withTenant(svc.db.app, tenantId, (trx) => trx('files').where({ id: claims.fid }).first('id'));
        if (taken) throw new ValidationError('This upload URL was already used', [], 'UPLOAD_URL_USED');
        const r = await store(svc).putStream(claims.key, ctx.req);
        return { success: true, message: 'Stored; now POST /file/createroyalty', data: { fileId: claims.fid, key: claims.key, size: r.size, sha256: r.sha256 } };
      },
    }),
    route({
      method: 'post',
      path: '/file/createroyalty',
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
        const existing = await withTenant(svc.db.app, tenantId, async (trx) => ((await trx('files').where({ id: fileId }).first('id')) ? getFile(trx, fileId) : null));
        if (existing) return { success: true, message: 'Already registered', data: existing };
        const key = storageKey(tenantId, fileId);
        // Outside any transaction: on S3 this reads the whole upload once (its sha256).
        const s = store(svc);
        let st: { size: number; sha256: string | null } | null = isDirectUploadStore(s) ? await s.adopt(uploadKey(tenantId, fileId), key, MAX_UPLOAD_BYTES) : null;
        st ??= await s.stat(key); // the local store; or an S3 upload adopted by an earlier call whose registration failed
        if (!st || !st.sha256) throw new ValidationError('Nothing was uploaded to this URL yet', [], 'UPLOAD_MISSING');
        if (st.size > MAX_UPLOAD_BYTES) {
          await s.delete(key);
          throw new ValidationError(`The file is larger than ${MAX_UPLOAD_BYTES} bytes`, [], 'FILE_TOO_LARGE');
        }
        const options = optionsFrom(body as Record<string, unknown>);
        const sha256 = st.sha256, size = st.size;
        return withTenant(svc.db.app, tenantId, async (trx) => {
          await registerFile(svc, trx, tenantId, { id: fileId, originalName: body.fileName, contentType: body.contentType ?? null, storageKey: key, size, sha256, options, uploadedBy: auth.tenantUserId });
          const r = await getFile(trx, fileId);
          return { success: true, message: r.duplicateOf && !options.force ? 'Duplicate file: not ingested again' : 'File registered', data: r };
        });
      },
    }),
    route({
      method: 'post',
      path: '/file/upload-from-drive',
      summary: 'Import from a cloud drive (not configured in this deployment: 400)',
      access: 'admin',
      rawBody: true,
      handler() {
        throw new ValidationError('Drive import is not configured on this server', [], 'DRIVE_NOT_CONFIGURED');
      },
    }),
    route({
      method: 'post',
      path: '/file/get-drive-signed-url',
      summary: 'Signed URL for a cloud drive (not configured in this deployment: 400)',
      access: 'admin',
      rawBody: true,
      handler() {
        throw new ValidationError('Drive import is not configured on this server', [], 'DRIVE_NOT_CONFIGURED');
      },
    }),
    route({
      method: 'get',
      path: '/file/sources',
      summary: 'Sources: includeAll=true (default) all active public sources; false the workspace\'s configured ones',
      access: 'user',
      query: Type.Object({ includeAll: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')])) }),
      async handler({ trx, query }) {
        const data = await fileSources(svc, trx, query.includeAll !== 'false');
        return { success: true, message: 'Sources', data };
      },
    }),
    route({
      method: 'post',
      path: '/file/resend-pending-files',
      summary: 'Re-queue every file of the workspace stuck before the end of the pipeline',
      access: 'admin',
      async handler({ trx, tenantId }) {
        const files = await resendPending(svc, trx, tenantId);
        return { success: true, message: `${files.length} file(s) re-queued`, data: { requeued: files.length, files } };
      },
    }),
    route({
      method: 'put',
      path: '/file/royalty/decompress/:tenant/:id',
      summary: 'Re-run decompression (and the steps after it) for a file',
      access: 'admin',
      params: Type.Object({ tenant: Type.String({ maxLength: 64 }), id: Uuid }),
      async handler({ trx, tenantId, params }) {
        const ws = await trx('tenants').where({ id: tenantId }).first('uuid');
        if (params.tenant !== String(tenantId) && params.tenant !== ws?.uuid) throw new NotFoundError('File');
        return { success: true, message: 'Decompression queued', data: await rerunDecompress(svc, trx, tenantId, params.id) };
      },
    }),
    route({
      method: 'post',
      path: '/file/confirm-detection/:id',
      summary: 'Name the source of a file (pattern id, key or workspace source id) and optionally its period; queues the ingest',
      access: 'admin',
      params: IdParams,
      body: Strict({
        source: Type.String({ minLength: 1, maxLength: 200 }),
        periodStart: Type.Optional(Type.String({ format: 'date' })),
        periodEnd: Type.Optional(Type.String({ format: 'date' })),
        accountingPeriod: Type.Optional(Type.String({ format: 'date' })),
      }),
      async handler({ trx, tenantId, params, body }) {
        return { success: true, message: 'Detection confirmed; ingest queued', data: await confirmDetection(svc, trx, tenantId, params.id, body) };
      },
    }),
    route({
      method: 'get',
      path: '/file/',
      summary: 'Statement files (paged; filter by status (comma-separated), source (key, name or id), period (YYYY-MM), periodStart/periodEnd, parentId)',
      access: 'user',
      query: Type.Object({
        ...PageQuery,
        status: Type.Optional(Type.String({ maxLength: 200 })),
        source: Type.Optional(Type.String({ maxLength: 200 })),
        period: Type.Optional(Type.String({ maxLength: 10 })),
        periodStart: Type.Optional(Type.String({ format: 'date' })),
        periodEnd: Type.Optional(Type.String({ format: 'date' })),
        parentId: Type.Optional(Uuid),
      }),
      async handler({ trx, query }) {
        const r = await listFiles(trx, { ...query, page: query.page ?? 1, size: query.size ?? 20 });
        return { success: true, message: 'Files', ...r };
      },
    }),
    route({
      method: 'get',
      path: '/file/:id',
      summary: 'One file: status, progress, source and confidence, periods, counts, totals, control totals, first errors, children',
      access: 'user',
      params: IdParams,
      async handler({ trx, params }) {
        return { success: true, message: 'File', data: await getFile(trx, params.id) };
      },
    }),
    route({
      method: 'get',
      path: '/file/:id/errors',
      summary: 'Every rejected line as CSV (line_no, reason, raw), streamed',
      access: 'user',
      params: IdParams,
      noTransaction: true,
      async handler({ ctx, tenantId, params }) {
        const f = await withTenant(svc.db.app, tenantId, (trx) => getFileRow(trx, params.id));
        const out = new PassThrough();
        ctx.set('Content-Type', 'text/csv; charset=utf-8');
        ctx.set('Content-Disposition', `attachment; filename="${String(f.original_name).replace(/[^\w.-]+/g, '_')}.errors.csv"`);
        ctx.body = out;
        void streamErrors(svc, tenantId, params.id, out);
      },
    }),
    route({
      method: 'get',
      path: '/file/:id/events',
      summary: 'Server-sent events: `progress` with status, progress and counts on every change, until processed or failed',
      access: 'user',
      params: IdParams,
      noTransaction: true,
      async handler({ ctx, tenantId, params }) {
        await withTenant(svc.db.app, tenantId, (trx) => getFileRow(trx, params.id));
        const out = new PassThrough();
        ctx.req.socket.setTimeout(0);
        ctx.set('Content-Type', 'text/event-stream');
        ctx.set('Cache-Control', 'no-cache');
        ctx.set('Connection', 'keep-alive');
        ctx.set('X-Accel-Buffering', 'no');
        ctx.status = 200;
        ctx.body = out;
        let closed = false;
        ctx.req.on('close', () => (closed = true));
        void (async () => {
          let last = '';
          const started = Date.now();
          let lastBeat = Date.now();
          try {
            while (!closed && Date.now() - started < 6 * 3600_000) {
              const r = await withTenant(svc.db.app, tenantId, (trx) => trx('files').where({ id: params.id }).first());
              if (!r) {
                out.write(`event: deleted\ndata: {"id":"${params.id}"}\n\n`);
                break;
              }
              const f = publicFile(r);
              const payload = JSON.stringify({ id: f.id, status: f.status, progress: f.progress, counts: f.counts, totals: f.totals, error: f.error });
              if (payload !== last) {
                out.write(`event: progress\ndata: ${payload}\n\n`);
                last = payload;
                lastBeat = Date.now();
              } else if (Date.now() - lastBeat > 15_000) {
                out.write(`: keep-alive\n\n`);
                lastBeat = Date.now();
              }
              if (TERMINAL_STATUSES.includes(f.status)) {
                out.write(`event: end\ndata: ${JSON.stringify({ status: f.status })}\n\n`);
                break;
              }
              await new Promise((r) => setTimeout(r, 500));
            }
          } catch (err) {
            svc.log.warn({ err }, 'file events stream failed');
          } finally {
            out.end();
          }
        })();
      },
    }),
    route({
      method: 'delete',
      path: '/file/:id',
      summary: 'Delete a file, its children, lines, errors, derived data and stored objects',
      access: 'admin',
      params: IdParams,
      noTransaction: true,
      async handler({ tenantId, params }) {
        const r = await withTenant(svc.db.app, tenantId, (trx) => deleteFile(svc, trx, tenantId, params.id));
        await removeObjects(svc, r.objects);
        return { success: true, message: 'File deleted', data: { deleted: r.deleted } };
      },
    }),
  ]);
}

function csvCell(v: unknown): string {
  if (v === null || v === undefined) return '';
  const s = String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** Keyset pages in short transactions, written with back-pressure. */
async function streamErrors(svc: AppServices, tenantId: number, fileId: string, out: PassThrough): Promise<void> {
  try {
    out.write('line_no,reason,raw\n');
    let lastLine = -1, lastId = '0';
    for (;;) {
      const rows = await withTenant(svc.db.app, tenantId, (trx) =>
        trx('file_errors').where({ file_id: fileId }).whereRaw('(line_no, id) > (?, ?)', [lastLine, lastId]).orderBy([{ column: 'line_no' }, { column: 'id' }]).limit(5000).select('id', 'line_no', 'reason', 'raw'),
      );
      if (!rows.length) break;
      let buf = '';
      for (const r of rows) buf += `${r.line_no},${csvCell(r.reason)},${csvCell(r.raw)}\n`;
      if (!out.write(buf)) await new Promise((r) => out.once('drain', r));
      if (out.destroyed) return;
      lastLine = rows.at(-1)!.line_no;
      lastId = rows.at(-1)!.id;
    }
  } catch (err) {
    svc.log.error({ err }, 'errors CSV failed');
    out.destroy(err as Error);
    return;
  }
  out.end();
}
