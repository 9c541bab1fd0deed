/**
 * The reference service's analytics client flow, played against a live server (workers on):
 * a dashboard's calls (`/royalty/`, `/royalty/month`, `/royalty/dsp`, `/royalty/country`,
 * `/royalty/asset?size=10`, each with `start` and `end`), and every other breakdown, under each of the reference's filters
 * (`dsp`, `country`, `type`, `aggregator`, `artists`, `isrc`, `upc`, comma-separated lists, and
 * all at once) with `includePreviousPeriod=true`. Every figure of every row — Rondo's
 * `revenue`/`quantity`/`lines` and the reference's `Royalty`, `Count`, `Streams`, `Downloads`, `RatePer1K`,
 * `RoyaltyPercentage`, `CountPercentage`, `PreviousRoyalty`, `PreviousCount` — equals what a
 * direct SQL sum of the statement lines gives (exact decimals; the derived fields rounded by
 * the documented rule), for an admin (every line) and for a member (their share).
 */
import assert from 'node:assert/strict';
import DecimalBase from 'decimal.js';
import Papa from 'papaparse';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { createArtist, createAsset, createProduct, createSplit, loadStatement, tx, waitForReallocation, type LineIn } from '../allocation/helpers';

const Decimal = DecimalBase.clone({ precision: 80 });

// route, answer key, SQL key over l (the line), SQL key of the previous period's matching row
const FLOW: [string, string, string, string][] = [
  ['/royalty/', '', `''`, `''`],
  ['/royalty/month', 'month', `to_char(l.sale_month, 'YYYY-MM')`, `to_char(l.sale_month + interval '3 months', 'YYYY-MM')`],
  ['/royalty/dsp', 'dsp', 'l.dsp', 'l.dsp'],
  ['/royalty/country', 'country', 'l.country', 'l.country'],
  ['/royalty/asset?size=10', 'assetId', 'l.asset_id::text', 'l.asset_id::text'],
  // the other breakdowns answer the same row fields
  ['/royalty/accountingperiod', 'accountingPeriod', `to_char(f.accounting_period, 'YYYY-MM-DD')`, `to_char(f.accounting_period + interval '3 months', 'YYYY-MM-DD')`],
  ['/royalty/artist', 'artistId', 'l.artist_id::text', 'l.artist_id::text'],
  ['/royalty/product', 'productId', 'l.product_id::text', 'l.product_id::text'],
  ['/royalty/saletype', 'saleType', 'l.sale_type', 'l.sale_type'],
  ['/royalty/aggregator', 'aggregator', 'l.aggregator', 'l.aggregator'],
  ['/royalties/analytics/artist', 'artistId', 'l.artist_id::text', 'l.artist_id::text'],
  ['/revenue/analytics/country', 'country', 'l.country', 'l.country'],
];

describe("the reference service's analytics client flow (every filter, previous period)", function () {
  this.timeout(170_000);
  let app: TestApp;
  let t: TestTenant;
  const artists: string[] = [];
  const assets: { id: string; isrc: string }[] = [];
  const products: { id: string; upc: string }[] = [];

  before(async () => {
    app = await startTestApp({ workers: true });
    t = await createTestTenant(app, 'RefFlow');
    const u = t.users;
    artists.push(await createArtist(app, t.tenantId, 'Alpha'), await createArtist(app, t.tenantId, 'Beta'));
    for (const [i, upc] of ['4006381333931', '0012345678905'].entries()) products.push({ id: await createProduct(app, t.tenantId, { title: `P${i}`, upc, artistId: artists[i] }), upc });
    for (let i = 0; i < 3; i++) {
      const isrc = `USRFL240000${i}`;
      assets.push({ id: await createAsset(app, t.tenantId, { title: `Song ${i}`, isrc, artistId: artists[i % 2] }), isrc });
    }
    await createSplit(app, t.tenantId, { target: 'asset', id: assets[0]!.id, shares: { [u.user!.tenantUserId]: '33.333333', [u.admin!.tenantUserId]: '66.666667' } });
    await createSplit(app, t.tenantId, { target: 'asset', id: assets[1]!.id, type: 'stream', shares: { [u.user!.tenantUserId]: '12.5', [u.guest!.tenantUserId]: '87.5' } });
    await createSplit(app, t.tenantId, { target: 'artist', id: artists[1]!, shares: { [u.user!.tenantUserId]: '40', [u.owner!.tenantUserId]: '60' } });
    await waitForReallocation(app, t.tenantId);

    // Six sale months (the previous period of April–June is January–March), every dimension varied.
    const dsps = ['Spotify', 'Apple Music', 'Deezer'];
    const countries = ['US', 'DE', 'FR', 'GB'];
    const types = ['stream', 'download'];
    const aggregators = ['DistroKid', 'CD Baby'];
    const lines: LineIn[] = [];
    for (let i = 0; i < 120; i++) {
      const month = `2024-0${(i % 6) + 1}-01`;
      const item = i % 5; // 0–2 recordings (1 also on product 1), 3 product 0 only, 4 nothing in the catalogue
      const base: LineIn = {
        saleMonth: month,
        dsp: dsps[i % 3]!,
        country: countries[(i * 7) % 4]!,
        saleType: types[(i >> 1) % 2]!,
        aggregator: aggregators[(i * 5) % 7 % 2]!,
        quantity: String((i * 37) % 900),
        net: new Decimal((i * 7919) % 200_003 - 20_000).div(new Decimal(10).pow(i % 9)).toFixed(),
        currency: 'USD',
      };
      if (item <= 2) lines.push({ ...base, isrc: assets[item]!.isrc, upc: item === 1 ? products[1]!.upc : null });
      else if (item === 3) lines.push({ ...base, upc: products[0]!.upc });
      else lines.push({ ...base, isrc: 'ZZNOP2400001', trackTitle: 'Not in catalogue' });
    }
    // Two files, each with lines of all six months, in two accounting periods.
    await loadStatement(app, t.tenantId, { lines: lines.slice(0, 60), salePeriodStart: '2024-01-01', salePeriodEnd: '2024-03-31' });
    await loadStatement(app, t.tenantId, { lines: lines.slice(60), salePeriodStart: '2024-04-01', salePeriodEnd: '2024-06-30' });
    const periods = await tx(app, t.tenantId, (trx) => trx('files').orderBy('accounting_period').pluck('accounting_period'));
    assert.equal(new Set(periods.map((d: Date | null) => d && d.toISOString())).size, 2, 'two accounting periods');
    assert.ok(periods.every((d: Date | null) => d !== null));
  });
  after(async () => app.close());

  // [query, SQL condition over l, bindings]
  const cases = (): [string, string, unknown[]][] => [
    ['', 'true', []],
    ['dsp=Spotify,Deezer', 'l.dsp = ANY(?)', [['Spotify', 'Deezer']]],
    ['country=de,%20us', 'l.country = ANY(?)', [['DE', 'US']]],
    ['type=stream', 'l.sale_type = ?', ['stream']],
    ['aggregator=CD%20Baby', 'l.aggregator = ?', ['CD Baby']],
    [`artists=${artists[1]}`, 'l.artist_id = ANY(?::uuid[])', [[artists[1]]]],
    [`artists=${artists.join(',')}`, 'l.artist_id = ANY(?::uuid[])', [artists]],
    [`isrc=${assets[0]!.isrc},${assets[1]!.isrc.toLowerCase()}`, 'l.asset_id IN (SELECT id FROM assets WHERE isrc = ANY(?))', [[assets[0]!.isrc, assets[1]!.isrc]]],
    [`upc=${products[1]!.upc}`, 'l.product_id IN (SELECT id FROM products WHERE upc = ANY(?))', [[products[1]!.upc]]],
    ['isrc=XX0000000000', 'false', []],
    [
      `dsp=Spotify,Apple%20Music&country=US,DE,FR&type=stream,download&aggregator=DistroKid&artists=${artists.join(',')}&isrc=${assets.map((a) => a.isrc).join(',')}`,
      `l.dsp = ANY(?) AND l.country = ANY(?) AND l.sale_type = ANY(?) AND l.aggregator = ? AND l.artist_id = ANY(?::uuid[]) AND l.asset_id IN (SELECT id FROM assets WHERE isrc = ANY(?))`,
      [['Spotify', 'Apple Music'], ['US', 'DE', 'FR'], ['stream', 'download'], 'DistroKid', artists, assets.map((a) => a.isrc)],
    ],
  ];

  type Sums = Map<string, { revenue: string; quantity: string; lines: number; streams: string; downloads: string }>;
  async function sums(payee: string | null, keyExpr: string, months: [string, string], where: string, b: unknown[]): Promise<Sums> {
    const member = payee !== null;
    const sql = `SELECT ${keyExpr} AS k, sum(l.base_amount${member ? ' * s.share * 0.01' : ''})::text AS revenue, sum(l.quantity)::text AS quantity, count(*)::int AS lines,
                        coalesce(sum(l.quantity) FILTER (WHERE l.sale_type = 'stream'), 0)::text AS streams,
                        coalesce(sum(l.quantity) FILTER (WHERE l.sale_type = 'download'), 0)::text AS downloads
                   FROM royalty_lines l JOIN files f ON f.tenant_id = l.tenant_id AND f.id = l.file_id AND f.status = 'processed'
                   ${member ? 'JOIN royalty_share_sets s ON s.tenant_id = l.tenant_id AND s.share_set_id = l.share_set_id AND s.tenant_user_id = ?' : ''}
                  WHERE l.sale_month BETWEEN ?::date AND ?::date AND (${where}) GROUP BY 1`;
    const { rows } = await tx(app, t.tenantId, (trx) => trx.raw(sql, [...(member ? [payee] : []), ...months, ...b] as any));
    return new Map(rows.map((r: any) => [String(r.k ?? ''), { revenue: new Decimal(r.revenue).toFixed(), quantity: new Decimal(r.quantity).toFixed(), lines: r.lines, streams: new Decimal(r.streams).toFixed(), downloads: new Decimal(r.downloads).toFixed() }]));
  }
  const round = (d: DecimalBase, places: number) => new Decimal(d).toDecimalPlaces(places, Decimal.ROUND_HALF_UP).toFixed();
  const ratio = (a: string, b: DecimalBase | string, times: number, places: number) => (new Decimal(b).isZero() ? null : round(new Decimal(a).times(times).div(b), places));

  for (const view of ['admin', 'user'] as const) {
    it(`${view === 'admin' ? 'an admin (every line)' : 'a member (their share)'}: every dashboard call under every filter, with the previous period, equals the lines' sums`, async () => {
      const who = t.users[view]!;
      const payee = view === 'admin' ? null : who.tenantUserId;
      let nonEmpty = 0;
      for (const [query, where, b] of cases()) {
        for (const [route, key, keyExpr, prevKeyExpr] of FLOW) {
          const sep = route.includes('?') ? '&' : '?';
          const url = `${route}${sep}start=2024-04-01&end=2024-06-30&includePreviousPeriod=true${query ? `&${query}` : ''}`;
          const res = await app.request('GET', url, { token: who.token });
          assert.equal(res.status, 200, `${url}: ${res.text}`);
          const now = await sums(payee, keyExpr, ['2024-04-01', '2024-06-30'], where, b);
          const before = await sums(payee, prevKeyExpr, ['2024-01-01', '2024-03-31'], where, b);
          const total = [...now.values()].reduce((s, r) => ({ revenue: s.revenue.plus(r.revenue), quantity: s.quantity.plus(r.quantity) }), { revenue: new Decimal(0), quantity: new Decimal(0) });
          const rows = res.body.data.rows as Record<string, unknown>[];
          assert.deepEqual(rows.map((r) => String(r[key] ?? '')).sort(), [...now.keys()].sort(), `${url}: row keys`);
          for (const r of rows) {
            const k = String(r[key] ?? '');
            const e = now.get(k)!;
            const p = before.get(k);
            const want = {
              revenue: e.revenue,
              quantity: e.quantity,
              lines: e.lines,
              Royalty: e.revenue,
              Count: e.quantity,
              Streams: e.streams,
              Downloads: e.downloads,
              RatePer1K: ratio(e.revenue, e.quantity, 1000, 6),
              RoyaltyPercentage: ratio(e.revenue, total.revenue, 100, 4),
              CountPercentage: ratio(e.quantity, total.quantity, 100, 4),
              PreviousRoyalty: p?.revenue ?? '0',
              PreviousCount: p?.quantity ?? '0',
            };
            const got = Object.fromEntries(Object.keys(want).map((f) => [f, r[f]]));
            assert.deepEqual(got, want, `${url} row ${k}`);
          }
          assert.deepEqual(res.body.data.total, { revenue: total.revenue.toFixed(), quantity: total.quantity.toFixed(), lines: [...now.values()].reduce((s, r) => s + r.lines, 0) }, `${url}: total`);
          const prevTotal = [...before.values()].reduce((s, r) => s.plus(r.revenue), new Decimal(0));
          assert.deepEqual(
            { start: res.body.data.previous.start, end: res.body.data.previous.end, revenue: res.body.data.previous.total.revenue },
            { start: '2024-01-01', end: '2024-03-31', revenue: prevTotal.toFixed() },
            `${url}: previous`,
          );
          if (rows.length) nonEmpty++;
        }
      }
      // The data make every call but the no-match ISRC's answer rows.
      assert.equal(nonEmpty, (cases().length - 1) * FLOW.length);
    });
  }

  it('/royalty/tables: one row per statement file with its name, under every filter with the previous period; table_name selects files; admins only', async () => {
    const token = t.users.admin!.token;
    const names = new Map<string, string>();
    await tx(app, t.tenantId, async (trx) => {
      for (const f of await trx('files').select('id', 'original_name')) names.set(f.id, f.original_name);
    });
    const fileIds = [...names.keys()].sort();
    assert.equal(fileIds.length, 2);
    for (const [query, where, b] of [...cases(), [`table_name=${fileIds[1]}`, 'l.file_id = ?', [fileIds[1]]] as [string, string, unknown[]]]) {
      const url = `/royalty/tables?start=2024-04&end=2024-06&includePreviousPeriod=true${query ? `&${query}` : ''}`;
      const res = await app.request('GET', url, { token });
      assert.equal(res.status, 200, `${url}: ${res.text}`);
      const now = await sums(null, 'l.file_id::text', ['2024-04-01', '2024-06-30'], where, b);
      const before = await sums(null, 'l.file_id::text', ['2024-01-01', '2024-03-31'], where, b);
      const got = (res.body.data.rows as any[]).map((r) => [r.fileId, r.table_name, r.fileName, r.Royalty, r.Count, r.lines, r.PreviousRoyalty, r.PreviousCount]).sort();
      const want = [...now.entries()].map(([k, e]) => [k, k, names.get(k), e.revenue, e.quantity, e.lines, before.get(k)?.revenue ?? '0', before.get(k)?.quantity ?? '0']).sort();
      assert.deepEqual(got, want, url);
    }
    // the OpenAPI document names the row fields clients read
    const doc = (await app.request('GET', '/openapi.json')).body;
    const resolve = (x: any): any => (x?.$ref ? doc.components.schemas[x.$ref.split('/').pop()] : x);
    for (const route of ['/royalty/', '/royalty/asset', '/royalty/tables']) {
      const answer = resolve(doc.paths[route].get.responses['200'].content['application/json'].schema);
      const row = resolve(resolve(resolve(answer.properties.data).properties.rows).items);
      for (const f of ['Royalty', 'Count', 'Streams', 'Downloads', 'RatePer1K', 'RoyaltyPercentage', 'CountPercentage', 'PreviousRoyalty', 'PreviousCount']) assert.ok(f in row.properties, `${route}: ${f}`);
    }
    const member = await app.request('GET', '/royalty/tables', { token: t.users.user!.token });
    assert.equal(member.status, 403);
  });

  it("a breakdown's CSV export applies the reference's filters (its rows sum to the filtered lines)", async () => {
    for (const who of ['admin', 'user'] as const) {
      const payee = who === 'admin' ? null : t.users.user!.tenantUserId;
      const res = await app.request('GET', `/royalty/dsp?format=csv&start=2024-04&end=2024-06&isrc=${assets[0]!.isrc}&type=stream`, { token: t.users[who]!.token });
      assert.equal(res.status, 200, res.text);
      const rows = Papa.parse<Record<string, string>>(res.text, { header: true, skipEmptyLines: true }).data;
      const want = await sums(payee, 'l.dsp', ['2024-04-01', '2024-06-30'], 'l.asset_id = ? AND l.sale_type = ?', [assets[0]!.id, 'stream']);
      assert.deepEqual(rows.map((r) => [r.dsp, new Decimal(r.revenue!).toFixed()]).sort(), [...want.entries()].map(([k, e]) => [k, e.revenue]).sort(), who);
      assert.ok(rows.length > 0);
    }
  });

  it('the previous period needs both dates; a malformed artist list is refused, named', async () => {
    const token = t.users.admin!.token;
    const noEnd = await app.request('GET', '/royalty/month?start=2024-04&includePreviousPeriod=true', { token });
    assert.equal(noEnd.status, 400);
    assert.deepEqual([noEnd.body.status, noEnd.body.message, noEnd.body.details], ['error', 'includePreviousPeriod needs start and end', ['query.end: required with includePreviousPeriod']]);
    const bad = await app.request('GET', '/royalty/dsp?artists=not-a-uuid', { token });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.status, 'error');
    assert.ok(bad.body.details.some((d: string) => d.startsWith('query.artists')), bad.text);
  });

  it('without includePreviousPeriod the rows carry no previous figures; Rondo\'s paging stays', async () => {
    const res = await app.request('GET', `/royalty/asset?start=2024-04&end=2024-06&size=2&page=1`, { token: t.users.admin!.token });
    assert.equal(res.status, 200);
    assert.equal(res.body.data.rows.length, 2);
    assert.deepEqual(res.body.data.pagination, { page: 1, size: 2, total: 4 });
    assert.equal(res.body.data.previous, undefined);
    assert.ok(res.body.data.rows.every((r: Record<string, unknown>) => !('PreviousRoyalty' in r) && typeof r.Royalty === 'string'));
  });

  it('sort and order order the rows on the server before the page is taken (names, figures, both directions; the download keeps the order)', async () => {
    const token = t.users.admin!.token;
    const pages = async (q: string, size: number, n: number) => {
      const rows: Record<string, string>[] = [];
      for (let page = 1; page <= n; page++) {
        const res = await app.request('GET', `/royalty/asset?start=2024-01&end=2024-06&${q}&size=${size}&page=${page}`, { token });
        assert.equal(res.status, 200, res.text);
        rows.push(...res.body.data.rows);
      }
      return rows;
    };
    assert.deepEqual((await pages('sort=name', 1, 4)).map((r) => r.asset), ['Song 0', 'Song 1', 'Song 2', null]);
    assert.deepEqual((await pages('sort=name&order=desc', 1, 4)).map((r) => r.asset), ['Song 2', 'Song 1', 'Song 0', null]);
    const up = (await pages('sort=revenue&order=asc', 2, 2)).map((r) => new Decimal(r.revenue!));
    assert.equal(up.length, 4);
    assert.ok(up.every((v, i) => i === 0 || up[i - 1]!.lte(v)), up.join(' '));
    assert.ok(!up[0]!.eq(up[3]!));
    const byQty = (await app.request('GET', '/royalty/dsp?sort=quantity&order=asc', { token })).body.data.rows.map((r: Record<string, string>) => new Decimal(r.quantity!));
    assert.equal(byQty.length, 3);
    assert.ok(byQty.every((v: DecimalBase, i: number) => i === 0 || byQty[i - 1]!.lte(v)), byQty.join(' '));
    const dspNames = (await app.request('GET', '/royalty/dsp?sort=name&order=desc', { token })).body.data.rows.map((r: Record<string, string>) => r.dsp);
    assert.deepEqual(dspNames, ['Spotify', 'Deezer', 'Apple Music']);
    const csv = await app.request('GET', '/royalty/asset?format=csv&start=2024-01&end=2024-06&sort=name&order=desc', { token });
    assert.equal(csv.status, 200, csv.text);
    assert.deepEqual(Papa.parse<Record<string, string>>(csv.text, { header: true, skipEmptyLines: true }).data.map((r) => r.asset), ['Song 2', 'Song 1', 'Song 0', '']);
    const bad = await app.request('GET', '/royalty/asset?sort=title', { token });
    assert.equal(bad.status, 400);
    assert.ok(bad.body.details.some((d: string) => d.startsWith('query.sort')), bad.text);
  });
});
