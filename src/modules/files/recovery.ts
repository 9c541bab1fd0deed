/**
 * A worker that dies mid-file (killed, out of memory, machine lost) leaves its pg-boss job
 * "active" until the job expires (up to 30 minutes for ingest). Its database transaction
 * died with its connection, so nothing it wrote is visible. Files whose pipeline status has
 * not moved for STALE_FILE_SECONDS are handed to a new job; the step's handler is
 * idempotent (ingest replaces the file's lines in one transaction), so a second run on a
 * file that was merely slow only repeats work. Progress updates refresh `updated_at` every
 * batch, so a live worker's file never looks stale.
 */
import type { AppServices } from '../../services';
import { withTenant } from '../../db';
import { PENDING_STATUSES, jobFor } from './service';

export async function recoverStaleFiles(svc: AppServices, staleSeconds: number): Promise<{ tenantId: number; id: string; status: string }[]> {
  // Across tenants on purpose (system housekeeping): the owner pool; each re-send then runs in its tenant.
  const stale = await svc.db.owner('files')
    .whereIn('status', PENDING_STATUSES)
    .where('updated_at', '<', svc.db.owner.raw(`now() - make_interval(secs => ?)`, [staleSeconds]))
    .select('tenant_id', 'id', 'status');
  const resent: { tenantId: number; id: string; status: string }[] = [];
  for (const f of stale) {
    const job = jobFor(f.status);
    if (!job) continue;
    await withTenant(svc.db.app, f.tenant_id, async (trx) => {
      // touch first, so the next sweep does not resend it again while the new job runs
      const n = await trx('files').where({ id: f.id, status: f.status }).update({ updated_at: trx.fn.now() });
      if (n) await svc.queue.send(job, { tenantId: f.tenant_id, fileId: f.id }, { trx });
    });
    resent.push({ tenantId: f.tenant_id, id: f.id, status: f.status });
  }
  if (resent.length) svc.log.warn({ files: resent }, 'resent stale files (a worker died mid-step)');
  return resent;
}
