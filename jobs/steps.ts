/** What the pipeline runner (src/pipeline/run-step.ts) is given: the queue, a workspace's transaction, a settled file's notice and the metrics of a run. */
import type { AppServices } from '../src/services';
import type { StepPorts } from '../src/pipeline/run-step';
import { withTenant } from '../src/db';
import { announce } from '../src/modules/royalty/pipeline';
import type { Queue } from './queue';

export function stepPorts(svc: AppServices, queue: Queue): StepPorts {
  return {
    queue,
    inTenant: (tenantId, fn) => withTenant(svc.db.app, tenantId, fn),
    notice: announce,
    recorded: svc.metrics.stepRecorded,
    log: svc.log,
  };
}
