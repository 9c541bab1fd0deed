/**
 * npm run bench:analytics [-- --lines 10000000] — royalty analytics at scale.
 *
 * 1. one workspace: 100 artists (default splits), 2,000 recordings (a quarter with their own
 *    split), 500 products; 4 payees; EUR rates for every month;
 * 2. LINES statement lines in 96 files (24 sale months × 4 aggregators), generated in SQL
 *    (INSERT … SELECT generate_series, no per-row JS) at a statement's real density (one line
 *    per recording × DSP × country × sale type in a file), already matched and converted
 *    (what allocation's match + currency step leaves); then each file's earnings written in
 *    SQL by the allocation's rounding rule (earningsOnly) — or, with --allocate, the real
 *    allocateFile on unmatched lines (slow: another branch is speeding it up);
 * 3. aggregateFile per file, as the royalty.aggregate job runs it — timed; with
 *    --agg-file N also one N-line file, aggregated once as the job does and twice more as a
 *    re-allocation does;
 *    then VACUUM (ANALYZE) + CHECKPOINT (steady state: no autovacuum during the timed queries);
 * 4. p50/p95 of every /royalty/* route over real HTTP on loopback, with and without
 *    filters (crossed ones too: catalogue × statement dimension, file × catalogue, several at
 *    once; a page of /royalty/asset), admin and member views, under CONCURRENCY clients
 *    (bounded loops), beside the same query on the raw lines/earnings in the same run.
 * Prints figures and a summary by the issue's classes (at most one filter: p95 < 50 ms; crossed:
 * < 100 ms) with every combination over its target and the source that answered it, and the
 * machine's load average around the query phase; asserts nothing. Env/flags: --lines N (LINES, 10,000,000), --agg-file N,
 * --allocate, --load-only, CONCURRENCY (8), REQUESTS (200 per combination), MAX_SECS (20 per
 * combination), RAW_REQUESTS (8), RAW_ALL, BENCH_ONLY (a regex on the labels), BENCH_DATA_DIR,
 * BENCH_VERBOSE, BENCH_PROFILE; --reuse (with BENCH_DATA_DIR: query the workspace an earlier
 * run loaded there instead of loading; --reaggregate: re-run aggregateFile on its files first).
 */
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../src/config';
import { boot } from '../src/compose';
import { createApp } from '../src/app';
import { createTenant, ensureGlobalUser, upsertMembership } from '../src/modules/users/service';
import { gtinCheckDigit } from '../src/modules/catalogue/identifiers';
import { hashJoins, withTenant } from '../src/db';
import { allocateFile, lockTenant, setAccountingPeriod } from '../src/modules/royalty/allocate';
import type { Trx } from '../src/db';
import { aggregateFile } from '../src/modules/royalty/aggregate';
import { lockedFileRow } from '../src/repositories/files';
import { royaltyAnalytics, type GroupBy } from '../src/modules/royalty/analytics';
import { planAnalytics } from '../src/modules/royalty/planner';
import { pct } from './stats';

const argLines = process.argv.indexOf('--lines');
const LINES = Number(argLines > 0 ? process.argv[argLines + 1] : process.env.LINES ?? 10_000_000);
const CONC = Number(process.env.CONCURRENCY ?? 8);
const REQS = Number(process.env.REQUESTS ?? 200);
const RAW_REQS = Number(process.env.RAW_REQUESTS ?? 8);
const MAX_SECS = Number(process.env.MAX_SECS ?? 20);
/** BENCH_ONLY=<regex>: only the route × filter (view) labels it matches. */
const ONLY = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : null;
const ALLOCATE = process.argv.includes('--allocate');
const argAgg = process.argv.indexOf('--agg-file');
const AGG_FILE = Number(argAgg > 0 ? process.argv[argAgg + 1] : process.env.AGG_FILE ?? 0);
/** --reuse: skip the load, query the workspace a previous run left in BENCH_DATA_DIR (--reaggregate: re-run aggregateFile first). */
const REUSE = process.argv.includes('--reuse');
const REAGGREGATE = process.argv.includes('--reaggregate');
const MONTHS = 24;
const AGGREGATORS = ['DistroKid', 'CD Baby', 'TuneCore', 'Believe'];
const FILES = MONTHS * AGGREGATORS.length;

/**
 * One file's lines in SQL. Recording a = (g × 7919) mod 2,000 and k = g div 2,000: within a
 * file every line of a recording has its own (DSP, country) pair, as in a real statement
 * (one line per recording × store × country × sale type), so rollups by recording and DSP
 * or country are nearly as fine as the lines. 2 % of lines carry an unknown ISRC. UPC = the
 * recording's product (recording a is on product a mod 500). 'matched': the lines also carry
 * what allocation's matching + currency step writes (recording, product, artist, base amount).
 */
function GENERATE_LINES(mode: 'raw' | 'matched'): string {
  const m = mode === 'matched';
  return `INSERT INTO royalty_lines (tenant_id, file_id, line_no, sale_month, dsp, country, isrc, upc, track_title, artist, sale_type, quantity, net, currency, aggregator
            ${m ? ', asset_id, product_id, artist_id, match_status, base_amount, base_currency, fx_rate' : ''})
    SELECT x.tenant, x.file, x.g + 1, x.sm,
           (ARRAY['Spotify','Apple Music','YouTube','Amazon','Deezer','Tidal','TikTok','Pandora'])[1 + (x.a + x.k) % 8],
           (ARRAY['US','GB','DE','FR','BR','JP','MX','CA','AU','SE','NL','ES','IT','PL','IN','KR','NO','DK','FI','AR'])[1 + (x.a + x.k / 8) % 20],
           CASE WHEN x.unknown THEN 'QZZZZ24' || lpad((x.g % 997)::text, 5, '0') ELSE 'QZBEN24' || lpad(x.a::text, 5, '0') END,
           CASE WHEN x.unknown THEN NULL ELSE x.upcs[1 + x.a % 500] END,
           'Recording ' || x.a, 'Bench Artist ' || (x.a % 100),
           (ARRAY['stream','stream','stream','download','ugc'])[1 + (x.a + x.k / 3) % 5],
           1 + x.g % 40, x.net, x.cur, x.agg
           ${m ? `, CASE WHEN x.unknown THEN NULL ELSE x.assets[1 + x.a] END, CASE WHEN x.unknown THEN NULL ELSE x.products[1 + x.a % 500] END,
           CASE WHEN x.unknown THEN NULL ELSE x.artists[1 + x.a % 100] END, CASE WHEN x.unknown THEN 'unmatched' ELSE 'isrc' END,
           CASE WHEN x.cur = 'USD' THEN x.net ELSE round(x.net * r.rate, 12) END, 'USD', CASE WHEN x.cur = 'USD' THEN 1 ELSE r.rate END` : ''}
      FROM (SELECT p.*, g, (g * 7919) % 2000 AS a, g / 2000 AS k, g % 50 = 7 AS unknown, round(((g % 1000) + 1) * 0.000731, 12) AS net,
                   CASE WHEN p.eur THEN 'EUR' ELSE 'USD' END AS cur
              FROM (SELECT ?::int AS tenant, ?::uuid AS file, ('2023-01-01'::date + make_interval(months => ?))::date AS sm, ?::uuid[] AS assets,
                           ?::uuid[] AS artists, ?::uuid[] AS products, ?::text[] AS upcs, ?::boolean AS eur, ?::text AS agg) p,
                   generate_series(0::bigint, ? - 1) g) x
      LEFT JOIN fx_rates r ON r.tenant_id = x.tenant AND r.currency = 'EUR' AND r.month = x.sm`;
}

/**
 * The allocation decision of one file's pre-matched lines, written in SQL by the allocation's
 * rule (the bench catalogue has no conditional or product splits: recording split, else the
 * primary artist's default): each line's share set (the remainder flag to the largest share,
 * ties to the smallest payee id), plus the file's accounting period. Self-contained so the
 * bench does not depend on allocate.ts internals (another branch is rewriting them).
 * The catalogue's share sets do not change during the load: they are computed and stored
 * once (the first file), each later file only sets its lines' share set from that map.
 */
let shareSetOf: { assets: string[]; sets: string[] } | null = null;
async function earningsOnly(trx: Trx, tenantId: number, fileId: string): Promise<void> {
  const ap = await setAccountingPeriod(trx, tenantId, fileId, 'monthly');
  if (!shareSetOf) {
    const { rows } = await trx.raw(
      `WITH sp AS (
         SELECT a.id AS asset_id, coalesce(sa.id, sr.id) AS split_id
           FROM assets a JOIN asset_artists x ON x.tenant_id = a.tenant_id AND x.asset_id = a.id AND x.position = 0
           LEFT JOIN splits sa ON sa.tenant_id = a.tenant_id AND sa.asset_id = a.id
           LEFT JOIN splits sr ON sr.tenant_id = a.tenant_id AND sr.artist_id = x.artist_id
          WHERE a.tenant_id = ?
       ), sh AS (
         SELECT sp.asset_id, s.split_id, s.tenant_user_id, s.share,
                row_number() OVER (PARTITION BY sp.asset_id ORDER BY s.share DESC, s.tenant_user_id) = 1 AS rem,
                array_agg(s.share) OVER (PARTITION BY sp.asset_id ORDER BY s.tenant_user_id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS all_shares,
                (row_number() OVER (PARTITION BY sp.asset_id ORDER BY s.tenant_user_id))::int AS pos
           FROM sp JOIN split_shares s ON s.tenant_id = ? AND s.split_id = sp.split_id
       ), sets AS (
         -- one share set per split (id: md5 of its content, as allocation names it)
         SELECT sh.*, md5(string_agg(coalesce(sh.split_id::text, '') || ':' || sh.tenant_user_id || ':' || sh.share::numeric(9,6)::text, ',')
                            OVER (PARTITION BY sh.asset_id ORDER BY sh.tenant_user_id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING))::uuid AS set_id
           FROM sh
       ), ins AS (
         -- others: the other payees' shares in payee order (this payee's own share left out)
         INSERT INTO royalty_share_sets (tenant_id, share_set_id, tenant_user_id, split_id, share, gets_remainder, others)
         SELECT DISTINCT ON (set_id, tenant_user_id) ?, set_id, tenant_user_id, split_id, share, rem,
                all_shares[:pos - 1] || all_shares[pos + 1:]
           FROM sets
         ON CONFLICT DO NOTHING
       )
       SELECT DISTINCT asset_id, set_id FROM sets`,
      [tenantId, tenantId, tenantId],
    );
    shareSetOf = { assets: rows.map((r: { asset_id: string }) => r.asset_id), sets: rows.map((r: { set_id: string }) => r.set_id) };
  }
  const map = shareSetOf;
  await hashJoins(trx, () =>
    trx.raw(
      `UPDATE royalty_lines l SET share_set_id = x.set_id
         FROM unnest(?::uuid[], ?::uuid[]) x(asset_id, set_id)
        WHERE l.tenant_id = ? AND l.file_id = ? AND l.asset_id = x.asset_id AND l.base_amount IS NOT NULL AND ?::date IS NOT NULL`,
      [map.assets, map.sets, tenantId, fileId, ap],
    ),
  );
}

/**
 * The issue's classes: a route with at most one filter (the dates, start/end/periodFilterType,
 * are one filter; paging is none) must answer under 50 ms at p95, a crossed combination (two
 * filters or more) under 100 ms.
 */
function filterCount(q: Record<string, string>): number {
  const keys = Object.keys(q);
  const dates = keys.some((k) => k === 'start' || k === 'end' || k === 'periodFilterType') ? 1 : 0;
  return dates + keys.filter((k) => !['start', 'end', 'periodFilterType', 'page', 'size'].includes(k)).length;
}

const fmt = (ms: number) => `${ms.toFixed(1).padStart(7)} ms`;

async function main() {
  const dataDir = process.env.BENCH_DATA_DIR || (await fs.mkdtemp(path.join(os.tmpdir(), 'rondo-bench-')));
  await fs.mkdir(dataDir, { recursive: true });
  await fs.chmod(dataDir, 0o755);
  const cfg = loadConfig({}, { dataDir, logLevel: 'silent', passwordHashMemoryKiB: 1024 });
  const rt = await boot(cfg, { workers: false, queue: true, migrate: true, fastEmbedded: true });
  const svc = rt.svc;
  const server = createApp(svc).listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const db = svc.db.app;
  if (process.env.BENCH_PROFILE) {
    const started = new Map<string, number>();
    db.on('query', (q: { __knexQueryUid: string }) => started.set(q.__knexQueryUid, performance.now()));
    db.on('query-response', (_r: unknown, q: { __knexQueryUid: string; sql: string }) => {
      const ms = performance.now() - (started.get(q.__knexQueryUid) ?? performance.now());
      if (ms > 200) console.log(`    ${ms.toFixed(0)} ms: ${q.sql.replace(/\s+/g, ' ').slice(0, 160)}`);
    });
  }
  try {
    // --reuse (with BENCH_DATA_DIR): the last loaded bench workspace of that data directory, no load.
    const reused: { id: number; uuid: string } | undefined = REUSE
      ? (await svc.db.owner.raw(`SELECT t.id, t.uuid FROM tenants t WHERE t.name LIKE 'Analytics bench %' AND EXISTS (SELECT 1 FROM files f WHERE f.tenant_id = t.id) ORDER BY t.id DESC LIMIT 1`)).rows[0]
      : undefined;
    if (REUSE && !reused) throw new Error('--reuse: no loaded bench workspace in BENCH_DATA_DIR');
    const t = reused ?? (await createTenant(svc.db.owner, { name: `Analytics bench ${Date.now()}` }));
    const pw = 'bench password 123';
    const hash = await svc.auth.hashPassword(pw);
    const tokens: Record<string, string> = {};
    const payees: string[] = [];
    for (const [i, role] of (['admin', 'user', 'user', 'user', 'user'] as const).entries()) {
      const email = `${role}${i}.${t.id}@bench.test`;
      const g = await ensureGlobalUser(svc.db.owner, { email, passwordHash: hash });
      const tu = await upsertMembership(svc.db.owner, t.id, g.id, role);
      if (i > 0) payees.push(tu);
      const { refreshToken } = await svc.auth.login(email, pw, {});
      const who = await svc.auth.authenticate({ authorization: `Bearer ${refreshToken}` }, 'refresh');
      tokens[i === 0 ? 'admin' : `payee${i}`] = await svc.auth.accessTokenFor(who, t.uuid, undefined);
    }
    console.log(`analytics bench: ${LINES.toLocaleString()} lines in ${FILES} files, ${os.cpus().length} cores, concurrency ${CONC}`);

    // Catalogue and splits (SQL, in one transaction).
    let t0 = performance.now();
    if (!reused) await withTenant(db, t.id, async (trx) => {
      await trx.raw(`INSERT INTO artists (tenant_id, name) SELECT ?, 'Bench Artist ' || g FROM generate_series(0, 99) g`, [t.id]);
      await trx.raw(
        `INSERT INTO assets (tenant_id, title, isrc, display_artist)
         SELECT ?, 'Recording ' || g, 'QZBEN24' || lpad(g::text, 5, '0'), 'Bench Artist ' || (g % 100) FROM generate_series(0, 1999) g`,
        [t.id],
      );
      const upcs = Array.from({ length: 500 }, (_, i) => {
        const body = `19${String(i).padStart(10, '0')}`;
        return body + gtinCheckDigit(body);
      });
      await trx.raw(`INSERT INTO products (tenant_id, title, upc) SELECT ?, 'Product ' || (o - 1), u FROM unnest(?::text[]) WITH ORDINALITY x(u, o)`, [t.id, upcs]);
      await trx.raw(
        `INSERT INTO asset_artists (tenant_id, asset_id, artist_id, position)
         SELECT ?, a.id, r.id, 0 FROM assets a JOIN artists r ON r.tenant_id = a.tenant_id AND r.name = a.display_artist WHERE a.tenant_id = ?`,
        [t.id, t.id],
      );
      await trx.raw(
        `INSERT INTO splits (tenant_id, target, artist_id) SELECT ?, 'artist', id FROM artists WHERE tenant_id = ?`,
        [t.id, t.id],
      );
      await trx.raw(
        `INSERT INTO splits (tenant_id, target, asset_id) SELECT ?, 'asset', id FROM assets WHERE tenant_id = ? AND substr(isrc, 8)::int % 4 = 0`,
        [t.id, t.id],
      );
      for (const [off, share] of [[0, '66.666667'], [1, '33.333333']] as const) {
        await trx.raw(
          `INSERT INTO split_shares (tenant_id, split_id, tenant_user_id, share)
           SELECT ?, s.id, (?::uuid[])[1 + (s.n + ?) % 4], ? FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM splits WHERE tenant_id = ?) s`,
          [t.id, payees, off, share, t.id],
        );
      }
      await trx.raw(
        `INSERT INTO fx_rates (tenant_id, currency, month, rate)
         SELECT ?, 'EUR', m::date, 1.08 + (extract(month FROM m) / 100) FROM generate_series('2023-01-01'::date, '2024-12-01'::date, interval '1 month') m`,
        [t.id],
      );
      await trx.raw(`DELETE FROM allocation_dirty WHERE tenant_id = ?`, [t.id]);
    });
    console.log(`catalogue (100 artists, 2,000 recordings, 500 products, 600 splits): ${((performance.now() - t0) / 1000).toFixed(1)} s`);

    // Lines, file by file, generated in SQL; then the allocation's own earnings statement
    // (or the whole allocateFile with --allocate) and aggregateFile per file, as the jobs do.
    const ids = await withTenant(db, t.id, async (trx) => ({
      assets: (await trx.raw(`SELECT id FROM assets ORDER BY isrc`)).rows.map((r: { id: string }) => r.id),
      artists: (await trx.raw(`SELECT id FROM artists ORDER BY substr(name, 14)::int`)).rows.map((r: { id: string }) => r.id),
      products: (await trx.raw(`SELECT id, upc FROM products ORDER BY substr(title, 9)::int`)).rows as { id: string; upc: string }[],
    }));
    const perFile = Math.ceil(LINES / FILES);
    const fileIds: string[] = [];
    const timing = { load: 0, alloc: 0, aggr: 0 };
    async function loadFile(month: number, agg: string, n: number, name: string): Promise<string> {
      let s = performance.now();
      const id = await withTenant(db, t.id, async (trx) => {
        const [row] = await trx('files')
          .insert({
            tenant_id: t.id,
            original_name: name,
            status: 'allocating',
            sale_period_start: trx.raw(`('2023-01-01'::date + make_interval(months => ?))::date`, [month]),
            sale_period_end: trx.raw(`('2023-01-01'::date + make_interval(months => ? + 1) - interval '1 day')::date`, [month]),
          })
          .returning('id');
        await trx.raw(GENERATE_LINES(ALLOCATE ? 'raw' : 'matched'), [
          t.id, row.id, month, ids.assets, ids.artists, ids.products.map((p) => p.id), ids.products.map((p) => p.upc), agg === 'Believe', agg, n,
        ]);
        return row.id as string;
      });
      timing.load += performance.now() - s;
      s = performance.now();
      await withTenant(db, t.id, async (trx) => {
        await lockTenant(trx, t.id);
        if (ALLOCATE) await allocateFile(trx, (await lockedFileRow(trx, t.id, id))!);
        else await earningsOnly(trx, t.id, id);
        await trx('files').where({ id }).update({ status: 'allocating' }); // allocated; its rollups are built below (the allocation step builds them in the same job)
      });
      timing.alloc += performance.now() - s;
      if (process.argv.includes('--analyze-before-aggregate')) await svc.db.owner.raw('ANALYZE royalty_lines, royalty_share_sets');
      s = performance.now();
      await withTenant(db, t.id, async (trx) => {
        await lockTenant(trx, t.id);
        await aggregateFile(trx, t.id, id);
        await trx('files').where({ id }).update({ status: 'processed' });
      });
      timing.aggr += performance.now() - s;
      return id;
    }
    if (reused) {
      fileIds.push(...(await withTenant(db, t.id, (trx) => trx.raw(`SELECT id FROM files ORDER BY created_at, id`))).rows.map((r: { id: string }) => r.id));
      console.log(`reused workspace ${t.id}: ${fileIds.length} files`);
      if (REAGGREGATE) {
        const s = performance.now();
        for (const id of fileIds) await withTenant(db, t.id, async (trx) => { await lockTenant(trx, t.id); await aggregateFile(trx, t.id, id); });
        console.log(`--reaggregate: aggregateFile ${((performance.now() - s) / 1000).toFixed(1)} s for ${fileIds.length} files`);
      }
    }
    for (let f = 0; f < (reused ? 0 : FILES); f++) {
      const month = f % MONTHS;
      const agg = AGGREGATORS[Math.floor(f / MONTHS)]!;
      const n = Math.min(perFile, LINES - f * perFile);
      if (n <= 0) break;
      fileIds.push(await loadFile(month, agg, n, `${agg}-${month}.csv`));
      if (f === 0) await svc.db.owner.raw('ANALYZE royalty_lines, royalty_share_sets, assets, products, splits, split_shares, asset_artists');
      if (process.env.BENCH_VERBOSE) console.log(`  file ${f + 1}/${FILES}: load ${(timing.load / 1000).toFixed(1)} s, ${ALLOCATE ? 'allocate' : 'earnings'} ${(timing.alloc / 1000).toFixed(1)} s, aggregate ${(timing.aggr / 1000).toFixed(1)} s`);
    }
    if (LINES > 0 && !reused) {
      console.log(`lines: ${LINES.toLocaleString()} generated in SQL in ${(timing.load / 1000).toFixed(1)} s (${(LINES / (timing.load / 1000)).toFixed(0)} lines/s)`);
      console.log(`${ALLOCATE ? 'allocateFile (match + fx + earnings)' : 'earnings (the allocation statement on pre-matched lines)'}: ${(timing.alloc / 1000).toFixed(1)} s; aggregateFile: ${(timing.aggr / 1000).toFixed(1)} s for ${fileIds.length} files`);
    }
    // Steady state before measuring: the maintenance a running system does between a load and
    // its queries, done here instead of by autovacuum DURING the query phase on the same two
    // cores (after a load or --reaggregate it vacuumed the rollups' dead rows, 700k in the
    // cross rollup, while requests were being timed), then a checkpoint (the load's WAL).
    t0 = performance.now();
    await svc.db.owner.raw('VACUUM (ANALYZE)');
    await svc.db.owner.raw('CHECKPOINT');
    console.log(`VACUUM (ANALYZE) + CHECKPOINT before the queries: ${((performance.now() - t0) / 1000).toFixed(1)} s`);

    // aggregateFile on one large file (the "analytics ready" step of one upload): the first
    // run as the pipeline runs it, then twice more as a re-allocation re-runs it.
    if (AGG_FILE > 0) {
      const before = timing.aggr;
      const id = await loadFile(11, 'DistroKid', AGG_FILE, 'one-large-file.csv');
      fileIds.push(id);
      const runs: number[] = [timing.aggr - before];
      for (let i = 0; i < 2; i++) {
        const s = performance.now();
        await withTenant(db, t.id, (trx) => aggregateFile(trx, t.id, id));
        runs.push(performance.now() - s);
      }
      console.log(`aggregateFile, one ${AGG_FILE.toLocaleString()}-line file: ${runs.map((ms) => (ms / 1000).toFixed(2) + ' s').join(' / ')} (first / re-runs)`);
    }
    const { rows: sizes } = await svc.db.owner.raw(
      `SELECT relname, n_live_tup AS n FROM pg_stat_user_tables WHERE relname LIKE 'royalty\\_roll\\_%' OR relname IN ('royalty_lines', 'royalty_share_sets', 'royalty_allocation_history') ORDER BY relname`,
    );
    console.log(`rows: ${sizes.map((r: { relname: string; n: string }) => `${r.relname.replace('royalty_', '')} ${Number(r.n).toLocaleString()}`).join(', ')}`);
    if (process.argv.includes('--load-only')) return;

    const one = async (sql: string, b: string[]) => (await withTenant(db, t.id, (trx) => trx.raw(sql, b))).rows[0].id as string;
    const artistId = await one(`SELECT id FROM artists WHERE name = ?`, ['Bench Artist 7']);
    const assetId = await one(`SELECT id FROM assets WHERE isrc = ?`, ['QZBEN2400042']);
    const productId = await one(`SELECT id FROM products WHERE title = ?`, ['Product 42']);
    const fileId = fileIds[5]!;
    const call = async (token: string, p: string) => {
      const res = await fetch(base + p, { headers: { authorization: `Bearer ${token}` } });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`GET ${p}: ${res.status} ${text.slice(0, 200)}`);
    };
    /** n requests over CONC clients, stopping early (after at least CONC) once MAX_SECS have passed. */
    async function load(n: number, fn: () => Promise<unknown>, conc = CONC): Promise<{ p50: number; p95: number; n: number }> {
      const times: number[] = [];
      let next = 0;
      const until = performance.now() + MAX_SECS * 1000;
      const worker = async () => {
        while (next < n && (next < conc || performance.now() < until)) {
          next++;
          const s = performance.now();
          await fn();
          times.push(performance.now() - s);
        }
      };
      await Promise.all(Array.from({ length: conc }, worker));
      return { p50: pct(times, 50), p95: pct(times, 95), n: times.length };
    }
    const routes: [string, GroupBy][] = [
      ['/royalty/', 'total'], ['/royalty/month', 'month'], ['/royalty/accountingperiod', 'accountingperiod'], ['/royalty/dsp', 'dsp'],
      ['/royalty/country', 'country'], ['/royalty/artist', 'artist'], ['/royalty/product', 'product'], ['/royalty/asset', 'asset'],
      ['/royalty/saletype', 'saletype'], ['/royalty/aggregator', 'aggregator'],
    ];
    // [query, analytics query, member view too]
    const filters: [string, Record<string, string>, boolean][] = [
      ['', {}, true],
      ['start=2024-01&end=2024-06', { start: '2024-01', end: '2024-06' }, false],
      ['periodFilterType=accounting&start=2023-07&end=2023-12&country=DE', { periodFilterType: 'accounting', start: '2023-07', end: '2023-12', country: 'DE' }, false],
      ['country=DE', { country: 'DE' }, true],
      [`artist=${artistId}`, { artist: artistId }, true],
      [`product=${productId}`, { product: productId }, false],
      [`asset=${assetId}`, { asset: assetId }, false],
      [`file=${fileId}`, { file: fileId }, false],
      [`artist=${artistId}&start=2024-01&end=2024-06`, { artist: artistId, start: '2024-01', end: '2024-06' }, false],
      [`file=${fileId}&artist=${artistId}`, { file: fileId, artist: artistId }, false],
      [`asset=${assetId}&dsp=Spotify&periodFilterType=accounting&start=2024-01&end=2024-12`, { asset: assetId, dsp: 'Spotify', periodFilterType: 'accounting', start: '2024-01', end: '2024-12' }, true],
      [`artist=${artistId}&country=DE`, { artist: artistId, country: 'DE' }, true],
      [`product=${productId}&dsp=Spotify&country=DE`, { product: productId, dsp: 'Spotify', country: 'DE' }, false],
    ];
    const short = (p: string) => p.replace(artistId, '<artist>').replace(fileId, '<file>').replace(assetId, '<asset>').replace(productId, '<product>');
    // The raw-lines reference takes seconds to minutes per request at 10M lines: by default at
    // most RAW_REQUESTS per combination, and above 2M lines only for each route unfiltered and
    // each filter on /royalty/dsp (RAW_ALL=1: every combination).
    const rawAll = process.env.RAW_ALL === '1' || LINES <= 2_000_000;
    // Warm-up, not measured: every pooled connection's first statements load Postgres'
    // catalogue caches and the server's code is not yet optimised (a cold first request took
    // 150-200 ms at p95; a running server is warm).
    for (const view of ['admin', 'payee1'] as const) await load(4 * CONC, () => call(tokens[view]!, '/royalty/month'));
    const loadAvg = () => os.loadavg().map((x) => x.toFixed(2)).join(', ');
    console.log(`\nload average before the queries (1, 5, 15 min): ${loadAvg()}`);
    console.log(`\nroute × filter (view)                                                   rollup p50 / p95 (n)   source                       raw lines p50 / p95 (n)`);
    interface Measured { label: string; p95: number; target: number; source: string }
    const measured: Measured[] = [];
    for (const [route, group] of routes) {
      const extra: [string, Record<string, string>, boolean][] = group === 'asset' ? [['page=5&size=100', {}, true]] : [];
      for (const [qs, q, member] of [...filters, ...extra]) {
        for (const view of ['admin', 'payee1'] as const) {
          if (view === 'payee1' && !member) continue;
          const p = `${route}${qs ? `?${qs}` : ''}`;
          const label = `${short(p)} (${view === 'admin' ? 'admin' : 'member'})`;
          if (ONLY && !ONLY.test(label)) continue;
          const r = await load(REQS, () => call(tokens[view]!, p));
          const plan = planAnalytics(group, q as never, view !== 'admin');
          const source = plan.shape ? plan.shape.table.replace('royalty_', '') : 'lines';
          measured.push({ label, p95: r.p95, target: filterCount(q) <= 1 ? 50 : 100, source });
          const payee = view === 'admin' ? null : payees[0]!;
          let rawTxt = '';
          if (rawAll || !qs || route === '/royalty/dsp') {
            const raw = await load(RAW_REQS, () => withTenant(db, t.id, (trx) => royaltyAnalytics(trx, t.id, payee, group, q as never, { raw: true })), Math.min(CONC, RAW_REQS));
            rawTxt = `${fmt(raw.p50)} / ${fmt(raw.p95)} (${raw.n})`;
          }
          console.log(`${label.padEnd(70)} ${fmt(r.p50)} / ${fmt(r.p95)} (${String(r.n).padStart(3)})   ${source.padEnd(28)} ${rawTxt}`);
        }
      }
    }
    // The summary: the worst p95, then per class (at most one filter: < 50 ms; crossed: < 100 ms)
    // the worst and every combination at or over its target, with the source that answered it.
    const worst = measured.reduce<Measured | null>((w, m) => (!w || m.p95 > w.p95 ? m : w), null);
    console.log(`\n${measured.length} combinations; worst p95 ${worst ? `${worst.p95.toFixed(1)} ms: ${worst.label} (${worst.source})` : '-'}`);
    for (const [name, target] of [['at most one filter', 50], ['crossed (two filters or more)', 100]] as const) {
      const cls = measured.filter((m) => m.target === target);
      const over = cls.filter((m) => m.p95 >= target).sort((a, b) => b.p95 - a.p95);
      const w = cls.reduce((x, m) => Math.max(x, m.p95), 0);
      console.log(`${name}: ${cls.length} combinations, worst p95 ${w.toFixed(1)} ms, ${over.length} at or over ${target} ms${over.length ? ':' : ''}`);
      for (const m of over) console.log(`  ${m.p95.toFixed(1).padStart(8)} ms  ${m.label}  [${m.source}]`);
    }
    console.log(`load average after the queries (1, 5, 15 min): ${loadAvg()}`);
    const met = measured.every((m) => m.p95 < m.target);
    console.log(`targets (p95 < 50 ms with at most one filter, < 100 ms crossed): ${met ? 'met' : 'NOT met'}`);
  } finally {
    server.close();
    server.closeAllConnections();
    await rt.shutdown();
    if (!process.env.BENCH_DATA_DIR) await fs.rm(dataDir, { recursive: true, force: true });
  }
}

await main();
