/**
 * Property: for random statements (four sale months, two currencies, several files), every
 * /royalty/* route answers exactly what a direct SQL sum over the lines (admins) or the
 * member's earnings (members) gives, under random filters — single ones and crossed ones
 * (a catalogue filter with a statement-dimension breakdown or filter, the file filter with
 * both, several at once), whichever rollup answers them — after a random change that moves
 * rollups: a file deleted, or a split's shares changed (re-allocation). Paging: the pages of
 * a breakdown, concatenated, are its rows in order; `total` is the same on every page. And
 * every line's current earnings sum exactly to its base amount. The routes are answered by the
 * default engine (the DuckDB replica) and by Postgres alone; the replica's answers equal the
 * lines' in every field.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import DecimalBase from 'decimal.js';

const Decimal = DecimalBase.clone({ precision: 80 }); // exact sums of NUMERIC(28,12)
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { createArtist, createAsset, createProduct, createSplit, loadStatement, setShares, tx, waitForReallocation, type LineIn } from './helpers';
import { planAnalytics } from '../../src/modules/royalty/planner';
import { replicaSumsOf } from '../../src/modules/royalty/engine';
import { engineAnswers, royaltyAnalytics, type AnalyticsQuery, type GroupBy } from '../../src/modules/royalty/analytics';
import { analyticsEngineOf } from '../../src/modules/royalty/analytics-engine';
import { withTenant } from '../../src/db';

const ROUTES: [string, string, string][] = [
  // route, response key, SQL key expression
  ['/royalty/', '', `''`],
  ['/royalty/month', 'month', `to_char(l.sale_month, 'YYYY-MM')`],
  ['/royalty/accountingperiod', 'accountingPeriod', `to_char(f.accounting_period, 'YYYY-MM-DD')`],
  ['/royalty/dsp', 'dsp', 'l.dsp'],
  ['/royalty/country', 'country', 'l.country'],
  ['/royalty/artist', 'artistId', 'l.artist_id::text'],
  ['/royalty/product', 'productId', 'l.product_id::text'],
  ['/royalty/asset', 'assetId', 'l.asset_id::text'],
  ['/royalty/saletype', 'saleType', 'l.sale_type'],
  ['/royalty/aggregator', 'aggregator', 'l.aggregator'],
  ['/royalties/analytics/artist', 'artistId', 'l.artist_id::text'],
  ['/revenue/analytics/country', 'country', 'l.country'],
];

describe('royalty analytics equal direct SQL sums (property-based)', function () {
  this.timeout(170_000);
  let app: TestApp;
  let t: TestTenant;
  let assets: { id: string; isrc: string }[] = [];
  let products: { id: string; upc: string }[] = [];
  let artists: string[] = [];
  const files: string[] = [];
  let split0 = '';

  before(async () => {
    app = await startTestApp({ workers: true });
    assert.equal(app.svc.cfg.analyticsEngine, 'duckdb', 'the replica is the default engine');
    t = await createTestTenant(app, 'Prop');
    const u = t.users;
    artists = [await createArtist(app, t.tenantId, 'Alpha'), await createArtist(app, t.tenantId, 'Beta')];
    const upcs = ['4006381333931', '0012345678905'];
    for (let i = 0; i < 2; i++) products.push({ id: await createProduct(app, t.tenantId, { title: `P${i}`, upc: upcs[i]!, artistId: artists[i] }), upc: upcs[i]! });
    for (let i = 0; i < 5; i++) {
      const isrc = `USPRP24000${i}0`.slice(0, 12);
      assets.push({ id: await createAsset(app, t.tenantId, { title: `Song ${i}`, isrc, artistId: artists[i % 2] }), isrc });
    }
    // Odd shares (rounding), asset > product > artist default, one recording with none at all.
    split0 = await createSplit(app, t.tenantId, { target: 'asset', id: assets[0]!.id, shares: { [u.owner!.tenantUserId]: '33.333333', [u.admin!.tenantUserId]: '33.333333', [u.user!.tenantUserId]: '33.333334' } });
    await createSplit(app, t.tenantId, { target: 'asset', id: assets[1]!.id, type: 'stream', shares: { [u.user!.tenantUserId]: '12.5', [u.guest!.tenantUserId]: '87.5' } });
    await createSplit(app, t.tenantId, { target: 'artist', id: artists[0]!, shares: { [u.owner!.tenantUserId]: '70', [u.user!.tenantUserId]: '30' } });
    await createSplit(app, t.tenantId, { target: 'product', id: products[1]!.id, territories: ['DE'], shares: { [u.user!.tenantUserId]: '100' } });
    await app.request('PUT', '/currency/rates', {
      token: u.admin!.token,
      body: { rates: [{ currency: 'EUR', month: '2024-01', rate: '1.0873' }, { currency: 'EUR', month: '2024-02', rate: '1.0791' },
        { currency: 'EUR', month: '2024-03', rate: '1.0842' }, { currency: 'EUR', month: '2024-04', rate: '1.0725' }] },
    });
    await waitForReallocation(app, t.tenantId);
  });
  after(async () => app.close());

  const amount = fc
    .tuple(fc.integer({ min: -2_000_000, max: 50_000_000 }), fc.integer({ min: 0, max: 12 }))
    .map(([n, scale]) => new Decimal(n).div(new Decimal(10).pow(scale)).toFixed());
  const lineArb = fc.record({
    item: fc.integer({ min: 0, max: 7 }), // 0–4 assets, 5 product only, 6 unknown ISRC, 7 nothing
    month: fc.constantFrom('2024-01-01', '2024-02-01', '2024-03-01', '2024-04-01'),
    currency: fc.constantFrom('USD', 'EUR'),
    dsp: fc.constantFrom('Spotify', 'Apple Music', 'Deezer'),
    country: fc.constantFrom('US', 'DE', 'FR'),
    saleType: fc.constantFrom('stream', 'download'),
    aggregator: fc.constantFrom('DistroKid', 'CD Baby'),
    quantity: fc.integer({ min: 0, max: 5000 }),
    net: amount,
  });
  const fileArb = fc.record({ end: fc.constantFrom('2024-02-29', '2024-03-31'), lines: fc.array(lineArb, { minLength: 1, maxLength: 25 }) });

  function toLine(l: any): LineIn {
    const base: LineIn = { saleMonth: l.month, dsp: l.dsp, country: l.country, saleType: l.saleType, aggregator: l.aggregator, quantity: String(l.quantity), net: l.net, currency: l.currency };
    if (l.item <= 4) return { ...base, isrc: assets[l.item]!.isrc, upc: l.item % 2 ? products[1]!.upc : null };
    if (l.item === 5) return { ...base, upc: products[1]!.upc };
    if (l.item === 6) return { ...base, isrc: 'ZZNOP2400001', trackTitle: 'Not in catalogue' };
    return { ...base, trackTitle: 'Mystery' };
  }

  async function expected(payee: string | null, keyExpr: string, where: string, b: any[]) {
    const sql =
      payee === null
        ? `SELECT ${keyExpr} AS k, sum(l.base_amount)::text AS revenue, sum(l.quantity)::text AS quantity, count(*)::int AS lines
             FROM royalty_lines l JOIN files f ON f.tenant_id = l.tenant_id AND f.id = l.file_id AND f.status = 'processed'
            WHERE ${where} GROUP BY 1`
        : // Σ line amount × the payee's share in the line's share set, exact (shares applied at read, no rounding).
          `SELECT ${keyExpr} AS k, sum(l.base_amount * s.share * 0.01)::text AS revenue,
                  sum(l.quantity)::text AS quantity, count(*)::int AS lines
             FROM royalty_lines l JOIN royalty_share_sets s ON s.tenant_id = l.tenant_id AND s.share_set_id = l.share_set_id
             JOIN files f ON f.tenant_id = l.tenant_id AND f.id = l.file_id AND f.status = 'processed'
            WHERE s.tenant_user_id = ? AND ${where} GROUP BY 1`;
    const { rows } = await tx(app, t.tenantId, (trx) => trx.raw(sql, payee === null ? b : [payee, ...b]));
    const m = new Map<string, { revenue: string; quantity: string; lines: number }>();
    for (const r of rows) m.set(String(r.k ?? ''), { revenue: new Decimal(r.revenue).toFixed(), quantity: new Decimal(r.quantity).toFixed(), lines: r.lines });
    return m;
  }

  // [query string, SQL condition over l (line) and f (file), bindings]
  function filterCases(): [string, string, any[]][] {
    const [a0, a1] = artists as [string, string];
    const [s1, s3] = [assets[1]!.id, assets[3]!.id];
    const p1 = products[1]!.id;
    const f0 = files[0] ?? '00000000-0000-0000-0000-000000000000';
    const fl = files[files.length - 1] ?? f0;
    return [
      ['', 'true', []],
      [`dsp=Spotify`, `l.dsp = ?`, ['Spotify']],
      [`country=DE`, `l.country = ?`, ['DE']],
      [`saleType=download`, `l.sale_type = ?`, ['download']],
      [`artist=${a0}`, `l.artist_id = ?`, [a0]],
      [`asset=${s1}`, `l.asset_id = ?`, [s1]],
      [`product=${p1}`, `l.product_id = ?`, [p1]],
      [`file=${f0}`, `l.file_id = ?`, [f0]],
      [`start=2024-02&end=2024-02`, `l.sale_month BETWEEN '2024-02-01' AND '2024-02-29'`, []],
      [`periodFilterType=accounting&start=2024-03-01&end=2024-03-31`, `f.accounting_period = '2024-03-01'`, []],
      [`periodFilterType=sale&start=2024-01-15&dsp=Deezer`, `l.sale_month >= '2024-01-01' AND l.dsp = ?`, ['Deezer']],
      // crossed: catalogue × statement dimensions, file × catalogue, several at once
      [`artist=${a0}&country=DE`, `l.artist_id = ? AND l.country = ?`, [a0, 'DE']],
      [`asset=${s1}&dsp=Spotify&start=2024-02`, `l.asset_id = ? AND l.dsp = ? AND l.sale_month >= '2024-02-01'`, [s1, 'Spotify']],
      [`file=${fl}&artist=${a1}`, `l.file_id = ? AND l.artist_id = ?`, [fl, a1]],
      [`file=${fl}&asset=${s3}&country=US`, `l.file_id = ? AND l.asset_id = ? AND l.country = ?`, [fl, s3, 'US']],
      [`product=${p1}&saleType=stream&periodFilterType=accounting&start=2024-02-01&end=2024-03-31`,
        `l.product_id = ? AND l.sale_type = ? AND f.accounting_period BETWEEN '2024-02-01' AND '2024-03-01'`, [p1, 'stream']],
      [`artist=${a1}&product=${p1}&dsp=Deezer&end=2024-01`, `l.artist_id = ? AND l.product_id = ? AND l.dsp = ? AND l.sale_month <= '2024-01-31'`, [a1, p1, 'Deezer']],
      [`artist=${a0}&dsp=Apple%20Music&country=FR&saleType=stream`, `l.artist_id = ? AND l.dsp = ? AND l.country = ? AND l.sale_type = ?`, [a0, 'Apple Music', 'FR', 'stream']],
      // artist × statement dimensions, dated and undated (the per-file artist rollup: undated reads every file's rows of the artist)
      [`artist=${a1}&start=2024-02&dsp=Deezer`, `l.artist_id = ? AND l.sale_month >= '2024-02-01' AND l.dsp = ?`, [a1, 'Deezer']],
      [`dsp=Spotify&country=DE`, `l.dsp = ? AND l.country = ?`, ['Spotify', 'DE']],
      // product / recording × two statement dimensions (their lines through the cross rows' line lists)
      [`product=${p1}&dsp=Spotify&country=DE`, `l.product_id = ? AND l.dsp = ? AND l.country = ?`, [p1, 'Spotify', 'DE']],
      [`asset=${s1}&dsp=Spotify&periodFilterType=accounting&start=2024-02-01&end=2024-03-31`,
        `l.asset_id = ? AND l.dsp = ? AND f.accounting_period BETWEEN '2024-02-01' AND '2024-03-01'`, [s1, 'Spotify']],
      [`file=${f0}&asset=${s3}&saleType=stream&end=2024-01`, `l.file_id = ? AND l.asset_id = ? AND l.sale_type = ? AND l.sale_month <= '2024-01-31'`, [f0, s3, 'stream']],
      // sale-dated catalogue
      [`start=2024-01&end=2024-03`, `l.sale_month BETWEEN '2024-01-01' AND '2024-03-31'`, []],
      [`start=2024-01-20&end=2024-04&artist=${a1}`, `l.sale_month BETWEEN '2024-01-01' AND '2024-04-30' AND l.artist_id = ?`, [a1]],
      [`end=2024-03-31&asset=${s1}`, `l.sale_month <= '2024-03-31' AND l.asset_id = ?`, [s1]],
      [`start=2024-01&end=2024-06`, `l.sale_month BETWEEN '2024-01-01' AND '2024-06-30'`, []],
      [`start=2023-07&end=2024-12-31&artist=${a1}`, `l.sale_month BETWEEN '2023-07-01' AND '2024-12-31' AND l.artist_id = ?`, [a1]],
      [`start=2023-10&end=2025-03&product=${p1}`, `l.sale_month BETWEEN '2023-10-01' AND '2025-03-31' AND l.product_id = ?`, [p1]],
      // catalogue breakdowns under one dimension filter, accounting-dated
      [`periodFilterType=accounting&start=2024-02&end=2024-03&country=DE`, `f.accounting_period BETWEEN '2024-02-01' AND '2024-03-01' AND l.country = ?`, ['DE']],
      // a file with two statement dimensions; a product under a dimension and a sale month
      [`file=${f0}&saleType=stream&dsp=Deezer`, `l.file_id = ? AND l.sale_type = ? AND l.dsp = ?`, [f0, 'stream', 'Deezer']],
      [`country=FR&product=${p1}&start=2024-03`, `l.country = ? AND l.product_id = ? AND l.sale_month >= '2024-03-01'`, ['FR', p1]],
    ];
  }
  const FILTERS = 32; // filterCases().length
  const SHARES: Record<string, string>[] = [];

  it('every route, admin and member, with and without filters (crossed too), after deletes and re-allocation; paging', async () => {
    const u = t.users;
    SHARES.push(
      { [u.owner!.tenantUserId]: '33.333333', [u.admin!.tenantUserId]: '33.333333', [u.user!.tenantUserId]: '33.333334' },
      { [u.user!.tenantUserId]: '60', [u.guest!.tenantUserId]: '40' },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(fileArb, { minLength: 1, maxLength: 3 }),
        fc.uniqueArray(fc.integer({ min: 0, max: FILTERS - 1 }), { minLength: 3, maxLength: 3 }),
        fc.constantFrom('none', 'delete', 'reshare'),
        fc.integer({ min: 1, max: 3 }),
        async (stmts, picks, change, pageSize) => {
          for (const s of stmts) {
            const id = await loadStatement(app, t.tenantId, { salePeriodEnd: s.end, lines: s.lines.map(toLine) });
            files.push(id);
          }
          if (change === 'delete' && files.length > 1) {
            const [gone] = files.splice(files.length > 2 ? 1 : 0, 1);
            const del = await app.request('DELETE', `/file/${gone}`, { token: u.admin!.token });
            assert.equal(del.status, 200, del.text);
          } else if (change === 'reshare') {
            // Re-allocation: the asset split's payees change; the job re-aggregates the files it touches.
            SHARES.reverse();
            await setShares(app, t.tenantId, split0, SHARES[0]!);
            await waitForReallocation(app, t.tenantId);
          }
          // Exactness of every line's split.
          const { rows: off } = await tx(app, t.tenantId, (trx) =>
            trx.raw(`SELECT l.file_id, l.line_no FROM royalty_lines l JOIN royalty_share_sets s ON s.tenant_id = l.tenant_id AND s.share_set_id = l.share_set_id
                     GROUP BY l.file_id, l.line_no, l.base_amount
                     HAVING sum(royalty_share_amount(l.base_amount, s.share, s.gets_remainder, s.others)) <> l.base_amount OR sum(s.share) <> 100`),
          );
          assert.deepEqual(off, []);

          const cases = filterCases();
          const unfiltered: number[] = [];
          for (const [round, pick] of [0, ...picks].entries()) {
            const [qs, where, b] = cases[pick]!;
            // the routes read at once (only reads from here on): each with its own assertions
            await Promise.all(ROUTES.map(async ([route, key, keyExpr]) => {
              for (const who of ['admin', 'user', 'guest'] as const) {
                const payee = who === 'admin' ? null : u[who]!.tenantUserId;
                const res = await app.request('GET', `${route}${qs ? `?${qs}` : ''}`, { token: u[who]!.token });
                assert.equal(res.status, 200, res.text);
                assert.equal(res.body.data.currency, 'USD');
                const want = await expected(payee, keyExpr, where, b);
                unfiltered.push(round === 0 && who === 'admin' ? want.size : -1);
                const got = new Map<string, unknown>();
                for (const r of res.body.data.rows) got.set(String(key ? r[key] ?? '' : ''), { revenue: r.revenue, quantity: r.quantity, lines: r.lines });
                assert.deepEqual(got, want, `${who} ${route}?${qs}`);
                const tot = [...want.values()].reduce((s, r) => ({ revenue: s.revenue.plus(r.revenue), quantity: s.quantity.plus(r.quantity), lines: s.lines + r.lines }), {
                  revenue: new Decimal(0),
                  quantity: new Decimal(0),
                  lines: 0,
                });
                const total = { revenue: tot.revenue.toFixed(), quantity: tot.quantity.toFixed(), lines: tot.lines };
                assert.deepEqual(res.body.data.total, total, `${who} ${route}?${qs} total`);
                assert.equal(res.body.data.pagination.total, want.size, `${who} ${route}?${qs} row count`);

                // Paging (catalogue breakdowns are paged by default; any breakdown on request).
                if (key && who !== 'guest') {
                  const pages: unknown[] = [];
                  for (let page = 1; page <= Math.ceil(want.size / pageSize) + 1; page++) {
                    const pr: { status: number; text: string; body: any } = await app.request('GET', `${route}?${qs ? `${qs}&` : ''}page=${page}&size=${pageSize}`, { token: u[who]!.token });
                    assert.equal(pr.status, 200, pr.text);
                    assert.deepEqual(pr.body.data.pagination, { page, size: pageSize, total: want.size });
                    assert.deepEqual(pr.body.data.total, total, `${route} page ${page} total`);
                    assert.ok(pr.body.data.rows.length <= pageSize);
                    pages.push(...pr.body.data.rows);
                  }
                  assert.deepEqual(pages, res.body.data.rows, `${who} ${route}?${qs} pages`);
                }
              }
            }));
          }
          // The property must see data: the admin's unfiltered answer of every route has rows.
          const seen = unfiltered.filter((n) => n >= 0);
          assert.equal(seen.length, ROUTES.length);
          assert.ok(seen.every((n) => n > 0), `unfiltered row counts ${seen.join(', ')}`);
        },
      ),
      { numRuns: 8 },
    );
  });

  it('every filter case once, admin and member, on the final state (each rollup source exercised), from each engine', async () => {
    const u = t.users;
    const cases = filterCases();
    // The default engine (the replica) answered the property above; now each engine in turn.
    for (const engine of ['duckdb', 'postgres'] as const) {
    app.svc.cfg.analyticsEngine = engine;
    for (const [qs, where, b] of cases) {
      await Promise.all(ROUTES.map(async ([route, key, keyExpr]) => {
        for (const who of ['admin', 'user'] as const) {
          const payee = who === 'admin' ? null : u[who]!.tenantUserId;
          const res = await app.request('GET', `${route}${qs ? `?${qs}` : ''}`, { token: u[who]!.token });
          assert.equal(res.status, 200, res.text);
          const want = await expected(payee, keyExpr, where, b);
          const got = new Map<string, unknown>();
          for (const r of res.body.data.rows) got.set(String(key ? r[key] ?? '' : ''), { revenue: r.revenue, quantity: r.quantity, lines: r.lines });
          assert.deepEqual(got, want, `${engine}: ${who} ${route}?${qs}`);
        }
      }));
    }
    }
    app.svc.cfg.analyticsEngine = 'duckdb';
  });

  it('a page of a catalogue or file breakdown taken in the engine, under each figure sort and order, is the page Postgres answers, whole', async () => {
    const u = t.users;
    const routes = ['/royalty/asset', '/royalty/artist', '/royalty/product', '/royalty/tables'];
    const sorts = ['', 'sort=revenue&order=asc', 'sort=quantity', 'sort=quantity&order=asc', 'sort=lines', 'sort=lines&order=asc', 'sort=revenue&order=desc'];
    const answer = async (engine: 'duckdb' | 'postgres', who: 'admin' | 'user', url: string) => {
      app.svc.cfg.analyticsEngine = engine;
      const res = await app.request('GET', url, { token: u[who]!.token });
      assert.equal(res.status, 200, res.text);
      return res.body;
    };
    const stats = analyticsEngineOf(app.svc)!.stats;
    const before = stats.answered;
    for (const route of routes) {
      for (const who of route === '/royalty/tables' ? (['admin'] as const) : (['admin', 'user'] as const)) {
        for (const sort of sorts) {
          for (const [q, page] of [['', 1], ['country=DE', 1], ['', 2], ['', 3]] as const) {
            const url = `${route}?${[q, sort, `page=${page}&size=2`].filter(Boolean).join('&')}`;
            const duck = await answer('duckdb', who, url);
            const pg = await answer('postgres', who, url);
            assert.deepEqual(duck.data, pg.data, `${who} ${url}`);
          }
        }
      }
    }
    app.svc.cfg.analyticsEngine = 'duckdb';
    // the replica answered every page of recordings, products and artists (3 routes × 2 views
    // × 4 cases: the artists from its sums, or under a country from its lines); the files come
    // from the small rollup shapes, Postgres'
    assert.equal(stats.answered - before, 3 * 2 * 4 * sorts.length);
  });

  it('the planner\'s shape answers exactly what the lines answer, for every route × filter case × view; the shape is the coarsest that holds the request', async () => {
    const u = t.users;
    const a1 = artists[1]!;
    const member = u.user!.tenantUserId;
    // [group, query, source for the workspace, source for a member]
    const cases: [GroupBy, AnalyticsQuery, string, string][] = [
      ['total', {}, 'royalty_roll_period', 'royalty_roll_share_set_artist'],
      ['accountingperiod', { file: files[0], start: '2024-02' }, 'royalty_roll_period', 'royalty_roll_share_set_artist'],
      ['month', { country: 'DE', start: '2024-02' }, 'royalty_roll_dims', 'lines × share sets'],
      ['dsp', { saleType: 'stream', periodFilterType: 'accounting', end: '2024-03' }, 'royalty_roll_dims', 'lines × share sets'],
      ['accountingperiod', { saleType: 'stream', artist: a1 }, 'royalty_roll_artist_dims', 'lines × share sets'],
      ['artist', { periodFilterType: 'accounting', start: '2024-01', end: '2024-03', dsp: 'Spotify' }, 'royalty_roll_artist_dims', 'lines × share sets'],
      ['artist', { start: '2024-01' }, 'royalty_roll_share_set_artist', 'royalty_roll_share_set_artist'],
      ['month', { artist: a1, file: files[0] }, 'royalty_roll_share_set_artist', 'royalty_roll_share_set_artist'],
      ['asset', { start: '2024-01', end: '2024-06' }, 'royalty_roll_catalogue', 'royalty_roll_catalogue'],
      ['product', { artist: a1, file: files[0] }, 'royalty_roll_catalogue', 'royalty_roll_catalogue'],
      ['total', { product: products[0]!.id, releaseAssets: [assets[2]!.id] }, 'royalty_roll_catalogue', 'royalty_roll_catalogue'],
      ['asset', { country: 'DE' }, 'lines', 'lines × share sets'],
      ['dsp', { product: products[1]!.id, periodFilterType: 'accounting', end: '2024-02' }, 'lines', 'lines × share sets'],
    ];
    for (const [group, q, ws, mine] of cases) {
      for (const [payee, source] of [[null, ws], [member, mine]] as const) {
        const r = await tx(app, t.tenantId, (trx) => royaltyAnalytics(trx, t.tenantId, payee, group, q));
        assert.equal(r.source, source, `${group} ${JSON.stringify(q)}`);
      }
    }
    // Every route and filter case: the planned source against the lines (raw), both views, all rows.
    const groups = ['total', 'month', 'accountingperiod', 'dsp', 'country', 'artist', 'product', 'asset', 'saletype', 'aggregator'] as GroupBy[];
    const queries: AnalyticsQuery[] = filterCases().map(([qs]) => {
      const o: Record<string, string> = Object.fromEntries(new URLSearchParams(qs));
      return o as AnalyticsQuery;
    });
    assert.equal(queries.length, FILTERS);
    let fromShapes = 0;
    let fromReplica = 0;
    let fromReplicaOverShapes = 0;
    let fromSums = 0;
    for (const q of queries) {
      await Promise.all(groups.map(async (group) => {
        for (const payee of [null, member, u.guest!.tenantUserId]) {
          const r = await tx(app, t.tenantId, (trx) => royaltyAnalytics(trx, t.tenantId, payee, group, q, { size: 1000 }));
          const raw = await tx(app, t.tenantId, (trx) => royaltyAnalytics(trx, t.tenantId, payee, group, q, { raw: true, size: 1000 }));
          assert.deepEqual({ rows: r.rows, total: r.total }, { rows: raw.rows, total: raw.total }, `${payee ?? 'admin'} ${group} ${JSON.stringify(q)} (${r.source})`);
          // The replica's answer: every field of every row (derived ones too) as Postgres' own.
          const d = await withTenant(app.svc.db.app, t.tenantId, (trx) => royaltyAnalytics(trx, t.tenantId, payee, group, q, { size: 1000, engine: analyticsEngineOf(app.svc) }), { snapshot: true });
          // The replica answers what engineAnswers gives it; Postgres the rest.
          const plan = planAnalytics(group, q, payee !== null);
          const byReplica = engineAnswers(plan, group);
          assert.equal(d.source, byReplica ? `duckdb:${replicaSumsOf(plan) ? 'sums' : 'lines'}${payee ? ' × share sets' : ''}` : r.source);
          if (d.source.startsWith('duckdb:sums')) fromSums++;
          if (d.source.startsWith('duckdb')) fromReplica++;
          if (byReplica && r.source !== 'lines' && r.source !== 'lines × share sets') fromReplicaOverShapes++;
          assert.deepEqual({ rows: d.rows, total: d.total, pagination: d.pagination, currency: d.currency }, { rows: raw.rows, total: raw.total, pagination: raw.pagination, currency: raw.currency }, `duckdb ${payee ?? 'admin'} ${group} ${JSON.stringify(q)}`);
          if (!r.source.startsWith('lines')) fromShapes++;
        }
      }));
    }
    assert.ok(fromShapes > queries.length * groups.length, `answered from shapes: ${fromShapes}`);
    // the replica answered every view's statement-dimension reads and the catalogue's recordings and products
    assert.ok(fromReplica > queries.length * 3, `answered by the replica: ${fromReplica}`);
    assert.ok(fromReplicaOverShapes > 0, `recordings or products the catalogue shape holds, answered by the replica: ${fromReplicaOverShapes}`);
    // and its sums answered the breakdowns with no filter but their own columns', every view
    assert.ok(fromSums >= groups.length * 3, `answered by the replica's sums: ${fromSums}`);
  });
});
