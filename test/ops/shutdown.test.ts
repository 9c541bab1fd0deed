/**
 * The entry points as an operator runs them: `node --import tsx src/server.ts` (the server from its
 * sources; precompiled as `npm start` runs it: precompiled.test.ts) and `src/worker.ts`, as child
 * processes on a test database. SIGTERM during a request
 * still in flight: no new connections, the request completes, the process exits 0.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase } from '../helpers/db';
import { freePort } from '../helpers/net';
import { parseMetrics, sample } from './prom';

interface Child {
  proc: ChildProcess;
  out: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  waitFor(re: RegExp): Promise<void>;
}

function start(script: string, env: Record<string, string>): Child {
  const proc = spawn(process.execPath, ['--import', 'tsx', script], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const out: string[] = [];
  const waiters: Array<{ re: RegExp; resolve: () => void }> = [];
  const onData = (chunk: Buffer) => {
    out.push(chunk.toString());
    const all = out.join('');
    for (const w of [...waiters]) if (w.re.test(all)) (waiters.splice(waiters.indexOf(w), 1), w.resolve());
  };
  proc.stdout!.on('data', onData);
  proc.stderr!.on('data', onData);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  return {
    proc,
    out,
    exited,
    waitFor(re) {
      if (re.test(out.join(''))) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        waiters.push({ re, resolve });
        exited.then(({ code }) => reject(new Error(`exited (${code}) before printing ${re}:\n${out.join('')}`)));
      });
    },
  };
}

describe('ops: entry points and graceful shutdown', function () {
  this.timeout(120_000);
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let dataDir: string;
  const children: Child[] = [];

  before(async () => {
    db = await createTestDatabase();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rondo-shutdown-'));
  });
  after(async () => {
    for (const c of children) if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill('SIGKILL');
    await Promise.all(children.map((c) => c.exited));
    await db?.drop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  function env(extra: Record<string, string>): Record<string, string> {
    return { DATABASE_URL: db.url, DATA_DIR: dataDir, HOST: '127.0.0.1', LOG_LEVEL: 'info', JWT_SECRET: 'shutdown-test-secret-0123456789', PASSWORD_HASH_MEMORY_KIB: '1024', ...extra };
  }

  it('server: SIGTERM mid-request stops accepting, lets the request finish, stops the workers and exits 0', async () => {
    const port = await freePort();
    const c = start('src/server.ts', env({ PORT: String(port) }));
    children.push(c);
    await c.waitFor(/Rondo is running\.\n  Web app: +http:\/\/\S+\/app\n/);
    assert.equal((await fetch(`http://127.0.0.1:${port}/health`)).status, 200);

    // A login whose body is still on its way: `Expect: 100-continue` makes the server answer
    // "100 Continue" once it has the headers and has handed the request to the app.
    const body = JSON.stringify({ email: 'nobody@example.com', password: 'not-the-password' });
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/auth/login', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), expect: '100-continue' } });
    const response = new Promise<{ status: number; text: string; connection: string | undefined }>((resolve, reject) => {
      req.on('response', (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, text, connection: res.headers.connection }));
      });
      req.on('error', reject);
    });
    await new Promise<void>((resolve) => req.on('continue', resolve));
    req.write(body.slice(0, 10));

    c.proc.kill('SIGTERM');
    await c.waitFor(/"msg":"shutting down"/);
    await assert.rejects(fetch(`http://127.0.0.1:${port}/health`), 'no new connections once shutting down');

    req.end(body.slice(10));
    const r = await response;
    assert.equal(r.status, 401, r.text);
    assert.equal(JSON.parse(r.text).error.code, 'INVALID_CREDENTIALS');

    const { code, signal } = await c.exited;
    assert.equal(signal, null);
    assert.equal(code, 0, c.out.join(''));
    assert.match(c.out.join(''), /"msg":"shut down"/);
  });

  it('worker: serves /metrics and /health on METRICS_PORT; SIGTERM stops it cleanly (exit 0)', async () => {
    const port = await freePort();
    const c = start('src/worker.ts', env({ METRICS_PORT: String(port), METRICS_TOKEN: 'worker-metrics-token' }));
    children.push(c);
    await c.waitFor(/"msg":"workers started"/);
    assert.equal((await fetch(`http://127.0.0.1:${port}/health`)).status, 200);
    assert.equal((await fetch(`http://127.0.0.1:${port}/metrics`)).status, 401);
    const m = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: 'Bearer worker-metrics-token' } });
    assert.equal(m.status, 200);
    const s = parseMetrics(await m.text());
    assert.equal(sample(s, 'rondo_queue_jobs', { queue: 'file.ingest', state: 'created' }), 0);
    assert.equal(sample(s, 'rondo_lines_ingested_total'), 0);

    c.proc.kill('SIGTERM');
    const { code, signal } = await c.exited;
    assert.equal(signal, null);
    assert.equal(code, 0, c.out.join(''));
    assert.match(c.out.join(''), /"msg":"shut down"/);
  });
});
