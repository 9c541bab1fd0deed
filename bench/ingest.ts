/**
 * npm run bench:ingest [-- --lines 5000000]
 *
 * A deterministic DistroKid-style statement (1,000,000 lines ≈ 130 MB by default), zipped,
 * uploaded through the real API (multipart) on an embedded Postgres, processed by a separate
 * worker process (`src/worker.ts`), timed from upload to lines stored. Then the same lines are
 * COPYed bare into a plain table with no index, for the ratio. Prints figures; asserts nothing.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { loadConfig } from '../src/config';
import { boot } from '../src/services';
import { createApp } from '../src/app';
import { createTenant, ensureGlobalUser, upsertMembership } from '../src/modules/users/service';
import { writeDistroKid } from './distrokid-gen';
import { zipFileStreaming } from '../test/ingest/zip-writer';

const argLines = process.argv.indexOf('--lines');
const LINES = argLines > 0 ? Number(process.argv[argLines + 1]) : 1_000_000;
const keep = process.argv.includes('--keep');
const sec = (ms: number) => (ms / 1000).toFixed(2);

const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'rondo-bench-ingest-'));
const dataDir = path.join(dir, 'data');
await fsp.chmod(dir, 0o755); // the embedded Postgres may run as a `postgres` system user (when we are root)
console.log(`bench:ingest — ${LINES.toLocaleString('en')} lines, temp dir ${dir}`);

let t = Date.now();
const tsv = path.join(dir, 'DistroKid_1700000000000_Bench.tsv');
const { total, bytes } = await writeDistroKid(tsv, LINES, 2024);
const zip = path.join(dir, 'DistroKid_1700000000000_Bench.zip');
await zipFileStreaming(tsv, path.basename(tsv), zip);
const zipBytes = (await fsp.stat(zip)).size;
console.log(`generated ${(bytes / 1e6).toFixed(1)} MB TSV, ${(zipBytes / 1e6).toFixed(1)} MB zip in ${sec(Date.now() - t)} s (expected total USD ${total})`);

// API process (this one) without workers; workers in a child process so their memory is measured alone.
const cfg = loadConfig({}, { dataDir, logLevel: 'warn', queuePollSeconds: 0.5, passwordHashMemoryKiB: 1024 });
const rt = await boot(cfg, { workers: false, fastEmbedded: true });
const svc = rt.svc;
const dbUrl = svc.db.url;
const server = createApp(svc).listen(0, '127.0.0.1');
await new Promise((r) => server.once('listening', r));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const tenant = await createTenant(svc.db.owner, { name: 'Bench Records' });
const g = await ensureGlobalUser(svc.db.owner, { email: 'bench@rondo.test', passwordHash: await svc.auth.hashPassword('bench password 1') });
await upsertMembership(svc.db.owner, tenant.id, g.id, 'admin');
const { refreshToken } = await svc.auth.login('bench@rondo.test', 'bench password 1', {});
const who = await svc.auth.authenticate({ get: () => `Bearer ${refreshToken}` } as never, 'refresh');
const token = await svc.auth.accessTokenFor(who, tenant.uuid, undefined);

const worker = spawn(process.execPath, ['--import', 'tsx', 'src/worker.ts'], {
  env: { ...process.env, DATABASE_URL: dbUrl, DATA_DIR: dataDir, LOG_LEVEL: 'warn', QUEUE_POLL_SECONDS: '0.5' },
  stdio: ['ignore', 'inherit', 'inherit'],
});
let workerExit: number | null = null;
worker.once('exit', (code) => (workerExit = code ?? -1));
const peakRss = async (): Promise<number> => {
  const s = await fsp.readFile(`/proc/${worker.pid}/status`, 'utf8').catch(() => '');
  return Number(/VmHWM:\s+(\d+)/.exec(s)?.[1] ?? 0) * 1024;
};
await new Promise((r) => setTimeout(r, 4000)); // let the worker boot (tsx compile, pg-boss start)
const rssIdle = await peakRss();

const get = async (p: string) => (await fetch(base + p, { headers: { authorization: `Bearer ${token}` } })).json() as Promise<any>;

t = Date.now();
const fd = new FormData();
fd.append('file', await fs.openAsBlob(zip), path.basename(zip));
const up = await fetch(`${base}/file/royalty`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: fd });
const upBody = (await up.json()) as any;
const tUpload = Date.now() - t;
if (up.status !== 201) throw new Error(`upload failed: ${up.status} ${JSON.stringify(upBody)}`);
let child: any = null;
let ingestStart = 0;
const deadline = Date.now() + 30 * 60_000;
for (;;) {
  if (workerExit !== null) throw new Error(`the worker process exited (${workerExit})`);
  if (Date.now() > deadline) throw new Error('gave up after 30 minutes');
  const p = (await get(`/file/${upBody.data.id}`)).data;
  if (p.status === 'failed') throw new Error(`archive failed: ${p.error}`);
  if (p.children?.length) {
    child = (await get(`/file/${p.children[0].id}`)).data;
    if (child.status === 'ingesting' && !ingestStart) ingestStart = Date.now();
    if (['processed', 'failed', 'needs_confirmation'].includes(child.status)) break;
  }
  await new Promise((r) => setTimeout(r, 100));
}
const tTotal = Date.now() - t;
const tIngest = Date.now() - ingestStart;
const rssPeak = await peakRss();
worker.kill('SIGTERM');
if (child.status !== 'processed') throw new Error(`file ended ${child.status}: ${child.error}`);

// Bare COPY of the same lines into a plain table (no index, no RLS), from a dump of them.
const c = new pg.Client({ connectionString: dbUrl });
await c.connect();
const cols = 'tenant_id, file_id, line_no, sale_month, sale_period_start, sale_period_end, accounting_period, dsp, country, isrc, upc, track_title, artist, release_title, label, sale_type, quantity, gross, gross_currency, net, currency, exchange_rate, aggregator, isrc_raw, upc_raw';
const dump = path.join(dir, 'lines.copy');
await pipeline(c.query(copyTo(`COPY (SELECT ${cols} FROM royalty_lines WHERE file_id = '${child.id}') TO STDOUT`)), fs.createWriteStream(dump));
await c.query(`CREATE TABLE bench_bare AS SELECT ${cols} FROM royalty_lines WITH NO DATA`);
t = Date.now();
await pipeline(fs.createReadStream(dump, { highWaterMark: 1 << 20 }), c.query(copyFrom(`COPY bench_bare (${cols}) FROM STDIN`)));
const tBare = Date.now() - t;
// The same COPY into a copy of royalty_lines with its keys and indexes (what the job writes into).
await c.query(`CREATE TABLE bench_like (LIKE royalty_lines INCLUDING ALL)`);
t = Date.now();
await pipeline(fs.createReadStream(dump, { highWaterMark: 1 << 20 }), c.query(copyFrom(`COPY bench_like (${cols}) FROM STDIN`)));
const tLike = Date.now() - t;
const { rows } = await c.query(`SELECT count(*)::int n, sum(net)::text s FROM royalty_lines WHERE file_id = $1`, [child.id]);
await c.end();

console.log('');
console.log(`lines stored            ${rows[0].n.toLocaleString('en')} (file says ${child.counts.rowsIngested}, total USD ${child.totals.USD}, expected ${total})`);
console.log(`upload (HTTP, streamed) ${sec(tUpload)} s`);
console.log(`upload → lines stored   ${sec(tTotal)} s  → ${Math.round(LINES / (tTotal / 1000)).toLocaleString('en')} lines/s`);
console.log(`ingest job alone (≈)    ${sec(tIngest)} s  → ${Math.round(LINES / (tIngest / 1000)).toLocaleString('en')} lines/s`);
console.log(`bare COPY, same lines   ${sec(tBare)} s`);
console.log(`COPY into royalty_lines' shape (its index) ${sec(tLike)} s`);
console.log(`ratio end-to-end / bare ${(tTotal / tBare).toFixed(2)}×   ingest job / bare ${(tIngest / tBare).toFixed(2)}×`);
console.log(`worker peak RSS         ${(rssPeak / 1e6).toFixed(0)} MB (after boot, idle: ${(rssIdle / 1e6).toFixed(0)} MB)`);
console.log(`API process RSS now     ${(process.memoryUsage().rss / 1e6).toFixed(0)} MB`);

if (workerExit === null) await new Promise((r) => worker.once('exit', r));
server.close();
await rt.shutdown();
if (!keep) await fsp.rm(dir, { recursive: true, force: true });
process.exit(0);
