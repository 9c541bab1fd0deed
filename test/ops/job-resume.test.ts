/**
 * Jobs resume within a minute of a worker's crash. Worker PROCESSES are SIGKILLed while they
 * run an account erasure (blocked on a row the test holds), a webhook delivery (its receiver
 * does not answer) and each pipeline step (stopped just before the step commits). The next
 * worker process resumes each killed job; the job's own completion time (pg-boss's
 * `completed_on`) is compared with the moment that worker was ready. Stale-file recovery is
 * turned off (STALE_FILE_SECONDS=86400) in every process, so only the job's own lease can
 * bring it back; pg-boss's expiry of these jobs is 2 minutes to an hour.
 */
import assert from 'node:assert/strict';
import { fork, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import type { Knex } from 'knex';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { upload, waitFile, seedRates } from '../ingest/helpers';
import { writeDistroKid } from '../../bench/distrokid-gen';
import { ensureGlobalUser } from '../../src/modules/users/service';
import { STEPS, type StepName } from '../../src/pipeline/registry';

/** How soon after a live worker is ready a killed job must have completed. */
const RESUME_SECONDS = 60;
/** How long the test waits for it at most (a clear failure beyond). */
const WAIT_MS = 120_000;

interface Killed {
  what: string;
  jobId: string;
  /** When the worker that resumes it was ready (database clock). */
  readyAt?: Date;
}

describe('jobs resume within a minute after their worker is killed', function () {
  this.timeout(15 * 60_000);
  let app: TestApp;
  let god: string;
  const tenants: TestTenant[] = [];
  let dir: string;
  let child: ChildProcess | null = null;
  let erasureLock: Knex.Transaction | null = null;
  const hung: http.ServerResponse[] = [];
  let receiver: http.Server;
  let receiverUrl = '';
  let received = 0;

  before(async () => {
    app = await startTestApp({ workers: false, config: { staleFileSeconds: 86400 } });
    god = (await app.svc.auth.createApiKey('god', {})).token;
    for (const step of STEPS) {
      // one workspace per file: a step stalled under one workspace's allocation lock holds no other
      const t = await createTestTenant(app, `Resume ${step}`, ['admin']);
      await app.svc.db.owner('tenants').where({ id: t.tenantId }).update({ plan: 'pro' });
      await seedRates(app, t.tenantId);
      tenants.push(t);
    }
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'rondo-job-resume-'));
    // the first request never gets an answer (the worker sending it is killed); later ones get 200
    receiver = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        if (received++ === 0) hung.push(res);
        else res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  });

  after(async () => {
    child?.kill('SIGKILL');
    await erasureLock?.rollback().catch(() => undefined);
    for (const res of hung) res.destroy();
    await new Promise((resolve) => receiver.close(resolve));
    await app?.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  const now = async (): Promise<Date> => (await app.svc.db.owner.raw('SELECT now() AS t')).rows[0].t;

  /** A worker process on the test's database and store; `plan` stalls each named file at its step. */
  async function worker(plan: Record<string, StepName>): Promise<{ child: ChildProcess; stalls: Map<string, string> }> {
    const c = fork(path.resolve('test/helpers/stall-worker.ts'), [], {
      execArgv: ['--import', 'tsx'],
      env: {
        ...process.env, DATABASE_URL: app.svc.db.url, DATA_DIR: app.dataDir, LOG_LEVEL: 'error', QUEUE_POLL_SECONDS: '0.5',
        PASSWORD_HASH_MEMORY_KIB: '1024', STALE_FILE_SECONDS: '86400', ALLOW_PRIVATE_OUTBOUND: 'true', WEBHOOK_TIMEOUT_MS: '600000',
        RONDO_STALL_PLAN: JSON.stringify(plan), RONDO_STALL_AT: '',
      },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    const stalls = new Map<string, string>();
    c.on('message', (m: { stalled?: string; fileId?: string }) => m.stalled && stalls.set(m.fileId!, m.stalled));
    await new Promise<void>((resolve, reject) => {
      c.once('exit', (code) => reject(new Error(`worker process exited early (${code})`)));
      c.on('message', (m: { ready?: boolean }) => m.ready && resolve());
    });
    c.removeAllListeners('exit');
    return { child: c, stalls };
  }

  async function kill(c: ChildProcess): Promise<void> {
    const exited = new Promise((resolve) => c.once('exit', resolve));
    c.kill('SIGKILL');
    await exited;
  }

  /** Polls `check` until it is true (bounded; `what` names the wait in the failure). */
  async function until(what: string, check: () => Promise<boolean>, ms = 60_000): Promise<void> {
    const end = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > end) throw new Error(`waited ${ms / 1000} s for ${what}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  const jobRow = async (id: string) => (await app.svc.db.owner.raw(`SELECT name, state, completed_on FROM pgboss.job WHERE id = ?`, [id])).rows[0] as { name: string; state: string; completed_on: Date | null } | undefined;
  const activeStepJob = async (step: StepName, fileId: string) =>
    (await app.svc.db.owner.raw(`SELECT id FROM pgboss.job WHERE name = ? AND data->>'fileId' = ? AND state = 'active'`, [step, fileId])).rows[0]?.id as string | undefined;

  /** Waits for each killed job to complete, then checks it completed within RESUME_SECONDS of its worker being ready. */
  async function assertResumed(jobs: Killed[]): Promise<void> {
    for (const k of jobs) {
      const end = Date.now() + WAIT_MS;
      let row = await jobRow(k.jobId);
      while (row?.state !== 'completed' && Date.now() < end) {
        await new Promise((r) => setTimeout(r, 250));
        row = await jobRow(k.jobId);
      }
      assert.equal(row?.state, 'completed', `${k.what}: job ${k.jobId} is still ${row?.state} ${WAIT_MS / 1000} s after a new worker was ready`);
      const took = (new Date(row!.completed_on!).getTime() - k.readyAt!.getTime()) / 1000;
      assert.ok(took <= RESUME_SECONDS, `${k.what}: completed ${took} s after a new worker was ready (at most ${RESUME_SECONDS} s)`);
    }
  }

  it('an erasure, a webhook delivery and every pipeline step, each killed mid-job, complete within a minute of the next worker', async () => {
    const admin = tenants[0]!.users.admin!.token;
    const files: { name: string; step: StepName; tenant: TestTenant; id?: string }[] = [];
    for (const [i, step] of STEPS.entries()) {
      const name = `DistroKid_1700000000000_resume-${step.replace('.', '-')}.tsv`;
      await writeDistroKid(path.join(dir, name), 400 + i, 300 + i);
      files.push({ name, step, tenant: tenants[i]! });
    }
    const uploadFile = async (f: (typeof files)[number]) => {
      const r = await upload(app, f.tenant.users.admin!.token, `${f.name}.gz`, zlib.gzipSync(await fs.readFile(path.join(dir, f.name))));
      assert.equal(r.status, 201, r.text);
      f.id = r.body.data.id;
    };
    const plan = (f: (typeof files)[number]) => ({ [`${f.name}.gz`]: f.step, [f.name]: f.step });

    // 1. A worker takes an erasure (it blocks on the erasure's row, held here), a webhook delivery
    //    (its receiver never answers) and the first file's first step (it stops before committing).
    const person = await ensureGlobalUser(app.svc.db.owner, { email: 'resume.erasure@resume.test', firstName: 'Resume', lastName: 'Erasure' });
    const preview = await app.request('POST', '/godmin/account-erasure/preview', { token: god, body: { userId: person.id } });
    assert.equal(preview.status, 200, preview.text);
    const erase = await app.request('POST', '/godmin/account-erasure/execute', { token: god, body: { userId: person.id, planHash: preview.body.planHash } });
    assert.equal(erase.status, 201, erase.text);
    const erasureId = erase.body.data.jobId as string;
    erasureLock = await app.svc.db.owner.transaction();
    await erasureLock('account_erasures').where({ id: erasureId }).forUpdate().first();
    const endpoint = await app.request('POST', '/webhooks', { token: admin, body: { url: `${receiverUrl}/hook`, events: ['*'] } });
    assert.equal(endpoint.status, 201, endpoint.text);
    const test = await app.request('POST', `/webhooks/${endpoint.body.data.id}/test`, { token: admin });
    assert.equal(test.status, 200, test.text);
    const deliveryJob = (await app.svc.db.owner.raw(`SELECT id FROM pgboss.job WHERE name = 'webhooks.deliver' AND data->>'deliveryId' = ?`, [test.body.data.deliveryId])).rows[0].id as string;
    const erasureJob = (await app.svc.db.owner('account_erasures').where({ id: erasureId }).first('job_id')).job_id as string;

    let w = await worker(plan(files[0]!));
    await uploadFile(files[0]!);
    await until('the erasure job to be taken', async () => (await jobRow(erasureJob))?.state === 'active');
    await until('the webhook delivery to reach its receiver', async () => hung.length === 1);
    await until(`${files[0]!.step} to stall`, async () => w.stalls.get(files[0]!.id!) === files[0]!.step);
    let killed: Killed[] = [
      { what: 'account erasure', jobId: erasureJob },
      { what: 'webhook delivery', jobId: deliveryJob },
      { what: files[0]!.step, jobId: (await activeStepJob(files[0]!.step, files[0]!.id!))! },
    ];
    assert.ok(killed.every((k) => k.jobId), JSON.stringify(killed));
    await kill(w.child);
    await erasureLock.rollback();
    erasureLock = null;

    // 2. Each next worker resumes what the last one was killed in, and is itself killed in the next step.
    for (const f of files.slice(1)) {
      w = await worker(plan(f));
      child = w.child;
      const readyAt = await now();
      for (const k of killed) k.readyAt = readyAt;
      await uploadFile(f);
      await assertResumed(killed);
      await until(`${f.step} to stall`, async () => w.stalls.get(f.id!) === f.step);
      killed = [{ what: f.step, jobId: (await activeStepJob(f.step, f.id!))! }];
      assert.ok(killed[0]!.jobId, `${f.step}: its job is active`);
      await kill(w.child);
      child = null;
    }

    // 3. A last worker resumes the last step; every file, the erasure and the delivery end done.
    w = await worker({});
    child = w.child;
    const readyAt = await now();
    for (const k of killed) k.readyAt = readyAt;
    await assertResumed(killed);
    for (const f of files) {
      const done = await waitFile(app, f.tenant.users.admin!.token, f.id!, ['processed', 'failed'], WAIT_MS);
      assert.equal(done.status, 'processed', `${f.step}: ${done.error}`);
    }
    assert.equal((await app.svc.db.owner('account_erasures').where({ id: erasureId }).first('status')).status, 'completed');
    const delivery = await app.request('GET', `/webhook-deliveries/${test.body.data.deliveryId}`, { token: admin });
    assert.equal(delivery.body.data.status, 'success', delivery.text);
    await kill(w.child);
    child = null;
  });
});
