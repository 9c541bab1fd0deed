/**
 * "A file confirmed once for a source is not asked about again" (docs/patterns.md, detection):
 * the shape of a file a person confirmed (its header's fingerprint and its name's shape) is
 * remembered with the source, per workspace; the next file of that shape is detected to it.
 */
import crypto from 'node:crypto';
import type { Trx } from '../../db';
import { fileShape, type DetectionCandidate, type StatementSample } from '../../../parsers';
import type { LoadedPattern } from './service';

/** A file's shape as stored: its header's fingerprint (sha-256; '' without a header row) and its name with digit runs as `#`. */
export interface ShapeKey {
  headerFp: string;
  nameShape: string;
}

export function shapeKey(shape: { header: string | null; name: string }): ShapeKey {
  return { headerFp: shape.header === null ? '' : crypto.createHash('sha256').update(shape.header).digest('hex'), nameShape: shape.name };
}

/** The source a person confirmed for files of this shape (the same header and name shape) in this workspace, or null. */
export async function rememberedSource(trx: Trx, shape: ShapeKey): Promise<{ sourcePatternId: string; fileName: string | null } | null> {
  const r = await trx('source_confirmations as c').leftJoin('files as f', 'f.id', 'c.file_id')
    .where({ 'c.header_fp': shape.headerFp, 'c.name_shape': shape.nameShape }).first('c.source_pattern_id', 'f.original_name');
  return r ? { sourcePatternId: r.source_pattern_id, fileName: r.original_name ?? null } : null;
}

/** Remembers that a person confirmed `patternId` for files of this shape (one source per shape; the latest wins). */
export async function rememberConfirmation(trx: Trx, shape: ShapeKey, patternId: string, fileId: string): Promise<void> {
  await trx('source_confirmations')
    .insert({ tenant_id: trx.raw('app_tenant_id()'), header_fp: shape.headerFp, name_shape: shape.nameShape, source_pattern_id: patternId, file_id: fileId })
    .onConflict(['tenant_id', 'header_fp', 'name_shape'])
    .merge({ source_pattern_id: patternId, file_id: fileId, updated_at: trx.fn.now() });
}

/**
 * Detection's candidates for a workspace file: when a person confirmed a file of the same shape,
 * that source first with score 1 and full source confidence. Returns the file's shape (kept in
 * the detection, so a confirmation of this file remembers it).
 */
export async function applyRemembered(trx: Trx, sample: StatementSample, candidates: DetectionCandidate[], patterns: LoadedPattern[]): Promise<ShapeKey> {
  const shape = shapeKey(fileShape(sample));
  const remembered = await rememberedSource(trx, shape);
  const known = remembered ? patterns.find((p) => p.id === remembered.sourcePatternId) : undefined;
  if (remembered && known) {
    const i = candidates.findIndex((c) => c.patternKey === known.key);
    const c = i >= 0 ? candidates.splice(i, 1)[0]! : { patternKey: known.key, score: 0, confidence: { source: 0, period: 0, schema: 0 }, period: null, reasons: [] as string[] };
    c.score = 1;
    c.confidence = { ...c.confidence, source: 1 };
    c.reasons.push(`a file of the same shape was confirmed as this source in this workspace${remembered.fileName ? ` ("${remembered.fileName}")` : ''}`);
    candidates.unshift(c);
  }
  return shape;
}
