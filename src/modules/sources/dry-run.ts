/**
 * The pattern creator's dry run: detection scores of a sample statement against the
 * patterns detection would try (the workspace's when the caller has one, else the global
 * ones), then the first mapped lines and errors of the best pattern (or of a pattern given
 * with the sample). Nothing is saved.
 */
import { Readable } from 'node:stream';
import type { AppServices } from '../../services';
import { withTenant } from '../../db';
import { ValidationError } from '../../lib/errors';
import { detectSource, readStatement, type SourcePattern } from '../../../parsers';
import type { CanonicalLine, LineError } from '../../../parsers/types';
import { inputProblems } from '../../http/limits';
import { checkPattern, ensureBuiltinPatterns, listGlobalPatterns, patternsForDetection } from './service';
import { INGEST_LIMITS, workbookBufferText } from '../../lib/statement-open';

/** Dry runs read at most this much of the sample. */
export const DRY_RUN_MAX_BYTES = 10 * 1024 * 1024;
/** At most this many mapped lines and line errors are shown. */
const SHOWN = 20;

/** An .xlsx sample becomes the CSV text of its first sheet (as the ingest reads it); other samples stay as they are. */
export async function sampleText(sample: Buffer, pattern?: SourcePattern | null): Promise<Buffer> {
  try {
    const csv = pattern
      ? { delimiter: pattern.format.delimiter === 'auto' ? ',' : pattern.format.delimiter, decimalComma: pattern.format.decimal === ',' }
      : {};
    return (await workbookBufferText(sample, INGEST_LIMITS, DRY_RUN_MAX_BYTES, csv)) ?? sample;
  } catch (e) {
    throw new ValidationError(`The sample is a zip that cannot be read as an xlsx workbook (send a workbook under 10 MB, or a statement): ${(e as Error).message}`);
  }
}

/** Current definitions of the active global patterns. */
async function globalDefinitions(svc: Pick<AppServices, 'db'>): Promise<SourcePattern[]> {
  const rows = await svc.db.owner('source_patterns as p')
    .join('source_pattern_versions as v', function () {
      this.on('v.pattern_id', '=', 'p.id').andOn('v.version', '=', 'p.current_version');
    })
    .whereNull('p.tenant_id')
    .where('p.active', true)
    .select('v.definition');
  return rows.map((r) => r.definition as SourcePattern);
}

export interface DryRunInput {
  sample: Buffer;
  fileName: string;
  /** A pattern as JSON text, tried first and used for reading when given. */
  patternJson?: string;
}

export async function dryRun(svc: Pick<AppServices, 'db' | 'cfg'>, tenantId: number | null | undefined, input: DryRunInput) {
  const { sample, fileName } = input;
  let chosen: SourcePattern | null = null;
  if (input.patternJson) {
    let obj: unknown;
    try {
      obj = JSON.parse(input.patternJson);
    } catch (e) {
      throw new ValidationError('pattern is not valid JSON', [(e as Error).message]);
    }
    const problems = inputProblems(obj, 'pattern');
    if (problems.length) throw new ValidationError('Invalid pattern', problems);
    chosen = checkPattern(obj);
  }
  const owner = svc.db.owner;
  await ensureBuiltinPatterns(owner);
  let candidatePatterns: SourcePattern[];
  if (tenantId) {
    candidatePatterns = (await withTenant(svc.db.app, tenantId, (trx) => patternsForDetection(trx))).map((p) => p.definition);
  } else {
    candidatePatterns = (await listGlobalPatterns(owner)).length ? await globalDefinitions(svc) : [];
  }
  if (chosen) candidatePatterns = [chosen, ...candidatePatterns.filter((p) => p.key !== chosen!.key)];
  const detection = detectSource({ fileName, head: (await sampleText(sample)).subarray(0, 64 * 1024) }, candidatePatterns).slice(0, 8);
  const pattern = chosen ?? candidatePatterns.find((p) => p.key === detection[0]?.patternKey) ?? null;
  let read: Record<string, unknown> | null = null;
  if (pattern) {
    const lines: CanonicalLine[] = [];
    const errors: LineError[] = [];
    try {
      const summary = await readStatement(Readable.from([await sampleText(sample, pattern)]), { fileName, pattern }, {
        lines(b) {
          for (const l of b) if (lines.length < SHOWN) lines.push(l);
        },
        error(e) {
          if (errors.length < SHOWN) errors.push(e);
        },
      });
      read = { pattern: pattern.key, summary, lines, errors };
    } catch (e) {
      read = { pattern: pattern.key, failed: (e as Error).message, lines, errors };
    }
  }
  return { fileName, bytesRead: sample.length, threshold: svc.cfg.detectionThreshold, detection, read };
}
