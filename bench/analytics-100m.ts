/**
 * npm run bench:analytics-100m [-- --lines 100000000] — the analytics engine at 100M lines,
 * generated straight into the stores, not uploaded (issue 37).
 *
 * 1. Postgres: the workspace of bench/analytics-workspace.ts (catalogue, splits, payees, share
 *    sets, 96 statement files) with a small statement (BASE_LINES, 96,000) loaded as the jobs
 *    load it: every row the read path needs besides the lines (the tenant, the share sets, the
 *    names, the files, the analytics version the engine checks);
 * 2. the engine builds its replica of it from Postgres (its own schema, identity and version);
 * 3. the replica closed, its `t<id>.lines` are generated again in DuckDB SQL (range()) at
 *    --lines N, the same shape as bench/analytics.ts's lines (recording (g × 7919) mod 20,000,
 *    its product, artist and share set, 2 % unknown, the file's months and aggregator): the
 *    version is unchanged, so the engine serves them as the workspace's;
 * 4. the replica opened again; every route × filter set × view one at a time over HTTP
 *    (SEQ_REQUESTS, 3: the median), against the target of 1.5 s.
 * Prints the generation time, the file size, the process's peak RSS and the table; asserts
 * nothing. --reuse (BENCH_DATA_DIR): the Postgres workspace of an earlier run (the lines are
 * generated again at --lines). Env: BENCH_DATA_DIR, SEQ_REQUESTS, MAX_SECS (60), BENCH_ONLY,
 * BENCH_VIEWS, GEN_MEMORY (the generation's DuckDB memory limit, 4GB), ANALYTICS_REPLICA_*.
 */
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import { DuckDBInstance } from '@duckdb/node-api';
import { withTenant } from '../src/db';
import { analyticsEngineOf, closeAnalyticsEngine } from '../src/modules/royalty/analytics-engine';
import { royaltyAnalytics } from '../src/modules/royalty/analytics';
import { REPLICA_LINE_COLUMNS, REPLICA_LINE_ORDER, buildReplicaSums } from '../src/modules/royalty/engine';
import { ARTISTS, FILES, PRODUCTS, RECORDINGS, VIEWS, catalogueIds, loadCatalogue, loadLines, openWorkspace, shareSetMap, type View } from './analytics-workspace';
import { combos, filterIds, httpGet, printTable, timed, type Row } from './analytics-queries';
import { fileBytes, mb, peakRss, secs, startBenchApi } from './analytics-stores';

const arg = (f: string) => (process.argv.indexOf(f) > 0 ? process.argv[process.argv.indexOf(f) + 1] : undefined);
const LINES = Number(arg('--lines') ?? process.env.LINES ?? 100_000_000);
const BASE_LINES = Number(process.env.BASE_LINES ?? 96_000);
const SEQ = Number(process.env.SEQ_REQUESTS ?? 3);
const MAX_SECS = Number(process.env.MAX_SECS ?? 60);
const ONLY = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : null;
const ONLY_VIEWS = process.env.BENCH_VIEWS ? (process.env.BENCH_VIEWS.split(',') as View[]) : VIEWS;
const loadAvg = () => os.loadavg().map((x) => x.toFixed(2)).join(', ');

/** The lines of the workspace's replica, generated again in DuckDB at `n` lines (the files, months and share sets as the replica holds them). */
async function generate(file: string, tenantId: number, cat: string, n: number): Promise<void> {
  // The engine made the tables (its sync); the generator fills every one of its columns, or stops.
  const filled = ['file_id', 'sale_month', 'accounting_period', 'ap_end', 'share_set_id', 'artist_id', 'product_id', 'asset_id', 'dsp', 'country', 'sale_type',
    'aggregator', 'revenue', 'revenue_lo', 'quantity', 'streams', 'downloads', 'rs', 'qs'];
  const engine = REPLICA_LINE_COLUMNS.map(([c]) => c);
  if (engine.join() !== [...filled].sort((a, b) => engine.indexOf(a) - engine.indexOf(b)).join() || engine.length !== filled.length) {
    throw new Error(`the replica's columns changed (${engine.join(', ')}): bring the generator to them`);
  }
  const inst = await DuckDBInstance.create(file, { memory_limit: process.env.GEN_MEMORY ?? '4GB', threads: String(os.cpus().length) });
  const c = await inst.connect();
  const s = `t${tenantId}`;
  try {
    await c.run(`CREATE TEMP TABLE cat AS SELECT * FROM read_csv('${cat}', header = true, columns = {'a': 'INTEGER', 'asset_id': 'UUID', 'product_id': 'UUID', 'artist_id': 'UUID', 'share_set_id': 'UUID'})`);
    await c.run(
      `CREATE TEMP TABLE fl AS SELECT (row_number() OVER (ORDER BY aggregator, sale_month) - 1)::BIGINT AS f, *, ((year(sale_month) - 2023) * 12 + month(sale_month) - 1)::BIGINT AS m,
              1.08 + month(sale_month) * 0.01 AS rate
         FROM (SELECT DISTINCT file_id, sale_month, accounting_period, ap_end, aggregator FROM ${s}.lines)`,
    );
    const files = Number((await c.runAndReadAll(`SELECT count(*) FROM fl`)).getRowsJson()[0]![0]);
    if (files < FILES) throw new Error(`the replica holds ${files} files, not ${FILES}: is the base workspace processed?`);
    const per = Math.ceil(n / files);
    await c.run('BEGIN TRANSACTION');
    await c.run(`DELETE FROM ${s}.lines`);
    await c.run(
      `INSERT INTO ${s}.lines BY NAME
       SELECT fl.file_id, fl.sale_month, fl.accounting_period, fl.ap_end,
              CASE WHEN x.unknown THEN NULL ELSE c.share_set_id END AS share_set_id, CASE WHEN x.unknown THEN NULL ELSE c.artist_id END AS artist_id,
              CASE WHEN x.unknown THEN NULL ELSE c.product_id END AS product_id, CASE WHEN x.unknown THEN NULL ELSE c.asset_id END AS asset_id,
              ['Spotify','Apple Music','YouTube','Amazon','Deezer','Tidal','TikTok','Pandora'][1 + (x.a + x.k) % 8] AS dsp,
              ['US','GB','DE','FR','BR','JP','MX','CA','AU','SE','NL','ES','IT','PL','IN','KR','NO','DK','FI','AR'][1 + (x.a // 7 + x.k // 8 + fl.m) % 20] AS country,
              x.sale_type, fl.aggregator,
              -- the amount (at most 8 decimals here: 0.000731 × n, × a rate of 2 decimals) as the engine splits it: its part to 8 decimals, and the rest × 10^8 (0)
              CAST(CASE WHEN fl.aggregator = 'Believe' THEN x.net * fl.rate ELSE x.net END AS DECIMAL(18,8)) AS revenue,
              CAST(0 AS DECIMAL(18,12)) AS revenue_lo,
              x.quantity,
              CASE WHEN x.sale_type = 'stream' THEN x.quantity ELSE 0 END AS streams,
              CASE WHEN x.sale_type = 'download' THEN x.quantity ELSE 0 END AS downloads,
              12 AS rs, 0 AS qs
         FROM (SELECT f, g, a, k, g % 50 = 7 AS unknown,
                      ['stream','stream','stream','download','ugc'][1 + (a + k // 3) % 5] AS sale_type,
                      CAST(((g % 1000) + 1) * 0.000731 AS DECIMAL(18,6)) AS net,
                      CAST(1 + g % 40 AS DECIMAL(18,6)) AS quantity
                 FROM (SELECT i // ${per} AS f, i % ${per} AS g, ((i % ${per}) * 7919) % ${RECORDINGS} AS a, (i % ${per}) // ${RECORDINGS} AS k FROM range(${n}::BIGINT) r(i))) x
         JOIN fl ON fl.f = x.f
         LEFT JOIN cat c ON c.a = x.a
        ORDER BY ${REPLICA_LINE_ORDER}`,
    );
    // The sums the engine keeps beside its lines (engine/replica.ts), from the generated lines.
    await buildReplicaSums(c, s);
    await c.run('COMMIT');
    await c.run('CHECKPOINT');
  } finally {
    c.closeSync();
    inst.closeSync();
  }
}

async function main() {
  const dataDir = process.env.BENCH_DATA_DIR || (await fs.mkdtemp(path.join(os.tmpdir(), 'rondo-bench-')));
  await fs.mkdir(dataDir, { recursive: true });
  const { cfg, url, svc, base, stop } = await startBenchApi(dataDir, 'silent');
  if (cfg.analyticsEngine !== 'duckdb') {
    await stop();
    throw new Error('bench:analytics-100m measures the engine: ANALYTICS_ENGINE=duckdb');
  }
  const db = svc.db.app;
  try {
    const reuse = process.argv.includes('--reuse');
    const ws = await openWorkspace(svc, reuse);
    const t = ws.id;
    console.log(`analytics 100M bench: ${LINES.toLocaleString()} lines generated into the replica, ${RECORDINGS.toLocaleString()} recordings, ${os.cpus().length} cores; disk free before: see df`);
    let fileIds: string[];
    if (!ws.reused) {
      let s = performance.now();
      await loadCatalogue(db, t, ws.payee);
      const r = await loadLines(db, svc.db.owner, t, BASE_LINES, false);
      fileIds = r.fileIds;
      await svc.db.owner.raw('VACUUM (ANALYZE)');
      console.log(`Postgres: catalogue (${ARTISTS} artists, ${PRODUCTS} products), share sets, ${FILES} files of ${BASE_LINES.toLocaleString()} lines, loaded in ${secs(performance.now() - s)}`);
      s = performance.now();
    } else {
      fileIds = (await withTenant(db, t, (trx) => trx.raw(`SELECT id FROM files ORDER BY created_at, id`))).rows.map((r: { id: string }) => r.id);
    }
    // The engine's own replica of that workspace (schema, identity, version).
    let s = performance.now();
    const first = analyticsEngineOf(svc)!;
    await first.open();
    await first.firstPass;
    console.log(`replica of the base workspace built by the engine: ${secs(performance.now() - s)}`);
    await closeAnalyticsEngine(svc);

    // The catalogue as the generator numbers it: recording a, its product, artist and share set.
    const ids = await catalogueIds(db, t);
    const map = await withTenant(db, t, (trx) => shareSetMap(trx, t));
    const setOf = new Map(map.assets.map((a, i) => [a, map.sets[i]!]));
    const cat = path.join(dataDir, 'bench-100m-cat.csv');
    await fs.writeFile(cat, ['a,asset_id,product_id,artist_id,share_set_id', ...ids.assets.map((a, i) => `${i},${a},${ids.products[i % PRODUCTS]!.id},${ids.artists[i % ARTISTS]},${setOf.get(a)}`)].join('\n'));
    const free = (await import('node:child_process')).execSync(`df -h --output=avail ${JSON.stringify(dataDir)} | tail -1`).toString().trim();
    console.log(`free disk before the generation: ${free}`);
    s = performance.now();
    // In a process of its own: this one's peak RSS stays the API's.
    const { spawnSync } = await import('node:child_process');
    const child = spawnSync(process.execPath, [...process.execArgv, process.argv[1]!, '--gen', cfg.analyticsReplicaPath, String(t), cat, String(LINES)], { stdio: 'inherit' });
    if (child.status !== 0) throw new Error(`the generation failed (${child.status ?? child.signal})`);
    const gen = performance.now() - s;
    console.log(`generated ${LINES.toLocaleString()} lines into ${cfg.analyticsReplicaPath} in ${secs(gen)} (${Math.round(LINES / (gen / 1000)).toLocaleString()} lines/s, its own process); the file: ${mb(await fileBytes(cfg.analyticsReplicaPath))}`);

    // The engine opens the file again: the version is Postgres', so it serves these lines.
    s = performance.now();
    const engine = analyticsEngineOf(svc)!;
    await engine.open();
    await engine.firstPass;
    console.log(`replica opened again by the engine: ${secs(performance.now() - s)}`);
    const rssBefore = await peakRss();
    const fids = await filterIds(svc.db, t, fileIds);
    const list = combos(fids, ONLY_VIEWS, ONLY);
    await httpGet(base, ws.tokens.admin, '/royalty/month');
    console.log(`\nload average before the queries (1, 5, 15 min): ${loadAvg()}; ${list.length} combinations, ${SEQ} requests each one at a time`);
    const rows: Row[] = [];
    for (const c of list) {
      let source = '';
      const alone = await timed(SEQ, async () => (source = await httpGet(base, ws.tokens[c.view], c.path)), 1, MAX_SECS);
      // The answer's `source` when the route carries it; else the same query function in process says who answers.
      if (source === '?') source = (await withTenant(db, t, (trx) => royaltyAnalytics(trx, t, c.view === 'admin' ? null : ws.payee[c.view], c.group, c.q as never, { engine }))).source;
      rows.push({ label: c.label, filters: c.filters, alone, source });
      if (process.env.BENCH_VERBOSE) console.log(`  ${c.label}: ${alone.p50.toFixed(0)} ms [${source}]`);
    }
    printTable(rows, { alone: 1500, loaded: Infinity }, MAX_SECS);
    console.log(`load average after the queries (1, 5, 15 min): ${loadAvg()}`);
    console.log(`peak RSS of this process (the API with its replica, and the bench's client): ${mb(await peakRss())} (${mb(rssBefore)} before the queries)`);
    if (process.env.BENCH_JSON) await fs.writeFile(process.env.BENCH_JSON, JSON.stringify({ date: new Date().toISOString(), lines: LINES, rows }, null, 1));
  } finally {
    await stop();
    if (!process.env.BENCH_DATA_DIR) await fs.rm(dataDir, { recursive: true, force: true });
  }
}

const gen = process.argv.indexOf('--gen');
if (gen > 0) {
  const [file, tenant, cat, n] = process.argv.slice(gen + 1);
  await generate(file!, Number(tenant), cat!, Number(n));
  console.log(`generation: peak RSS ${mb(await peakRss())}`);
} else await main();
