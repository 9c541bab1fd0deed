/**
 * npm run bench:ingest [-- --lines 5000000] [--fast] [--keep] [--stored-only]
 *
 * A deterministic DistroKid-style statement (1,000,000 lines ≈ 137 MB by default), zipped,
 * uploaded through the real API (multipart) to an embedded Postgres, processed by a separate
 * worker process (`src/worker.ts`, so its peak RSS is its own). Before the upload the bench
 * workspace gets the catalogue the statement names (bench/distrokid-gen.ts: 20,000
 * recordings with ISRCs, 2,000 releases with UPCs, one artist) and splits paying 3 members,
 * so allocation matches every line and gives each its share set.
 *
 * Timed, from the upload request:
 *   (a) upload → lines stored: every line committed (the file leaves `ingesting`);
 *   (b) upload → analytics ready: `processed` (earnings, ledger postings, rollups written);
 *       then the ANALYZE of the tables the file grew (analyzeGrown), from its log line;
 * each job's own time (decompress, detect, ingest, allocate, aggregate: pg-boss start/end),
 * the allocation's steps (from the worker's "file allocated" log line), earnings rows, the
 * worker's peak RSS. Then, in the same run, the reference: a bare `COPY` of the same lines
 * into a plain table (no index, no RLS), and the ratios (a)/COPY and (b)/COPY. The reference
 * COPYs every column the ingest writes (the statement's fields AND the match and base amount
 * filled in flight: the rows exactly as stored); the statement's fields alone are timed too.
 * `--stored-only` stops at (a) (for iterating on the ingest: the allocation is not waited for).
 *
 * The cluster runs with the settings `npm start` gives it (durable: fsync on); `--fast`
 * uses the test settings (fsync off) instead. `BENCH_WORKER_PROF=<dir>` writes a V8 CPU
 * profile of the worker process there (open it in Chrome DevTools). Prints figures; asserts
 * nothing.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { loadConfig } from '../src/config';
import { boot } from '../src/compose';
import { createApp } from '../src/app';
import { createTenant, ensureGlobalUser, upsertMembership } from '../src/modules/users/service';
import { writeDistroKid, DK_RECORDINGS } from './distrokid-gen';
import { seedDistroKidCatalogue } from './dk-catalogue';
import { zipFileStreaming } from '../test/ingest/zip-writer';
import { LINE_COLUMNS } from '../src/modules/files/line-copy';
import { SHAPE_TABLES } from '../src/modules/royalty/shapes';

const argLines = process.argv.indexOf('--lines');
const LINES = argLines > 0 ? Number(process.argv[argLines + 1]) : 1_000_000;
const keep = process.argv.includes('--keep');
const fast = process.argv.includes('--fast');
const storedOnly = process.argv.includes('--stored-only');
/** `npm run worker`'s Node flags (package.json), so the bench measures the worker as deployed. */
const WORKER_NODE_FLAGS = ((JSON.parse(fs.readFileSync('package.json', 'utf8')).scripts.worker as string).match(/--[\w-]+=\S+/g) ?? []) as string[];
const sec = (ms: number) => (ms / 1000).toFixed(2);
const rate = (n: number, ms: number) => `${Math.round(n / (ms / 1000)).toLocaleString('en')} lines/s`;

const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'rondo-bench-ingest-'));
const dataDir = path.join(dir, 'data');
await fsp.chmod(dir, 0o755); // the embedded Postgres may run as a `postgres` system user (when we are root)
console.log(`bench:ingest — ${LINES.toLocaleString('en')} lines, ${os.cpus().length} cores, ${fast ? 'fast (fsync off, test settings)' : 'durable (npm start settings)'} embedded Postgres, temp dir ${dir}`);

let t = Date.now();
const tsv = path.join(dir, 'DistroKid_1700000000000_Bench.tsv');
const { total, bytes } = await writeDistroKid(tsv, LINES, 2024);
const zip = path.join(dir, 'DistroKid_1700000000000_Bench.zip');
await zipFileStreaming(tsv, path.basename(tsv), zip);
const zipBytes = (await fsp.stat(zip)).size;
console.log(`generated ${(bytes / 1e6).toFixed(1)} MB TSV, ${(zipBytes / 1e6).toFixed(1)} MB zip in ${sec(Date.now() - t)} s (expected total USD ${total})`);

// API process (this one) without workers; workers in a child process so their memory is measured alone.
const cfg = loadConfig({}, { dataDir, logLevel: 'warn', queuePollSeconds: 0.5, passwordHashMemoryKiB: 1024 });
const rt = await boot(cfg, { workers: false, fastEmbedded: fast });
const svc = rt.svc;
const dbUrl = svc.db.url;
const server = createApp(svc).listen(0, '127.0.0.1');
await new Promise((r) => server.once('listening', r));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const tenant = await createTenant(svc.db.owner, { name: 'Bench Records' });
const hash = await svc.auth.hashPassword('bench password 1');
const g = await ensureGlobalUser(svc.db.owner, { email: 'bench@rondo.test', passwordHash: hash });
await upsertMembership(svc.db.owner, tenant.id, g.id, 'admin');
const payees: string[] = [];
for (let i = 1; i <= 3; i++) {
  const p = await ensureGlobalUser(svc.db.owner, { email: `payee${i}@rondo.test`, passwordHash: hash });
  payees.push(await upsertMembership(svc.db.owner, tenant.id, p.id, 'user'));
}
const { refreshToken } = await svc.auth.login('bench@rondo.test', 'bench password 1', {});
const who = await svc.auth.authenticate({ authorization: `Bearer ${refreshToken}` }, 'refresh');
const token = await svc.auth.accessTokenFor(who, tenant.uuid, undefined);

// The catalogue the statement names, with splits (SQL, one transaction).
t = Date.now();
const { releases } = await seedDistroKidCatalogue(svc, tenant.id, payees);
console.log(`catalogue: ${DK_RECORDINGS.toLocaleString('en')} recordings, ${releases} releases, 1 artist, ${DK_RECORDINGS * 3 / 4 + 1} splits paying 3 members (${sec(Date.now() - t)} s)`);

// The worker as `npm run worker` starts it (same Node flags), its log lines (step timings) collected from its stdout.
// BENCH_WORKER_FLAGS: extra Node/V8 flags for experiments (e.g. "--trace-gc"); BENCH_WORKER_PROF: a directory for --cpu-prof.
const extraFlags = (process.env.BENCH_WORKER_FLAGS ?? '').split(/\s+/).filter(Boolean);
const worker = spawn(process.execPath, [...WORKER_NODE_FLAGS, ...extraFlags, ...(process.env.BENCH_WORKER_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_WORKER_PROF}`] : []), '--import', 'tsx', 'src/worker.ts'], {
  env: { ...process.env, DATABASE_URL: dbUrl, DATA_DIR: dataDir, LOG_LEVEL: 'info', QUEUE_POLL_SECONDS: '0.5' },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const workerLog: Record<string, any>[] = [];
readline.createInterface({ input: worker.stdout! }).on('line', (line) => {
  let rec: Record<string, any> | null = null;
  try {
    rec = JSON.parse(line);
  } catch {
    /* not JSON */
  }
  if (!rec) return void console.log(`[worker] ${line}`);
  workerLog.push(rec);
  if (rec.level >= 40) console.log(`[worker] ${line}`);
});
let workerExit: number | null = null;
worker.once('exit', (code) => (workerExit = code ?? -1));
const peakRss = async (): Promise<number> => {
  const s = await fsp.readFile(`/proc/${worker.pid}/status`, 'utf8').catch(() => '');
  return Number(/VmHWM:\s+(\d+)/.exec(s)?.[1] ?? 0) * 1024;
};
await new Promise((r) => setTimeout(r, 4000)); // let the worker boot (tsx compile, pg-boss start)
const rssIdle = await peakRss();

// Upload, then follow the child file's status from its row (50 ms polls on a direct connection).
const mon = new pg.Client({ connectionString: dbUrl });
await mon.connect();
t = Date.now();
const fd = new FormData();
fd.append('file', await fs.openAsBlob(zip), path.basename(zip));
const up = await fetch(`${base}/file/royalty`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: fd });
const upBody = (await up.json()) as any;
const tUpload = Date.now() - t;
if (up.status !== 201) throw new Error(`upload failed: ${up.status} ${JSON.stringify(upBody)}`);
const parentId: string = upBody.data.id;
const seen: Record<string, number> = {};
const rssBy: Record<string, number> = {}; // the worker's RSS sampled at each poll, per status of the file
const currentRss = async (): Promise<number> => {
  const s = await fsp.readFile(`/proc/${worker.pid}/status`, 'utf8').catch(() => '');
  return Number(/VmRSS:\s+(\d+)/.exec(s)?.[1] ?? 0) * 1024;
};
/** CPU seconds (user + system) of the worker, and of every postgres process, from /proc. */
const TICK = 100; // USER_HZ on Linux
const cpuOf = async (pid: number | string): Promise<number> => {
  const st = await fsp.readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
  // utime + stime, + cutime + cstime (the postmaster's include its backends that have exited)
  return f.length > 15 ? (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / TICK : 0;
};
/** This bench's cluster only: its postmaster (postmaster.pid in the data dir) and its children. */
const postmasterPid = Number((await fsp.readFile(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8').catch(() => '')).split('\n')[0]) || null;
const postgresCpu = async (): Promise<number> => {
  if (!postmasterPid) return NaN;
  let sum = await cpuOf(postmasterPid);
  for (const pid of await fsp.readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(pid)) continue;
    const st = await fsp.readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    if (Number(st.slice(st.lastIndexOf(')') + 2).split(' ')[1]) === postmasterPid) sum += await cpuOf(pid);
  }
  return sum;
};
const cpuAt: Record<string, { worker: number; pg: number }> = {};
let childId: string | null = null;
let childStatus = '';
let childError: string | null = null;
const deadline = Date.now() + 60 * 60_000;
for (;;) {
  if (workerExit !== null) throw new Error(`the worker process exited (${workerExit})`);
  if (Date.now() > deadline) throw new Error('gave up after 60 minutes');
  const { rows } = await mon.query(`SELECT id, parent_id, status, error_message FROM files WHERE id = $1 OR parent_id = $1`, [parentId]);
  const parent = rows.find((r) => r.id === parentId);
  if (parent?.status === 'failed') throw new Error(`archive failed: ${parent.error_message}`);
  const child = rows.find((r) => r.parent_id === parentId);
  if (child) {
    childId = child.id;
    childStatus = child.status;
    childError = child.error_message;
    if (!(child.status in seen)) cpuAt[child.status] = { worker: await cpuOf(worker.pid!), pg: await postgresCpu() };
    seen[child.status] ??= Date.now() - t;
    const rss = await currentRss();
    rssBy[child.status] = Math.max(rssBy[child.status] ?? 0, rss);
    if (['processed', 'failed', 'needs_confirmation'].includes(child.status)) break;
    if (storedOnly && ['allocating', 'aggregating'].includes(child.status)) break;
  }
  await new Promise((r) => setTimeout(r, 50));
}
const rssPeak = await peakRss();
if (childStatus !== 'processed' && !(storedOnly && ['allocating', 'aggregating'].includes(childStatus))) throw new Error(`file ended ${childStatus}: ${childError}`);
// Lines are committed with the status that follows ingesting (one transaction): the first poll
// that saw a later status bounds "lines stored" from above (by ≤ 50 ms).
const tStored = Math.min(...['allocating', 'aggregating', 'processed'].filter((s) => s in seen).map((s) => seen[s]!));
const tAnalytics = seen.processed!;
/** Worker and Postgres CPU seconds between the first poll that saw `ingesting` and the first that saw the next status. */
function ingestCpu(): string {
  const a = cpuAt.ingesting, next = ['allocating', 'aggregating', 'processed', 'failed'].find((st) => st in cpuAt);
  if (!a || !next) return '—';
  const b = cpuAt[next]!;
  return `worker ${(b.worker - a.worker).toFixed(1)} s, postgres ${(b.pg - a.pg).toFixed(1)} s (wall ${sec(seen[next]! - seen.ingesting!)} s, ${os.cpus().length} cores)`;
}

// Per-job times from pg-boss (created → started = queue wait; started → completed = the job).
const { rows: jobs } = await mon.query(
  `SELECT name, extract(epoch FROM created_on) * 1000 AS created, extract(epoch FROM started_on) * 1000 AS started,
          extract(epoch FROM completed_on) * 1000 AS completed
     FROM pgboss.job WHERE data->>'fileId' IN ($1, $2) AND state = 'completed' ORDER BY started_on`,
  [parentId, childId],
);
if (storedOnly) {
  // Stop the allocation that started after the ingest: the worker, and its statements in Postgres.
  // (SIGTERM when profiling: the CPU profile is written on a clean exit only)
  worker.kill(process.env.BENCH_WORKER_PROF ? 'SIGTERM' : 'SIGKILL');
  if (workerExit === null) await new Promise((r) => worker.once('exit', r));
  await mon.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend' AND state <> 'idle'`);
}
const { rows: facts } = storedOnly ? { rows: [] as any[] } : await mon.query(
  `SELECT (SELECT count(*)::int FROM royalty_lines WHERE file_id = $1) AS lines,
          (SELECT sum(net)::text FROM royalty_lines WHERE file_id = $1) AS net,
          (SELECT count(*)::int FROM royalty_lines WHERE file_id = $1 AND match_status <> 'unmatched') AS matched,
          (SELECT count(*)::int FROM royalty_earnings WHERE file_id = $1 AND superseded_at IS NULL) AS earnings,
          ${SHAPE_TABLES.map((t) => `(SELECT count(*)::int FROM ${t} WHERE file_id = $1)`).join(' + ')} AS rollup_rows,
          (SELECT count(*)::int FROM ledger_entries WHERE source_type = 'file' AND source_id = $1) AS ledger`,
  [childId],
);
const { rows: exact } = storedOnly ? { rows: [] as any[] } : await mon.query(
  `SELECT count(*)::int AS bad FROM (
     SELECT l.line_no FROM royalty_lines l JOIN royalty_earnings e ON e.tenant_id = l.tenant_id AND e.file_id = l.file_id AND e.line_id = l.line_no AND e.superseded_at IS NULL
      WHERE l.file_id = $1 GROUP BY l.line_no, l.base_amount HAVING sum(e.amount) <> l.base_amount) x`,
  [childId],
);
await mon.end();
worker.kill('SIGTERM');

// Bare COPY of the same lines into a plain table (no index, no RLS), from a dump of them.
const c = new pg.Client({ connectionString: dbUrl });
await c.connect();
/** Dumps `cols` of `from` WHERE `where`, creates a plain copy table, CHECKPOINTs (every reference starts from the same clean state), then times the COPY of the dump into it. */
async function bareCopy(name: string, from: string, cols: string, where: string): Promise<{ ms: number; bytes: number; rows: number }> {
  const dump = path.join(dir, `${name}.copy`);
  await pipeline(c.query(copyTo(`COPY (SELECT ${cols} FROM ${from} WHERE ${where}) TO STDOUT`)), fs.createWriteStream(dump));
  await c.query(`CREATE TABLE ${name} AS SELECT ${cols} FROM ${from} WITH NO DATA`);
  await c.query('CHECKPOINT');
  const t0 = Date.now();
  await pipeline(fs.createReadStream(dump, { highWaterMark: 1 << 20 }), c.query(copyFrom(`COPY ${name} FROM STDIN`)));
  const ms = Date.now() - t0;
  const { rows } = await c.query(`SELECT count(*)::int AS n FROM ${name}`);
  return { ms, bytes: (await fsp.stat(dump)).size, rows: rows[0].n };
}
const cols = 'tenant_id, file_id, line_no, sale_month, sale_period_start, sale_period_end, accounting_period, dsp, country, isrc, upc, track_title, artist, release_title, label, sale_type, quantity, gross, gross_currency, net, currency, exchange_rate, aggregator, isrc_raw, upc_raw';
const bare = await bareCopy('bench_bare', 'royalty_lines', cols, `file_id = '${childId}'`);
const tBare = bare.ms;
// The rows exactly as stored: the statement's fields plus the match and currency the ingest fills in flight.
const bareStored = await bareCopy('bench_bare_stored', 'royalty_lines', LINE_COLUMNS.join(', '), `file_id = '${childId}'`);
const tBareStored = bareStored.ms;
const sizes = { fields: bare.bytes, stored: bareStored.bytes };
if (storedOnly) {
  await c.end();
  const ing = jobs.find((j) => j.name === 'file.ingest');
  console.log('');
  console.log(`(a) upload → lines stored ${sec(tStored)} s  → ${rate(LINES, tStored)}; ingest job ${ing ? sec(Number(ing.completed) - Number(ing.started)) : '—'} s; ${JSON.stringify(workerLog.find((r) => r.msg === 'file ingested')?.matchedInFlight ?? null)}`);
  console.log(`CPU while ingesting: ${ingestCpu()}`);
  console.log(`bare COPY, rows as stored (${LINE_COLUMNS.length} columns, ${(sizes.stored / 1e6).toFixed(0)} MB) ${sec(tBareStored)} s; statement fields only (25 columns, ${(sizes.fields / 1e6).toFixed(0)} MB) ${sec(tBare)} s`);
  console.log(`ratio (a) / bare COPY as stored ${(tStored / tBareStored).toFixed(2)}× (fields only ${(tStored / tBare).toFixed(2)}×; target ≤ 2×); worker peak RSS ${(rssPeak / 1e6).toFixed(0)} MB`);
  if (workerExit === null) await new Promise((r) => worker.once('exit', r));
  server.close();
  await rt.shutdown();
  if (!keep) await fsp.rm(dir, { recursive: true, force: true });
  process.exit(0);
}
// The rollup rows the aggregate job wrote (this fresh workspace holds only this file, so
// every shape row is its contribution): lines + rollups COPYed bare, with no index, no
// grouping and no matching, is what (b) could cost at the very least with these tables.
const { rows: aggTables } = await c.query(
  `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind = 'r' AND c.relname = ANY($1) ORDER BY 1`,
  [SHAPE_TABLES],
);
let tBareRollups = 0;
let rollupRows = 0;
for (const { relname } of aggTables as { relname: string }[]) {
  const r = await bareCopy(`bench_bare_${relname}`, relname, '*', `tenant_id = ${Number(tenant.id)}`);
  tBareRollups += r.ms;
  rollupRows += r.rows;
}
// Statement data on disk: every royalty table of this fresh workspace with its indexes and
// TOAST, against the bare unindexed table of the statement's own fields; and the largest
// table's row count against the statement's lines (no table may grow with lines × payees).
const { rows: disk } = await c.query(
  `SELECT c.relname, pg_total_relation_size(c.oid)::bigint AS bytes, c.reltuples::bigint AS est
     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'public' AND c.relkind = 'r' AND (c.relname LIKE 'royalty\\_%' OR c.relname = 'bench_bare') ORDER BY 1`,
);
await c.query('ANALYZE');
const rowsOf = async (rel: string) => Number((await c.query(`SELECT count(*)::bigint AS n FROM ${rel}`)).rows[0].n);
let royaltyBytes = 0;
let widest = { rel: '', rows: 0 };
let bareBytes = 0;
const perTable: { rel: string; bytes: number; rows: number }[] = [];
for (const d of disk as { relname: string; bytes: string }[]) {
  if (d.relname === 'bench_bare') { bareBytes = Number(d.bytes); continue; }
  royaltyBytes += Number(d.bytes);
  const n = await rowsOf(d.relname);
  if (Number(d.bytes) > 1e6) perTable.push({ rel: d.relname, bytes: Number(d.bytes), rows: n });
  if (n > widest.rows) widest = { rel: d.relname, rows: n };
}
await c.end();

const f = facts[0];
const job = (name: string) => jobs.find((j) => j.name === name);
const jobMs = (name: string) => {
  const j = job(name);
  return j ? Number(j.completed) - Number(j.started) : NaN;
};
const alloc = workerLog.find((r) => r.msg === 'file allocated');
const ingested = workerLog.find((r) => r.msg === 'file ingested');
const aggregated = workerLog.find((r) => r.msg === 'file aggregated');
const refreshed = workerLog.find((r) => r.msg === 'statistics refreshed');

console.log('');
console.log(`lines stored              ${f.lines.toLocaleString('en')} (total USD ${f.net?.replace(/\.?0+$/, '')}, expected ${total}); matched ${f.matched.toLocaleString('en')}`);
console.log(`earnings (view rows)      ${f.earnings.toLocaleString('en')} (lines whose earnings do not sum to base_amount: ${exact[0].bad}); rollup rows ${f.rollup_rows}; ledger entries ${f.ledger}`);
console.log(`upload (HTTP, streamed)   ${sec(tUpload)} s`);
console.log(`(a) upload → lines stored ${sec(tStored)} s  → ${rate(LINES, tStored)}`);
console.log(`(b) upload → analytics    ${sec(tAnalytics)} s  → ${rate(LINES, tAnalytics)} (status processed)`);
console.log(`jobs (pg-boss started → completed; queue waits are the rest):`);
for (const name of ['file.decompress', 'file.detect', 'file.ingest', 'royalty.allocate']) {
  const list = jobs.filter((j) => j.name === name);
  const ms = list.reduce((a, j) => a + (Number(j.completed) - Number(j.started)), 0);
  console.log(`  ${name.padEnd(18)} ${list.length ? `${sec(ms)} s` : '—'}${list.length > 1 ? ` (${list.length} jobs)` : ''}`);
}
if (ingested?.timings) console.log(`  ingest steps (ms)       ${JSON.stringify(ingested.timings)}`);
console.log(`  CPU while ingesting     ${ingestCpu()}`);
if (alloc?.timings) console.log(`  allocate steps (ms)     ${JSON.stringify(alloc.timings)}`);
if (aggregated?.timings) console.log(`  aggregate steps (ms)    ${JSON.stringify(aggregated.timings)}`);
const known = ['file.decompress', 'file.detect', 'file.ingest', 'royalty.allocate'].reduce((a, n) => a + (jobMs(n) || 0), 0);
console.log(`  waits between jobs      ${sec(tAnalytics - tUpload - known)} s (queue polling, 0.5 s interval)`);
console.log(`bare COPY, rows as stored ${sec(tBareStored)} s  → ${rate(LINES, tBareStored)} (${LINE_COLUMNS.length} columns, ${(sizes.stored / 1e6).toFixed(0)} MB of COPY text)`);
console.log(`bare COPY, fields only    ${sec(tBare)} s  → ${rate(LINES, tBare)} (the statement's 25 columns, ${(sizes.fields / 1e6).toFixed(0)} MB)`);
console.log(`ratio (a) lines stored / bare COPY as stored   ${(tStored / tBareStored).toFixed(2)}×  (target ≤ 2×; vs fields only ${(tStored / tBare).toFixed(2)}×)`);
console.log(`bare COPY, the ${rollupRows.toLocaleString('en')} rollup rows (${aggTables.length} shapes)  ${sec(tBareRollups)} s (lines as stored + rollups bare: ${((tBareStored + tBareRollups) / tBareStored).toFixed(2)}× the lines' bare COPY)`);
console.log(`ratio (b) analytics ready / bare COPY as stored ${(tAnalytics / tBareStored).toFixed(2)}×  (target ≤ 4×; vs fields only ${(tAnalytics / tBare).toFixed(2)}×)`);
console.log(
  refreshed
    ? `statistics refreshed      ${refreshed.ms} ms after processed (${refreshed.analyzed.join(', ')}): (b) + refresh / bare COPY as stored ${((tAnalytics + refreshed.ms) / tBareStored).toFixed(2)}×`
    : `statistics refreshed      — (no table grew by a fifth, or its log line was not seen yet)`,
);
console.log(`statement data on disk     ${(royaltyBytes / 1e6).toFixed(0)} MB (every royalty_* table + index) = ${(royaltyBytes / bareBytes).toFixed(2)}× the bare unindexed fields table (${(bareBytes / 1e6).toFixed(0)} MB; target ≤ 3×)`);
console.log(`royalty tables on disk    ${perTable.map((d) => `${d.rel} ${(d.bytes / 1e6).toFixed(1)} MB (${d.rows.toLocaleString('en')} rows)`).join(', ')}`);
console.log(`largest royalty table     ${widest.rel}: ${widest.rows.toLocaleString('en')} rows (the statement has ${f.lines.toLocaleString('en')} lines)`);
console.log(`worker peak RSS           ${(rssPeak / 1e6).toFixed(0)} MB (after boot, idle: ${(rssIdle / 1e6).toFixed(0)} MB; target < 400 MB)`);
console.log(`worker RSS by step (max sampled): ${Object.entries(rssBy).map(([k, v]) => `${k} ${(v / 1e6).toFixed(0)} MB`).join(', ')}`);
console.log(`API process peak RSS      ${(Number(/VmHWM:\s+(\d+)/.exec(await fsp.readFile('/proc/self/status', 'utf8'))?.[1] ?? 0) * 1024 / 1e6).toFixed(0)} MB (target < 400 MB)`);

if (workerExit === null) await new Promise((r) => worker.once('exit', r));
server.close();
await rt.shutdown();
if (!keep) await fsp.rm(dir, { recursive: true, force: true });
process.exit(0);
