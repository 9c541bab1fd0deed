/**
 * npm run bench:analytics [-- --lines 10000000] — royalty analytics at scale.
 *
 * 1. one workspace: 100 artists (default splits), 2,000 recordings (a quarter with their own
 *    split), 500 products; 4 payees; EUR rates for every month;
 * 2. LINES statement lines in 96 files (24 sale months × 4 aggregators), generated in SQL
 *    (INSERT … SELECT generate_series: the bulk path, no per-row JS), then indexed as ingest
 *    leaves them;
 * 3. each file allocated (allocateFile: ONE earnings statement per file) and aggregated
 *    (aggregateFile), as the pipeline jobs do — timed;
 * 4. p50/p95 of every /royalty/* route over real HTTP on loopback, with and without
 *    filters, admin and member views, under CONCURRENCY clients (bounded loops), beside the
 *    same query on the raw lines/earnings in the same run (fewer requests: it is slow).
 * Prints figures; asserts nothing. Env/flags: --lines N (LINES, 10,000,000),
 * CONCURRENCY (8), REQUESTS (400 per route), RAW_REQUESTS (16), BENCH_DATA_DIR.
 */
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../src/config';
import { boot } from '../src/services';
import { createApp } from '../src/app';
import { createTenant, ensureGlobalUser, upsertMembership } from '../src/modules/users/service';
import { gtinCheckDigit } from '../src/modules/catalogue/identifiers';
import { withTenant } from '../src/db';
import { allocateFile, lockTenant } from '../src/modules/royalty/allocate';
import { aggregateFile } from '../src/modules/royalty/aggregate';
import { royaltyAnalytics, type GroupBy } from '../src/modules/royalty/analytics';

const argLines = process.argv.indexOf('--lines');
const LINES = Number(argLines > 0 ? process.argv[argLines + 1] : process.env.LINES ?? 10_000_000);
const CONC = Number(process.env.CONCURRENCY ?? 8);
const REQS = Number(process.env.REQUESTS ?? 400);
const RAW_REQS = Number(process.env.RAW_REQUESTS ?? 16);
const MONTHS = 24;
const AGGREGATORS = ['DistroKid', 'CD Baby', 'TuneCore', 'Believe'];
const FILES = MONTHS * AGGREGATORS.length;

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}
const fmt = (ms: number) => `${ms.toFixed(1).padStart(7)} ms`;

async function main() {
  const dataDir = process.env.BENCH_DATA_DIR || (await fs.mkdtemp(path.join(os.tmpdir(), 'rondo-bench-')));
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
    const t = await createTenant(svc.db.owner, { name: `Analytics bench ${Date.now()}` });
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
      const who = await svc.auth.authenticate({ get: () => `Bearer ${refreshToken}` } as never, 'refresh');
      tokens[i === 0 ? 'admin' : `payee${i}`] = await svc.auth.accessTokenFor(who, t.uuid, undefined);
    }
    console.log(`analytics bench: ${LINES.toLocaleString()} lines in ${FILES} files, ${os.cpus().length} cores, concurrency ${CONC}`);

    // Catalogue and splits (SQL, in one transaction).
    let t0 = performance.now();
    await withTenant(db, t.id, async (trx) => {
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

    // Lines, file by file, generated in SQL.
    const perFile = Math.ceil(LINES / FILES);
    const fileIds: string[] = [];
    t0 = performance.now();
    for (let f = 0; f < FILES; f++) {
      const month = f % MONTHS;
      const agg = AGGREGATORS[Math.floor(f / MONTHS)]!;
      const n = Math.min(perFile, LINES - f * perFile);
      if (n <= 0) break;
      await withTenant(db, t.id, async (trx) => {
        const [row] = await trx('files')
          .insert({
            tenant_id: t.id,
            original_name: `${agg}-${month}.csv`,
            status: 'allocating',
            sale_period_start: trx.raw(`('2023-01-01'::date + make_interval(months => ?))::date`, [month]),
            sale_period_end: trx.raw(`('2023-01-01'::date + make_interval(months => ? + 1) - interval '1 day')::date`, [month]),
          })
          .returning('id');
        fileIds.push(row.id);
        await trx.raw(
          `INSERT INTO royalty_lines (tenant_id, file_id, line_no, sale_month, dsp, country, isrc, upc, track_title, artist, release_title, sale_type, quantity, net, currency, aggregator)
           SELECT ?, ?, g + 1, ('2023-01-01'::date + make_interval(months => ?))::date,
                  (ARRAY['Spotify','Apple Music','YouTube','Amazon','Deezer','Tidal','TikTok','Pandora'])[1 + g % 8],
                  (ARRAY['US','GB','DE','FR','BR','JP','MX','CA','AU','SE','NL','ES','IT','PL','IN','KR','NO','DK','FI','AR'])[1 + (g / 8) % 20],
                  CASE WHEN g % 50 = 7 THEN 'QZZZZ24' || lpad((g % 997)::text, 5, '0') ELSE 'QZBEN24' || lpad(((g * 7919) % 2000)::text, 5, '0') END,
                  NULL, 'Recording ' || ((g * 7919) % 2000), 'Bench Artist ' || (((g * 7919) % 2000) % 100), NULL,
                  (ARRAY['stream','stream','stream','download','ugc'])[1 + g % 5],
                  1 + g % 40, round(((g % 1000) + 1) * 0.000731, 12), CASE WHEN ? THEN 'EUR' ELSE 'USD' END, ?
             FROM generate_series(0, ? - 1) g`,
          [t.id, row.id, month, agg === 'Believe', agg, n],
        );
      });
    }
    const loadSecs = (performance.now() - t0) / 1000;
    console.log(`lines: ${LINES.toLocaleString()} in ${loadSecs.toFixed(1)} s → ${(LINES / loadSecs).toFixed(0)} lines/s`);
    await svc.db.owner.raw('ANALYZE royalty_lines, assets, products, splits, split_shares, asset_artists');

    // Allocation + aggregation, one file at a time, as the jobs do.
    let alloc = 0;
    let aggr = 0;
    for (const id of fileIds) {
      let s = performance.now();
      await withTenant(db, t.id, async (trx) => {
        await lockTenant(trx, t.id);
        await allocateFile(trx, t.id, id);
        await trx('files').where({ id }).update({ status: 'aggregating' });
      });
      alloc += performance.now() - s;
      s = performance.now();
      await withTenant(db, t.id, async (trx) => {
        await lockTenant(trx, t.id);
        await aggregateFile(trx, t.id, id);
        await trx('files').where({ id }).update({ status: 'processed' });
      });
      aggr += performance.now() - s;
      if (process.env.BENCH_VERBOSE) console.log(`  file ${fileIds.indexOf(id) + 1}/${fileIds.length}: allocate+aggregate so far ${((alloc + aggr) / 1000).toFixed(1)} s`);
    }
    console.log(`allocate: ${(alloc / 1000).toFixed(1)} s (${(LINES / (alloc / 1000)).toFixed(0)} lines/s); aggregate: ${(aggr / 1000).toFixed(1)} s`);
    await svc.db.owner.raw('ANALYZE');
    const { rows: sizes } = await svc.db.owner.raw(
      `SELECT (SELECT count(*) FROM royalty_earnings) AS earnings, (SELECT count(*) FROM royalty_agg_period) AS period,
              (SELECT count(*) FROM royalty_agg_dims) AS dims, (SELECT count(*) FROM royalty_agg_catalogue) AS catalogue,
              (SELECT count(*) FROM royalty_agg_file_dims) AS file_dims, (SELECT count(*) FROM royalty_agg_file_catalogue) AS file_catalogue`,
    );
    console.log(`rows: earnings ${sizes[0].earnings}; rollups period ${sizes[0].period}, dims ${sizes[0].dims}, catalogue ${sizes[0].catalogue}, file_dims ${sizes[0].file_dims}, file_catalogue ${sizes[0].file_catalogue}`);

    const artistId = await withTenant(db, t.id, (trx) => trx('artists').where({ name: 'Bench Artist 7' }).first('id')).then((r) => r.id);
    const assetId = await withTenant(db, t.id, (trx) => trx('assets').where({ isrc: 'QZBEN2400042' }).first('id')).then((r) => r.id);
    const call = async (token: string, p: string) => {
      const res = await fetch(base + p, { headers: { authorization: `Bearer ${token}` } });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`GET ${p}: ${res.status} ${text.slice(0, 200)}`);
    };
    async function load(n: number, fn: () => Promise<unknown>): Promise<{ p50: number; p95: number }> {
      const times: number[] = [];
      let next = 0;
      const worker = async () => {
        while (next < n) {
          next++;
          const s = performance.now();
          await fn();
          times.push(performance.now() - s);
        }
      };
      await Promise.all(Array.from({ length: CONC }, worker));
      return { p50: pct(times, 50), p95: pct(times, 95) };
    }
    const routes: [string, GroupBy][] = [
      ['/royalty/', 'total'], ['/royalty/month', 'month'], ['/royalty/accountingperiod', 'accountingperiod'], ['/royalty/dsp', 'dsp'],
      ['/royalty/country', 'country'], ['/royalty/artist', 'artist'], ['/royalty/product', 'product'], ['/royalty/asset', 'asset'],
      ['/royalty/saletype', 'saletype'], ['/royalty/aggregator', 'aggregator'],
    ];
    const filters: [string, Record<string, string>][] = [
      ['', {}],
      ['start=2024-01&end=2024-06', { start: '2024-01', end: '2024-06' }],
      ['periodFilterType=accounting&start=2023-07&end=2023-12&country=DE', { periodFilterType: 'accounting', start: '2023-07', end: '2023-12', country: 'DE' }],
      [`artist=${artistId}`, { artist: artistId }],
      [`file=${fileIds[5]}`, { file: fileIds[5]! }],
    ];
    console.log(`\nroute × filter (view)                                          rollup p50 / p95      raw lines p50 / p95   (${REQS} / ${RAW_REQS} requests)`);
    let worst = 0;
    for (const [route, group] of routes) {
      for (const [qs, q] of filters) {
        for (const view of ['admin', 'payee1'] as const) {
          if (view === 'payee1' && qs && qs !== `artist=${artistId}`) continue;
          const p = `${route}${qs ? `?${qs}` : ''}`;
          const r = await load(REQS, () => call(tokens[view]!, p));
          worst = Math.max(worst, r.p95);
          const payee = view === 'admin' ? null : payees[0]!;
          const raw = await load(RAW_REQS, () => withTenant(db, t.id, (trx) => royaltyAnalytics(trx, t.id, payee, group, q as never, { raw: true })));
          console.log(`${(p.replace(artistId, '<artist>').replace(fileIds[5]!, '<file>') + ` (${view === 'admin' ? 'admin' : 'member'})`).padEnd(62)} ${fmt(r.p50)} / ${fmt(r.p95)}   ${fmt(raw.p50)} / ${fmt(raw.p95)}`);
        }
      }
    }
    console.log(`\nworst rollup p95: ${worst.toFixed(1)} ms (target < 50 ms)`);
  } finally {
    server.close();
    server.closeAllConnections();
    await rt.shutdown();
    if (!process.env.BENCH_DATA_DIR) await fs.rm(dataDir, { recursive: true, force: true });
  }
}

await main();
