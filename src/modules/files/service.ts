/**
 * Statement files: records, registration of stored uploads (duplicate detection, first job
 * in the same transaction), listing, deletion, confirmation and re-queueing.
 */
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { AppServices } from '../../services';
import { withTenant, type Trx } from '../../db';
import { objectStore } from '../../lib/storage';
import { NotFoundError, ValidationError } from '../../lib/errors';
import { orderSql, resolveSort, sortColumns } from '../../http/list-sort';
import { FIRST_STEP, IN_FLIGHT_STATUSES, PIPELINE, TERMINAL_STATUSES as SETTLED_TERMINAL, stepFor, type FileStatus, type StepName } from '../../pipeline/registry';
import { sendToStep, startPipeline } from '../../pipeline/run-step';
import { FILE_DELETE_HOOKS } from './hooks';
import { emitEvent } from '../webhooks/events';
import { findPattern } from '../sources/service';
import { rememberConfirmation } from '../sources/remembered';
import type { FileRow } from '../../repositories/files';

export interface UploadOptions {
  autoProcessIfConfident: boolean;
  forceManualConfirmation: boolean;
  /**
   * Same bytes as an earlier file: this upload becomes the file. It is read, and when its lines
   * are stored the earlier copies' lines are removed in the same transaction (never two copies).
   */
  force: boolean;
  /** Same bytes as an earlier file: the original is read again in place (its lines replaced); this upload is kept as a duplicate. */
  reprocess: boolean;
}

export const DEFAULT_OPTIONS: UploadOptions = { autoProcessIfConfident: true, forceManualConfirmation: false, force: false, reprocess: false };

/** Statuses where the pipeline still has work to do (resend-pending-files and recovery re-send these). */
export const PENDING_STATUSES: FileStatus[] = IN_FLIGHT_STATUSES;
export const TERMINAL_STATUSES: FileStatus[] = SETTLED_TERMINAL;

export function parseBool(v: unknown, fallback: boolean): boolean {
  if (v === undefined || v === null || v === '') return fallback;
  if (typeof v === 'boolean') return v;
  return !['0', 'false', 'no', 'off'].includes(String(v).toLowerCase());
}

export function optionsFrom(src: Record<string, unknown>): UploadOptions {
  return {
    autoProcessIfConfident: parseBool(src.autoProcessIfConfident, true),
    forceManualConfirmation: parseBool(src.forceManualConfirmation, false),
    force: parseBool(src.force, false),
    reprocess: parseBool(src.reprocess, false),
  };
}

export function storageKey(tenantId: number, fileId: string, part = 'original'): string {
  return `t${tenantId}/files/${fileId}/${part}`;
}

/** Where a presigned (direct-to-S3) upload lands before POST /file/createroyalty moves it to storageKey(). */
export function uploadKey(tenantId: number, fileId: string): string {
  return `uploads/t${tenantId}/${fileId}`;
}

export function store(svc: AppServices) {
  return objectStore(svc.cfg);
}

/** Deterministic child id: re-running a decompression finds the same children. */
export function childId(parentId: string, entryPath: string): string {
  const h = crypto.createHash('sha256').update(`${parentId}\0${entryPath}`).digest();
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}

/** An earlier file of the tenant with the same bytes that counts (not failed, not itself a duplicate). */
async function findOriginal(trx: Trx, sha256: string, exceptId: string): Promise<string | null> {
  const r = await trx('files')
    .where({ sha256 })
    .whereNot({ id: exceptId })
    .whereNull('duplicate_of')
    .whereNot({ status: 'failed' })
    .orderBy('created_at')
    .first('id');
  return r?.id ?? null;
}

/** What an upload answers: a new file, a duplicate (not read), a duplicate whose original is read again, or a copy that replaces it. */
export function uploadMessage(r: { duplicateOf: string | null }, o: UploadOptions, done: string): string {
  if (!r.duplicateOf) return done;
  if (o.reprocess) return 'Duplicate file: the original is read again in place';
  return o.force ? `${done}; it replaces the earlier copy of the same bytes` : 'Duplicate file: not ingested again';
}

/** The route that reads a file again in place (a duplicate upload names its original's). */
export function reprocessPath(original: string): string {
  return `/file/reprocess/${original}`;
}

/**
 * What a duplicate upload says: the original is read again in place under a new or corrected
 * source with the reprocess route (or by uploading with reprocess=true): its lines are
 * replaced, never copied. force=true makes the new upload the file instead.
 */
export function duplicateMessage(original: string): string {
  return `Duplicate of file ${original} (same SHA-256): not ingested again. To read it again in place under a new or corrected source, ` +
    `POST ${reprocessPath(original)} (optionally {"source": "<source key or id>"}), or upload it with reprocess=true: its lines are replaced, never copied. ` +
    'Upload with force=true to make this upload the file instead (the original\'s lines are then removed).';
}

export interface NewFile {
  id: string;
  parentId?: string | null;
  originalName: string;
  contentType?: string | null;
  storageKey: string;
  size: number;
  sha256: string;
  options: UploadOptions;
  uploadedBy: string | null;
}

/**
 * Records a stored object as a file and enqueues its first job in the same transaction.
 * A duplicate (same SHA-256 as a file the tenant already has) is recorded as `failed` with
 * `duplicate_of` set and is not processed unless `options.force`. Idempotent on the id.
 * A top-level file (no parent: one a person uploaded, a duplicate included) emits
 * `royalty.file.uploaded` in the same transaction, once, when its row is inserted.
 */
export async function registerFile(svc: AppServices, trx: Trx, tenantId: number, f: NewFile): Promise<void> {
  const dup = await findOriginal(trx, f.sha256, f.id);
  const reread = dup !== null && f.options.reprocess;
  const skip = dup !== null && (!f.options.force || reread);
  const inserted = await trx('files')
    .insert({
      tenant_id: tenantId,
      id: f.id,
      parent_id: f.parentId ?? null,
      original_name: f.originalName,
      content_type: f.contentType ?? null,
      storage_key: f.storageKey,
      size_bytes: f.size,
      sha256: f.sha256,
      duplicate_of: dup,
      status: skip ? 'failed' : 'uploaded',
      error_message: reread ? `Duplicate of file ${dup} (same SHA-256): the original is read again in place (${reprocessPath(dup)})` : skip ? duplicateMessage(dup) : null,
      options: JSON.stringify(f.options),
      uploaded_by: f.uploadedBy,
    })
    .onConflict(['tenant_id', 'id'])
    .ignore()
    .returning('id');
  // A file a person uploaded (top level): a zip's members are read as part of it and send none.
  if (inserted.length && !f.parentId) await emitEvent(trx, tenantId, 'royalty.file.uploaded', { fileId: f.id, name: f.originalName, size: f.size, duplicateOf: dup });
  if (inserted.length && !skip) await startPipeline(svc.queue, trx, tenantId, f.id);
  if (inserted.length && reread) await reprocessFile(svc, trx, tenantId, dup, {});
}

// ------------------------------------------------------------------------------------ reading

const FILE_COLUMNS = [
  'id', 'parent_id', 'kind', 'original_name', 'storage_key', 'content_type', 'size_bytes', 'sha256', 'duplicate_of', 'status', 'progress',
  'source_pattern_id', 'pattern_version', 'source_key', 'source_name', 'confidence', 'detection', 'sale_period_start',
  'sale_period_end', 'accounting_period', 'rows_read', 'rows_ingested', 'rows_failed', 'rows_skipped', 'totals',
  'control_totals', 'reconciles', 'error_message', 'missing_rates', 'options', 'uploaded_by', 'attempts', 'processed_at', 'created_at', 'updated_at',
] as const satisfies readonly (keyof FileRow)[];

/** The columns of a file every answer about it shows. */
export type PublicFileRow = Pick<FileRow, (typeof FILE_COLUMNS)[number]>;

function isoDate(d: unknown): string | null {
  if (!d) return null;
  if (d instanceof Date) return d.toISOString().slice(0, 10);
  return String(d).slice(0, 10);
}

export function publicFile(r: PublicFileRow) {
  return {
    id: r.id,
    parentId: r.parent_id,
    kind: r.kind,
    fileName: r.original_name,
    contentType: r.content_type,
    size: r.size_bytes === null ? null : Number(r.size_bytes),
    sha256: r.sha256,
    duplicateOf: r.duplicate_of,
    /** A duplicate upload: how to read its original again in place. */
    reprocess: r.duplicate_of && r.status === 'failed' ? { method: 'POST', path: reprocessPath(r.duplicate_of) } : null,
    status: r.status,
    progress: r.progress,
    source: r.source_key ? { id: r.source_pattern_id, key: r.source_key, name: r.source_name, version: r.pattern_version } : null,
    confidence: r.confidence ?? null,
    salePeriod: { start: isoDate(r.sale_period_start), end: isoDate(r.sale_period_end) },
    accountingPeriod: isoDate(r.accounting_period),
    counts: r.rows_read === null ? null : { rowsRead: r.rows_read, rowsIngested: r.rows_ingested, rowsFailed: r.rows_failed, rowsSkipped: r.rows_skipped },
    totals: r.totals ?? null,
    controlTotals: r.control_totals ?? null,
    reconciles: r.reconciles,
    error: r.error_message,
    /** Failed for want of exchange rates: the currency-months to add a rate for, then run it again. */
    missingRates: r.missing_rates ?? null,
    options: r.options,
    uploadedBy: r.uploaded_by,
    attempts: r.attempts,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    processedAt: r.processed_at,
  };
}

export async function getFileRow(trx: Trx | Knex, id: string): Promise<PublicFileRow> {
  const r: PublicFileRow | undefined = await trx('files').where({ id }).first(FILE_COLUMNS);
  if (!r) throw new NotFoundError('File');
  return r;
}

/** GET /file/{id}: the record, the detection candidates, the first errors and the children. */
export async function getFile(trx: Trx, id: string) {
  const r = await getFileRow(trx, id);
  const errors = await trx('file_errors').where({ file_id: id }).orderBy('line_no').orderBy('id').limit(20).select('line_no', 'reason');
  const children = r.kind === 'archive'
    ? await trx('files').where({ parent_id: id }).orderBy('original_name').select('id', 'original_name', 'status', 'progress', 'duplicate_of')
    : [];
  return {
    ...publicFile(r),
    detection: r.detection ?? null,
    errors: errors.map((e) => ({ lineNo: e.line_no, reason: e.reason })),
    children: children.map((c) => ({ id: c.id, fileName: c.original_name, status: c.status, progress: c.progress, duplicateOf: c.duplicate_of })),
  };
}

export interface ListQuery {
  page: number;
  size: number;
  status?: string;
  source?: string;
  /** YYYY-MM or YYYY-MM-DD: files whose sale period overlaps that month/day. */
  period?: string;
  periodStart?: string;
  periodEnd?: string;
  search?: string;
  parentId?: string;
  /** Only files that are no archive's member (an archive's members are read with parentId). */
  topLevel?: boolean;
  order?: 'asc' | 'desc';
  sort?: string;
}

/** The fields the file list sorts by (the names its items show) and their columns. */
export const FILE_SORT = sortColumns({
  fileName: 'original_name', kind: 'kind', status: 'status', progress: 'progress', size: 'size_bytes', confidence: 'confidence',
  accountingPeriod: 'accounting_period', createdAt: 'created_at', updatedAt: 'updated_at', processedAt: 'processed_at',
  parentId: 'parent_id', contentType: 'content_type', sha256: 'sha256', duplicateOf: 'duplicate_of', reconciles: 'reconciles', error: 'error_message', uploadedBy: 'uploaded_by', attempts: 'attempts',
});

export async function listFiles(trx: Trx, q: ListQuery) {
  const sort = resolveSort(q, FILE_SORT, 'createdAt');
  const base = trx('files');
  if (q.status) base.whereIn('status', q.status.split(','));
  if (q.source) base.where((w) => w.where('source_key', q.source!).orWhere('source_name', q.source!).orWhereRaw('source_pattern_id::text = ?', [q.source!]));
  if (q.search) base.whereILike('original_name', `%${q.search.replace(/[%_\\]/g, '\\$&')}%`);
  if (q.parentId) base.where('parent_id', q.parentId);
  if (q.topLevel) base.whereNull('parent_id');
  let start = q.periodStart, end = q.periodEnd;
  if (q.period) {
    const m = /^(\d{4})-(\d{2})(?:-(\d{2}))?$/.exec(q.period);
    if (!m) throw new ValidationError('period must be YYYY-MM or YYYY-MM-DD', [], 'INVALID_PERIOD');
    start = m[3] ? q.period : `${m[1]}-${m[2]}-01`;
    end = m[3] ? q.period : new Date(Date.UTC(Number(m[1]), Number(m[2]), 0)).toISOString().slice(0, 10);
  }
  // A file matches a period when its sale period overlaps it or its accounting period falls in it.
  if (start || end) {
    const lo = start ?? '0001-01-01', hi = end ?? '9999-12-31';
    base.where((w) =>
      w.where((x) => x.where('sale_period_end', '>=', lo).where('sale_period_start', '<=', hi)).orWhereBetween('accounting_period', [lo, hi]),
    );
  }
  const [{ n }] = await base.clone().count({ n: '*' });
  const rows = await base.orderByRaw(orderSql(sort)).orderBy('id', sort.order).limit(q.size).offset((q.page - 1) * q.size).select(FILE_COLUMNS);
  return { data: rows.map(publicFile), pagination: { page: q.page, size: q.size, total: Number(n) } };
}

// ------------------------------------------------------------------------------------ changes

/** The file and all its descendants (archives → children). */
async function familyIds(trx: Trx, id: string): Promise<string[]> {
  const rows = await trx.raw(
    `WITH RECURSIVE fam AS (SELECT id FROM files WHERE id = ? UNION ALL SELECT f.id FROM files f JOIN fam ON f.parent_id = fam.id) SELECT id FROM fam`,
    [id],
  );
  return rows.rows.map((r: { id: string }) => r.id);
}

/** DELETE /file/{id}: the file, its children, lines, errors, derived data (hooks) and stored objects. */
export async function deleteFile(svc: AppServices, trx: Trx, tenantId: number, id: string): Promise<{ deleted: string[]; objects: string[] }> {
  await getFileRow(trx, id);
  const ids = await familyIds(trx, id);
  for (const hook of FILE_DELETE_HOOKS) await hook(trx, tenantId, ids);
  const keys = (await trx('files').whereIn('id', ids).whereNotNull('storage_key').select('storage_key')).map((r) => r.storage_key as string);
  await trx('royalty_lines').whereIn('file_id', ids).delete();
  await trx('file_errors').whereIn('file_id', ids).delete();
  await trx('files').whereIn('id', ids).delete();
  return { deleted: ids, objects: keys };
}

export async function removeObjects(svc: AppServices, keys: string[]): Promise<void> {
  const s = store(svc);
  for (const k of keys) await s.delete(k).catch((err) => svc.log.warn({ err, key: k }, 'could not delete stored object'));
}

/**
 * Re-sends the job of a file stuck in a step: the step's own status (the pipeline
 * declaration says which step owns it). Handlers are idempotent, so a file that was merely
 * slow only repeats work. Returns the step, or null for a settled file.
 */
export async function resendStep(svc: AppServices, trx: Trx, tenantId: number, id: string, status: FileStatus): Promise<StepName | null> {
  const step = stepFor(status);
  if (step) await sendToStep(svc.queue, trx, step, tenantId, id);
  return step;
}

/** POST /file/resend-pending-files: re-send the job of every file stuck in any step. */
export async function resendPending(svc: AppServices, trx: Trx, tenantId: number) {
  const rows = await trx('files').whereIn('status', PENDING_STATUSES).select('id', 'status');
  for (const r of rows) await resendStep(svc, trx, tenantId, r.id, r.status);
  return rows.map((r) => ({ id: r.id, status: r.status }));
}

/** The advisory lock a live ingest of the file holds for its whole COPY transaction (pipeline.ts takes it). */
export function ingestLockKey(tenantId: number, fileId: string): string {
  return `rondo.ingest.${tenantId}.${fileId}`;
}

/**
 * A re-run may start a file over from any step, unless a live worker is ingesting it right
 * now (it holds the file's ingest lock). A file whose worker died holds no lock: it is
 * accepted. The lock is kept until the caller's transaction ends, so no ingest can begin in between.
 */
async function assertNotBeingIngested(trx: Trx, tenantId: number, id: string): Promise<void> {
  const { rows } = await trx.raw(`SELECT pg_try_advisory_xact_lock(hashtextextended(?, 0)) AS free`, [ingestLockKey(tenantId, id)]);
  if (!rows[0].free) throw new ValidationError('The file is being ingested; try again when it is done', [], 'FILE_BUSY');
}

/** PUT /file/royalty/decompress/{tenant}/{id}: start the file over from decompression (from any status). */
export async function rerunDecompress(svc: AppServices, trx: Trx, tenantId: number, id: string) {
  const r = await getFileRow(trx, id);
  await assertNotBeingIngested(trx, tenantId, id);
  if (!r.storage_key) throw new ValidationError('The file has no stored content to decompress', [], 'NO_CONTENT');
  if (r.duplicate_of && !r.options?.force) throw new ValidationError(`The file is a duplicate of ${r.duplicate_of}; upload it again with force=true`, [], 'DUPLICATE_FILE');
  await trx('files').where({ id }).update({ status: PIPELINE[FIRST_STEP].queuedAs, progress: 0, error_message: null, missing_rates: null, attempts: 0, updated_at: trx.fn.now() });
  await startPipeline(svc.queue, trx, tenantId, id);
  return getFile(trx, id);
}

/**
 * POST /file/replace-original/{id}: a duplicate upload becomes the file, as an upload with
 * force=true would: it is read, and once its lines are stored the earlier copy's lines (and
 * what was derived from them) are removed in the same transaction (replace.ts).
 */
export async function makeTheFile(svc: AppServices, trx: Trx, tenantId: number, id: string) {
  const r = await getFileRow(trx, id);
  if (!r.duplicate_of) throw new ValidationError('This file is not a duplicate upload: it is the file already', [], 'NOT_A_DUPLICATE');
  await trx('files').where({ id }).update({ options: JSON.stringify({ ...(r.options ?? {}), force: true, reprocess: false }) });
  return rerunDecompress(svc, trx, tenantId, id);
}

export interface Confirmation {
  source: string;
  periodStart?: string;
  periodEnd?: string;
  accountingPeriod?: string;
}

/** Before its decompression step has run a file has no statement content to confirm. */
const UNCONFIRMABLE: FileStatus[] = [PIPELINE[FIRST_STEP].queuedAs, PIPELINE[FIRST_STEP].runningAs];

/**
 * POST /file/confirm-detection/{id}: names the source (id or key) and optionally the period;
 * queues the ingest. Accepted once the file is decompressed: settled, or stuck in any later step.
 */
export async function confirmDetection(svc: AppServices, trx: Trx, tenantId: number, id: string, c: Confirmation) {
  const r = await getFileRow(trx, id);
  if (UNCONFIRMABLE.includes(r.status) || r.kind === 'archive' || (r.duplicate_of && !r.options?.force))
    throw new ValidationError(`A file in status "${r.status}" cannot be confirmed`, [], 'INVALID_STATUS');
  await assertNotBeingIngested(trx, tenantId, id);
  const isUuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(c.source);
  let p = isUuid ? await findPattern(trx, { id: c.source }) : await findPattern(trx, { key: c.source });
  if (!p && isUuid) {
    // a tenant source id names its pattern
    const ts = await trx('tenant_sources').where({ id: c.source }).first('source_pattern_id');
    if (ts) p = await findPattern(trx, { id: ts.source_pattern_id });
  }
  if (!p) throw new ValidationError(`Unknown source "${c.source}"`, [], 'UNKNOWN_SOURCE');
  if ((c.periodStart && !c.periodEnd) || (!c.periodStart && c.periodEnd)) throw new ValidationError('periodStart and periodEnd go together', [], 'INVALID_PERIOD');
  if (c.periodStart && c.periodEnd && c.periodStart > c.periodEnd) throw new ValidationError('periodStart is after periodEnd', [], 'INVALID_PERIOD');
  const conf = { ...(r.confidence ?? { period: 0, schema: 0 }), source: 1, ...(c.periodStart ? { period: 1 } : {}) };
  await trx('files').where({ id }).update({
    status: PIPELINE['file.ingest'].queuedAs,
    progress: 0,
    error_message: null,
    missing_rates: null,
    attempts: 0,
    source_pattern_id: p.id,
    pattern_version: p.version,
    source_key: p.key,
    source_name: p.name,
    confidence: JSON.stringify(conf),
    sale_period_start: c.periodStart ?? r.sale_period_start,
    sale_period_end: c.periodEnd ?? r.sale_period_end,
    accounting_period: c.accountingPeriod ?? r.accounting_period,
    options: JSON.stringify({
      ...r.options,
      confirmed: true,
      periodOverride: c.periodStart ? { start: c.periodStart, end: c.periodEnd } : null,
      accountingPeriodOverride: c.accountingPeriod ?? null,
    }),
    updated_at: trx.fn.now(),
  });
  // remembered: the next file of this shape in the workspace is read with this source without asking
  const shape = (typeof r.detection === 'string' ? JSON.parse(r.detection) : r.detection)?.shape;
  if (shape && typeof shape.nameShape === 'string' && typeof shape.headerFp === 'string') await rememberConfirmation(trx, shape, p.id, id);
  await sendToStep(svc.queue, trx, 'file.ingest', tenantId, id);
  return getFile(trx, id);
}

/**
 * POST /file/reprocess/{id}: reads a file again in place; its lines are replaced when the new
 * reading is stored (one transaction: never a second copy, never half a file). A duplicate
 * upload stands for its original; an archive for each of its statements. With `source`, the
 * file is read with that source; without, a file confirmed by hand is read again with its
 * source's current version (and its period overrides), any other starts over from detection.
 */
export async function reprocessFile(svc: AppServices, trx: Trx, tenantId: number, id: string, c: Partial<Confirmation>): Promise<ReturnType<typeof getFile>> {
  let r = await getFileRow(trx, id);
  for (let hops = 0; r.duplicate_of && !r.options?.force && hops < 3; hops++) r = await getFileRow(trx, r.duplicate_of);
  if (r.duplicate_of && !r.options?.force) throw new ValidationError(`The file is a duplicate of ${r.duplicate_of}`, [], 'DUPLICATE_FILE');
  if (r.kind === 'archive') {
    const children = await trx('files').where({ parent_id: r.id }).whereNull('duplicate_of').whereNot({ kind: 'archive' }).whereNotNull('storage_key').orderBy('id').select('id');
    for (const ch of children) await reprocessFile(svc, trx, tenantId, ch.id, c);
    return getFile(trx, r.id);
  }
  const o = r.options ?? {};
  const source = c.source ?? (o.confirmed && r.source_pattern_id ? r.source_pattern_id : undefined);
  if (!source) return rerunDecompress(svc, trx, tenantId, r.id);
  const period = c.periodStart || c.periodEnd ? { start: c.periodStart, end: c.periodEnd } : o.periodOverride ?? {};
  return confirmDetection(svc, trx, tenantId, r.id, {
    source, periodStart: period.start, periodEnd: period.end, accountingPeriod: c.accountingPeriod ?? o.accountingPeriodOverride ?? undefined,
  });
}

// ------------------------------------------------------------------------------------ intake

/**
 * Registers an object already stored (a multipart upload or a signed-URL PUT) in its own
 * transaction and answers the file; a failed registration removes the object when `dropOnFailure`.
 */
export async function registerStored(svc: AppServices, tenantId: number, f: NewFile, dropOnFailure = true) {
  try {
    return await withTenant(svc.db.app, tenantId, async (trx) => {
      await registerFile(svc, trx, tenantId, f);
      return getFile(trx, f.id);
    });
  } catch (err) {
    if (dropOnFailure) await store(svc).delete(f.storageKey);
    throw err;
  }
}

/** The `{tenant}` path segment names this workspace (its id or uuid). */
export async function isOwnWorkspace(trx: Trx, tenantId: number, tenant: string): Promise<boolean> {
  const ws = await trx('tenants').where({ id: tenantId }).first('uuid');
  return tenant === String(tenantId) || tenant === ws?.uuid;
}

/** DELETE /file/{id} with its stored objects. */
export async function deleteFileEverywhere(svc: AppServices, tenantId: number, id: string): Promise<string[]> {
  const r = await withTenant(svc.db.app, tenantId, (trx) => deleteFile(svc, trx, tenantId, id));
  await removeObjects(svc, r.objects);
  return r.deleted;
}
