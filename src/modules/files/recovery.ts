/**
 * A worker that dies mid-step (killed, out of memory, machine lost) loses its job's lease and
 * the job runs again (jobs/leases.ts); this sweep catches a file whose job is gone for any
 * other reason. The dead worker's database transaction
 * died with its connection, so nothing it wrote is visible and the file still shows the
 * status of the step it was in. Files in any step's status (the pipeline declaration,
 * src/pipeline/registry.ts, says which step owns which status) that have not moved for
 * STALE_FILE_SECONDS are handed to a new job of that step. Every step is idempotent: ingest
 * replaces the file's lines in one transaction, allocation and aggregation run under the
 * workspace's allocation lock and return quietly once the file has moved on, so a second run
 * on a file that was merely slow only repeats work or waits. Progress updates refresh
 * `updated_at` every batch, so a live ingest's file never looks stale. A file whose step job
 * still waits in the queue (a backlog, not a dead worker) is left to that job.
 */
import type { AppServices } from '../../services';
import { withTenant } from '../../db';
import { stepFor } from '../../pipeline/registry';
import { PENDING_STATUSES, resendStep } from './service';

export async function recoverStaleFiles(svc: AppServices, staleSeconds: number): Promise<{ tenantId: number; id: string; status: string; step: string }[]> {
  // Across tenants on purpose (system housekeeping): the owner pool; each re-send then runs in its tenant.
  const stale = await svc.db.owner('files')
    .whereIn('status', PENDING_STATUSES)
    .where('updated_at', '<', svc.db.owner.raw(`now() - make_interval(secs => ?)`, [staleSeconds]))
    .orderBy('updated_at')
    .select('tenant_id', 'id', 'status');
  const resent: { tenantId: number; id: string; status: string; step: string }[] = [];
  for (const f of stale) {
    if (await svc.queue.waiting(stepFor(f.status)!, f.id)) continue; // queued behind others, not lost
    const step = await withTenant(svc.db.app, f.tenant_id, async (trx) => {
      // touch first, so the next sweep does not resend it again while the new job runs
      const n = await trx('files').where({ id: f.id, status: f.status }).update({ updated_at: trx.fn.now() });
      return n ? resendStep(svc, trx, f.tenant_id, f.id, f.status) : null;
    });
    if (step) resent.push({ tenantId: f.tenant_id, id: f.id, status: f.status, step });
  }
  if (resent.length) svc.log.warn({ files: resent }, 'resent stale files (a worker died mid-step)');
  return resent;
}
