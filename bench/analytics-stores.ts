/**
 * The analytics benches' store figures (issue 37): the bare COPY of the lines as stored (the
 * reference of "upload → analytics ready ≤ 4×" and of "disk ≤ 3× the bare table"), file
 * sizes, the replica's build, and a process's peak RSS; and the benches' API on loopback.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import pgCopy from 'pg-copy-streams';
import type { AddressInfo } from 'node:net';
import { LINE_COLUMNS } from '../src/modules/files/line-copy';
import { loadConfig } from '../src/config';
import { boot, resolveDatabase } from '../src/compose';
import { createApp } from '../src/app';
import { createLogger } from '../src/lib/logger';

/**
 * Dumps a workspace's lines (the columns as stored, of `files` or all), creates a plain table
 * (no index, no RLS), CHECKPOINTs, then times the COPY of the dump into it. Returns the time,
 * the dump's and the bare table's size; the table and the dump are dropped.
 */
export async function bareCopy(url: string, dir: string, tenantId: number, files: string[] | null): Promise<{ ms: number; rows: number; dumpBytes: number; tableBytes: number }> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const dump = path.join(dir, 'bench-bare-lines.copy');
  const where = `tenant_id = ${Number(tenantId)}${files ? ` AND file_id = ANY('{${files.join(',')}}'::uuid[])` : ''}`;
  const cols = LINE_COLUMNS.join(', ');
  try {
    await pipeline(c.query(pgCopy.to(`COPY (SELECT ${cols} FROM royalty_lines WHERE ${where}) TO STDOUT`)), fs.createWriteStream(dump));
    await c.query(`DROP TABLE IF EXISTS bench_bare_lines`);
    await c.query(`CREATE TABLE bench_bare_lines AS SELECT ${cols} FROM royalty_lines WITH NO DATA`);
    await c.query('CHECKPOINT');
    const t0 = performance.now();
    await pipeline(fs.createReadStream(dump, { highWaterMark: 1 << 20 }), c.query(pgCopy.from(`COPY bench_bare_lines FROM STDIN`)));
    const ms = performance.now() - t0;
    const { rows } = await c.query(`SELECT count(*)::int AS n, pg_total_relation_size('bench_bare_lines')::bigint AS bytes FROM bench_bare_lines`);
    return { ms, rows: rows[0].n, dumpBytes: (await fsp.stat(dump)).size, tableBytes: Number(rows[0].bytes) };
  } finally {
    await c.query(`DROP TABLE IF EXISTS bench_bare_lines`).catch(() => undefined);
    await c.end();
    await fsp.rm(dump, { force: true });
  }
}

/** A file's size with its write-ahead log beside it (DuckDB's .wal), bytes. */
export async function fileBytes(file: string): Promise<number> {
  let n = 0;
  for (const f of [file, `${file}.wal`]) n += (await fsp.stat(f).catch(() => ({ size: 0 }))).size;
  return n;
}

/** Peak resident set of a process (VmHWM), bytes; this process's when pid is omitted. */
export async function peakRss(pid?: number): Promise<number> {
  if (pid === undefined) return process.resourceUsage().maxRSS * 1024;
  const s = await fsp.readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const m = /VmHWM:\s+(\d+) kB/.exec(s);
  return m ? Number(m[1]) * 1024 : 0;
}

export const mb = (b: number) => `${(b / 1e6).toFixed(0)} MB`;
export const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/**
 * The bench's API on loopback, as a node runs it: the configuration of the ANALYTICS_* variables
 * over `dataDir`, its database (embedded unless DATABASE_URL), no workers. `stop` closes it all.
 */
export async function startBenchApi(dataDir: string, logLevel: 'silent' | 'info' | 'debug') {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('ANALYTICS_')));
  const cfg = loadConfig(env, { dataDir, logLevel, passwordHashMemoryKiB: 1024 });
  const { url, embedded } = await resolveDatabase(cfg, createLogger('silent'), { fast: true });
  const rt = await boot(cfg, { workers: false, queue: true, migrate: true, databaseUrl: url });
  const server = createApp(rt.svc).listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  async function stop() {
    server.close();
    server.closeAllConnections();
    await rt.shutdown();
    await embedded?.stop();
  }
  return { cfg, url, svc: rt.svc, base, stop };
}
