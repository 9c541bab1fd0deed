/**
 * npm run bench:analytics-scaleout — the analytics engine scaled out (issue 37): two API
 * processes (`src/server.ts`, RUN_WORKERS=false, each its own DATA_DIR and replica file) and
 * one worker process (`src/worker.ts`) against one Postgres, the workspace an earlier
 * `npm run bench:analytics -- --load-only` left in BENCH_DATA_DIR (required).
 *
 * 1. each API node builds its replica from Postgres on its first analytics request (the
 *    `label` payee's totals, which the engine answers): the time until it answers from the
 *    engine (node A alone, then node B), its file size;
 * 2. one more statement file written to Postgres (as the worker's jobs write it): the first
 *    request for those totals on each node after its commit (it waits for the node's replica
 *    to apply the file, up to ANALYTICS_REPLICA_WAIT_MS, then Postgres answers);
 * 3. every route × filter set × view (SCALE_VIEWS, admin,label) under CONCURRENCY clients
 *    spread over both nodes (half each): per node the median and the p95;
 * 4. each process's peak RSS (VmHWM).
 * Prints tables; asserts nothing. Env: BENCH_DATA_DIR, SEED_REPLICA (a built replica file each
 * node starts from a copy of, instead of building its own), CONCURRENCY (8), REQUESTS (48),
 * MAX_SECS (20), SCALE_VIEWS, BENCH_ONLY, SCALE_API, SCALE_NODE_OPTIONS, SCALE_LOG_DIR,
 * SCALE_LOG_LEVEL.
 */
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import { openSync } from 'node:fs';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { loadConfig } from '../src/config';
import { boot, resolveDatabase } from '../src/compose';
import { withTenant } from '../src/db';
import { createLogger } from '../src/lib/logger';
import { defaultKeyFile } from '../src/keys';
import { FILES, loadFile, openWorkspace, type View } from './analytics-workspace';
import { combos, filterIds, httpGet, timed, ms } from './analytics-queries';
import { fileBytes, mb, peakRss, secs } from './analytics-stores';
import { pct } from './stats';

const CONC = Number(process.env.CONCURRENCY ?? 8);
const REQS = Number(process.env.REQUESTS ?? 48);
const MAX_SECS = Number(process.env.MAX_SECS ?? 20);
const VIEWS_ = (process.env.SCALE_VIEWS ?? 'admin,label').split(',') as View[];
const ONLY = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : null;
const loadAvg = () => os.loadavg().map((x) => x.toFixed(2)).join(', ');
const sleep = (n: number) => new Promise((r) => setTimeout(r, n));

interface Node { name: string; proc: ChildProcess; port: number; dir: string; replica: string }

async function main() {
  const dataDir = process.env.BENCH_DATA_DIR;
  if (!dataDir) throw new Error('BENCH_DATA_DIR: the data directory of a loaded `npm run bench:analytics -- --load-only`');
  const cfg = loadConfig({ ANALYTICS_ENGINE: 'postgres' }, { dataDir, logLevel: 'silent', passwordHashMemoryKiB: 1024 });
  const { url, embedded } = await resolveDatabase(cfg, createLogger('silent'), { fast: true });
  const rt = await boot(cfg, { workers: false, queue: false, migrate: true, databaseUrl: url });
  const svc = rt.svc;
  const procs: ChildProcess[] = [];
  const env = {
    ...process.env,
    DATABASE_URL: url,
    JWT_SECRET_FILE: defaultKeyFile(cfg, 'jwt'),
    ENCRYPTION_KEY_FILE: defaultKeyFile(cfg, 'encryption'),
    LOG_LEVEL: process.env.SCALE_LOG_LEVEL ?? 'warn',
    ANALYTICS_ENGINE: 'duckdb',
  };
  // SCALE_API=dist: the API nodes run as `npm start` ships the server (dist/server.mjs, built
  // first) with SCALE_NODE_OPTIONS (e.g. the V8 heap cap of docs/operations.md); else through tsx.
  const dist = process.env.SCALE_API === 'dist';
  if (dist) spawnSync(process.execPath, ['scripts/build-server.mjs', '--if-stale'], { stdio: 'inherit' });
  const start = (name: string, script: string, extra: Record<string, string>) => {
    const api = dist && script === 'src/server.ts';
    const args = api ? ['--enable-source-maps', ...(process.env.SCALE_NODE_OPTIONS ?? '').split(/\s+/).filter(Boolean), 'dist/server.mjs'] : [...process.execArgv, script];
    // SCALE_LOG_DIR: each process's log (its stdout) to <dir>/<name>.log (SCALE_LOG_LEVEL=debug: each replica apply's phases).
    const out = process.env.SCALE_LOG_DIR ? openSync(path.join(process.env.SCALE_LOG_DIR, `${name}.log`), 'w') : 'ignore';
    const p = spawn(process.execPath, args, { env: { ...env, ...extra }, stdio: ['ignore', out, 'inherit'] });
    procs.push(p);
    return p;
  };
  try {
    const ws = await openWorkspace(svc, true);
    const t = ws.id;
    const fileIds: string[] = (await withTenant(svc.db.app, t, (trx) => trx.raw(`SELECT id FROM files WHERE original_name NOT LIKE 'sync-%' ORDER BY created_at, id`))).rows.map((r: { id: string }) => r.id);
    const n = Number((await svc.db.owner.raw(`SELECT count(*)::bigint AS n FROM royalty_lines WHERE tenant_id = ?`, [t])).rows[0].n);
    console.log(`scale-out bench: workspace ${t}, ${Number(n).toLocaleString()} lines; 2 API nodes + 1 worker on one Postgres; ${os.cpus().length} cores; load average ${loadAvg()}; API nodes: ${dist ? `node --enable-source-maps ${process.env.SCALE_NODE_OPTIONS ?? ''} dist/server.mjs` : 'tsx src/server.ts'}, replica memory ${process.env.ANALYTICS_REPLICA_MEMORY ?? 'default'}`);
    const worker = start('worker', 'src/worker.ts', { DATA_DIR: path.join(dataDir, 'node-worker'), RUN_WORKERS: 'true' });
    const nodes: Node[] = [];
    for (const [i, name] of ['A', 'B'].entries()) {
      const dir = path.join(dataDir, `node-${name}`);
      await fs.rm(dir, { recursive: true, force: true });
      await fs.mkdir(dir, { recursive: true });
      const port = 38_500 + i + Math.floor(Math.random() * 400);
      const replica = path.join(dir, 'replica.duckdb');
      // SEED_REPLICA: the node starts from a copy of a built replica file (same database: kept, brought up to date).
      if (process.env.SEED_REPLICA) await fs.copyFile(process.env.SEED_REPLICA, replica);
      const proc = start(name, 'src/server.ts', { DATA_DIR: dir, PORT: String(port), HOST: '127.0.0.1', RUN_WORKERS: 'false', ANALYTICS_REPLICA_PATH: replica });
      nodes.push({ name, proc, port, dir, replica });
    }
    const baseOf = (nd: Node) => `http://127.0.0.1:${nd.port}`;
    for (const nd of nodes) {
      for (let i = 0; ; i++) {
        if (await fetch(`${baseOf(nd)}/health`).then((r) => r.ok, () => false)) break;
        if (i > 600) throw new Error(`node ${nd.name} did not start`);
        await sleep(200);
      }
    }
    // 1. each node's replica, built on its first analytics request.
    console.log(`\n| node | replica ${process.env.SEED_REPLICA ? 'copied, then brought up to date' : 'built from Postgres'} (first request → answered by the engine) | replica file |`);
    console.log(`|---|---:|---:|`);
    for (const nd of nodes) {
      const s = performance.now();
      let source = '';
      // Answered by the engine: the answer's `source` when it carries one; else the replica's
      // copy is over (no CSV left in its work directory, two polls after a first answer).
      const copying = async () => (await fs.readdir(`${nd.replica}.tmp`).catch(() => [] as string[])).some((f) => f.endsWith('.csv'));
      for (let polls = 0; ; polls++) {
        source = await httpGet(baseOf(nd), ws.tokens.label, '/royalty/');
        if (source.startsWith('duckdb') || (source === '?' && polls >= 2 && !(await copying()))) break;
        await sleep(1000);
      }
      console.log(`| ${nd.name} | ${secs(performance.now() - s)} | ${mb(await fileBytes(nd.replica))} |`);
    }
    // 2. one more file in Postgres; each node answers it from its replica.
    const timing = { load: 0, alloc: 0, aggr: 0 };
    const perFile = Math.ceil(Number(n) / FILES);
    await loadFile(svc.db.app, t, 3, 'TuneCore', perFile, timing, 'sync-');
    const committed = performance.now();
    // The first request on each node after the commit waits for its replica (at most
    // ANALYTICS_REPLICA_WAIT_MS), then answers from it or, when still behind, from Postgres.
    const first = await Promise.all(nodes.map(async (nd) => {
      const s = performance.now();
      const src = await httpGet(baseOf(nd), ws.tokens.label, '/royalty/');
      return `${secs(performance.now() - s)} (${src})`;
    }));
    console.log(`\none more file (${perFile.toLocaleString()} lines, processed in ${secs(timing.load + timing.alloc + timing.aggr)}): the first request after its commit answered on A in ${first[0]} and on B in ${first[1]}, ${secs(performance.now() - committed)} after the commit`);
    // The clients then meet the replicas as they are between files: each node's apply over (its copy's CSVs gone).
    for (const nd of nodes) while ((await fs.readdir(`${nd.replica}.tmp`).catch(() => [] as string[])).some((f) => f.endsWith('.csv'))) await sleep(200);
    console.log(`both replicas had applied it ${secs(performance.now() - committed)} after the commit`);
    const rssSoFar = async () => (await Promise.all(nodes.map((nd) => peakRss(nd.proc.pid)))).map(mb).join(', ');
    console.log(`peak RSS of API A, API B so far (their replicas built or brought up to date, and this file applied): ${await rssSoFar()}`);

    // 3. the clients spread over both nodes.
    const ids = await filterIds(svc.db, t, fileIds);
    const list = combos(ids, VIEWS_, ONLY);
    for (const nd of nodes) await timed(2 * CONC, () => httpGet(baseOf(nd), ws.tokens.admin, '/royalty/month'), CONC / 2, MAX_SECS);
    console.log(`\nload average before the queries: ${loadAvg()}; ${list.length} combinations, ${CONC} clients (${CONC / 2} per node), ${REQS} requests each`);
    console.log(`\n| route × filter (view) | A median | A p95 | B median | B p95 | source |`);
    console.log(`|---|---:|---:|---:|---:|---|`);
    const all: Record<string, number[]> = { A: [], B: [] };
    const p95s: Record<string, number[]> = { A: [], B: [] };
    for (const c of list) {
      const times: Record<string, number[]> = { A: [], B: [] };
      let source = '';
      let next = 0;
      const until = performance.now() + MAX_SECS * 1000;
      await Promise.all(Array.from({ length: CONC }, async (_, i) => {
        const nd = nodes[i % 2]!;
        while (next < REQS && (next < CONC || performance.now() < until)) {
          next++;
          const s = performance.now();
          source = await httpGet(baseOf(nd), ws.tokens[c.view], c.path);
          times[nd.name]!.push(performance.now() - s);
        }
      }));
      for (const k of ['A', 'B']) { all[k]!.push(pct(times[k]!, 50)); p95s[k]!.push(pct(times[k]!, 95)); }
      console.log(`| ${c.label} | ${ms(pct(times.A!, 50))} | ${ms(pct(times.A!, 95))} | ${ms(pct(times.B!, 50))} | ${ms(pct(times.B!, 95))} | ${source} |`);
    }
    console.log(`\nper node over the ${list.length} combinations: ${['A', 'B'].map((k) => `${k}: worst median ${ms(Math.max(...all[k]!))} ms, worst p95 ${ms(Math.max(...p95s[k]!))} ms, ${p95s[k]!.filter((x) => x >= 500).length} p95 at or over 500 ms`).join('; ')}`);
    console.log(`load average after the queries: ${loadAvg()}`);
    console.log(`peak RSS of API A, API B, the worker: ${(await Promise.all([...nodes.map((nd) => nd.proc), worker].map((p) => peakRss(p.pid)))).map(mb).join(', ')}; replica files ${(await Promise.all(nodes.map((nd) => fileBytes(nd.replica)))).map(mb).join(', ')}`);
  } finally {
    for (const p of procs) p.kill('SIGTERM');
    await Promise.all(procs.map((p) => new Promise((r) => (p.exitCode !== null ? r(null) : p.once('exit', r)))));
    await rt.shutdown();
    await embedded?.stop();
  }
}

await main();
