/**
 * npm run bench:catalogue — catalogue at scale, through the real HTTP API on loopback.
 *
 * 1. bulk-creates RECORDINGS recordings (POST /asset/bulk, each with a split and an
 *    artist) and PRODUCTS products (POST /product/bulk, each with a split and 10 tracks
 *    linked via PUT is skipped: products carry artists + split), reporting rows/s;
 * 2. p95 of GET /asset/{id} and of a filtered list (GET /asset?search=…&artist=…) under
 *    CONCURRENCY concurrent clients (bounded loop), beside the same queries run directly
 *    in SQL (same database, same run);
 * 3. a streamed CSV download of every recording (time and peak RSS).
 * Prints figures; asserts nothing. Env: RECORDINGS (100000), PRODUCTS (10000),
 * BATCH (1000), CONCURRENCY (8), REQUESTS (2000), BENCH_DATA_DIR (a temp dir).
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
import { withTenant } from '../src/db';
import { pct } from './stats';

const N = Number(process.env.RECORDINGS ?? 100_000);
const P = Number(process.env.PRODUCTS ?? 10_000);
const BATCH = Number(process.env.BATCH ?? 1000);
const CONC = Number(process.env.CONCURRENCY ?? 8);
const REQS = Number(process.env.REQUESTS ?? 2000);

const fmt = (ms: number) => `${ms.toFixed(2)} ms`;

async function main() {
  const dataDir = process.env.BENCH_DATA_DIR || (await fs.mkdtemp(path.join(os.tmpdir(), 'rondo-bench-')));
  await fs.chmod(dataDir, 0o755); // the embedded Postgres runs as its own user when we are root
  const cfg = loadConfig({}, { dataDir, logLevel: 'silent', passwordHashMemoryKiB: 1024 });
  const rt = await boot(cfg, { workers: false, queue: true, migrate: true, fastEmbedded: true });
  const svc = rt.svc;
  const server = createApp(svc).listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const t = await createTenant(svc.db.owner, { name: `Bench ${Date.now()}` });
    const email = `bench.${t.id}@bench.test`;
    const g = await ensureGlobalUser(svc.db.owner, { email, passwordHash: await svc.auth.hashPassword('bench password 123') });
    const admin = await upsertMembership(svc.db.owner, t.id, g.id, 'admin');
    const payees: string[] = [];
    for (let i = 0; i < 4; i++) {
      const u = await ensureGlobalUser(svc.db.owner, { email: `payee${i}.${t.id}@bench.test` });
      payees.push(await upsertMembership(svc.db.owner, t.id, u.id, 'user'));
    }
    const { refreshToken } = await svc.auth.login(email, 'bench password 123', {});
    const who = await svc.auth.authenticate({ authorization: `Bearer ${refreshToken}` }, 'refresh');
    const token = await svc.auth.accessTokenFor(who, t.uuid, undefined);
    const call = async (method: string, p: string, body?: unknown) => {
      const res = await fetch(base + p, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await res.text();
      if (res.status >= 400) throw new Error(`${method} ${p}: ${res.status} ${text.slice(0, 300)}`);
      return text ? JSON.parse(text) : null;
    };
    const artists = Array.from({ length: 200 }, (_, i) => `Bench Artist ${i}`);
    const split = (i: number) => [{ user: payees[i % 4]!, share: 60 }, { user: payees[(i + 1) % 4]!, share: 40 }];

    console.log(`catalogue bench: ${N} recordings, ${P} products, batches of ${BATCH}, ${os.cpus().length} cores`);
    let t0 = performance.now();
    let made = 0;
    for (let s = 0; s < N; s += BATCH) {
      const assets = [];
      for (let i = s; i < Math.min(N, s + BATCH); i++) {
        assets.push({ title: `Recording ${i} ${['Blue', 'Night', 'Salt', 'Paper'][i % 4]}`, isrc: `QZBNA${String(20 + (Math.floor(i / 1e5) % 80))}${String(i % 1e5).padStart(5, '0')}`, artists: [artists[i % artists.length]!], splits: split(i) });
      }
      const r = await call('POST', '/asset/bulk', { assets });
      made += r.processedCount;
      if (r.errors.length) console.log('  errors:', r.errors.slice(0, 3));
    }
    let secs = (performance.now() - t0) / 1000;
    console.log(`recordings: ${made} in ${secs.toFixed(1)} s → ${(made / secs).toFixed(0)} rows/s (each with artist link + 2-payee split + history)`);

    t0 = performance.now();
    made = 0;
    for (let s = 0; s < P; s += BATCH) {
      const products = [];
      for (let i = s; i < Math.min(P, s + BATCH); i++) {
        const body = `19${String(i).padStart(10, '0')}`;
        products.push({ upc: body + gtinCheckDigit(body), title: `Product ${i}`, type: 'Album', format: 'Digital', releaseDate: '2026-01-01', artists: [artists[i % artists.length]!], split: split(i) });
      }
      const r = await call('POST', '/product/bulk', { products });
      made += r.processedCount;
    }
    secs = (performance.now() - t0) / 1000;
    console.log(`products:   ${made} in ${secs.toFixed(1)} s → ${(made / secs).toFixed(0)} rows/s`);

    const ids = await withTenant(svc.db.app, t.id, (trx) => trx('assets').orderByRaw('random()').limit(500).pluck('id'));
    const artistId = await withTenant(svc.db.app, t.id, (trx) => trx('artists').where({ name: 'Bench Artist 7' }).first('id')).then((r) => r.id);
    await withTenant(svc.db.app, t.id, (trx) => trx.raw('ANALYZE assets, asset_artists, splits, split_shares, artists'));

    async function load(label: string, fn: (i: number) => Promise<unknown>) {
      const times: number[] = [];
      let next = 0;
      const worker = async () => {
        while (next < REQS) {
          const i = next++;
          const s = performance.now();
          await fn(i);
          times.push(performance.now() - s);
        }
      };
      const s = performance.now();
      await Promise.all(Array.from({ length: CONC }, worker));
      const wall = (performance.now() - s) / 1000;
      console.log(`${label.padEnd(46)} p50 ${fmt(pct(times, 50))}  p95 ${fmt(pct(times, 95))}  ${(REQS / wall).toFixed(0)} req/s`);
    }
    console.log(`\nconcurrency ${CONC}, ${REQS} requests each:`);
    await load('HTTP GET /asset/{id}', (i) => call('GET', `/asset/${ids[i % ids.length]}`));
    await load('SQL  same asset row + links + split (3 queries)', (i) =>
      withTenant(svc.db.app, t.id, async (trx) => {
        const id = ids[i % ids.length];
        await trx('assets').where({ id }).first();
        await trx('asset_artists').where({ asset_id: id });
        await trx('splits as s').join('split_shares as sh', 'sh.split_id', 's.id').where('s.asset_id', id);
      }));
    const q = `search=blue&artist=${artistId}&sort=title&size=20`;
    await load(`HTTP GET /asset?${q.replace(artistId, '<id>')}`, () => call('GET', `/asset?${q}`));
    await load('SQL  same filtered page + count', () =>
      withTenant(svc.db.app, t.id, async (trx) => {
        const b = trx('assets as a')
          .where((w) => w.whereILike('a.title', '%blue%').orWhereExists((e) => e.select(trx.raw(1)).from('asset_artists as al').join('artists as sa', 'sa.id', 'al.artist_id').whereRaw('al.asset_id = a.id').whereILike('sa.name', '%blue%')))
          .whereExists((e) => e.select(trx.raw(1)).from('asset_artists as f').whereRaw('f.asset_id = a.id').where('f.artist_id', artistId));
        await b.clone().count({ c: '*' });
        await b.clone().select('a.*').orderBy('a.title').limit(20);
      }));

    t0 = performance.now();
    const res = await fetch(`${base}/asset/download/csv`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{}' });
    let bytes = 0;
    let rss = process.memoryUsage().rss;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.length;
      rss = Math.max(rss, process.memoryUsage().rss);
    }
    console.log(`\nCSV download of every recording: ${(bytes / 1e6).toFixed(1)} MB in ${((performance.now() - t0) / 1000).toFixed(2)} s, peak RSS of the process ${(rss / 1e6).toFixed(0)} MB`);
  } finally {
    server.close();
    server.closeAllConnections();
    await rt.shutdown();
    if (!process.env.BENCH_DATA_DIR) await fs.rm(dataDir, { recursive: true, force: true });
  }
}

await main();
