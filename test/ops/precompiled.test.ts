/**
 * The server as `npm start` and `npm run start:prod` run it (issue 37: the API process's
 * memory): precompiled by scripts/build-server.mjs and run by plain `node --enable-source-maps`,
 * without tsx's loader. On an empty database it applies every migration (TypeScript files,
 * loaded through tsx's loader registered for them), answers, names src/ files in its stack
 * traces, and stops cleanly on SIGTERM.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createTestDatabase } from '../helpers/db';
import { freePort } from '../helpers/net';

/** Runs the bundle until it exits or `until` resolves; its output so far. */
function run(bundle: string, env: Record<string, string>) {
  const proc = spawn(process.execPath, ['--enable-source-maps', bundle], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  proc.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  return { proc, exited, out: () => out };
}

describe('ops: the precompiled server (npm start)', function () {
  this.timeout(180_000);
  // built under the project's directory: the server finds web/dist and the migrations from package.json above it
  let buildDir = '';
  let bundle = '';
  let dataDir = '';
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  const procs: ReturnType<typeof run>[] = [];

  before(async () => {
    fs.mkdirSync('.test-data', { recursive: true });
    buildDir = fs.mkdtempSync(path.join(process.cwd(), '.test-data', 'precompiled-'));
    bundle = path.join(buildDir, 'server.mjs');
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rondo-precompiled-'));
    execFileSync(process.execPath, ['scripts/build-server.mjs', '--out', bundle], { stdio: 'pipe' });
    db = await createTestDatabase({ empty: true });
  });
  after(async () => {
    for (const p of procs) if (p.proc.exitCode === null && p.proc.signalCode === null) p.proc.kill('SIGKILL');
    await Promise.all(procs.map((p) => p.exited));
    await db?.drop();
    if (buildDir) fs.rmSync(buildDir, { recursive: true, force: true });
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const env = (extra: Record<string, string>) => ({ DATABASE_URL: db.url, DATA_DIR: dataDir, HOST: '127.0.0.1', LOG_LEVEL: 'info', RUN_WORKERS: 'false', JWT_SECRET: 'precompiled-test-secret-0123456789', PASSWORD_HASH_MEMORY_KIB: '1024', ...extra });

  it('migrates an empty database, answers, and stops on SIGTERM', async () => {
    const port = await freePort();
    const p = run(bundle, env({ PORT: String(port) }));
    procs.push(p);
    for (let i = 0; !p.out().includes('Rondo is running.'); i++) {
      if (p.proc.exitCode !== null || i > 1200) assert.fail(`did not start:\n${p.out()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal((await fetch(`http://127.0.0.1:${port}/health`)).status, 200);
    const doc = await fetch(`http://127.0.0.1:${port}/openapi.json`);
    assert.equal(doc.status, 200);
    assert.ok(Object.keys(((await doc.json()) as { paths: object }).paths).length > 100);

    const files = fs.readdirSync('migrations').filter((f) => f.endsWith('.ts')).sort();
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    const applied = (await c.query<{ name: string }>('SELECT name FROM knex_migrations ORDER BY name')).rows.map((r) => r.name);
    await c.end();
    assert.deepEqual(applied, files);

    p.proc.kill('SIGTERM');
    assert.equal(await p.exited, 0, p.out());
  });

  it("names the src/ file and line of an error (the bundle's source map)", async () => {
    const p = run(bundle, env({ PORT: 'not-a-port' }));
    procs.push(p);
    assert.notEqual(await p.exited, 0);
    assert.match(p.out(), /PORT must be a non-negative integer/);
    assert.match(p.out(), /at \S+ \(\S*src\/config\.ts:\d+:\d+\)/);
  });
});
