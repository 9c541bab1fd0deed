/**
 * npm run bench:suggest — the match-suggestion search (`suggestMatches`) for statement keys the
 * catalogue does not know, on a workspace of the size a label has.
 *
 * Load: the embedded Postgres (fast settings); 20,000 recordings titled as bench/distrokid-gen.ts
 *   names them ("Midnight Tides 17", eight title stems), 2,000 releases ("Release 17"), one artist.
 * Keys (KEYS, default 2,000, ISRCs and UPCs nobody has): one in NEAR_EVERY (4; 0: none) carries a near-catalogue
 *   title ("Midnight Tides (Live) 20004", similar to the 2,500 recordings of its stem), the rest
 *   unrelated titles ("Guest Song 17"); artists "Guest Artist n % 50"; releases
 *   "Guest Release n % 200" (200 distinct, each similar to every "Release N": all 2,000 releases
 *   are candidates of every key), or with RELEASES=unrelated "Bootleg Tapes n % 200".
 * Measure: the time of one `suggestMatches` call (both kinds: recordings and products), the
 *   suggestions it stored; then each kind's search alone. (Two runs do not store the same
 *   suggestions: equal scores are ordered by the recordings' random ids; compare with COMPARE=1.)
 * COMPARE=1: then the search that scores the whole catalogue (the code before the indexed
 *   search) on the same rows, its time, and the suggestions found by one search only (none).
 * Env: KEYS, NEAR_EVERY, RELEASES, COMPARE, BENCH_DATA_DIR.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config';
import { boot } from '../src/compose';
import { withTenant } from '../src/db';
import { createTenant } from '../src/modules/users/service';
import { resolveMatchKeys, suggestMatches, suggestionBindings, suggestionInsertSql, SUGGEST_TITLE_THRESHOLD } from '../src/modules/royalty/match';
import { DK_ARTIST, DK_RECORDINGS, dkTitle } from './distrokid-gen';

const KEYS = Number(process.env.KEYS ?? 2000);
const NEAR_EVERY = Number(process.env.NEAR_EVERY ?? 4);
const UNRELATED_RELEASES = process.env.RELEASES === 'unrelated';
const STEMS = ['Midnight Tides', 'Sél de Mer', 'Glass Harbour', 'Northern Static', 'Paper Suns', 'Low Orbit', 'Quiet Engines', 'Velvet Rain'];

const dataDir = process.env.BENCH_DATA_DIR || (await fs.mkdtemp(path.join(os.tmpdir(), 'rondo-bench-suggest-')));
await fs.chmod(dataDir, 0o755); // the embedded Postgres runs as its own user when we are root
const cfg = loadConfig({}, { dataDir, logLevel: 'silent', passwordHashMemoryKiB: 1024 });
const rt = await boot(cfg, { workers: false, queue: true, migrate: true, fastEmbedded: true });
const svc = rt.svc;
try {
  const t = await createTenant(svc.db.owner, { name: `Bench ${Date.now()}` });
  await withTenant(svc.db.app, t.id, async (trx) => {
    const recs = Array.from({ length: DK_RECORDINGS }, (_, i) => i);
    await trx.raw(
      `INSERT INTO products (tenant_id, title, upc, display_artist, main_artist)
       SELECT ?, 'Release ' || r, lpad((859700000000 + r)::text, 13, '0'), ?, ARRAY[?] FROM generate_series(0, ?) r`,
      [t.id, DK_ARTIST, DK_ARTIST, DK_RECORDINGS / 10 - 1],
    );
    await trx.raw(
      `INSERT INTO assets (tenant_id, title, isrc, display_artist, main_artist)
       SELECT ?, ti, 'QZES8' || lpad((1900000 + o - 1)::text, 7, '0'), ?, ARRAY[?] FROM unnest(?::text[]) WITH ORDINALITY x(ti, o)`,
      [t.id, DK_ARTIST, DK_ARTIST, recs.map(dkTitle)],
    );
  });
  await svc.db.owner.raw('ANALYZE assets, products');
  const keys = Array.from({ length: KEYS }, (_, n) => ({
    isrc: `QZUNK${String(2400000 + n).padStart(7, '0')}`,
    upc: String(900000000000 + n),
    title: NEAR_EVERY > 0 && n % NEAR_EVERY === 0 ? `${STEMS[(n / 4) % STEMS.length]} (Live) ${20000 + n}` : `Guest Song ${n}`,
    artist: `Guest Artist ${n % 50}`,
    release: UNRELATED_RELEASES ? `Bootleg Tapes ${n % 200}` : `Guest Release ${n % 200}`,
  }));
  const res = await withTenant(svc.db.app, t.id, async (trx) => {
    await trx.raw(
      `CREATE TEMP TABLE bench_keys ON COMMIT DROP AS
       SELECT i AS isrc, u AS upc, ti AS track_title, a AS artist, r AS release_title, 'Spotify' AS dsp
         FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[]) x(i, u, ti, a, r)`,
      [keys.map((k) => k.isrc), keys.map((k) => k.upc), keys.map((k) => k.title), keys.map((k) => k.artist), keys.map((k) => k.release)],
    );
    await resolveMatchKeys(trx, t.id, { sql: 'true', bindings: [] }, { autoCreate: false, keysFrom: 'SELECT * FROM bench_keys' });
    const t0 = performance.now();
    const stored = await suggestMatches(trx, t.id);
    const ms = performance.now() - t0;
    console.log(`suggestMatches took ${(ms / 1000).toFixed(2)} s`);
    const { rows } = await trx.raw(
      `SELECT count(*)::int AS n, count(DISTINCT (s.kind, coalesce(s.isrc, s.upc), s.title_norm, s.artist_norm))::int AS keys
         FROM match_suggestions s`,
    );
    // each kind alone, again (the suggestions just stored removed first)
    await trx.raw(`DELETE FROM match_suggestions`);
    await trx.raw(`SELECT set_config('pg_trgm.similarity_threshold', ?, true)`, [String(SUGGEST_TITLE_THRESHOLD)]);
    const fuzzy = (await trx.raw(`SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm'`)).rows.length > 0;
    const kinds: Record<string, number> = {};
    for (const kind of ['asset', 'product'] as const) {
      const k0 = performance.now();
      await trx.raw(suggestionInsertSql(kind, fuzzy), suggestionBindings(t.id, kind));
      kinds[kind] = performance.now() - k0;
    }
    // COMPARE=1: the same suggestions as the search that scores the whole catalogue (the code
    // before the indexed search), on the same rows (ties are broken by the random ids)
    let compare = '';
    if (process.env.COMPARE === '1') {
      await trx.raw(`CREATE TEMP TABLE bench_indexed ON COMMIT DROP AS SELECT kind, isrc, upc, title_norm, artist_norm, asset_id, product_id, score, reason FROM match_suggestions`);
      await trx.raw(`DELETE FROM match_suggestions`);
      const c0 = performance.now();
      for (const kind of ['asset', 'product'] as const) {
        const table = `${kind}s`;
        const sql = suggestionInsertSql(kind, fuzzy)
          .replace(/FROM rondo_\w+\(k\.\w+\) cand\(id\) JOIN (\w+) x ON x\.tenant_id = \? AND x\.id = cand\.id/, `FROM ${table} x`)
          .replace('WHERE s.score >= 0.45', 'WHERE x.tenant_id = ? AND s.score >= 0.45');
        if (sql.includes('cand(id)')) throw new Error('the full-scan form was not made');
        await trx.raw(sql, suggestionBindings(t.id, kind));
      }
      const full = performance.now() - c0;
      const { rows: d } = await trx.raw(
        `SELECT (SELECT count(*) FROM (SELECT kind, isrc, upc, title_norm, artist_norm, asset_id, product_id, score, reason FROM match_suggestions
                                       EXCEPT ALL SELECT * FROM bench_indexed) a)::int AS only_full,
                (SELECT count(*) FROM (SELECT * FROM bench_indexed
                                       EXCEPT ALL SELECT kind, isrc, upc, title_norm, artist_norm, asset_id, product_id, score, reason FROM match_suggestions) b)::int AS only_indexed,
                (SELECT count(*) FROM match_suggestions)::int AS n`,
      );
      compare = `full-catalogue search on the same rows: ${(full / 1000).toFixed(2)} s, ${d[0].n} suggestions; only in the full search ${d[0].only_full}, only in the indexed search ${d[0].only_indexed}`;
    }
    return { ms, stored, kinds, compare, ...rows[0] };
  });
  console.log(
    `suggestMatches: ${KEYS} keys against ${DK_RECORDINGS} recordings and ${DK_RECORDINGS / 10} releases: ${(res.ms / 1000).toFixed(2)} s; ` +
      `${res.stored} suggestions stored for ${res.keys} keys`,
  );
  if (res.compare) console.log(res.compare);
  console.log(`each kind alone: recordings ${(res.kinds.asset / 1000).toFixed(2)} s, products ${(res.kinds.product / 1000).toFixed(2)} s`);
  console.log(`load average at the end: ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
} finally {
  await rt.shutdown();
  if (!process.env.BENCH_DATA_DIR) await fs.rm(dataDir, { recursive: true, force: true });
}
