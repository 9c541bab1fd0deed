/**
 * The real thing: a worker PROCESS is SIGKILLed in the middle of ingesting a file. Nothing
 * it wrote is visible; the stale-file sweep hands the file to another worker, which stores
 * exactly the same lines and totals, once.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { upload, waitFile } from './helpers';
import { writeDistroKid } from '../../bench/distrokid-gen';
import { recoverStaleFiles } from '../../src/modules/files/recovery';
import { registerWorkers } from '../../jobs';
import type { Queue } from '../../jobs/queue';
import Decimal from 'decimal.js';

describe('statement ingestion: a worker process killed mid-file', function () {
  this.timeout(180_000);
  let app: TestApp;
  let a: TestTenant;
  let dir: string;
  let worker: ChildProcess | null = null;
  before(async () => {
    app = await startTestApp({ workers: false });
    a = await createTestTenant(app, 'Kill');
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'rondo-kill-'));
  });
  after(async () => {
    worker?.kill('SIGKILL');
    await app?.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('SIGKILL during COPY, then recovery: same lines and totals, no duplicates', async () => {
    // Long enough that the COPY is caught under way (it runs for seconds; the poll is 30 ms): the
    // kill is timed by Postgres's own COPY progress, not by the file's progress figure.
    const N = 100_000;
    const file = path.join(dir, 'DistroKid_1700000000000_Kill.tsv');
    const { total } = await writeDistroKid(file, N, 11);

    // A separate worker process on the same database and object store.
    worker = spawn(process.execPath, ['--import', 'tsx', 'src/worker.ts'], {
      env: { ...process.env, DATABASE_URL: app.svc.db.url, DATA_DIR: app.dataDir, LOG_LEVEL: 'error', QUEUE_POLL_SECONDS: '0.5', PASSWORD_HASH_MEMORY_KIB: '1024' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const r = await upload(app, a.users.admin!.token, path.basename(file), await fs.readFile(file));
    assert.equal(r.status, 201);
    const id = r.body.data.id;

    // Wait until the worker is inside the COPY (lines already sent into it), then kill it outright.
    const end = Date.now() + 60_000;
    let seen: any;
    while (Date.now() < end) {
      const { rows } = await app.svc.db.owner.raw(
        `SELECT f.status, f.progress, (SELECT max(c.tuples_processed)::int FROM pg_stat_progress_copy c WHERE c.datname = current_database() AND c.relid = 'royalty_lines'::regclass) AS copied
           FROM files f WHERE f.id = ?`,
        [id],
      );
      seen = rows[0];
      if (seen.status === 'ingesting' && seen.copied > 0) break;
      await new Promise((res) => setTimeout(res, 30));
    }
    assert.equal(seen.status, 'ingesting', `never caught the worker mid-file: ${JSON.stringify(seen)}`);
    assert.ok(seen.copied > 0 && seen.copied < N, `caught inside the COPY: ${JSON.stringify(seen)}`);
    worker.kill('SIGKILL');
    await new Promise((res) => worker!.once('exit', res));
    worker = null;

    // Nothing of the half-written file is visible; the file still says ingesting.
    await new Promise((res) => setTimeout(res, 500)); // the server notices the dropped connection
    const [{ n }] = await app.svc.db.owner('royalty_lines').where({ file_id: id }).count({ n: '*' });
    assert.equal(Number(n), 0, 'no half file visible after the kill');
    assert.equal((await app.svc.db.owner('files').where({ id }).first('status')).status, 'ingesting');

    // A fresh worker; the sweep (run by the minutely maintenance job) finds the stale file.
    await registerWorkers(app.svc, app.svc.queue as Queue);
    const resent = await recoverStaleFiles(app.svc, 0);
    assert.deepEqual(resent.map((f) => f.id), [id]);
    const f = await waitFile(app, a.users.admin!.token, id, ['processed', 'failed'], 120_000);
    assert.equal(f.status, 'processed', f.error);
    assert.equal(f.counts.rowsIngested, N);
    assert.deepEqual(f.totals, { USD: total });
    const [row] = await app.svc.db.owner('royalty_lines').where({ file_id: id })
      .select(app.svc.db.owner.raw('count(*)::int AS n'), app.svc.db.owner.raw('count(DISTINCT line_no)::int AS d'), app.svc.db.owner.raw('sum(net)::text AS net'));
    assert.equal(row.n, N);
    assert.equal(row.d, N, 'no duplicate lines');
    assert.ok(new Decimal(row.net).eq(total), `stored sum ${row.net} = statement total ${total}`);
  });
});
