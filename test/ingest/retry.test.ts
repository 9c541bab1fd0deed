/**
 * Crash in the middle of a file, then the retry: exactly the same lines and totals, never
 * duplicates, never half a file visible. The first attempt dies after 3 COPY batches (the
 * worker's transaction is abandoned, as when a process is killed and its connection drops);
 * while it hangs there, readers see no line of the file and the progress moves.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { upload, waitFile, seedRates } from './helpers';
import { writeDistroKid } from '../../bench/distrokid-gen';
import { ingestTestHooks } from '../../src/modules/files/pipeline';
import { BATCH_SIZE } from '../../parsers';

describe('statement ingestion: crash and retry', function () {
  this.timeout(120_000);
  let app: TestApp;
  let a: TestTenant;
  let dir: string;
  before(async () => {
    app = await startTestApp({ workers: true });
    a = await createTestTenant(app, 'Retry');
    await seedRates(app, a.tenantId);
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'rondo-retry-'));
  });
  after(async () => {
    delete ingestTestHooks.afterBatch;
    await app?.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('a crash mid-COPY leaves nothing; the retry stores every line exactly once', async () => {
    const N = 40_000;
    const file = path.join(dir, 'DistroKid_1700000000000_Retry.tsv');
    const { total } = await writeDistroKid(file, N, 7);
    let crashed = 0;
    let seenWhileOpen: { lines: number; status: string; progress: number } | null = null;
    ingestTestHooks.afterBatch = async (fileId, batchNo, attempt) => {
      if (attempt !== 1 || batchNo !== Math.ceil(15_000 / BATCH_SIZE)) return;
      // Mid-file: the COPY transaction is open with 15,000 lines written.
      const [{ n }] = await app.svc.db.owner('royalty_lines').where({ file_id: fileId }).count({ n: '*' });
      await new Promise((r) => setTimeout(r, 700)); // let a progress tick land
      const f = await app.svc.db.owner('files').where({ id: fileId }).first('status', 'progress');
      seenWhileOpen = { lines: Number(n), status: f.status, progress: f.progress };
      crashed++;
      throw new Error('simulated crash: worker killed mid-COPY');
    };
    const r = await upload(app, a.users.admin!.token, path.basename(file), await fs.readFile(file));
    assert.equal(r.status, 201);
    const f = await waitFile(app, a.users.admin!.token, r.body.data.id, ['processed', 'failed'], 90_000);
    assert.equal(crashed, 1, 'the first attempt crashed: ' + JSON.stringify(f));
    assert.deepEqual({ lines: seenWhileOpen!.lines, status: seenWhileOpen!.status }, { lines: 0, status: 'ingesting' }, 'no half file visible');
    assert.ok(seenWhileOpen!.progress > 0, 'progress visible while the COPY transaction is open');
    assert.equal(f.status, 'processed', f.error);
    assert.equal(f.attempts, 2);
    assert.equal(f.counts.rowsIngested, N);
    assert.equal(f.counts.rowsFailed, 0);
    assert.deepEqual(f.totals, { USD: total });
    const [row] = await app.svc.db.owner('royalty_lines').where({ file_id: f.id })
      .select(app.svc.db.owner.raw('count(*)::int as n'), app.svc.db.owner.raw('count(distinct line_no)::int as d'), app.svc.db.owner.raw('sum(net)::text as net'), app.svc.db.owner.raw('min(line_no) as lo'), app.svc.db.owner.raw('max(line_no) as hi'));
    assert.equal(row.n, N, 'no duplicates, nothing missing');
    assert.equal(row.d, N);
    assert.equal(Number(row.net).toFixed(6), Number(total).toFixed(6));
    assert.equal(row.lo, 2);
    assert.equal(row.hi, N + 1);
  });
});
