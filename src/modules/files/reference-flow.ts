/**
 * The reference service's upload flow on Rondo's statement files (docs/uploads.md, "The
 * reference clients' upload flow"):
 *
 *   POST /file/upload-url {fileName}          → url, fileId
 *   PUT  url                                  (the file's bytes)
 *   POST /file/confirm-upload-completion {fileId} → the file, sessionId
 *   GET  /file/detection/{sessionId}           (polled until the detection is there)
 *   POST /file/confirm-detection/{sessionId} {confirmed: true} → jobId
 *   GET  /file/processing/{jobId}              (polled; or the Socket.io events)
 *
 * A detection session and a processing job are the file itself: `sessionId` and `jobId` are
 * the file's id (its detection and its pipeline are the file's, one at a time).
 */
import type { AppServices } from '../../services';
import { withTenant, type Trx } from '../../db';
import { ValidationError } from '../../lib/errors';
import { Type, Uuid } from '../../http/schema';
import { confirmDetection, getFile, getFileRow, type Confirmation } from './service';
import { PAYLOAD_COLUMNS, processingPayload } from './progress';

/** What POST /file/upload-url was told about the file to come. */
export async function recordUploadIntent(svc: AppServices, tenantId: number, fileId: string, i: { fileName?: string; contentType?: string; by: string | null }): Promise<void> {
  await withTenant(svc.db.app, tenantId, (trx) =>
    trx('file_upload_intents').insert({ tenant_id: tenantId, file_id: fileId, file_name: i.fileName ?? null, content_type: i.contentType ?? null, created_by: i.by }),
  );
}

export async function uploadIntent(svc: AppServices, tenantId: number, fileId: string): Promise<{ fileName: string | null; contentType: string | null } | null> {
  const r = await withTenant(svc.db.app, tenantId, (trx) => trx('file_upload_intents').where({ file_id: fileId }).first('file_name', 'content_type'));
  return r ? { fileName: r.file_name, contentType: r.content_type } : null;
}

export async function dropUploadIntent(svc: AppServices, tenantId: number, fileId: string): Promise<void> {
  await withTenant(svc.db.app, tenantId, (trx) => trx('file_upload_intents').where({ file_id: fileId }).delete());
}

/** A detection session's state, from its file's status. */
export type DetectionState = 'pending' | 'awaiting_confirmation' | 'confirmed' | 'archive' | 'failed';

const DETECTING = new Set(['uploaded', 'decompressing', 'detecting']);

/** GET /file/detection/{sessionId}: where the file's detection stands, its source and candidates. */
export async function detectionSession(trx: Trx, id: string) {
  const f = await getFile(trx, id);
  const state: DetectionState = f.kind === 'archive' ? 'archive'
    : DETECTING.has(f.status) ? 'pending'
    : f.status === 'needs_confirmation' ? 'awaiting_confirmation'
    : f.status === 'failed' && !f.source ? 'failed'
    : 'confirmed';
  const detection = f.detection as { threshold?: number; candidates?: unknown[] } | null;
  return {
    sessionId: f.id,
    fileId: f.id,
    fileName: f.fileName,
    state,
    status: f.status,
    source: f.source,
    confidence: f.confidence,
    threshold: detection?.threshold ?? null,
    candidates: detection?.candidates ?? [],
    salePeriod: f.salePeriod,
    accountingPeriod: f.accountingPeriod,
    error: f.error,
    /** Once confirmed: the processing job to poll (GET /file/processing/{jobId}). */
    jobId: state === 'confirmed' ? f.id : null,
    /** An archive: each statement in it is a detection session of its own. */
    sessions: f.children.map((c) => c.id),
  };
}

/**
 * POST /file/confirm-detection/{sessionId} with `confirmed: true` and no `source`: the detected
 * source (the best candidate) is confirmed. A file already past its detection (confirmed by
 * hand, or read at once because the detection was sure) is answered as it is: nothing is read
 * twice. `source` names another source (the spec's body), as before.
 */
export async function confirmSession(svc: AppServices, trx: Trx, tenantId: number, id: string, body: Partial<Confirmation> & { confirmed?: boolean }) {
  if (body.source) return { file: await confirmDetection(svc, trx, tenantId, id, body as Confirmation), queued: true };
  if (body.confirmed !== true) {
    throw new ValidationError('Name the source of the file, or confirm the detected one with "confirmed": true', ['body.source: required unless confirmed is true'], 'SOURCE_REQUIRED');
  }
  const r = await getFileRow(trx, id);
  if (r.status !== 'needs_confirmation') {
    if (DETECTING.has(r.status)) throw new ValidationError('The file is still being detected: poll its detection first', [], 'DETECTION_PENDING');
    if (r.kind === 'archive') throw new ValidationError('An archive is not confirmed: each statement in it is (its detection lists them)', [], 'INVALID_STATUS');
    if (r.status === 'failed' && !r.source_pattern_id) throw new ValidationError('The file failed before a source was detected: name the source', [], 'NO_DETECTED_SOURCE');
    return { file: await getFile(trx, id), queued: false };
  }
  if (!r.source_pattern_id) throw new ValidationError('No source was detected for this file: name the source', ['body.source: required, no source was detected'], 'NO_DETECTED_SOURCE');
  return { file: await confirmDetection(svc, trx, tenantId, id, { ...body, source: r.source_pattern_id } as Confirmation), queued: true };
}

/** GET /file/processing/{jobId}: the processing payload of the Socket.io events, and the job id. */
export async function processingJob(trx: Trx, id: string) {
  await getFileRow(trx, id); // 404 when absent
  const r = await trx('files').where({ id }).first(PAYLOAD_COLUMNS);
  return { jobId: id, ...processingPayload(r) };
}

// ---------------------------------------------------------------------------- answers' schemas

const Nullable = <T extends ReturnType<typeof Type.String>>(s: T) => Type.Union([s, Type.Null()]);
const Period = Type.Object({ start: Nullable(Type.String()), end: Nullable(Type.String()) });

/** A statement file as GET /file/{id} answers it (its main fields; the others are listed there). */
export const FileAnswer = Type.Object(
  {
    id: Uuid,
    fileName: Type.String(),
    status: Type.String(),
    progress: Type.Integer(),
    salePeriod: Period,
    accountingPeriod: Nullable(Type.String()),
    error: Nullable(Type.String()),
  },
  { additionalProperties: true },
);

export const SessionAnswer = Type.Intersect([FileAnswer, Type.Object({ sessionId: Uuid, jobId: Type.Union([Uuid, Type.Null()]) })]);

export const DetectionAnswer = Type.Object({
  sessionId: Uuid,
  fileId: Uuid,
  fileName: Type.String(),
  state: Type.Union(['pending', 'awaiting_confirmation', 'confirmed', 'archive', 'failed'].map((s) => Type.Literal(s))),
  status: Type.String(),
  source: Type.Union([Type.Object({ id: Uuid, key: Type.String(), name: Type.String(), version: Type.Integer() }), Type.Null()]),
  confidence: Type.Unknown(),
  threshold: Type.Union([Type.Number(), Type.Null()]),
  candidates: Type.Array(Type.Unknown()),
  salePeriod: Period,
  accountingPeriod: Nullable(Type.String()),
  error: Nullable(Type.String()),
  jobId: Type.Union([Uuid, Type.Null()]),
  sessions: Type.Array(Uuid),
});

export const ProcessingAnswer = Type.Object({
  jobId: Uuid,
  fileId: Uuid,
  fileName: Type.String(),
  status: Type.Union(['pending', 'processing', 'completed', 'failed'].map((s) => Type.Literal(s))),
  fileStatus: Type.String(),
  progress: Type.Integer({ minimum: 0, maximum: 100 }),
  message: Type.String(),
  error: Nullable(Type.String()),
  metadata: Type.Object({
    rowsProcessed: Type.Integer(),
    source: Nullable(Type.String()),
    accountingPeriod: Nullable(Type.String()),
    salePeriod: Period,
    processingTimeMs: Type.Integer(),
  }),
});
