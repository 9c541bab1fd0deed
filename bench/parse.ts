/**
 * Micro-benchmark of the statement reader (run: npx tsx bench/parse.ts [lines]).
 * Generates a deterministic DistroKid-style TSV (1,000,000 lines by default) in a temp dir,
 * then times (a) bare papaparse over the file, no mapping (the reference, same run) and
 * (b) readStatement with a no-op sink, (c) readStatement with the ingest's COPY formatting
 * (LineCopyFormatter, no matcher: no database) into a stream that only counts the bytes: the
 * JS side of an ingest without Postgres. Prints seconds, lines/s, the ratios and peak RSS.
 * Figures only: nothing is asserted.
 */
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import Papa from 'papaparse';
import { Writable } from 'node:stream';
import { PerformanceObserver } from 'node:perf_hooks';
import { builtinPatterns, readStatement } from '../parsers/index';
import { LineCopyFormatter } from '../src/modules/files/line-copy';

const N = Number(process.argv[2] ?? 1_000_000);
const dir = mkdtempSync(join(tmpdir(), 'rondo-bench-'));
const file = join(dir, 'DistroKid_1700000000000_Bench.tsv');

async function generate(): Promise<void> {
  const out = createWriteStream(file);
  const stores = ['Spotify', 'Apple Music', 'iTunes', 'Facebook', 'Amazon Unlimited', 'Deezer', 'TikTok', 'YouTube (Ads)'];
  const countries = ['US', 'GB', 'FR', 'OU', 'DE', 'BR', 'JP', 'MX'];
  let seed = 42;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  out.write('Date Inserted\tReporting Date\tSale Month\tStore\tArtist\tTitle\tISRC\tUPC\tQuantity\tTeam Percentage\tSource Type\tCountry of Sale\tSongwriter Royalties Withheld (USD)\tEarnings (USD)\tRecoup (USD)\n');
  let buf = '';
  for (let i = 0; i < N; i++) {
    const t = i % 500;
    const q = 1 + Math.floor(rnd() * 900);
    const earn = (q * 0.00311).toFixed(12); // generator only: the reader never sees a float
    buf += `2024-02-05 10:00:00\t2024-02-05\t2024-0${1 + (i % 3)}\t${stores[i % 8]}\tArtist ${t % 40}\tTrack title number ${t}\tQZES8${String(1900000 + t).padStart(7, '0')}\t8597123${String(t).padStart(5, '0')}\t${q}\t100\t${i % 11 ? 'Streaming' : 'Download'}\t${countries[i % 8]}\t0\t${earn}\t0\n`;
    if (buf.length > 1 << 20) {
      if (!out.write(buf)) await once(out, 'drain');
      buf = '';
    }
  }
  out.end(buf);
  await once(out, 'finish');
}

async function barePapa(): Promise<number> {
  let rows = 0;
  await new Promise<void>((resolve, reject) => {
    Papa.parse(createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 16 }) as unknown as File, {
      header: false,
      delimiter: '\t',
      chunk: (r: Papa.ParseResult<string[]>) => void (rows += r.data.length),
      complete: () => resolve(),
      error: (e: Error) => reject(e),
    });
  });
  return rows;
}

let peakDuringRead = 0;
async function reader(): Promise<number> {
  const pattern = builtinPatterns.find((p) => p.key === 'distrokid')!;
  let lines = 0;
  const t = setInterval(() => (peakDuringRead = Math.max(peakDuringRead, process.memoryUsage.rss())), 50);
  const s = await readStatement(createReadStream(file, { highWaterMark: 1 << 16 }), { fileName: file, pattern }, {
    lines: (b) => void (lines += b.length),
    error: () => {},
  });
  clearInterval(t);
  if (s.rowsIngested !== N || lines !== N) throw new Error(`read ${s.rowsIngested}/${lines} of ${N}`);
  console.log(`  totals ${JSON.stringify(s.totals)}`);
  return lines;
}

/** (c): what the ingest does per batch, minus matching and Postgres. */
let copyBytes = 0;
async function formatted(): Promise<number> {
  const pattern = builtinPatterns.find((p) => p.key === 'distrokid')!;
  let lines = 0;
  const fmt = new LineCopyFormatter(1, '8c2f3f7e-3d0b-4c51-9d0e-0a4a4d1c2b7e', null, null, () => {});
  const out = new Writable({ highWaterMark: 1 << 20, write: (chunk: Buffer, _e, cb) => ((copyBytes += chunk.length), cb()) });
  const s = await readStatement(createReadStream(file, { highWaterMark: 1 << 16 }), { fileName: file, pattern }, {
    lines: async (b) => {
      lines += b.length;
      const text = await fmt.add(b);
      if (text && !out.write(text)) await once(out, 'drain');
    },
    error: () => {},
  });
  if (s.rowsIngested !== N || lines !== N) throw new Error(`read ${s.rowsIngested}/${lines} of ${N}`);
  return lines;
}

let gcMs = 0;
new PerformanceObserver((l) => {
  for (const e of l.getEntries()) gcMs += e.duration;
}).observe({ entryTypes: ['gc'] });

async function time(label: string, f: () => Promise<number>): Promise<number> {
  const t0 = process.hrtime.bigint();
  const gc0 = gcMs;
  const n = await f();
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  console.log(`${label.padEnd(34)} ${s.toFixed(2)} s  ${Math.round(n / s).toLocaleString('en-US')} lines/s  (${n} rows; GC ${((gcMs - gc0) / 1000).toFixed(2)} s)`);
  return s;
}

try {
  console.log(`generating ${N.toLocaleString('en-US')} lines…`);
  await generate();
  console.log(`file ${(statSync(file).size / 1e6).toFixed(1)} MB, node ${process.version}`);
  // Interleaved, best of ROUNDS each: the machine is shared, so single runs are noisy.
  const ROUNDS = Number(process.env.ROUNDS ?? 2);
  let a = Infinity, b = Infinity, c = Infinity, rssAfterA = 0;
  for (let r = 0; r < ROUNDS; r++) {
    a = Math.min(a, await time('(a) papaparse, no mapping', barePapa));
    rssAfterA = Math.max(rssAfterA, process.memoryUsage.rss());
    b = Math.min(b, await time('(b) readStatement, no-op sink', reader));
    copyBytes = 0;
    c = Math.min(c, await time('(c) + COPY text (no matcher)', formatted));
  }
  console.log(`best of ${ROUNDS}: (a) ${a.toFixed(2)} s ${Math.round(N / a).toLocaleString('en-US')} lines/s; (b) ${b.toFixed(2)} s ${Math.round(N / b).toLocaleString('en-US')} lines/s`);
  console.log(`(c) ${c.toFixed(2)} s ${Math.round(N / c).toLocaleString('en-US')} lines/s, ${(copyBytes / 1e6).toFixed(0)} MB of COPY text`);
  console.log(`ratio (b)/(a): ${(b / a).toFixed(2)}x (target ≤ ~2.5x); (c)/(a): ${(c / a).toFixed(2)}x`);
  console.log(`RSS after (a): ${(rssAfterA / 1e6).toFixed(0)} MB; peak RSS during (b): ${(peakDuringRead / 1e6).toFixed(0)} MB; process max RSS: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
