/**
 * A forced upload (the same bytes as earlier files, uploaded with force=true) becomes the file:
 * when its lines are stored, the earlier copies' lines and errors are removed in the same
 * transaction and the copies point at it. Never two copies of a statement's lines.
 */
import type { Knex } from 'knex';
import type { Trx } from '../../db';
import { FILE_DELETE_HOOKS } from './hooks';
import { duplicateMessage, ingestLockKey } from './service';

/** Serialises forced uploads of the same bytes (taken before the file's own ingest lock). */
export function copiesLockKey(tenantId: number, sha256: string): string {
  return `rondo.copies.${tenantId}.${sha256}`;
}

/** Removes the lines of every other statement file of the tenant with these bytes; answers their ids. */
export async function replaceEarlierCopies(trx: Knex.Transaction, tenantId: number, fileId: string, sha256: string): Promise<string[]> {
  const others = await trx('files').where({ tenant_id: tenantId, sha256 }).whereNot({ id: fileId }).whereNot({ kind: 'archive' }).orderBy('id').select('id');
  const ids = others.map((o) => o.id as string);
  // an ingest of an earlier copy running now finishes first (and is then replaced)
  for (const id of ids) await trx.raw('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [ingestLockKey(tenantId, id)]);
  if (!ids.length) return ids;
  // what later steps derived from the copies' lines (earnings, rollups) goes with them, as on
  // DELETE; the hooks read the workspace the transaction names, as in a tenant transaction
  await trx.raw(`SELECT set_config('app.tenant_id', ?, true)`, [String(tenantId)]);
  for (const hook of FILE_DELETE_HOOKS) await hook(trx as unknown as Trx, tenantId, ids);
  await trx('royalty_lines').where({ tenant_id: tenantId }).whereIn('file_id', ids).delete();
  await trx('file_errors').where({ tenant_id: tenantId }).whereIn('file_id', ids).delete();
  // earlier duplicate uploads (never read) now point at this file; the copy that was read is retired
  await trx('files').where({ tenant_id: tenantId }).whereIn('id', ids).whereNotNull('duplicate_of').update({ duplicate_of: fileId, error_message: duplicateMessage(fileId), updated_at: trx.fn.now() });
  await trx('files').where({ tenant_id: tenantId }).whereIn('id', ids).whereNull('duplicate_of').update({
    status: 'failed',
    duplicate_of: fileId,
    error_message: `Replaced by file ${fileId} (the same bytes uploaded again with force=true): its lines were removed`,
    rows_read: null, rows_ingested: null, rows_failed: null, rows_skipped: null, totals: null, control_totals: null, reconciles: null, missing_rates: null,
    progress: 100,
    updated_at: trx.fn.now(),
  });
  return ids;
}
