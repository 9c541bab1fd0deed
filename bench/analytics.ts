/**
 * npm run bench:analytics [-- --lines 10000000] — royalty analytics at scale (issue 37).
 *
 * 1. the workspace of bench/analytics-workspace.ts: 20,000 recordings, 6,000 share sets, payees
 *    from one on every line (`label`) to one on 20 recordings (`small`), one on about half
 *    (`half`) and one per 20 artists (`artist0`); LINES lines in 96 files generated in SQL
 *    (generate_series), each file's share sets and rollups as the jobs write them;
 * 2. the engine (ANALYTICS_ENGINE, default duckdb): the replica built from Postgres (a new
 *    node's build) and its file size against the bare `royalty_lines` table; with --sync, one
 *    more statement file loaded and the time until the replica answers it, beside the bare COPY
 *    of its rows as stored (and of all the lines: --bare), then the file deleted again and the
 *    time until the replica no longer counts it (a reused workspace first loses the files
 *    earlier runs added: it is the lines it was loaded with);
 * 3. every /royalty/* route × filter set (single and crossed) × view (admin and each payee)
 *    over real HTTP on loopback: the median one at a time (SEQ_REQUESTS) and the p95 with
 *    CONCURRENCY clients (REQUESTS, at most MAX_SECS each), the `source` that answered; beside
 *    it the Postgres path's median one at a time (the same query function, in process, with a
 *    MAX_SECS statement timeout; PG=0 skips it);
 * 4. the process's peak RSS (this process: the API with its replica, and the bench's clients).
 * Prints the table and the summary against the issue's targets (median < 150 ms alone, p95 <
 * 500 ms with 8 clients); asserts nothing. Env/flags: --lines N (LINES, 10,000,000), --load-only,
 * --reuse (BENCH_DATA_DIR: query the workspace an earlier run loaded there), --sync, --bare,
 * --verify-sums (every replica sums table against the sums of its lines, row for row),
 * CONCURRENCY (8), SEQ_REQUESTS (9), REQUESTS (80; 0: no run with the clients), MAX_SECS (20), PG (1), BENCH_ONLY (a regex
 * on the labels), BENCH_VIEWS (e.g. admin,label), BENCH_DATA_DIR, BENCH_VERBOSE, BENCH_JSON (write the rows there).
 */
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import { withTenant } from '../src/db';
import { deleteFileEverywhere } from '../src/modules/files/service';
import { royaltyAnalytics } from '../src/modules/royalty/analytics';
import { analyticsEngineOf } from '../src/modules/royalty/analytics-engine';
import { REPLICA_SUMS, sumsCheckSql } from '../src/modules/royalty/engine';
import { ARTISTS, FILES, PRODUCTS, RECORDINGS, VIEWS, loadCatalogue, loadFile, loadLines, openWorkspace, type View } from './analytics-workspace';
import { combos, filterIds, httpGet, mixedLoad, printTable, timed, type Row } from './analytics-queries';
import { bareCopy, fileBytes, mb, peakRss, secs, startBenchApi } from './analytics-stores';

const argLines = process.argv.indexOf('--lines');
const LINES = Number(argLines > 0 ? process.argv[argLines + 1] : process.env.LINES ?? 10_000_000);
const CONC = Number(process.env.CONCURRENCY ?? 8);
const SEQ = Number(process.env.SEQ_REQUESTS ?? 9);
const REQS = Number(process.env.REQUESTS ?? 80);
const MAX_SECS = Number(process.env.MAX_SECS ?? 20);
const PG = process.env.PG !== '0';
const ONLY = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : null;
const ONLY_VIEWS = process.env.BENCH_VIEWS ? (process.env.BENCH_VIEWS.split(',') as View[]) : VIEWS;
const REUSE = process.argv.includes('--reuse');
const flag = (f: string) => process.argv.includes(f);
const loadAvg = () => os.loadavg().map((x) => x.toFixed(2)).join(', ');

async function main() {
  const dataDir = process.env.BENCH_DATA_DIR || (await fs.mkdtemp(path.join(os.tmpdir(), 'rondo-bench-')));
  await fs.mkdir(dataDir, { recursive: true });
  await fs.chmod(dataDir, 0o755);
  const { cfg, url, svc, base, stop } = await startBenchApi(dataDir, process.env.BENCH_VERBOSE === 'debug' ? 'debug' : process.env.BENCH_VERBOSE ? 'info' : 'silent');
  const db = svc.db.app;
  try {
    const ws = await openWorkspace(svc, REUSE);
    const t = { id: ws.id, uuid: ws.uuid };
    console.log(`analytics bench: ${LINES.toLocaleString()} lines in ${FILES} files, ${RECORDINGS.toLocaleString()} recordings, ${os.cpus().length} cores, concurrency ${CONC}, engine ${cfg.analyticsEngine}`);
    let fileIds: string[] = [];
    if (!ws.reused) {
      const t0 = performance.now();
      await loadCatalogue(db, t.id, ws.payee);
      console.log(`catalogue (${ARTISTS} artists, ${RECORDINGS} recordings, ${PRODUCTS} products, 6,000 splits): ${secs(performance.now() - t0)}`);
      const r = await loadLines(db, svc.db.owner, t.id, LINES, !!process.env.BENCH_VERBOSE);
      fileIds = r.fileIds;
      console.log(`lines: ${LINES.toLocaleString()} generated in SQL in ${secs(r.timing.load)}; earnings ${secs(r.timing.alloc)}; aggregateFile ${secs(r.timing.aggr)} for ${fileIds.length} files`);
      const s = performance.now();
      await svc.db.owner.raw('VACUUM (ANALYZE)');
      await svc.db.owner.raw('CHECKPOINT');
      console.log(`VACUUM (ANALYZE) + CHECKPOINT: ${secs(performance.now() - s)}`);
    } else {
      fileIds = (await withTenant(db, t.id, (trx) => trx.raw(`SELECT id FROM files WHERE original_name NOT LIKE 'sync-%' ORDER BY created_at, id`))).rows.map((r: { id: string }) => r.id);
      // The files earlier runs added (--sync, the scale-out bench) are deleted: the workspace is the lines it was loaded with.
      const extra: string[] = (await withTenant(db, t.id, (trx) => trx.raw(`SELECT id FROM files WHERE original_name LIKE 'sync-%' AND parent_id IS NULL`))).rows.map((r: { id: string }) => r.id);
      const s = performance.now();
      for (const id of extra) await deleteFileEverywhere(svc, t.id, id);
      console.log(`reused workspace ${t.id}: ${fileIds.length} files${extra.length ? ` (${extra.length} files added by earlier runs deleted in ${secs(performance.now() - s)})` : ''}`);
    }
    const { rows: [st] } = await svc.db.owner.raw(
      `SELECT (SELECT count(*) FROM royalty_lines WHERE tenant_id = ?)::bigint AS lines, pg_table_size('royalty_lines')::bigint AS heap, pg_total_relation_size('royalty_lines')::bigint AS total`,
      [t.id],
    );
    console.log(`royalty_lines: ${Number(st.lines).toLocaleString()} lines of this workspace; the table ${mb(Number(st.heap))} (${mb(Number(st.total))} with its indexes)`);
    if (flag('--load-only')) return;

    // The engine: the replica built from Postgres, as a new API node builds it.
    const engine = analyticsEngineOf(svc);
    if (engine) {
      const s = performance.now();
      await engine.open();
      await engine.firstPass;
      const built = performance.now() - s;
      console.log(`replica (${cfg.analyticsReplicaPath}): built or brought up to date from Postgres in ${secs(built)}; ${mb(await fileBytes(cfg.analyticsReplicaPath))} on disk (the bare royalty_lines table: see --bare)`);
    }
    if (flag('--bare')) {
      const b = await bareCopy(url, dataDir, t.id, null);
      console.log(`bare COPY of the ${b.rows.toLocaleString()} lines as stored: ${secs(b.ms)} (${mb(b.dumpBytes)} of COPY text; the bare table ${mb(b.tableBytes)})`);
      if (engine) console.log(`replica file / bare table: ${((await fileBytes(cfg.analyticsReplicaPath)) / b.tableBytes).toFixed(2)}×`);
    }
    if (flag('--sync') && engine) {
      // One more statement file (the size of the others), then the time until the replica has it.
      const timing = { load: 0, alloc: 0, aggr: 0 };
      const s = performance.now();
      const id = await loadFile(db, t.id, 11, 'DistroKid', Math.ceil(LINES / FILES), timing, 'sync-');
      const committed = performance.now();
      const { rows: [v] } = await svc.db.owner.raw(`SELECT version FROM analytics_versions WHERE tenant_id = ?`, [t.id]);
      while (!(await engine.ready(t.id, Number(v.version), 60_000))) { /* waits for the follower */ }
      const ready = performance.now();
      const b = await bareCopy(url, dataDir, t.id, [id]);
      console.log(`one more file (${b.rows.toLocaleString()} lines): load ${secs(timing.load)}, earnings ${secs(timing.alloc)}, aggregateFile ${secs(timing.aggr)} (processed after ${secs(committed - s)}); the replica had it ${secs(ready - committed)} later`);
      console.log(`  bare COPY of its rows as stored ${secs(b.ms)}: replica sync / bare COPY ${((ready - committed) / b.ms).toFixed(2)}×; processed → analytics ready on the engine / bare COPY ${((ready - s) / b.ms).toFixed(2)}×`);
      // Deleted again (the workspace keeps its size from run to run), and the time until the replica no longer counts it.
      const d = performance.now();
      await deleteFileEverywhere(svc, t.id, id);
      const deleted = performance.now();
      const { rows: [v2] } = await svc.db.owner.raw(`SELECT version FROM analytics_versions WHERE tenant_id = ?`, [t.id]);
      while (!(await engine.ready(t.id, Number(v2.version), 60_000))) { /* waits for the follower */ }
      console.log(`  deleted again in ${secs(deleted - d)}; the replica no longer counted it ${secs(performance.now() - deleted)} later`);
    }
    if (flag('--verify-sums') && engine) {
      // Every sums table as the applies left it (merged or written again, file after file) against the sums of the lines, row for row.
      const s = performance.now();
      for (const x of REPLICA_SUMS) {
        const [r] = await engine.query(t.id, sumsCheckSql(`t${t.id}`, x), []);
        console.log(`  ${x.table}: ${Number(r!.n).toLocaleString()} rows, ${r!.extra} not in the lines' sums, ${r!.missing} of the lines' sums missing`);
      }
      console.log(`sums checked against the lines in ${secs(performance.now() - s)}`);
    }

    const ids = await filterIds(svc.db, t.id, fileIds);
    const list = combos(ids, ONLY_VIEWS, ONLY);
    const token = (v: View) => ws.tokens[v];
    const payeeOf = (v: View) => (v === 'admin' ? null : ws.payee[v]);
    // Warm-up, not measured: every pooled connection's first statements and the server's code.
    for (const v of ONLY_VIEWS) await timed(2 * CONC, () => httpGet(base, token(v), '/royalty/month'), CONC, MAX_SECS);
    console.log(`\nload average before the queries (1, 5, 15 min): ${loadAvg()}; ${list.length} combinations`);
    const rows: Row[] = [];
    for (const c of list) {
      let source = '';
      const alone = await timed(SEQ, async () => (source = await httpGet(base, token(c.view), c.path)), 1, MAX_SECS);
      const loaded = REQS > 0 ? await timed(REQS, () => httpGet(base, token(c.view), c.path), CONC, MAX_SECS) : undefined;
      // The answer's `source` when the route carries it; else the same query function in process says who answers.
      if (source === '?') source = (await withTenant(db, t.id, (trx) => royaltyAnalytics(trx, t.id, payeeOf(c.view), c.group, c.q as never, { engine }))).source;
      const row: Row = { label: c.label, filters: c.filters, alone, loaded, source };
      if (PG) {
        // The Postgres path: the same query function without the engine, one at a time, cut at MAX_SECS.
        const once = async () => {
          const s = performance.now();
          await withTenant(db, t.id, async (trx) => {
            await trx.raw(`SET LOCAL statement_timeout = ${MAX_SECS * 1000}`);
            await royaltyAnalytics(trx, t.id, payeeOf(c.view), c.group, c.q as never, { engine: null });
          });
          return performance.now() - s;
        };
        try {
          const first = await once();
          row.pg = first > 1000 ? { p50: first, p95: first, n: 1 } : await timed(3, once, 1, MAX_SECS);
        } catch (err) {
          // cut by the statement timeout (a helper's SET LOCAL after it reports the aborted transaction)
          if (!/statement timeout|current transaction is aborted/.test((err as Error).message)) throw err;
          row.pg = null;
          row.pgOver = MAX_SECS * 1000;
        }
      }
      rows.push(row);
      if (process.env.BENCH_VERBOSE) console.log(`  ${c.label}: ${alone.p50.toFixed(1)} / ${loaded?.p95.toFixed(1) ?? '-'} ms [${source}] pg ${row.pg ? row.pg.p50.toFixed(0) : row.pg === null ? 'over' : '-'}`);
    }
    if (CONC > 1 && process.env.BENCH_MIXED !== '0') {
      // Then the clients on different questions: each asks every combination once, from its own starting point.
      console.log(`\nload average before the mixed run: ${loadAvg()}`);
      const mixed = await mixedLoad(list.length, (i) => httpGet(base, token(list[i]!.view), list[i]!.path), CONC);
      mixed.forEach((m, i) => (rows[i]!.mixed = m));
    }
    printTable(rows, { alone: 150, loaded: 500 }, MAX_SECS);
    console.log(`load average after the queries (1, 5, 15 min): ${loadAvg()}`);
    console.log(`peak RSS of this process (the API and its replica, with the bench's clients): ${mb(await peakRss())}`);
    if (engine) console.log(`replica file now: ${mb(await fileBytes(cfg.analyticsReplicaPath))}`);
    if (process.env.BENCH_JSON) await fs.writeFile(process.env.BENCH_JSON, JSON.stringify({ date: new Date().toISOString(), lines: LINES, engine: cfg.analyticsEngine, rows }, null, 1));
  } finally {
    await stop();
    if (!process.env.BENCH_DATA_DIR) await fs.rm(dataDir, { recursive: true, force: true });
  }
}

await main();
