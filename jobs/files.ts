/** Statement-file step handlers: validate the payload, run one service as its pipeline step, return. */
import type { AppServices } from '../src/services';
import { JOB_OPTIONS, type FileJob } from '../src/pipeline/registry';
import { runStep } from '../src/pipeline/run-step';
import { decompressFile, detectFile, ingestFile } from '../src/modules/files/pipeline';
import { ensureBuiltinPatterns } from '../src/modules/sources/service';
import type { Queue } from './queue';
import { stepPorts } from './steps';

export function validFileJob(d: Partial<FileJob> | null | undefined): d is FileJob {
  return !!d && Number.isInteger(d.tenantId) && d.tenantId! > 0 && typeof d.fileId === 'string' && /^[0-9a-f-]{36}$/i.test(d.fileId);
}

export async function registerFileWorkers(svc: AppServices, queue: Queue): Promise<void> {
  await ensureBuiltinPatterns(svc.db.owner);
  const { log } = svc;
  const ports = stepPorts(svc, queue);
  const steps = {
    'file.decompress': decompressFile,
    'file.detect': detectFile,
    'file.ingest': ingestFile,
  } as const;
  for (const [name, service] of Object.entries(steps) as [keyof typeof steps, (typeof steps)[keyof typeof steps]][]) {
    await queue.work(name, async (d) => {
      if (!validFileJob(d)) return log.warn({ d }, `${name}: invalid payload`);
      await runStep(ports, name, d, (p, commit) => service(svc, p.tenantId, p.fileId, commit));
    }, { concurrency: JOB_OPTIONS[name].concurrency });
  }
}
