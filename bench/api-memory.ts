/**
 * npm run bench:api-memory — the API process's memory (issue 37): an API process
 * (`src/server.ts`, RUN_WORKERS=false) started as `npm start` starts it (the precompiled
 * dist/server.mjs, built first when stale), on the demo workspace
 * (`seed:demo`) in an embedded Postgres this bench starts. Reads the process's /proc status
 * (VmRSS, VmHWM: its peak) and its own heap figures (GET /metrics):
 *   1. after start (/health answers; then 3 s idle);
 *   2. after a warm-up: ROUNDS rounds of every GET route of the OpenAPI document without a path
 *      parameter, as the owner and as a member, plus /app, /docs and /openapi.json;
 *   3. after the same warm-up with CONCURRENCY clients at once (requests/s, and the process's
 *      CPU time a request, which other work on the machine disturbs less).
 * Prints a table; asserts nothing. The analytics replica (the DuckDB engine) is left closed:
 * ANALYTICS_ENGINE=postgres, so the figures are the Node side alone.
 * Env: API_CMD (the command that starts the API, default `node --enable-source-maps
 * dist/server.mjs`; e.g. `node --import tsx src/server.ts` for the sources through tsx, or with
 * V8 flags), NODE_OPTIONS passed through, ROUNDS (3), CONCURRENCY (8).
 */
import os from 'node:os';
import path from 'node:path';
import fsp from 'node:fs/promises';
import { execFileSync, spawn } from 'node:child_process';
import { loadConfig } from '../src/config';
import { boot, resolveDatabase } from '../src/compose';
import { createLogger } from '../src/lib/logger';
import { defaultKeyFile } from '../src/keys';
import { DEMO_PASSWORD, seedDemo } from '../src/seed/demo';

const ROUNDS = Number(process.env.ROUNDS ?? 3);
const CONC = Number(process.env.CONCURRENCY ?? 8);
const API_CMD = (process.env.API_CMD ?? 'node --enable-source-maps dist/server.mjs').split(/\s+/);
const sleep = (n: number) => new Promise((r) => setTimeout(r, n));
const mb = (kb: number) => `${(kb / 1024).toFixed(0)} MB`;

/** VmRSS, VmHWM, RssAnon, RssFile of a process, kB. */
async function status(pid: number): Promise<Record<'VmRSS' | 'VmHWM' | 'RssAnon' | 'RssFile', number>> {
  const s = await fsp.readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+) kB`).exec(s)?.[1] ?? 0);
  return { VmRSS: kb('VmRSS'), VmHWM: kb('VmHWM'), RssAnon: kb('RssAnon'), RssFile: kb('RssFile') };
}

/** CPU time the process has used (user + system), ms: less disturbed by other work on the machine than requests/s. */
async function cpuMs(pid: number): Promise<number> {
  const f = (await fsp.readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // utime, stime in clock ticks (USER_HZ 100)
}

/** The process's heap figures from its /metrics (prom-client's default metrics), kB. */
async function heap(base: string): Promise<{ heapUsed: number; heapTotal: number; external: number }> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const v = (name: string) => Number(new RegExp(`^rondo_${name} (\\S+)$`, 'm').exec(text)?.[1] ?? 0) / 1024;
  return { heapUsed: v('nodejs_heap_size_used_bytes'), heapTotal: v('nodejs_heap_size_total_bytes'), external: v('nodejs_external_memory_bytes') };
}

async function main() {
  if (!process.env.API_CMD) execFileSync(process.execPath, ['scripts/build-server.mjs', '--if-stale'], { stdio: 'inherit' });
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'rondo-bench-mem-'));
  await fsp.chmod(dir, 0o755); // the embedded Postgres may run as a `postgres` system user (when we are root)
  const cfg = loadConfig({ ANALYTICS_ENGINE: 'postgres' }, { dataDir: path.join(dir, 'data'), logLevel: 'silent', passwordHashMemoryKiB: 1024 });
  const { url, embedded } = await resolveDatabase(cfg, createLogger('silent'), { fast: true });
  const rt = await boot(cfg, { workers: false, queue: true, migrate: true, databaseUrl: url });
  let proc: ReturnType<typeof spawn> | null = null;
  try {
    const demo = await seedDemo(rt.svc);
    const tokenOf = async (email: string) => {
      const { refreshToken } = await rt.svc.auth.login(email, DEMO_PASSWORD, {});
      const who = await rt.svc.auth.authenticate({ authorization: `Bearer ${refreshToken}` }, 'refresh');
      return rt.svc.auth.accessTokenFor(who, demo.workspaceId, undefined);
    };
    const tokens = [await tokenOf('owner@moonlight.demo'), await tokenOf('ana@moonlight.demo')];

    const port = 39_000 + Math.floor(Math.random() * 900);
    const env = {
      ...process.env,
      DATABASE_URL: url,
      DATA_DIR: path.join(dir, 'api'),
      JWT_SECRET_FILE: defaultKeyFile(cfg, 'jwt'),
      ENCRYPTION_KEY_FILE: defaultKeyFile(cfg, 'encryption'),
      PORT: String(port),
      HOST: '127.0.0.1',
      RUN_WORKERS: 'false',
      LOG_LEVEL: 'warn',
      ANALYTICS_ENGINE: 'postgres',
    };
    const started = performance.now();
    proc = spawn(API_CMD[0]!, API_CMD.slice(1), { env, stdio: ['ignore', 'ignore', 'inherit'] });
    const pid = proc.pid!;
    const base = `http://127.0.0.1:${port}`;
    for (let i = 0; !(await fetch(`${base}/health`).then((r) => r.ok, () => false)); i++) {
      if (i > 600 || proc.exitCode !== null) throw new Error('the API did not start');
      await sleep(100);
    }
    const startMs = performance.now() - started;
    await sleep(3000);
    const rows: [string, Awaited<ReturnType<typeof status>>, Awaited<ReturnType<typeof heap>>][] = [];
    rows.push([`after start (${(startMs / 1000).toFixed(1)} s to /health)`, await status(pid), await heap(base)]);

    const doc = (await (await fetch(`${base}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const paths = Object.keys(doc.paths).filter((p) => doc.paths[p]!.get && !p.includes('{') && p !== '/metrics');
    const statuses: Record<number, number> = {};
    const get = async (p: string, token: string) => {
      const res = await fetch(base + p, { headers: { authorization: `Bearer ${token}` } });
      await res.arrayBuffer();
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    };
    const jobs = () => [...tokens.flatMap((t) => paths.map((p) => () => get(p, t))), () => get('/app/', ''), () => get('/docs', ''), () => get('/openapi.json', '')];
    for (let r = 0; r < ROUNDS; r++) for (const j of jobs()) await j();
    rows.push([`after ${ROUNDS} rounds of ${jobs().length} GETs one at a time`, await status(pid), await heap(base)]);
    const concStarted = performance.now();
    const cpuBefore = await cpuMs(pid);
    for (let r = 0; r < ROUNDS; r++) {
      const list = jobs();
      await Promise.all(Array.from({ length: CONC }, async () => { for (let j = list.shift(); j; j = list.shift()) await j(); }));
    }
    const concSecs = (performance.now() - concStarted) / 1000;
    const cpuPerRequest = (await cpuMs(pid) - cpuBefore) / (ROUNDS * jobs().length);
    rows.push([`after ${ROUNDS} more rounds, ${CONC} clients (${((ROUNDS * jobs().length) / concSecs).toFixed(0)} requests/s, ${cpuPerRequest.toFixed(2)} ms CPU a request)`, await status(pid), await heap(base)]);

    console.log(`API process memory: \`${API_CMD.join(' ')}\`${process.env.NODE_OPTIONS ? ` NODE_OPTIONS=${process.env.NODE_OPTIONS}` : ''}; ${os.cpus().length} cores, Node ${process.version}; ${paths.length} GET routes × ${tokens.length} views; answers ${JSON.stringify(statuses)}`);
    console.log(`\n| moment | VmRSS | VmHWM (peak) | RssAnon | RssFile | heap used | heap total | external |`);
    console.log(`|---|---:|---:|---:|---:|---:|---:|---:|`);
    for (const [label, s, h] of rows) console.log(`| ${label} | ${mb(s.VmRSS)} | ${mb(s.VmHWM)} | ${mb(s.RssAnon)} | ${mb(s.RssFile)} | ${mb(h.heapUsed)} | ${mb(h.heapTotal)} | ${mb(h.external)} |`);
  } finally {
    if (proc && proc.exitCode === null) {
      proc.kill('SIGTERM');
      await new Promise((r) => proc!.once('exit', r));
    }
    await rt.shutdown();
    await embedded?.stop();
    await fsp.rm(dir, { recursive: true, force: true });
  }
}

await main();
