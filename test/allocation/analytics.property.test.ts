/**
 * Property: for random statements (two sale months, two currencies, several files), every
 * /royalty/* route answers exactly what a direct SQL sum over the lines (admins) or the
 * member's earnings (members) gives, under random filters; and every line's current
 * earnings sum exactly to its base amount.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import DecimalBase from 'decimal.js';

const Decimal = DecimalBase.clone({ precision: 80 }); // exact sums of NUMERIC(28,12)
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { createArtist, createAsset, createProduct, createSplit, loadStatement, tx, waitForReallocation, type LineIn } from './helpers';

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

  before(async () => {
    app = await startTestApp({ workers: true });
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
    await createSplit(app, t.tenantId, { target: 'asset', id: assets[0]!.id, shares: { [u.owner!.tenantUserId]: '33.333333', [u.admin!.tenantUserId]: '33.333333', [u.user!.tenantUserId]: '33.333334' } });
    await createSplit(app, t.tenantId, { target: 'asset', id: assets[1]!.id, type: 'stream', shares: { [u.user!.tenantUserId]: '12.5', [u.guest!.tenantUserId]: '87.5' } });
    await createSplit(app, t.tenantId, { target: 'artist', id: artists[0]!, shares: { [u.owner!.tenantUserId]: '70', [u.user!.tenantUserId]: '30' } });
    await createSplit(app, t.tenantId, { target: 'product', id: products[1]!.id, territories: ['DE'], shares: { [u.user!.tenantUserId]: '100' } });
    await app.request('PUT', '/currency/rates', {
      token: u.admin!.token,
      body: { rates: [{ currency: 'EUR', month: '2024-01', rate: '1.0873' }, { currency: 'EUR', month: '2024-02', rate: '1.0791' }] },
    });
    await waitForReallocation(app, t.tenantId);
  });
  after(async () => app.close());

  const amount = fc
    .tuple(fc.integer({ min: -2_000_000, max: 50_000_000 }), fc.integer({ min: 0, max: 12 }))
    .map(([n, scale]) => new Decimal(n).div(new Decimal(10).pow(scale)).toFixed());
  const lineArb = fc.record({
    item: fc.integer({ min: 0, max: 7 }), // 0–4 assets, 5 product only, 6 unknown ISRC, 7 nothing
    month: fc.constantFrom('2024-01-01', '2024-02-01'),
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
        : `SELECT ${keyExpr} AS k, sum(e.amount)::text AS revenue, sum(l.quantity)::text AS quantity, count(*)::int AS lines
             FROM royalty_earnings e JOIN royalty_lines l ON l.tenant_id = e.tenant_id AND l.file_id = e.file_id AND l.line_no = e.line_id
             JOIN files f ON f.tenant_id = l.tenant_id AND f.id = l.file_id AND f.status = 'processed'
            WHERE e.superseded_at IS NULL AND e.tenant_user_id = ? AND ${where} GROUP BY 1`;
    const { rows } = await tx(app, t.tenantId, (trx) => trx.raw(sql, payee === null ? b : [payee, ...b]));
    const m = new Map<string, { revenue: string; quantity: string; lines: number }>();
    for (const r of rows) m.set(String(r.k ?? ''), { revenue: new Decimal(r.revenue).toFixed(), quantity: new Decimal(r.quantity).toFixed(), lines: r.lines });
    return m;
  }

  it('every route, admin and member, with and without filters', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fileArb, { minLength: 1, maxLength: 3 }), fc.integer({ min: 0, max: 10 }), async (stmts, filterPick) => {
        for (const s of stmts) {
          const id = await loadStatement(app, t.tenantId, { salePeriodEnd: s.end, lines: s.lines.map(toLine) });
          files.push(id);
        }
        // Exactness of every line's split.
        const { rows: off } = await tx(app, t.tenantId, (trx) =>
          trx.raw(`SELECT l.file_id, l.line_no FROM royalty_lines l JOIN royalty_earnings e ON e.tenant_id = l.tenant_id AND e.file_id = l.file_id AND e.line_id = l.line_no AND e.superseded_at IS NULL
                   GROUP BY l.file_id, l.line_no, l.base_amount HAVING sum(e.amount) <> l.base_amount`),
        );
        assert.deepEqual(off, []);

        const filters: [string, string, any[]][] = [
          ['', 'true', []],
          [`dsp=Spotify`, `l.dsp = ?`, ['Spotify']],
          [`country=DE`, `l.country = ?`, ['DE']],
          [`saleType=download`, `l.sale_type = ?`, ['download']],
          [`artist=${artists[0]}`, `l.artist_id = ?`, [artists[0]]],
          [`asset=${assets[1]!.id}`, `l.asset_id = ?`, [assets[1]!.id]],
          [`product=${products[1]!.id}`, `l.product_id = ?`, [products[1]!.id]],
          [`file=${files[0]}`, `l.file_id = ?`, [files[0]]],
          [`start=2024-02&end=2024-02`, `l.sale_month BETWEEN '2024-02-01' AND '2024-02-29'`, []],
          [`periodFilterType=accounting&start=2024-03-01&end=2024-03-31`, `f.accounting_period = '2024-03-01'`, []],
          [`periodFilterType=sale&start=2024-01-15&dsp=Deezer`, `l.sale_month >= '2024-01-01' AND l.dsp = ?`, ['Deezer']],
        ];
        const [qs, where, b] = filters[filterPick]!;
        for (const [route, key, keyExpr] of ROUTES) {
          for (const who of ['admin', 'user', 'guest'] as const) {
            const payee = who === 'admin' ? null : t.users[who]!.tenantUserId;
            const res = await app.request('GET', `${route}${qs ? `?${qs}` : ''}`, { token: t.users[who]!.token });
            assert.equal(res.status, 200, res.text);
            assert.equal(res.body.data.currency, 'USD');
            const want = await expected(payee, keyExpr, where, b);
            if (filterPick === 0 && who === 'admin') assert.ok(want.size > 0, 'the property must see data');
            const got = new Map<string, unknown>();
            for (const r of res.body.data.rows) got.set(String(key ? r[key] ?? '' : ''), { revenue: r.revenue, quantity: r.quantity, lines: r.lines });
            assert.deepEqual(got, want, `${who} ${route}?${qs}`);
            const tot = [...want.values()].reduce((s, r) => ({ revenue: s.revenue.plus(r.revenue), quantity: s.quantity.plus(r.quantity), lines: s.lines + r.lines }), {
              revenue: new Decimal(0),
              quantity: new Decimal(0),
              lines: 0,
            });
            assert.deepEqual(res.body.data.total, { revenue: tot.revenue.toFixed(), quantity: tot.quantity.toFixed(), lines: tot.lines }, `${who} ${route} total`);
          }
        }
      }),
      { numRuns: 8 },
    );
  });
});
