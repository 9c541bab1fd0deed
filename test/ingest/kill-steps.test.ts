/**
 * Every pipeline step recovers: for each step of the declaration, a worker PROCESS is
 * SIGKILLed inside that step (its work done, its transaction not yet committed). The file
 * stays in the step's status; once it is older than STALE_FILE_SECONDS (1 s here), stale-step
 * recovery re-sends that very step, and a fresh worker takes the file to `processed` with
 * exactly the statement's lines and totals, each line once.
 */
import assert from 'node:assert/strict';
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import Decimal from 'decimal.js';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { upload, waitFile, seedRates } from './helpers';
import { writeDistroKid } from '../../bench/distrokid-gen';
import { recoverStaleFiles } from '../../src/modules/files/recovery';
import { IN_FLIGHT_STATUSES, STEPS, stepFor, type StepName } from '../../src/pipeline/registry';
import { ingestLockKey } from '../../src/modules/files/service';
import { stepTestHooks } from '../../src/pipeline/run-step';
import { registerWorkers } from '../../jobs';
import type { Queue } from '../../jobs/queue';

const STALE_SECONDS = 1;

describe('pipeline: a worker killed at each step recovers', function () {
  this.timeout(300_000);
  let app: TestApp;
  let a: TestTenant;
  let dir: string;
  let worker: ChildProcess | null = null;
  const stuck: { step: StepName; id: string; lines: number; total: string }[] = [];

  before(async () => {
    app = await startTestApp({ workers: false, config: { staleFileSeconds: STALE_SECONDS } });
    a = await createTestTenant(app, 'StepKill');
    await seedRates(app, a.tenantId);
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'rondo-step-kill-'));
  });
  after(async () => {
    worker?.kill('SIGKILL');
    await app?.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  /** A worker process on the same database and store that hangs inside `step`. */
  async function stallingWorker(step: StepName): Promise<ChildProcess> {
    const child = fork(path.resolve('test/helpers/stall-worker.ts'), [], {
      execArgv: ['--import', 'tsx'],
      env: {
        ...process.env, DATABASE_URL: app.svc.db.url, DATA_DIR: app.dataDir, LOG_LEVEL: 'error', QUEUE_POLL_SECONDS: '0.5',
        PASSWORD_HASH_MEMORY_KIB: '1024', RONDO_STALL_AT: step, STALE_FILE_SECONDS: '86400',
        // this test is about stale-file recovery: a stalling worker does not hand back the jobs
        // of the one killed before it (job leases: test/ops/job-resume.test.ts)
        RONDO_LEASE_GRACE_SECONDS: '86400',
      },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    await new Promise<void>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`stalling worker exited early (${code})`)));
      child.on('message', (m: { ready?: boolean }) => m.ready && resolve());
    });
    return child;
  }

  it('each step: SIGKILL inside it leaves the file in that step', async () => {
    let seed = 100;
    for (const step of STEPS) {
      const lines = 3000 + seed;
      const file = path.join(dir, `DistroKid_1700000000000_${step.replace('.', '-')}.tsv`);
      const { total } = await writeDistroKid(file, lines, ++seed);
      worker = await stallingWorker(step);
      const stalled = new Promise<{ stalled: string; fileId: string }>((resolve) => worker!.on('message', (m: { stalled?: string; fileId: string }) => m.stalled && resolve(m as never)));
      // gzip, so the decompress step has real work to lose too
      const r = await upload(app, a.users.admin!.token, `${path.basename(file)}.gz`, zlib.gzipSync(await fs.readFile(file)));
      assert.equal(r.status, 201);
      const id = r.body.data.id as string;
      const at = await stalled;
      assert.deepEqual(at, { stalled: step, fileId: id });

      worker.kill('SIGKILL');
      await new Promise((res) => worker!.once('exit', res));
      worker = null;

      const f = await app.svc.db.owner('files').where({ id }).first('status');
      assert.equal(stepFor(f.status), step, `killed in ${step}, the file says ${f.status}`);
      const [{ n }] = await app.svc.db.owner('royalty_lines').where({ file_id: id }).count({ n: '*' });
      // the lines are committed from the ingest step on; before it, nothing
      assert.equal(Number(n), STEPS.indexOf(step) > STEPS.indexOf('file.ingest') ? lines : 0);
      stuck.push({ step, id, lines, total });
    }
    assert.deepEqual(stuck.map((s) => s.step), STEPS);
  });

  it('recovery re-sends each file to its own step; each ends processed with exact totals and no duplicate lines', async () => {
    assert.equal(stuck.length, STEPS.length, 'the kills above all happened');
    // A file that merely waits in the queue (no worker runs now): stale by the clock, but its job is there.
    const waitingFile = path.join(dir, 'DistroKid_1700000000000_waiting.tsv');
    const waiting = await writeDistroKid(waitingFile, 500, 999);
    const w = await upload(app, a.users.admin!.token, path.basename(waitingFile), await fs.readFile(waitingFile));
    assert.equal(w.status, 201);

    // Once every file is older than the stale window, the sweep (what the minutely
    // maintenance.recover job runs) re-sends each killed file to its own step, and only those.
    await app.svc.db.owner.raw(`SELECT pg_sleep(?)`, [STALE_SECONDS + 0.1]);
    const resent = await recoverStaleFiles(app.svc, app.cfg.staleFileSeconds);
    assert.deepEqual(
      resent.map((f) => ({ id: f.id, step: f.step })).sort((x, y) => x.id.localeCompare(y.id)),
      stuck.map((s) => ({ id: s.id, step: s.step })).sort((x, y) => x.id.localeCompare(y.id)),
    );

    // A fresh worker (this process) takes them all.
    await registerWorkers(app.svc, app.svc.queue as Queue);
    const fw = await waitFile(app, a.users.admin!.token, w.body.data.id, ['processed', 'failed'], 120_000);
    assert.deepEqual({ status: fw.status, totals: fw.totals }, { status: 'processed', totals: { USD: waiting.total } });
    for (const s of stuck) {
      const f = await waitFile(app, a.users.admin!.token, s.id, ['processed', 'failed'], 120_000);
      assert.equal(f.status, 'processed', `${s.step}: ${f.error}`);
      assert.equal(f.counts.rowsIngested, s.lines, s.step);
      assert.deepEqual(f.totals, { USD: s.total }, s.step);
      const [row] = await app.svc.db.owner('royalty_lines').where({ file_id: s.id })
        .select(app.svc.db.owner.raw('count(*)::int AS n'), app.svc.db.owner.raw('count(DISTINCT line_no)::int AS d'), app.svc.db.owner.raw('sum(net)::text AS net'));
      assert.equal(row.n, s.lines, `${s.step}: every line stored`);
      assert.equal(row.d, s.lines, `${s.step}: no duplicate lines`);
      assert.ok(new Decimal(row.net).eq(s.total), `${s.step}: stored sum ${row.net} = statement total ${s.total}`);
    }
  });

  it('the re-run route accepts a file stuck in any step, and refuses only while a live worker ingests it', async () => {
    const s = stuck.find((x) => x.step === 'file.ingest')!;
    const admin = a.users.admin!.token;
    const rerun = () => app.request('PUT', `/file/royalty/decompress/${a.tenantId}/${s.id}`, { token: admin });
    assert.equal((await waitFile(app, admin, s.id, ['processed', 'failed'], 120_000)).status, 'processed');
    for (const status of IN_FLIGHT_STATUSES) {
      // where a worker that died in that step leaves the file
      await app.svc.db.owner('files').where({ id: s.id }).update({ status });
      const r = await rerun();
      assert.equal(r.status, 200, `${status}: ${r.text}`);
      const f = await waitFile(app, admin, s.id, ['processed', 'failed'], 60_000);
      assert.equal(f.status, 'processed', `${status}: ${f.error}`);
      assert.deepEqual(f.totals, { USD: s.total }, status);
      const [row] = await app.svc.db.owner('royalty_lines').where({ file_id: s.id })
        .select(app.svc.db.owner.raw('count(*)::int AS n'), app.svc.db.owner.raw('count(DISTINCT line_no)::int AS d'));
      assert.deepEqual(row, { n: s.lines, d: s.lines }, `${status}: no duplicate lines`);
    }

    // A live ingest holds the file's lock for its whole COPY transaction: then, and only then, FILE_BUSY.
    const trx = await app.svc.db.owner.transaction();
    try {
      await trx.raw(`SELECT pg_advisory_xact_lock(hashtextextended(?, 0))`, [ingestLockKey(a.tenantId, s.id)]);
      await app.svc.db.owner('files').where({ id: s.id }).update({ status: 'ingesting' });
      const busy = await rerun();
      assert.equal(busy.status, 400, busy.text);
      assert.equal(busy.body.error.code, 'FILE_BUSY', busy.text);
      const confirm = await app.request('POST', `/file/confirm-detection/${s.id}`, { token: admin, body: { source: 'distrokid' } });
      assert.equal(confirm.status, 400, confirm.text);
      assert.equal(confirm.body.error.code, 'FILE_BUSY', confirm.text);
    } finally {
      await trx.rollback();
    }
    const confirmed = await app.request('POST', `/file/confirm-detection/${s.id}`, { token: admin, body: { source: 'distrokid' } });
    assert.equal(confirmed.status, 200, confirmed.text);
    const f = await waitFile(app, admin, s.id, ['processed', 'failed'], 60_000);
    assert.equal(f.status, 'processed', f.error);
    assert.deepEqual(f.totals, { USD: s.total });
  });
});

describe('pipeline: a step whose file moved on meanwhile drops its outcome', function () {
  this.timeout(120_000);
  let app: TestApp;
  let a: TestTenant;
  before(async () => {
    app = await startTestApp({ workers: true });
    a = await createTestTenant(app, 'Superseded');
  });
  after(async () => {
    delete stepTestHooks.beforeCommit;
    await app?.close();
  });

  it('detection finishing after the file was settled elsewhere neither overwrites it nor queues the ingest', async () => {
    let hit = 0;
    stepTestHooks.beforeCommit = async (step, fileId) => {
      if (step !== 'file.detect') return;
      hit++;
      // another actor (a re-run, a delete, an operator) settles the file while detection works
      await app.svc.db.owner('files').where({ id: fileId }).update({ status: 'failed', error_message: 'settled elsewhere' });
    };
    const data = 'Reporting Month,Sale Month,Store,Artist,Title,ISRC,UPC,Quantity,Team Percentage,Song/Album,Country of Sale,Songwriter Royalties Withheld,Earnings (USD)\n';
    const r = await upload(app, a.users.admin!.token, 'DistroKid_1700000000000_Superseded.tsv', data.replaceAll(',', '\t') + 'x\t2023-01\tSpotify\tA\tT\tUSABC1234567\t\t1\t100\tSong\tUS\t0\t0.01\n');
    assert.equal(r.status, 201);
    const id = r.body.data.id as string;
    const f = await waitFile(app, a.users.admin!.token, id, ['failed', 'processed', 'needs_confirmation', 'queued', 'ingesting', 'allocating']);
    assert.equal(hit, 1);
    assert.deepEqual({ status: f.status, error: f.error, counts: f.counts }, { status: 'failed', error: 'settled elsewhere', counts: null });
    // the detect job ended as an expected no-op (not retried); no ingest job was queued
    const settled = Date.now() + 30_000;
    let jobs: { rows: { name: string; state: string }[] };
    do {
      await new Promise((res) => setTimeout(res, 100));
      jobs = await app.svc.db.owner.raw(`SELECT name, state FROM pgboss.job WHERE data->>'fileId' = ? ORDER BY created_on`, [id]);
    } while (jobs.rows.some((j) => ['created', 'active', 'retry'].includes(j.state)) && Date.now() < settled);
    assert.deepEqual(jobs.rows.map((j: { name: string; state: string }) => `${j.name}:${j.state}`), ['file.decompress:completed', 'file.detect:completed']);
  });
});
