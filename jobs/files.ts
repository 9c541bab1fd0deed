/** Statement-file job handlers: validate the payload, call one service function, return. */
import type { AppServices } from '../src/services';
import { INGEST_CONCURRENCY, type FileJob } from './index';
import { decompressFile, detectFile, ingestFile } from '../src/modules/files/pipeline';
import { ensureBuiltinPatterns } from '../src/modules/sources/service';

function valid(d: FileJob): boolean {
  return !!d && Number.isInteger(d.tenantId) && d.tenantId > 0 && typeof d.fileId === 'string' && /^[0-9a-f-]{36}$/i.test(d.fileId);
}

export async function registerFileWorkers(svc: AppServices): Promise<void> {
  await ensureBuiltinPatterns(svc.db.owner);
  const { queue, log } = svc;
  await queue.work('file.decompress', async (d) => {
    if (!valid(d)) return log.warn({ d }, 'file.decompress: invalid payload');
    await decompressFile(svc, d.tenantId, d.fileId);
  }, { concurrency: 2 });
  await queue.work('file.detect', async (d) => {
    if (!valid(d)) return log.warn({ d }, 'file.detect: invalid payload');
    await detectFile(svc, d.tenantId, d.fileId);
  }, { concurrency: 2 });
  await queue.work('file.ingest', async (d) => {
    if (!valid(d)) return log.warn({ d }, 'file.ingest: invalid payload');
    await ingestFile(svc, d.tenantId, d.fileId);
  }, { concurrency: INGEST_CONCURRENCY });
}
