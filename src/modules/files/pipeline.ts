/**
 * The three file steps' service functions. Each is idempotent: it checks the file's status
 * first (an already-done step returns quietly) and hands its outcome to the `commit` it was
 * given, inside the transaction that records its own result; commit sets the status and
 * enqueues the next step (src/pipeline/run-step.ts). Order: src/pipeline/registry.ts.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import crypto from 'node:crypto';
import zlib from 'node:zlib';
import { PassThrough, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { from as copyFrom } from 'pg-copy-streams';
import type { Knex } from 'knex';
import type { AppServices } from '../../services';
import { withTenant, rawConnection, type Trx } from '../../db';
import { isMissingObject, readHead } from '../../lib/storage';
import { Workbook, XlsxError, hasWorkbookName, isOle2, isStoreError, isWorkbook } from '../../lib/xlsx';
import { detectSource, detectArchive, readStatement, type SourcePattern } from '../../../parsers';
import type { CanonicalLine, LineError } from '../../../parsers/types';
import { JOB_OPTIONS, PIPELINE, stepFor } from '../../pipeline/registry';
import { StepFailure, StepSuperseded, type CommitStep } from '../../pipeline/run-step';
import { claimFile, fileRow, updateFile, type FileRow } from '../../repositories/files';
import { childId, ingestLockKey, registerFile, storageKey, store, DEFAULT_OPTIONS, type UploadOptions } from './service';
import { findPattern, patternsForDetection, ensureBuiltinPatterns } from '../sources/service';
import { applyRemembered } from '../sources/remembered';
import { LineMatcher } from '../royalty/prefill';
import { LINE_COLUMNS, LineCopyFormatter, cp, expenseRow } from './line-copy';
import { zipLayoutProblem } from './zip-guard';
import { copiesLockKey, replaceEarlierCopies } from './replace';
import { INGEST_LIMITS, openStatementText, openStoredZip, statementHead, type StatementText, type StoredZip } from '../../lib/statement-open';
import { lineQuotaProblem } from '../platform/plans';
import { storageRoom } from '../../domain/quota';

export { INGEST_LIMITS };

/** Detection reads this much of a file. */
export const DETECT_HEAD_BYTES = 64 * 1024;

/** Why a stored file could not be opened: gone, or the object store failed (its own clear message). */
function unreadable(err: unknown): StepFailure {
  return new StepFailure('unreadable', isMissingObject(err) ? 'The stored file is missing' : `The stored file could not be read: ${(err as Error).message}`);
}

/**
 * Test-only fault injection (the kill-and-retry test). Never set outside tests. Kept on
 * globalThis so a test and the workers share it even if the loader instantiates this module twice.
 */
type IngestTestHooks = { afterBatch?: (fileId: string, batchNo: number, attempt: number) => Promise<void> | void };
export const ingestTestHooks: IngestTestHooks = ((globalThis as { __rondoIngestTestHooks?: IngestTestHooks }).__rondoIngestTestHooks ??= {});

async function setStatus(svc: AppServices, tenantId: number, id: string, patch: Parameters<typeof updateFile>[3]): Promise<void> {
  await withTenant(svc.db.app, tenantId, (trx) => updateFile(trx, tenantId, id, patch));
}

/** A file row whose bytes are stored (every registered file's are: registerFile sets both). */
type StoredFile = FileRow & { storage_key: string; sha256: string };

function stored(row: FileRow): StoredFile {
  if (!row.storage_key || !row.sha256) throw new StepFailure('unreadable', 'The file has no stored content');
  return row as StoredFile;
}

function opts(row: FileRow): UploadOptions & Record<string, any> {
  return { ...DEFAULT_OPTIONS, ...(row.options ?? {}) };
}

// ================================================================================ decompress

/** A Transform that counts bytes and aborts past a limit. */
class Limiter extends Transform {
  n = 0;
  constructor(private readonly limit: number, private readonly what: () => string) {
    super();
  }
  override _transform(chunk: Buffer, _e: BufferEncoding, cb: (err?: Error | null, data?: Buffer) => void): void {
    this.n += chunk.length;
    if (this.n > this.limit) return cb(new StepFailure('refused', this.what()));
    cb(null, chunk);
  }
}

function isJunkEntry(p: string): boolean {
  const base = path.posix.basename(p);
  return p.startsWith('__MACOSX/') || base.startsWith('.') || base === 'Thumbs.db' || base === '';
}

function ratioLimit(compressed: number): number {
  return Math.max(INGEST_LIMITS.ratioFloorBytes, compressed * INGEST_LIMITS.maxRatio);
}

export async function decompressFile(svc: AppServices, tenantId: number, id: string, commit: CommitStep): Promise<void> {
  const found = await withTenant(svc.db.app, tenantId, (trx) => fileRow(trx, tenantId, id));
  if (!found || stepFor(found.status) !== 'file.decompress') return; // done already, or gone
  await setStatus(svc, tenantId, id, { status: 'decompressing', progress: 0 });
  const s = store(svc);
  try {
    const row = stored(found);
    const head = await readHead(s, row.storage_key, 8).catch((err) => {
      throw unreadable(err);
    });
    const kind = detectArchive(head);
    if (isOle2(head)) throw new StepFailure('refused', 'Legacy binary Excel workbooks (.xls) are not read: save the statement as .xlsx or CSV');
    if (kind === 'zip') {
      const size = Number((await s.stat(row.storage_key))?.size ?? 0);
      let zip: StoredZip;
      try {
        zip = await openStoredZip(s, row.storage_key, size);
      } catch (err) {
        const what = hasWorkbookName(row.original_name) ? 'The xlsx workbook' : 'The zip file';
        throw new StepFailure('refused', `${what} is corrupt or truncated: ${(err as Error).message ?? String(err)}`);
      }
      try {
        const layout = zipLayoutProblem(zip.dir.files, size);
        if (layout) throw new StepFailure('refused', `Refused: the ${hasWorkbookName(row.original_name) ? 'xlsx workbook' : 'zip file'} is malformed: ${layout}`);
        if (isWorkbook(zip.dir.files) || hasWorkbookName(row.original_name)) {
          // A workbook is ONE statement (its sheet is converted to CSV text where it is read).
          await checkWorkbook(zip);
        } else {
          if (row.parent_id) throw new StepFailure('refused', 'Nested archives are not supported: a zip inside a zip');
          return await unzipInto(svc, tenantId, row, zip, commit);
        }
      } finally {
        zip.close();
      }
    }
    if (kind === 'gzip') {
      await gunzipInPlace(svc, tenantId, row, commit);
      return;
    }
    await withTenant(svc.db.app, tenantId, (trx) => commit(trx, { advance: true }));
  } catch (err) {
    if (err instanceof XlsxError) throw new StepFailure('refused', err.message);
    throw err;
  }
}

/**
 * An .xlsx is checked before it goes on: it is a workbook with a worksheet, and the entries
 * that will be read are within the archive limits (their real bytes are counted again when
 * they are read). Throws XlsxError / FileProblem.
 */
async function checkWorkbook(zip: StoredZip): Promise<void> {
  const files = zip.dir.files.filter((f) => f.type === 'File');
  if (files.length > INGEST_LIMITS.maxEntries) throw new StepFailure('refused', `Refused: the workbook has ${files.length} entries (limit ${INGEST_LIMITS.maxEntries})`);
  await Workbook.open(files, INGEST_LIMITS, { strings: false });
}

async function gunzipInPlace(svc: AppServices, tenantId: number, row: StoredFile, commit: CommitStep): Promise<void> {
  const s = store(svc);
  const plainKey = storageKey(tenantId, row.id, 'plain');
  const compressed = Number(row.size_bytes ?? (await s.stat(row.storage_key))?.size ?? 0);
  const limit = Math.min(INGEST_LIMITS.maxExpandedBytes, ratioLimit(compressed));
  const src = await s.getStream(row.storage_key);
  const limiter = new Limiter(limit, () => `Refused: the gzip file expands beyond ${limit} bytes (limit: ratio ${INGEST_LIMITS.maxRatio}:1, total ${INGEST_LIMITS.maxExpandedBytes} bytes)`);
  const gunzip = zlib.createGunzip();
  const out = new PassThrough();
  const piping = pipeline(src, gunzip, limiter, out).catch((err) => {
    out.destroy(err);
    throw err;
  });
  try {
    await Promise.all([s.putStream(plainKey, out), piping]);
  } catch (err) {
    await s.delete(plainKey);
    if (err instanceof StepFailure) throw err;
    if ((err as NodeJS.ErrnoException).code?.startsWith?.('Z_') || /unexpected end|incorrect header|invalid/i.test((err as Error).message))
      throw new StepFailure('refused', `The gzip file is corrupt or truncated: ${(err as Error).message}`);
    throw err;
  }
  const oldKey = row.storage_key;
  await withTenant(svc.db.app, tenantId, (trx) => commit(trx, { advance: true, patch: { storage_key: plainKey } }));
  if (oldKey !== plainKey) await s.delete(oldKey);
}

async function unzipInto(svc: AppServices, tenantId: number, row: StoredFile, zip: StoredZip, commit: CommitStep): Promise<void> {
  const s = store(svc);
  const dir = zip.dir;
  const entries = dir.files.filter((f) => f.type === 'File' && !isJunkEntry(f.path));
  if (entries.length === 0) throw new StepFailure('refused', 'The zip file holds no statement');
  if (entries.length > INGEST_LIMITS.maxEntries) throw new StepFailure('refused', `Refused: the zip file has ${entries.length} entries (limit ${INGEST_LIMITS.maxEntries})`);
  const declared = entries.reduce((a, f) => a + f.uncompressedSize, 0);
  if (declared > INGEST_LIMITS.maxExpandedBytes) throw new StepFailure('refused', `Refused: the zip file expands to ${declared} bytes (limit ${INGEST_LIMITS.maxExpandedBytes})`);
  for (const f of entries) {
    if (f.uncompressedSize > ratioLimit(f.compressedSize))
      throw new StepFailure('refused', `Refused: entry "${f.path}" expands ${Math.round(f.uncompressedSize / Math.max(1, f.compressedSize))}:1 (limit ${INGEST_LIMITS.maxRatio}:1)`);
  }
  // The unpacked statements are kept too: they count against the plan's storage (each entry's
  // real bytes are held to its declared size below, so the declared total bounds them).
  const room = await storageRoom(svc.db.owner, tenantId);
  if (room && declared > room.bytes) throw new StepFailure('refused', `Refused: unpacking the zip file would pass the plan's storage. ${room.error(declared).message}`);
  const children: { id: string; name: string; key: string; size: number; sha256: string }[] = [];
  let total = 0;
  const written: string[] = [];
  try {
    let i = 0;
    for (const f of entries) {
      const cid = childId(row.id, f.path);
      const ckey = storageKey(tenantId, cid);
      // Never trust the headers: count the real bytes against the declared size and the limits.
      const limit = Math.min(f.uncompressedSize, ratioLimit(f.compressedSize), INGEST_LIMITS.maxExpandedBytes - total);
      const limiter = new Limiter(limit, () => `Refused: entry "${f.path}" expands beyond its declared size or the archive limits`);
      const entry = await zip.entry(f);
      const out = new PassThrough();
      const piping = pipeline(entry, limiter, out).catch((err) => {
        out.destroy(err);
        throw err;
      });
      written.push(ckey);
      const [{ size: csize, sha256 }] = await Promise.all([s.putStream(ckey, out), piping]);
      total += csize;
      children.push({ id: cid, name: path.posix.basename(f.path), key: ckey, size: csize, sha256 });
      await setStatus(svc, tenantId, row.id, { progress: Math.min(99, Math.floor((++i / entries.length) * 100)) });
    }
  } catch (err) {
    for (const k of written) await s.delete(k);
    if (err instanceof StepFailure) throw err;
    throw new StepFailure('refused', `The zip file could not be read: ${(err as Error).message}`);
  }
  const o = opts(row);
  await withTenant(svc.db.app, tenantId, async (trx) => {
    for (const c of children) {
      await registerFile(svc, trx, tenantId, {
        id: c.id, parentId: row.id, originalName: c.name, storageKey: c.key, size: c.size, sha256: c.sha256,
        options: { autoProcessIfConfident: o.autoProcessIfConfident, forceManualConfirmation: o.forceManualConfirmation, force: o.force, reprocess: o.reprocess ?? false },
        uploadedBy: row.uploaded_by,
      });
    }
    // the archive itself is done: each child goes through the pipeline on its own
    await commit(trx, { advance: false, status: 'processed', patch: { kind: 'archive', progress: 100, processed_at: trx.fn.now() } });
  });
}

// ================================================================================ detect

export async function detectFile(svc: AppServices, tenantId: number, id: string, commit: CommitStep): Promise<void> {
  await ensureBuiltinPatterns(svc.db.owner);
  const row = await withTenant(svc.db.app, tenantId, (trx) => fileRow(trx, tenantId, id));
  if (!row || stepFor(row.status) !== 'file.detect') return;
  let head: Buffer;
  try {
    head = await statementHead(store(svc), stored(row).storage_key, INGEST_LIMITS, DETECT_HEAD_BYTES);
  } catch (err) {
    throw err instanceof XlsxError ? new StepFailure('refused', err.message) : unreadable(err);
  }
  await withTenant(svc.db.app, tenantId, async (trx) => {
    const patterns = await patternsForDetection(trx);
    const own = new Set(patterns.filter((p) => p.tenantId !== null).map((p) => p.key)); // the workspace's own layouts win ties; a confirmed shape wins outright
    const candidates = detectSource({ fileName: row.original_name, head }, patterns.map((p) => p.definition), { own });
    const byKey = new Map(patterns.map((p) => [p.key, p]));
    const shape = await applyRemembered(trx, { fileName: row.original_name, head }, candidates, patterns);
    const best = candidates[0];
    const winner = best ? byKey.get(best.patternKey) : undefined;
    const o = opts(row);
    const confident = !!best && !!winner && best.score >= svc.cfg.detectionThreshold;
    const go = confident && o.autoProcessIfConfident && !o.forceManualConfirmation;
    const detection = {
      threshold: svc.cfg.detectionThreshold,
      shape,
      candidates: candidates.slice(0, 5).map((c) => ({ source: c.patternKey, name: byKey.get(c.patternKey)?.name ?? null, score: c.score, confidence: c.confidence, period: c.period, reasons: c.reasons })),
    };
    const patch: Record<string, unknown> = {
      detection: JSON.stringify(detection),
      progress: 0,
      error_message: go ? null : !best || best.score < 0.3 ? 'No source pattern recognises this file: confirm the source' : null,
    };
    if (best && winner && best.score >= 0.3) {
      Object.assign(patch, {
        source_pattern_id: winner.id,
        pattern_version: winner.version,
        source_key: winner.key,
        source_name: winner.name,
        confidence: JSON.stringify(best.confidence),
        sale_period_start: best.period?.start ?? null,
        sale_period_end: best.period?.end ?? null,
      });
    }
    await commit(trx, go ? { advance: true, patch } : { advance: false, status: 'needs_confirmation', patch });
  });
}

// ================================================================================ ingest

class SinkError extends Error {}

/** Write to a stream, honouring back-pressure; rejects if the stream errors meanwhile. */
function write(stream: NodeJS.WritableStream & { once: Function; off: Function }, data: string | Buffer): Promise<void> | void {
  if (stream.write(data)) return;
  return new Promise<void>((resolve, reject) => {
    const done = (err?: Error) => {
      stream.off('drain', done);
      stream.off('error', done);
      if (err instanceof Error) reject(err);
      else resolve();
    };
    stream.once('drain', done);
    stream.once('error', done);
  });
}

function finished(stream: NodeJS.WritableStream & { once: Function }): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.once('finish', resolve);
    stream.once('error', reject);
  });
}

/**
 * Reads the stored file with its pattern and loads its lines: ONE owner-pool transaction
 * (COPY FROM is refused on tables with RLS for the application role) that first takes a
 * per-file advisory lock and deletes any earlier lines and errors of the file, then COPYs,
 * then records counts and the next pipeline step. A crash anywhere rolls everything back:
 * readers never see half a file, and the retry starts from a clean slate.
 */
export async function ingestFile(svc: AppServices, tenantId: number, id: string, commit: CommitStep): Promise<void> {
  await ensureBuiltinPatterns(svc.db.owner);
  const { queuedAs, runningAs } = PIPELINE['file.ingest'];
  const row = await withTenant(svc.db.app, tenantId, (trx) =>
    claimFile(trx, tenantId, id, [queuedAs, runningAs], { status: runningAs, progress: 0, attempts: trx.raw('attempts + 1') }),
  );
  if (!row) return;
  const o = opts(row);
  const pattern = await withTenant(svc.db.app, tenantId, (trx) =>
    row.source_pattern_id ? findPattern(trx, { id: row.source_pattern_id }, row.pattern_version ?? undefined) : Promise.resolve(null),
  );
  if (!pattern) throw new StepFailure('no_pattern', 'The source pattern of this file no longer exists: confirm the source again');
  try {
    await loadLines(svc, tenantId, stored(row), pattern.definition, o, row.attempts, commit);
  } catch (err) {
    if (err instanceof StepFailure || err instanceof StepSuperseded) throw err; // the file's own failure; or started over meanwhile: not this run's
    // Unexpected (database, disk): pg-boss retries. After the last try the file fails visibly (and the job too).
    if (row.attempts > JOB_OPTIONS['file.ingest'].retryLimit) throw new StepFailure('retries_exhausted', `Ingestion failed after ${row.attempts} attempts: ${(err as Error).message}`, {}, err);
    throw err;
  }
}

async function loadLines(svc: AppServices, tenantId: number, row: StoredFile, pattern: SourcePattern, o: Record<string, any>, attempt: number, commit: CommitStep): Promise<void> {
  const s = store(svc);
  const fileId = row.id as string;
  const total = Number(row.size_bytes ?? 0) || Number((await s.stat(row.storage_key))?.size ?? 0) || 1;
  let text: StatementText;
  try {
    // a workbook's sheet is written as CSV in the pattern's own delimiter and decimal style
    text = await openStatementText(s, row.storage_key, INGEST_LIMITS, {
      delimiter: pattern.format.delimiter === 'auto' ? ',' : pattern.format.delimiter,
      decimalComma: pattern.format.decimal === ',',
    });
  } catch (err) {
    throw err instanceof XlsxError ? new StepFailure('refused', err.message) : unreadable(err);
  }
  const counter = text.stream;

  // Progress on its own short transactions (visible while the COPY transaction is open).
  let progressBusy: Promise<unknown> = Promise.resolve();
  let lastProgress = -1;
  let stopped = false;
  const timer = setInterval(() => {
    const p = Math.min(99, Math.floor((text.sourceBytes() / total) * 100));
    if (p === lastProgress || stopped) return;
    lastProgress = p;
    progressBusy = progressBusy.then(() => setStatus(svc, tenantId, fileId, { progress: p })).catch(() => undefined);
  }, 500);

  const errFile = path.join(svc.cfg.dataDir, 'tmp', `errors-${fileId}-${crypto.randomBytes(4).toString('hex')}.copy`);
  await fsp.mkdir(path.dirname(errFile), { recursive: true });
  const errOut = fs.createWriteStream(errFile);
  const tenantCol = String(tenantId);
  const accOverride: string | null = o.accountingPeriodOverride ?? null;

  const started = Date.now();
  let ingested = null as Record<string, unknown> | null;
  try {
    // inside the try: if it fails, the finally still stops the timer and closes the streams
    const matcher = await LineMatcher.open(svc, tenantId, fileId);
    const forced = !!row.duplicate_of && !!o.force; // this upload replaces the earlier copies of its bytes (replace.ts)
    await svc.db.owner.transaction(async (trx: Knex.Transaction) => {
      if (forced) await trx.raw(`SELECT pg_advisory_xact_lock(hashtextextended(?, 0))`, [copiesLockKey(tenantId, row.sha256)]);
      await trx.raw(`SELECT pg_advisory_xact_lock(hashtextextended(?, 0))`, [ingestLockKey(tenantId, fileId)]);
      const again = await trx('files').where({ tenant_id: tenantId, id: fileId }).first('status');
      if (!again || again.status !== 'ingesting') return; // another attempt finished it meanwhile
      for (const t of ['royalty_lines', 'file_errors', 'file_expense_lines']) await trx(t).where({ tenant_id: tenantId, file_id: fileId }).delete();
      const expenseRows: Record<string, unknown>[] = []; // cost rows read as expenses (money/file-expenses.ts makes them expenses)

      // Lines go straight into royalty_lines, already matched and (where exact) converted.
      const conn = await rawConnection(trx);
      const copy = conn.query(copyFrom(`COPY royalty_lines (${LINE_COLUMNS.join(',')}) FROM STDIN`));
      let copyError: Error | null = null;
      copy.on('error', (e: Error) => (copyError = e));
      const copyDone = finished(copy);
      copyDone.catch(() => undefined);
      let batchNo = 0;

      const onError = (e: LineError) => {
        errOut.write(`${tenantCol}\t${fileId}\t${e.lineNo}\t${cp(e.reason)}\t${cp(e.raw?.slice(0, 10_000) ?? null)}\n`);
      };
      const fmt = new LineCopyFormatter(tenantId, fileId, accOverride, matcher, onError);
      const sink = {
        async lines(batch: CanonicalLine[]) {
          try {
            if (copyError) throw copyError;
            const buf = await fmt.add(batch);
            if (copyError) throw copyError; // (it may have failed during the match round trip)
            if (buf) await write(copy, buf);
            batchNo++;
            if (ingestTestHooks.afterBatch) await ingestTestHooks.afterBatch(fileId, batchNo, attempt);
          } catch (e) {
            const cause = copyError ?? e; // the COPY's own error, not what writing to a dead COPY says
            throw new SinkError((cause as Error).message, { cause });
          }
        },
        error: onError,
        expense: (l: CanonicalLine) => void expenseRows.push(expenseRow(tenantId, fileId, l)),
      };

      let summary;
      try {
        summary = await readStatement(counter, { fileName: row.original_name, pattern, periodOverride: o.periodOverride ?? null }, sink);
      } catch (e) {
        copy.destroy(); // abandons the COPY; the transaction rolls back below
        if (e instanceof SinkError) throw (e.cause as Error) ?? e;
        if (e instanceof XlsxError) throw new StepFailure('refused', e.message);
        if (isStoreError(e)) throw e; // the object store failed mid-read: retried (the file fails after the last try)
        throw new StepFailure('refused', `The file could not be read as "${pattern.name}": ${(e as Error).message}`);
      }
      try {
        // lines still waiting for their match keys
        const rest = await fmt.flush();
        if (copyError) throw copyError;
        if (rest) await write(copy, rest);
      } catch (e) {
        copy.destroy();
        throw copyError ?? e;
      }
      copy.end();
      await copyDone;
      const tRead = Date.now();
      await new Promise<void>((resolve, reject) => errOut.end((err?: Error | null) => (err ? reject(err) : resolve())));

      const errCopy = conn.query(copyFrom(`COPY file_errors (tenant_id, file_id, line_no, reason, raw) FROM STDIN`));
      await pipeline(fs.createReadStream(errFile), errCopy);
      for (let i = 0; i < expenseRows.length; i += 1000) await trx('file_expense_lines').insert(expenseRows.slice(i, i + 1000));

      stopped = true;
      clearInterval(timer);
      await progressBusy;

      const extraFailed = fmt.failed;
      const rowsFailed = summary.rowsFailed + extraFailed;
      const rowsIngested = summary.rowsIngested - extraFailed;
      const overQuota = await lineQuotaProblem(trx, tenantId, rowsIngested, fileId); // plan limit: the file fails, its lines roll back
      if (overQuota) throw new StepFailure('over_quota', overQuota);
      let totals = summary.totals;
      if (extraFailed) {
        // Lines refused here are not in the table: total what was stored.
        const t = await trx('royalty_lines').where({ tenant_id: tenantId, file_id: fileId }).groupBy('currency').select('currency', trx.raw('sum(net)::text as net'));
        totals = Object.fromEntries(t.map((r) => [String(r.currency).trim(), r.net]));
      }
      const accounting = accOverride ?? (fmt.accSeen.size ? [...fmt.accSeen].sort().at(-1)! : row.accounting_period ?? null);
      const nothing = rowsIngested === 0 && rowsFailed > 0;
      const patch = {
        progress: 100,
        rows_read: summary.rowsRead,
        rows_ingested: rowsIngested,
        rows_failed: rowsFailed,
        rows_skipped: summary.rowsSkipped,
        totals: JSON.stringify(totals),
        control_totals: summary.control ? JSON.stringify(summary.control) : null,
        reconciles: summary.reconciles,
        sale_period_start: o.periodOverride?.start ?? summary.period.start ?? row.sale_period_start,
        sale_period_end: o.periodOverride?.end ?? summary.period.end ?? row.sale_period_end,
        accounting_period: accounting,
        income: pattern.income ?? 'recording',
        ...fmt.inFlight(), // the snapshot and counts the allocation may trust (royalty/decided.ts)
        error_message: nothing ? `No line could be read: ${rowsFailed} rejected (see the errors)` : null,
        processed_at: trx.fn.now(),
        ...(forced && !nothing ? { duplicate_of: null } : {}),
      };
      if (forced && !nothing) await replaceEarlierCopies(trx, tenantId, fileId, row.sha256);
      await commit(trx, nothing ? { failed: new StepFailure('no_lines', patch.error_message!, patch) } : { advance: true, patch });
      ingested = { rowsRead: summary.rowsRead, rowsIngested, rowsFailed, matchedInFlight: matcher?.stats ?? null, timings: { parseMatchAndCopy: tRead - started, finish: Date.now() - tRead } };
    });
    if (ingested) svc.log.info({ tenantId, fileId, ...ingested }, 'file ingested');
  } finally {
    stopped = true;
    clearInterval(timer);
    await progressBusy;
    errOut.destroy();
    text.close();
    await fsp.rm(errFile, { force: true });
  }
}
