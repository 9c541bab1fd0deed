/**
 * The `files` table (statement files) and its typed row. The table belongs to the files area
 * (src/modules/files): that area and this repository query it; every other area reads and
 * writes a file's row through the functions below (docs/architecture.md, "Tables and their
 * owners"; test/ownership.test.ts). The pipeline runner (src/pipeline/run-step.ts) writes a
 * step's outcome. Read-only joins inside set-based SQL are listed in the ownership test.
 *
 * Every function works on a tenant transaction (row-level security narrows it to the
 * workspace) or on the owner pool with the tenant named.
 */
import type { Knex } from 'knex';
import type { FileStatus } from '../pipeline/registry';

/** A `files` row as Postgres returns it (dates as Date, NUMERIC/bigint as strings, jsonb parsed). */
export interface FileRow {
  tenant_id: number;
  id: string;
  parent_id: string | null;
  /** `archive` for a zip whose entries became files of their own; null for a statement. */
  kind: string | null;
  original_name: string;
  content_type: string | null;
  storage_key: string | null;
  size_bytes: string | null;
  sha256: string | null;
  duplicate_of: string | null;
  status: FileStatus;
  progress: number | null;
  source_pattern_id: string | null;
  pattern_version: number | null;
  source_key: string | null;
  source_name: string | null;
  confidence: unknown;
  detection: unknown;
  sale_period_start: Date | string | null;
  sale_period_end: Date | string | null;
  accounting_period: Date | string | null;
  income: 'recording' | 'publishing';
  rows_read: number | null;
  rows_ingested: number | null;
  rows_failed: number | null;
  rows_skipped: number | null;
  totals: Record<string, string> | null;
  control_totals: unknown;
  reconciles: boolean | null;
  error_message: string | null;
  missing_rates: { currency: string; month: string }[] | null;
  options: FileOptions | null;
  uploaded_by: string | null;
  attempts: number;
  /** What the ingest decided in flight, and the snapshot it decided under (royalty/decided.ts). */
  decided_in_flight: { lines: number; matched: number; paid: number; partial: number } | null;
  ingest_snapshot: string | null;
  allocation_path: 'in_flight' | 'checked' | null;
  allocated_at: Date | null;
  /** Its rollups were built beside the ledger (the allocation took the ingest's decisions). */
  rollups_built: boolean;
  processed_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** A file's options: the upload's, then what a confirmation of its source set. */
export interface FileOptions {
  autoProcessIfConfident?: boolean;
  forceManualConfirmation?: boolean;
  force?: boolean;
  reprocess?: boolean;
  confirmed?: boolean;
  periodOverride?: { start?: string; end?: string } | null;
  accountingPeriodOverride?: string | null;
}

/** What may be written to a row: its columns, or a raw SQL value (`trx.fn.now()`, `trx.raw(…)`). */
export type FilePatch = { [K in Exclude<keyof FileRow, 'tenant_id' | 'id'>]?: FileRow[K] | Knex.Raw };

type Db = Knex | Knex.Transaction;

/** A DATE column of the row as 'YYYY-MM-DD' (node-pg gives a DATE as the local midnight of that day). */
export function dayOf(v: Date | string | null): string | null {
  if (v == null) return null;
  if (typeof v === 'string') return v.slice(0, 10);
  return `${v.getFullYear()}-${String(v.getMonth() + 1).padStart(2, '0')}-${String(v.getDate()).padStart(2, '0')}`;
}

/** One file's row (or the columns asked for); undefined when the workspace has no such file. */
export async function fileRow<K extends keyof FileRow = keyof FileRow>(db: Db, tenantId: number, id: string, columns?: K[]): Promise<Pick<FileRow, K> | undefined> {
  const q = db('files').where({ tenant_id: tenantId, id });
  return (columns ? q.first(columns) : q.first()) as Promise<Pick<FileRow, K> | undefined>;
}

/** A file of the transaction's workspace (row-level security narrows it), by id alone. */
export async function visibleFileRow<K extends keyof FileRow>(trx: Knex.Transaction, id: string, columns: K[]): Promise<Pick<FileRow, K> | undefined> {
  return trx('files').where({ id }).first(columns) as Promise<Pick<FileRow, K> | undefined>;
}

/** The workspace's files among `ids` (one statement), in the order of `ids` (an id without a file is left out). */
export async function fileRows(db: Db, tenantId: number, ids: readonly string[]): Promise<FileRow[]> {
  if (!ids.length) return [];
  const rows: FileRow[] = await db('files').where({ tenant_id: tenantId }).whereIn('id', ids);
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/**
 * The row, locked for the rest of the transaction (a step that checks the status first: a re-run
 * waits for it). The step reads its file here, once, and hands this row to what it calls.
 */
export async function lockedFileRow(trx: Knex.Transaction, tenantId: number, id: string): Promise<FileRow | undefined> {
  return trx('files').where({ tenant_id: tenantId, id }).forUpdate().first();
}

/** Writes `patch` (and updated_at) to one file; the number of rows written (0: no such file). */
export async function updateFile(db: Db, tenantId: number, id: string, patch: FilePatch): Promise<number> {
  return db('files').where({ tenant_id: tenantId, id }).update({ updated_at: db.fn.now(), ...patch });
}

/**
 * Moves a file that is in one of `from` to the step's running mark (`patch` holds the status
 * and what else the claim writes) and answers the row as written; undefined when the file is
 * gone or in another status (another run has it, or it moved on). The claim and the row in one
 * statement: the step reads nothing more of its file.
 */
export async function claimFile(db: Db, tenantId: number, id: string, from: readonly FileStatus[], patch: FilePatch): Promise<FileRow | undefined> {
  const [row] = await db('files').where({ tenant_id: tenantId, id }).whereIn('status', [...from]).update({ updated_at: db.fn.now(), ...patch }, '*');
  return row;
}

/**
 * Sets a file's accounting period to an SQL expression over the row `f` (its statement's
 * reporting month put on the workspace's cadence); returns it as YYYY-MM-DD.
 */
export async function setAccountingPeriodTo(db: Db, tenantId: number, id: string, expression: string, bindings: readonly Knex.Value[]): Promise<string> {
  const { rows } = await db.raw(
    `UPDATE files f SET accounting_period = ${expression}
      WHERE f.tenant_id = ? AND f.id = ? RETURNING to_char(f.accounting_period, 'YYYY-MM-DD') AS ap`,
    [...bindings, tenantId, id],
  );
  return rows[0].ap;
}

/** Statement lines ingested into the workspace's files processed since `since` (one file left out). */
export async function linesIngestedSince(db: Db, tenantId: number, since: string, exceptFileId?: string): Promise<number> {
  const q = db('files').where({ tenant_id: tenantId }).where('processed_at', '>=', since).whereNotNull('rows_ingested');
  if (exceptFileId) q.whereNot('id', exceptFileId);
  const [{ n }] = await q.select(db.raw('coalesce(sum(rows_ingested), 0)::bigint::text AS n'));
  return Number(n);
}

/** Whether the workspace has any file (RLS: on a tenant transaction). */
export async function hasAnyFile(trx: Knex.Transaction): Promise<boolean> {
  return !!(await trx('files').first('id'));
}

/** How many of the workspace's files stand at each of `statuses` (RLS: on a tenant transaction). */
export async function fileCountsByStatus(trx: Knex.Transaction, statuses: readonly string[]): Promise<Map<string, number>> {
  const rows = await trx('files').whereIn('status', [...statuses]).groupBy('status').select('status').count<{ status: string; n: string }[]>({ n: '*' });
  return new Map(rows.map((r) => [r.status, Number(r.n)]));
}
