/**
 * The allocation of a file whose ingest decided every line (docs/engine.md, "Decided while
 * stored"): when nothing an allocation decision reads has changed since the ingest's
 * snapshot, the lines already carry exactly what allocateFile would compute, so they are not
 * read again. Otherwise allocateFile checks every key group, as before.
 *
 * "Nothing changed": no row in allocation_changes (one per transaction that changed the
 * catalogue, splits, rules, rates or workspace settings, written by triggers in that
 * transaction) whose transaction the ingest's snapshot (files.ingest_snapshot, read before
 * the ingest read anything else) does not see, and that snapshot is not older than what was
 * pruned (allocation_change_floor).
 */
import type { Trx } from '../../db';
import { clock } from '../../lib/clock';
import { getSettings } from '../settings/service';
import { allocateFile, setAccountingPeriod, setWorkMem, BATCH_WORK_MEM, type FileAllocationResult } from './allocate';
import { resolveMatchKeys, suggestMatches } from './match';
import { IN_FLIGHT_STATUSES } from '../../pipeline/registry';
import { updateFile, type FileRow } from '../../repositories/files';
import { accountingPeriodEnd } from '../settings/periods';

/** The ingest's counts (files.decided_in_flight). */
interface InFlight {
  lines: number;
  matched: number;
  paid: number;
  /** Lines without a recording or without a product: their keys get suggestions. */
  partial: number;
}

/**
 * Allocates the file `f` (its row as the step locked it; the caller holds lockTenant): as the
 * ingest decided it when that is provably what allocateFile would compute, else allocateFile.
 * Records which on the file (`allocation_path`: 'in_flight' | 'checked') and prunes
 * allocation_changes.
 */
export async function allocateFileOnce(trx: Trx, f: FileRow, force = false): Promise<FileAllocationResult> {
  const decided = force ? null : await allocateAsDecided(trx, f);
  const res = decided ?? (await allocateFile(trx, f));
  if (!decided) await updateFile(trx, f.tenant_id, f.id, { allocation_path: 'checked', updated_at: trx.raw('updated_at') });
  await pruneChanges(trx, f.tenant_id);
  return res;
}

/** Whether no change since the ingest's snapshot can alter what the ingest decided: see the file's head. */
async function unchangedSince(trx: Trx, tenantId: number, snapshot: string): Promise<boolean> {
  // Changes the snapshot does not see (committed since, or running then). A change committed
  // after this statement's own snapshot is a change after the allocation: the re-allocation
  // it wakes waits for this transaction's lock and finds the file allocated.
  const { rows } = await trx.raw(
    `SELECT pg_snapshot_xmin(?::pg_snapshot) >= coalesce((SELECT c.below FROM allocation_change_floor c WHERE c.tenant_id = ?), '0'::xid8)
        AND NOT EXISTS (SELECT 1 FROM allocation_changes c WHERE c.tenant_id = ? AND NOT pg_visible_in_snapshot(c.xid, ?::pg_snapshot)) AS unchanged`,
    [snapshot, tenantId, tenantId, snapshot],
  );
  return rows[0].unchanged === true;
}

async function allocateAsDecided(trx: Trx, f: FileRow): Promise<FileAllocationResult | null> {
  const t0 = Date.now();
  const { tenant_id: tenantId, id: fileId } = f;
  if (f.allocated_at || f.income === 'publishing' || !f.decided_in_flight || !f.ingest_snapshot) return null;
  if (!(await unchangedSince(trx, tenantId, f.ingest_snapshot))) return null;
  const d: InFlight = f.decided_in_flight;
  const settings = await getSettings(trx, tenantId);
  await updateFile(trx, tenantId, fileId, { allocated_at: clock.now(), allocation_path: 'in_flight', updated_at: trx.raw('updated_at') });
  const timings: Record<string, number> = { check: Date.now() - t0 };
  let t = Date.now();
  const accountingPeriod = await setAccountingPeriod(trx, tenantId, fileId, settings.accountingCadence);
  timings.accountingPeriod = Date.now() - t;
  t = Date.now();
  let suggestions = 0;
  if (d.partial > 0) {
    // As allocateFile offers them: the keys still without a recording or product (resolved
    // again, they are what the ingest found: nothing changed).
    await setWorkMem(trx, BATCH_WORK_MEM);
    await trx.raw(`DROP TABLE IF EXISTS ad_keys`);
    await trx.raw(
      `CREATE TEMP TABLE ad_keys ON COMMIT DROP AS
       SELECT DISTINCT coalesce(l.isrc, '') AS isrc, coalesce(l.upc, '') AS upc, coalesce(l.track_title, '') AS track_title,
              coalesce(l.artist, '') AS artist, coalesce(l.release_title, '') AS release_title, coalesce(l.dsp, '') AS dsp
         FROM royalty_lines l WHERE l.tenant_id = ? AND l.file_id = ? AND (l.asset_id IS NULL OR l.product_id IS NULL)`,
      [tenantId, fileId],
    );
    await resolveMatchKeys(trx, tenantId, { sql: 'false', bindings: [] }, { autoCreate: false, keysFrom: 'SELECT * FROM ad_keys' });
    suggestions = await suggestMatches(trx, tenantId);
  }
  timings.suggestions = Date.now() - t;
  return {
    lines: d.lines,
    matched: d.matched,
    unmatched: d.lines - d.matched,
    unsplit: d.matched - d.paid,
    earnings: d.paid,
    suggestions,
    accountingPeriod,
    accountingPeriodEnd: accountingPeriodEnd(accountingPeriod, settings.accountingCadence),
    timings,
    linesUnchanged: true,
  };
}

/**
 * Deletes the workspace's change rows no snapshot still to be checked can miss. `below`:
 * the oldest xmin of this transaction's snapshot and of the snapshots of files not yet
 * allocated; every transaction older than it has ended, so a snapshot with an xmin at or
 * above it sees all of them (the check refuses older snapshots: the floor).
 */
async function pruneChanges(trx: Trx, tenantId: number): Promise<void> {
  const { rows } = await trx.raw(
    `SELECT least(pg_snapshot_xmin(pg_current_snapshot()),
                  (SELECT pg_snapshot_xmin(f.ingest_snapshot) AS x FROM files f
                    WHERE f.tenant_id = ? AND f.ingest_snapshot IS NOT NULL AND f.allocated_at IS NULL AND f.status = ANY(?)
                    ORDER BY x LIMIT 1))::text AS below`,
    [tenantId, IN_FLIGHT_STATUSES],
  );
  const below: string = rows[0].below;
  await trx.raw(`DELETE FROM allocation_changes WHERE tenant_id = ? AND xid < ?::xid8`, [tenantId, below]);
  await trx.raw(
    `INSERT INTO allocation_change_floor (tenant_id, below) VALUES (?, ?::xid8)
     ON CONFLICT (tenant_id) DO UPDATE SET below = greatest(allocation_change_floor.below, excluded.below)`,
    [tenantId, below],
  );
}
