/**
 * The allocation end of the statement pipeline (src/pipeline/registry.ts declares the order):
 *   … ingest → royalty.allocate (status `allocating`: allocation, ledger and rollups)
 *   → `processed`, an in-app notification and a `royalty processing` outbound event.
 * A file whose currency has no rate fails here (`failed`, error_message names currency and
 * month). Catalogue / split / rule changes run royalty.reallocate (reallocate.ts).
 */
import { withTenant, type Trx } from '../../db';
import { clock } from '../../lib/clock';
import type { AppServices } from '../../services';
import { BATCH_WORK_MEM, lockTenant, setWorkMem, type FileAllocationResult } from './allocate';
import { aggregateFile, analyzeGrown, removeFileRollups, type FilePeriod } from './aggregate';
import { allocateFileOnce } from './decided';
import { SHAPES, shapeChains } from './shapes';
import { reallocateTenant } from './reallocate';
import { PIPELINE, TERMINAL_STATUSES, stepFor } from '../../pipeline/registry';
import type { CommitStep, SettledFile } from '../../pipeline/run-step';
import { fileRows, lockedFileRow, updateFile, type FileRow } from '../../repositories/files';
import { adminsOf, notifyEach } from '../notifications/service';
import { emitEvent } from '../webhooks/events';

/**
 * POST_ALLOCATION_HOOK: runs in the allocation transaction after a file's earnings were
 * written, after a re-allocation touched a file, and after a file's earnings were deleted,
 * with the file's row as it then stands (the allocation's: the row it locked, with the
 * accounting period it set), so a hook reads nothing of the file again. Registered by the
 * composition root (src/compose.ts): money's `postRoyaltiesForFile(trx, file)` (ledger
 * postings = the difference between the file's current earnings and what was posted;
 * idempotent) and `syncFileExpenses`.
 */
export const postAllocationHooks: ((trx: Trx, file: FileRow) => Promise<unknown>)[] = [];

async function runPostAllocationHooks(trx: Trx, file: FileRow): Promise<void> {
  for (const hook of postAllocationHooks) await hook(trx, file);
}

/** A file is allocated in its own step's status, or again on request (`force`) once settled. */
function allocatable(status: string, force: boolean | undefined): boolean {
  return stepFor(status) === 'royalty.allocate' || (!!force && TERMINAL_STATUSES.includes(status as never));
}

const sum = (timings: Record<string, number>) => Object.values(timings).reduce((a, b) => a + b, 0);

/**
 * The allocation step, whole: matches what the ingest left, converts currency, writes
 * earnings, posts the ledger and builds the file's analytics rollups, then hands the file to
 * commit as processed with its notice's figures. A missing exchange rate is the step's
 * StepFailure (`missing_rates`, thrown by allocate.ts); the runner marks the file failed.
 */
export async function runAllocateJob(svc: AppServices, p: { tenantId: number; fileId: string; force?: boolean }, commit: CommitStep): Promise<FileAllocationResult | null> {
  const res = await withTenant(svc.db.app, p.tenantId, async (trx) => {
    await lockTenant(trx, p.tenantId);
    const f = await lockedFileRow(trx, p.tenantId, p.fileId); // a re-run waits for this step
    if (!f || !allocatable(f.status, p.force)) return null; // deleted, not ingested, or allocated already: nothing to do
    await updateFile(trx, p.tenantId, p.fileId, { status: PIPELINE['royalty.allocate'].runningAs, progress: 80, error_message: null, missing_rates: null, updated_at: clock.now() });
    const res = await allocateFileOnce(trx, f, p.force);
    const allocated: FileRow = { ...f, accounting_period: res.accountingPeriod };
    const period: FilePeriod = { accountingPeriod: res.accountingPeriod, apEnd: res.accountingPeriodEnd };
    // Lines the allocation did not rewrite are final as committed: their rollup shapes are
    // built now, beside the ledger (two cores at work instead of one). The heaviest chain
    // of shapes (the catalogue's) on a second connection, the others in this transaction
    // after the ledger. The second transaction commits just before this one, under its
    // workspace lock. Lines the allocation rewrote get every shape after the ledger, here.
    // A failure of either rolls this one back and the job is retried: the shapes of the
    // file are rebuilt whole, never doubled (docs/engine.md, "Rollups beside the ledger").
    // Every shape takes the period the allocation set: none reads the file again.
    const [beside, ...after] = shapeChains();
    const t = Date.now();
    const shapes = res.linesUnchanged ? withTenant(svc.db.app, p.tenantId, (t2) => aggregateFile(t2, p.tenantId, p.fileId, { period, shapes: beside })) : null;
    shapes?.catch(() => undefined); // awaited below, whatever the ledger does
    try {
      await runPostAllocationHooks(trx, allocated);
      res.timings.ledger = Date.now() - t;
      if (shapes) res.timings.rollupsAfterLedger = sum(await aggregateFile(trx, p.tenantId, p.fileId, { period, shapes: after.flat() }));
      else res.timings.rollups = sum(await aggregateFile(trx, p.tenantId, p.fileId, { period }));
    } finally {
      if (shapes) res.timings.rollupsBeside = sum(await shapes);
    }
    const summary = await fileSummary(trx, p.tenantId, p.fileId, res.linesUnchanged ? f.decided_in_flight : null);
    await commit(trx, { advance: true, patch: { progress: 100, rollups_built: !!shapes, processed_at: clock.now(), updated_at: clock.now() }, summary });
    return res;
  });
  if (res) {
    svc.log.info({ tenantId: p.tenantId, fileId: p.fileId, ...res }, 'file allocated');
    // The file's rows are committed: statistics that still describe far fewer rows (the first
    // statements of a workspace) are refreshed now, not when autovacuum comes by.
    await analyzeAfterLoad(svc, p.tenantId, p.fileId);
  }
  return res;
}

/** analyzeGrown after a load; logged, and never a failure of the step that committed. */
async function analyzeAfterLoad(svc: AppServices, tenantId: number, fileId?: string): Promise<void> {
  const t0 = Date.now();
  try {
    const analyzed = await analyzeGrown(svc.db.owner);
    if (analyzed.length) svc.log.info({ tenantId, fileId, analyzed, ms: Date.now() - t0 }, 'statistics refreshed');
  } catch (err) {
    svc.log.warn({ tenantId, fileId, err }, 'statistics not refreshed (autovacuum will)');
  }
}

/**
 * The figures of a processed file's notification: its lines, the matched ones, and their
 * total in the base currency. A file allocated as the ingest decided it (`decided`: what the
 * ingest recorded) has its counts on the file and its total in its rollup rows (Σ revenue =
 * Σ base amount): its lines are not read again. Otherwise they are counted.
 */
async function fileSummary(trx: Trx, tenantId: number, fileId: string, decided: FileRow['decided_in_flight']): Promise<Record<string, unknown>> {
  if (decided) {
    const { rows } = await trx.raw(
      `SELECT coalesce(sum(r.revenue), 0)::text AS total, CASE WHEN count(r.file_id) > 0 THEN max(t.base_currency) END AS currency
         FROM tenants t LEFT JOIN ${SHAPES[0]!.table} r ON r.tenant_id = t.id AND r.file_id = ?
        WHERE t.id = ?`,
      [fileId, tenantId],
    );
    return { lines: decided.lines, matched: decided.matched, ...rows[0] };
  }
  const counted = await trx.raw(
    `SELECT count(*)::int AS lines, count(*) FILTER (WHERE match_status <> 'unmatched')::int AS matched,
            coalesce(sum(base_amount), 0)::text AS total, max(base_currency) AS currency
       FROM royalty_lines WHERE tenant_id = ? AND file_id = ?`,
    [tenantId, fileId],
  );
  return counted.rows[0];
}

export async function runReallocateJob(svc: AppServices, p: { tenantId: number; force?: boolean }): Promise<void> {
  await withTenant(svc.db.app, p.tenantId, async (trx) => {
    await setWorkMem(trx, BATCH_WORK_MEM);
    const r = await reallocateTenant(trx, p.tenantId, { force: p.force });
    for (const file of await fileRows(trx, p.tenantId, r.files)) {
      await aggregateFile(trx, p.tenantId, file.id);
      await runPostAllocationHooks(trx, file);
    }
    if (r.files.length) {
      await emitEvent(trx, p.tenantId, 'royalty.reallocated', { files: r.files, rematchedLines: r.rematched, reallocatedLines: r.reallocated });
    }
    return r.files.length > 0;
  }).then((moved) => (moved ? analyzeAfterLoad(svc, p.tenantId) : undefined));
}

/** Tenants with pending marks (the sweep behind the NOTIFY listener). */
export async function tenantsWithMarks(svc: AppServices): Promise<number[]> {
  const { rows } = await svc.db.owner.raw(`SELECT DISTINCT tenant_id FROM allocation_dirty`);
  return rows.map((r: { tenant_id: number }) => r.tenant_id);
}

/**
 * FILE DELETE HOOK: removes a file's rollup contribution, its earnings (history too) and
 * its lines. Called by the file DELETE route (ingestion) inside its tenant transaction.
 */
export async function removeFileRoyalties(trx: Trx, tenantId: number, file: FileRow): Promise<void> {
  const fileId = file.id;
  await lockTenant(trx, tenantId);
  await removeFileRollups(trx, tenantId, fileId);
  await trx.raw(`DELETE FROM royalty_allocation_history WHERE tenant_id = ? AND file_id = ?`, [tenantId, fileId]);
  await trx.raw(`DELETE FROM royalty_lines WHERE tenant_id = ? AND file_id = ?`, [tenantId, fileId]);
  await trx.raw(`DELETE FROM file_expense_lines WHERE tenant_id = ? AND file_id = ?`, [tenantId, fileId]);
  // The file now has no current earnings nor expense rows: money posts the reversal of what it
  // had posted and removes the expenses made from it.
  await runPostAllocationHooks(trx, file);
}

/** FILE_DELETE_HOOKS entry (files/hooks.ts, registered in src/compose.ts): DELETE /file/{id} removes earnings, lines and rollups of the file and its children. */
export async function removeFilesRoyalties(trx: Trx, tenantId: number, fileIds: string[]): Promise<void> {
  for (const file of await fileRows(trx, tenantId, fileIds)) await removeFileRoyalties(trx, tenantId, file);
}

/**
 * A settled file's notice (docs/notifications.md), sent by the pipeline runner alone
 * (src/pipeline/run-step.ts, through jobs/steps.ts): a notification to the uploader, else the
 * workspace's admins and owners; plus the outbound event.
 */
export async function announce(trx: Trx, tenantId: number, file: SettledFile, outcome: 'processed' | 'failed', info: Record<string, unknown>): Promise<void> {
  const fileId = file.id;
  const to: string[] = file.uploaded_by ? [file.uploaded_by] : await adminsOf(trx, tenantId);
  const name = file.original_name ?? fileId;
  const title = outcome === 'processed' ? `Statement processed: ${name}` : `Statement failed: ${name}`;
  const content =
    outcome === 'processed'
      ? `${info.lines} lines (${info.matched} matched), ${info.total} ${String(info.currency ?? '').trim()}`
      : String(info.error);
  await notifyEach(trx, to, {
    tenantId,
    type: outcome === 'processed' ? 'royalty.file.processed' : 'royalty.file.failed',
    title,
    content,
    resourceType: 'file',
    resourceId: fileId,
    actionUrl: `/file/${fileId}`,
    isImportant: outcome === 'failed',
    metadata: { outcome, ...info, name, currency: String(info.currency ?? '').trim() || undefined },
  });
  await emitEvent(trx, tenantId, outcome === 'processed' ? 'royalty.file.processed' : 'royalty.file.failed', { fileId, name, outcome, ...info });
}
