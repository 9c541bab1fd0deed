/**
 * The analytics benches' store figures (issue 37): the bare COPY of the lines as stored (the
 * reference of "upload → analytics ready ≤ 4×" and of "disk ≤ 3× the bare table"), file
 * sizes, the replica's build, and a process's peak RSS.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import pgCopy from 'pg-copy-streams';
import { LINE_COLUMNS } from '../src/modules/files/line-copy';

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
