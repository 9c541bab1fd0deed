/**
 * A worker process that stops dead inside one pipeline step (test-only). It runs the normal
 * workers; when a step reaches the point where it would record its outcome (inside the step's
 * transaction, all its work done), it reports the file id over IPC and hangs there until the
 * test SIGKILLs it: the worst moment for a worker to die. Which steps stall:
 * - RONDO_STALL_AT=<step>: that step, for every file;
 * - RONDO_STALL_PLAN={"<file name>": "<step>", …}: each named file at its own step only.
 * With neither, it is a plain worker process. RONDO_LEASE_GRACE_SECONDS: how old a job without
 * a lease must be before this process hands it back (jobs/leases.ts).
 */
import { loadConfig } from '../../src/config';
import { boot } from '../../src/compose';
import { stepTestHooks } from '../../src/pipeline/run-step';
import { LEASE_TIMING } from '../../jobs/leases';

if (process.env.RONDO_LEASE_GRACE_SECONDS) LEASE_TIMING.graceSeconds = Number(process.env.RONDO_LEASE_GRACE_SECONDS);

const at = process.env.RONDO_STALL_AT;
const plan = JSON.parse(process.env.RONDO_STALL_PLAN || '{}') as Record<string, string>;
stepTestHooks.beforeCommit = async (step, fileId) => {
  let stall = step === at;
  if (!stall && Object.keys(plan).length) {
    const f = await (await booted).svc.db.owner('files').where({ id: fileId }).first('original_name');
    stall = !!f && plan[f.original_name] === step;
  }
  if (!stall) return;
  process.send!({ stalled: step, fileId });
  await new Promise(() => undefined); // never resumes: the test kills this process here
};
const booted = boot(loadConfig(), { workers: true, migrate: false });
await booted;
process.send!({ ready: true });
