/**
 * Teaching Rondo a layout, for a workspace's admins: a sample (a statement already uploaded,
 * or one sent with the request) drafted into a pattern, and a pattern checked against it.
 * Nothing is saved here; the admin saves the pattern with POST /sources and names it for
 * the uploaded file with POST /file/confirm-detection/{id}.
 */
import { Readable } from 'node:stream';
import type { AppServices } from '../../services';
import type { Trx } from '../../db';
import { NotFoundError, ValidationError } from '../../lib/errors';
import { checkPatternOnSample, draftPattern, validatePattern, readStatement, detectSource, type SourcePattern } from '../../../parsers';
import type { CanonicalLine, LineError, ReadSummary } from '../../../parsers/types';
import { detectArchive, gunzipHead } from '../../../parsers/text';
import { statementHead } from '../../lib/statement-open';
import { objectStore } from '../../lib/storage';
import { INGEST_LIMITS } from '../../lib/statement-open';
import { DRY_RUN_MAX_BYTES, sampleText, dryRun } from './dry-run';
import { patternsForDetection } from './service';
import { visibleFileRow } from '../../repositories/files';

export interface Sample {
  bytes: Buffer;
  fileName: string;
  fileId: string | null;
}

/** The first 10 MB of a file the workspace uploaded, as text (a workbook's first sheet as CSV, gzip opened). */
export async function storedSample(svc: AppServices, trx: Trx, fileId: string): Promise<Sample> {
  const row = await visibleFileRow(trx, fileId, ['id', 'original_name', 'storage_key', 'kind']);
  if (!row) throw new NotFoundError('File');
  if (!row.storage_key) throw new ValidationError('The file has no stored content', ['fileId'], 'FILE_NOT_STORED');
  let bytes = await statementHead(objectStore(svc.cfg), row.storage_key, INGEST_LIMITS, DRY_RUN_MAX_BYTES);
  if (detectArchive(bytes) === 'gzip') bytes = gunzipHead(bytes);
  return { bytes, fileName: row.original_name ?? 'sample', fileId: row.id };
}

/** A sample sent with the request: an .xlsx becomes the CSV text of its first sheet. */
export async function sentSample(bytes: Buffer, fileName: string, pattern?: SourcePattern | null): Promise<Sample> {
  let b = await sampleText(bytes, pattern);
  if (detectArchive(b) === 'gzip') b = gunzipHead(b);
  return { bytes: b, fileName, fileId: null };
}

const PREVIEW = 10;

/** Draft: roles, a proposed pattern, the first lines as they would be stored, and the layouts Rondo already knows that fit. */
export async function draftFromSample(trx: Trx, sample: Sample, tenantId: number) {
  const t = await trx('tenants').where({ id: tenantId }).first('base_currency');
  const d = draftPattern(sample.bytes, sample.fileName, { workspaceCurrency: t?.base_currency ? String(t.base_currency).trim() : null });
  const lines: CanonicalLine[] = [];
  const errors: LineError[] = [];
  let summary: ReadSummary | null = null;
  let failed: string | null = null;
  try {
    summary = await readStatement(Readable.from([sample.bytes]), { fileName: sample.fileName, pattern: d.pattern }, {
      lines(b) {
        for (const l of b) if (lines.length < PREVIEW) lines.push(l);
      },
      error(e) {
        if (errors.length < PREVIEW) errors.push(e);
      },
    });
  } catch (e) {
    failed = (e as Error).message;
  }
  const known = detectSource({ fileName: sample.fileName, head: sample.bytes.subarray(0, 64 * 1024) }, (await patternsForDetection(trx)).map((p) => p.definition))
    .filter((c) => c.confidence.schema === 1)
    .slice(0, 3)
    .map((c) => ({ key: c.patternKey, score: c.score }));
  return {
    fileId: sample.fileId,
    fileName: sample.fileName,
    encoding: d.encoding,
    delimiter: d.delimiter,
    headerLine: d.headerLine,
    columns: d.columns,
    money: d.money,
    currency: d.currency,
    rowFilters: d.rowFilters,
    income: d.income,
    warnings: d.warnings,
    pattern: d.pattern,
    preview: { lines, errors, summary, failed },
    known,
  };
}

/** Validation of a pattern alone, or against a sample. */
export async function validateOnSample(pattern: unknown, sample: Sample | null) {
  if (!sample) {
    const v = validatePattern(pattern);
    return { valid: v.ok, errors: v.ok ? [] : v.errors, warnings: [] as string[] };
  }
  const r = await checkPatternOnSample(pattern, sample.bytes, sample.fileName);
  const s = r.summary;
  return {
    valid: r.valid,
    errors: r.errors,
    warnings: r.warnings,
    fileId: sample.fileId,
    missingColumns: r.missingColumns,
    unreadable: r.unreadable,
    otherErrors: r.otherErrors,
    totals: s?.totals ?? null,
    rows: s ? { read: s.rowsRead, ingested: s.rowsIngested, failed: s.rowsFailed, skipped: s.rowsSkipped } : null,
    skipped: s?.skipped ?? null,
    deductions: s?.deductions ?? null,
    expenses: s?.expenses ?? null,
    control: s?.control ?? null,
    reconciles: s?.reconciles ?? null,
    period: s?.period ?? null,
    lines: r.lines,
  };
}

export async function dryRunOnSample(svc: AppServices, tenantId: number, sample: Sample, pattern: unknown) {
  return dryRun(svc, tenantId, { sample: sample.bytes, fileName: sample.fileName, patternJson: pattern === undefined ? undefined : JSON.stringify(pattern) });
}
