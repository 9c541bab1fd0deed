import assert from 'node:assert/strict';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { tx } from './helpers';
import { resolveMatchKeys, suggestMatches, suggestionBindings, suggestionInsertSql, SUGGEST_TITLE_THRESHOLD } from '../../src/modules/royalty/match';
import type { Trx } from '../../src/db';

/** rm_keys for a few statement keys nobody's catalogue has (as resolveMatchKeys leaves them). */
async function unknownKeys(trx: Trx, tenantId: number, keys: Array<{ title: string; artist: string; release: string }>) {
  await trx.raw(
    `CREATE TEMP TABLE t_keys ON COMMIT DROP AS
     SELECT 'ZZUNK' || lpad(o::text, 7, '0') AS isrc, '' AS upc, ti AS track_title, a AS artist, r AS release_title, 'Spotify' AS dsp
       FROM unnest(?::text[], ?::text[], ?::text[]) WITH ORDINALITY x(ti, a, r, o)`,
    [keys.map((k) => k.title), keys.map((k) => k.artist), keys.map((k) => k.release)],
  );
  await resolveMatchKeys(trx, tenantId, { sql: 'true', bindings: [] }, { autoCreate: false, keysFrom: 'SELECT * FROM t_keys' });
}

describe('match suggestions: the candidate search is served by an index', function () {
  this.timeout(120_000);
  let app: TestApp;
  let a: TestTenant;

  before(async () => {
    app = await startTestApp();
    a = await createTestTenant(app, 'SuggestIdx');
    // a catalogue large enough that scanning it for every key is not the planner's choice
    await tx(app, a.tenantId, async (trx) => {
      await trx.raw(
        `INSERT INTO assets (tenant_id, title, isrc, display_artist, main_artist)
         SELECT ?, CASE WHEN g % 10 = 0 THEN (ARRAY['Midnight Tides', 'Glass Harbour', 'Paper Suns', 'Low Orbit'])[1 + g / 10 % 4] || ' ' || g ELSE 'Track ' || substr(md5(g::text), 1, 10) END,
                'QZIDX' || lpad(g::text, 7, '0'), 'Nova Lune', ARRAY['Nova Lune']
           FROM generate_series(1, 5000) g`,
        [a.tenantId],
      );
      await trx.raw(
        `INSERT INTO products (tenant_id, title, upc, display_artist, main_artist)
         SELECT ?, 'Release ' || substr(md5(g::text), 1, 10), lpad((100000000000 + g)::text, 13, '0'), 'Nova Lune', ARRAY['Nova Lune'] FROM generate_series(1, 5000) g`,
        [a.tenantId],
      );
    });
    await app.svc.db.owner.raw('ANALYZE assets, products'); // the table owner's statistics
  });
  after(async () => {
    await app.close();
  });

  it('has the trigram and normalised-title indexes on recordings and products', async () => {
    const { rows } = await app.svc.db.owner.raw(
      `SELECT indexname, indexdef FROM pg_indexes WHERE indexname IN ('assets_title_trgm_idx', 'products_title_trgm_idx', 'assets_title_norm_idx', 'products_title_norm_idx') ORDER BY indexname`,
    );
    assert.deepEqual(rows.map((r: any) => r.indexname), ['assets_title_norm_idx', 'assets_title_trgm_idx', 'products_title_norm_idx', 'products_title_trgm_idx']);
    assert.match(rows.find((r: any) => r.indexname === 'assets_title_trgm_idx').indexdef, /USING gin \(lower\(title\) gin_trgm_ops\)/);
  });

  it('searches the candidates through the indexed functions, whose plans use the indexes', async () => {
    // the suggestion INSERT reads candidates from the functions, not by scanning the tables
    await tx(app, a.tenantId, async (trx) => {
      await unknownKeys(trx, a.tenantId, [
        { title: 'Midnight Tides (Live) 12', artist: 'Guest Artist', release: 'Guest Release 1' },
        { title: 'Unheard Song', artist: 'Guest Artist', release: 'Release 77 (Deluxe)' },
      ]);
      for (const fuzzy of [true, false]) {
        for (const kind of ['asset', 'product'] as const) {
          const { rows } = await trx.raw(`EXPLAIN ${suggestionInsertSql(kind, fuzzy)}`, suggestionBindings(a.tenantId, kind));
          const plan = rows.map((r: any) => r['QUERY PLAN']).join('\n');
          assert.match(plan, new RegExp(`Function Scan on rondo_${kind}s_titled${fuzzy ? '_like' : ''} `), plan);
          assert.doesNotMatch(plan, new RegExp(`Seq Scan on ${kind}s `), plan);
        }
      }
    });
    // each function's query, planned for a value (custom plan) and for any value (generic plan)
    const cases = [
      { fn: 'rondo_assets_titled_like', idx: 'assets_title_trgm_idx', value: 'Harbour Lights Remastered' },
      { fn: 'rondo_products_titled_like', idx: 'products_title_trgm_idx', value: 'Guest Release 1' },
      { fn: 'rondo_assets_titled', idx: 'assets_title_norm_idx', value: 'harbourlightsremastered' },
      { fn: 'rondo_products_titled', idx: 'products_title_norm_idx', value: 'guestrelease1' },
    ];
    await app.svc.db.owner.transaction(async (trx) => {
      await trx.raw(`SELECT set_config('app.tenant_id', ?, true), set_config('pg_trgm.similarity_threshold', ?, true)`, [String(a.tenantId), String(SUGGEST_TITLE_THRESHOLD)]);
      for (const c of cases) {
        const { rows: src } = await trx.raw(`SELECT prosrc, proconfig FROM pg_proc WHERE proname = ?`, [c.fn]);
        assert.equal(src.length, 1);
        // the settings the function runs its query with (its SET clauses)
        for (const kv of src[0].proconfig ?? []) await trx.raw(`SELECT set_config(?, ?, true)`, [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]);
        for (const q of [`EXPLAIN (GENERIC_PLAN) ${src[0].prosrc}`, `EXPLAIN ${src[0].prosrc.replace('$1', `'${c.value}'`)}`]) {
          const plan = (await trx.raw(q)).rows.map((r: any) => r['QUERY PLAN']).join('\n');
          assert.match(plan, new RegExp(`(Index Scan using|Index Only Scan using|Bitmap Index Scan on) ${c.idx}\\b`), `${c.fn}: ${plan}`);
        }
      }
    });
  });

  it('the lookups past the row policy return only the workspace the transaction is set to', async () => {
    const b = await createTestTenant(app, 'SuggestIdxB');
    const byA = await tx(app, a.tenantId, async (trx) => {
      await trx.raw(`SELECT set_config('pg_trgm.similarity_threshold', ?, true)`, [String(SUGGEST_TITLE_THRESHOLD)]);
      const like = (await trx.raw(`SELECT count(*)::int AS n FROM rondo_assets_titled_like('Midnight Tides 40')`)).rows[0].n;
      const same = (await trx.raw(`SELECT count(*)::int AS n FROM rondo_assets_titled('midnighttides40')`)).rows[0].n;
      return { like, same };
    });
    assert.ok(byA.like > 0);
    assert.equal(byA.same, 1);
    await tx(app, b.tenantId, async (trx) => {
      await trx.raw(`SELECT set_config('pg_trgm.similarity_threshold', ?, true)`, [String(SUGGEST_TITLE_THRESHOLD)]);
      for (const q of [`rondo_assets_titled_like('Midnight Tides 40')`, `rondo_products_titled_like('Release')`, `rondo_assets_titled('midnighttides40')`])
        assert.equal((await trx.raw(`SELECT count(*)::int AS n FROM ${q}`)).rows[0].n, 0, q);
    });
  });

  it('still suggests a title whose similarity is below the default threshold but reaches the score, and leaves the threshold as it was', async () => {
    await tx(app, a.tenantId, async (trx) => {
      const [glass] = await trx('assets').insert({ tenant_id: a.tenantId, title: 'Glass Harbour', isrc: 'QZIDX9999999', display_artist: 'Nova Lune', main_artist: ['Nova Lune'] }).returning('id');
      await trx.raw(`SELECT set_config('pg_trgm.similarity_threshold', '0.5', true)`);
      await unknownKeys(trx, a.tenantId, [{ title: 'Harbour Lights Remastered', artist: 'Nova Lune', release: 'Guest Release 1' }]);
      // the title alone is 0.25 similar (under pg_trgm's default 0.3): 0.7 · 0.25 + 0.3 · 1 = 0.475
      const { rows: sim } = await trx.raw(`SELECT similarity('glass harbour', 'harbour lights remastered') AS s`);
      assert.equal(sim[0].s, 0.25);
      assert.ok((await suggestMatches(trx, a.tenantId)) > 0);
      const { rows } = await trx.raw(
        `SELECT s.asset_id, s.score::text AS score, s.reason,
                round((0.7 * similarity(lower(x.title), lower(s.title)) + 0.3 * similarity(lower(x.display_artist), lower(s.artist)))::numeric, 4)::text AS expected
           FROM match_suggestions s JOIN assets x ON x.tenant_id = s.tenant_id AND x.id = s.asset_id WHERE s.kind = 'asset' ORDER BY s.score DESC, x.id`,
      );
      assert.equal(rows[0].asset_id, glass.id);
      assert.equal(rows[0].score, '0.4750');
      assert.equal(rows[0].reason, 'similar title');
      for (const r of rows) assert.equal(r.score, r.expected);
      const { rows: t } = await trx.raw(`SELECT current_setting('pg_trgm.similarity_threshold') AS v`);
      assert.equal(t[0].v, '0.5');
    });
  });
});
