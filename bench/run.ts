/**
 * `npm run bench`: every benchmark in one go, each printing its figures and its ratio to a
 * reference measured in the same run (bare papaparse, bare COPY, direct SQL, bare
 * aggregate). Default sizes are cut so the whole run takes a few minutes on 2 cores;
 * `npm run bench -- --full` uses the sizes the issues name (1M-line parse and ingest,
 * 100k recordings, 10M analytics lines, 10M earnings lines: tens of minutes).
 * One benchmark alone: `npm run bench -- ingest` (names: parse, ingest, catalogue,
 * analytics, money, web).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';

const full = process.argv.includes('--full');
const only = process.argv.slice(2).filter((a) => !a.startsWith('--'));

interface Bench {
  name: string;
  file: string;
  args: string[];
  env: Record<string, string>;
}

const BENCHES: Bench[] = [
  { name: 'parse', file: 'bench/parse.ts', args: [full ? '1000000' : '1000000'], env: {} },
  { name: 'ingest', file: 'bench/ingest.ts', args: ['--lines', full ? '1000000' : '1000000'], env: {} },
  { name: 'catalogue', file: 'bench/catalogue.ts', args: [], env: full ? {} : { RECORDINGS: '20000', PRODUCTS: '2000', REQUESTS: '1000' } },
  { name: 'analytics', file: 'bench/analytics.ts', args: ['--lines', full ? '10000000' : '1000000'], env: {} },
  { name: 'money', file: 'bench/money.ts', args: [], env: full ? {} : { BENCH_LINES: '1000000', BENCH_PAYEES: '10000', BENCH_FILES: '20' } },
  { name: 'web', file: 'bench/web.ts', args: ['--lines', '1000000'], env: {} },
];

async function run(b: Bench): Promise<number> {
  console.log(`\n=== ${b.name} (${b.file} ${b.args.join(' ')}${Object.keys(b.env).length ? ' ' + JSON.stringify(b.env) : ''})`);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', b.file, ...b.args], { stdio: 'inherit', env: { ...process.env, ...b.env } });
    child.on('exit', (code) => resolve(code ?? 1));
  });
}

const results: { name: string; code: number; seconds: number }[] = [];
for (const b of BENCHES) {
  if (only.length && !only.includes(b.name)) continue;
  if (!fs.existsSync(b.file)) {
    console.log(`\n=== ${b.name}: ${b.file} not present, skipped`);
    continue;
  }
  const t0 = Date.now();
  const code = await run(b);
  results.push({ name: b.name, code, seconds: (Date.now() - t0) / 1000 });
}
console.log('\n=== summary');
for (const r of results) console.log(`${r.name.padEnd(10)} ${r.code === 0 ? 'ok    ' : `exit ${r.code}`} ${r.seconds.toFixed(1)} s`);
process.exit(results.some((r) => r.code !== 0) ? 1 : 0);
