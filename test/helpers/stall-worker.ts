/**
 * A worker process that stops dead inside one pipeline step (test-only). It runs the normal
 * workers; when the step named by RONDO_STALL_AT reaches the point where it would record its
 * outcome (inside the step's transaction, all its work done), it reports the file id over IPC
 * and hangs there until the test SIGKILLs it: the worst moment for a worker to die.
 */
import { loadConfig } from '../../src/config';
import { boot } from '../../src/compose';
import { stepTestHooks } from '../../src/pipeline/run-step';

const at = process.env.RONDO_STALL_AT;
stepTestHooks.beforeCommit = async (step, fileId) => {
  if (step !== at) return;
  process.send!({ stalled: step, fileId });
  await new Promise(() => undefined); // never resumes: the test kills this process here
};
await boot(loadConfig(), { workers: true, migrate: false });
process.send!({ ready: true });
