/**
 * npm run bench:export: a file of BENCH_LINES (1,000,000) statement lines exported as CSV and
 * as XLSX through the route's own streaming path (sendTable over the lines cursor, in a
 * tenant transaction), into a sink that counts bytes. Prints time, bytes and the peak RSS of
 * the process against its RSS before the export: constant memory means the peak does not
 * grow with the lines. Env: BENCH_LINES, BENCH_DIR (tmp).
 */
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import { Writable } from 'node:stream';
import type { Context } from 'koa';
import { loadConfig } from '../src/config';
import { boot } from '../src/compose';
import { withTenant } from '../src/db';
import { createTenant } from '../src/modules/users/service';
import { sendTable } from '../src/http/export';
import { lineColumns, streamLines } from '../src/modules/royalty/lines';

const LINES = Number(process.env.BENCH_LINES ?? 1_000_000);
const mb = (b: number) => `${(b / 1024 / 1024).toFixed(0)} MB`;

/** A response stand-in: counts bytes, drops them, applies back-pressure like a socket. */
function sink() {
  let bytes = 0;
  const res = new Writable({
    highWaterMark: 64 * 1024,
    write(chunk: Buffer, _enc, cb) {
      bytes += chunk.length;
      setImmediate(cb);
    },
  }) as Writable & { statusCode: number; setHeader(k: string, v: string): void };
  res.statusCode = 0;
  res.setHeader = () => undefined;
  return { res, bytes: () => bytes };
}

async function main() {
  const dir = process.env.BENCH_DIR ?? (await fs.mkdtemp(path.join(os.tmpdir(), 'rondo-bench-export-')));
  const cfg = loadConfig({}, { dataDir: dir, logLevel: 'warn' });
  const rt = await boot(cfg, { workers: false, queue: false, fastEmbedded: true });
  const { db } = rt.svc;
  try {
    const t = await createTenant(db.owner, { name: `Bench ${Date.now()}` });
    const fileId = crypto.randomUUID();
    await db.owner.raw(`INSERT INTO files (tenant_id, id, original_name, status, accounting_period) VALUES (?, ?, 'bench.csv', 'processed', '2026-01-01')`, [t.id, fileId]);
    await db.owner.raw(
      `INSERT INTO royalty_lines (tenant_id, file_id, line_no, sale_month, accounting_period, dsp, country, isrc, track_title, artist, sale_type,
                                  quantity, net, currency, base_amount, base_currency, fx_rate, match_status)
       SELECT ?, ?, g, '2026-01-01', '2026-01-01', 'Spotify', 'US', 'USBEN' || lpad((g % 20000)::text, 7, '0'), 'Track ' || (g % 20000),
              CASE WHEN g % 1000 = 0 THEN '=Formula' ELSE 'Artist ' || (g % 500) END, 'stream', g % 7, (g % 10000) / 1000000.0 + 0.000000000001, 'USD',
              (g % 10000) / 1000000.0 + 0.000000000001, 'USD', 1, 'isrc'
         FROM generate_series(1, ?) g`,
      [t.id, fileId, LINES],
    );
    console.log(`export bench: ${LINES.toLocaleString()} lines, ${os.cpus().length} cores`);
    for (const format of ['csv', 'xlsx'] as const) {
      global.gc?.();
      const before = process.memoryUsage();
      let peak = before.rss;
      let heap = before.heapUsed;
      const timer = setInterval(() => {
        const m = process.memoryUsage();
        peak = Math.max(peak, m.rss);
        heap = Math.max(heap, m.heapUsed);
      }, 20);
      const s = sink();
      const t0 = process.hrtime.bigint();
      await withTenant(db.app, t.id, async (trx) => {
        const ctx = { res: s.res, respond: true } as unknown as Context;
        await sendTable(ctx, { format, filename: 'bench', columns: lineColumns(null), rows: streamLines(trx, null, { fileId }), onError: (e) => console.error(e) });
      });
      clearInterval(timer);
      const secs = Number(process.hrtime.bigint() - t0) / 1e9;
      console.log(`${format.padEnd(5)} ${secs.toFixed(1).padStart(6)} s  ${mb(s.bytes()).padStart(8)}  RSS before ${mb(before.rss)}, peak ${mb(peak)} (+${mb(peak - before.rss)}); JS heap before ${mb(before.heapUsed)}, peak ${mb(heap)}`);
    }
  } finally {
    await rt.shutdown();
    if (!process.env.BENCH_DIR) await fs.rm(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
