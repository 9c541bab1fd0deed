/**
 * Migration 20261124160000 (per-payee earnings rows → share sets applied at read) keeps every
 * figure. A workspace with allocated statements, a split change (so superseded history) and
 * ledger postings is taken back to the earnings-table schema (down() writes one row per line
 * and payee, current and superseded, as the former allocation stored them), its earnings rows
 * are recorded, and it is migrated to the latest schema again (up() backfills the share sets,
 * the lines' share_set_id and the history from those rows). Afterwards: the earnings read
 * through the view equal the recorded rows exactly, every analytics route answers the same in
 * both views, and every balance, ledger figure, reconciliation and history answer is unchanged.
 */
import assert from 'node:assert/strict';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { createArtist, createAsset, createSplit, loadStatement, setShares, tx, waitForReallocation, type LineIn } from './helpers';

// newest first: the inlinable amount function, then the share sets themselves
const MIGRATIONS = ['20261124160100_royalty_share_amount_inline.ts', '20261124160000_royalty_share_sets.ts'];

describe('migration to share sets keeps every figure', function () {
  this.timeout(180_000);
  let app: TestApp;
  let t: TestTenant;
  let files: string[] = [];

  before(async () => {
    app = await startTestApp({ workers: true });
    t = await createTestTenant(app, 'ShareSetsMigration');
    const u = t.users;
    const artists = [await createArtist(app, t.tenantId, 'Gamma', [u.user!.tenantUserId]), await createArtist(app, t.tenantId, 'Delta')];
    const isrcs = ['USSSM2400010', 'USSSM2400020', 'USSSM2400030'];
    const assets: string[] = [];
    for (const [i, isrc] of isrcs.entries()) assets.push(await createAsset(app, t.tenantId, { title: `Track ${i}`, isrc, artistId: artists[i % 2] }));
    const three = { [u.owner!.tenantUserId]: '33.333333', [u.admin!.tenantUserId]: '33.333333', [u.user!.tenantUserId]: '33.333334' };
    const split = await createSplit(app, t.tenantId, { target: 'asset', id: assets[0]!, shares: three });
    await createSplit(app, t.tenantId, { target: 'artist', id: artists[0]!, shares: { [u.owner!.tenantUserId]: '70', [u.user!.tenantUserId]: '30' } });
    await createSplit(app, t.tenantId, { target: 'artist', id: artists[1]!, shares: { [u.user!.tenantUserId]: '100' } });
    await waitForReallocation(app, t.tenantId);
    const dsps = ['Spotify', 'Deezer', null];
    for (const [f, month] of ['2024-01-01', '2024-02-01'].entries()) {
      const lines: LineIn[] = [];
      for (let i = 0; i < 30; i++) {
        lines.push({
          saleMonth: month,
          dsp: dsps[i % 3]!,
          country: ['DE', 'US', 'FR'][(i + f) % 3]!,
          saleType: i % 2 ? 'stream' : 'download',
          aggregator: i % 5 ? 'DistroKid' : null,
          isrc: i % 7 === 6 ? 'ZZUNK2400009' : isrcs[i % 3]!,
          quantity: String(i + 1),
          net: i % 4 === 3 ? `-${(i * 0.1).toFixed(1)}` : `${(i * 1.000000000007).toFixed(12)}`,
          currency: 'USD',
        });
      }
      files.push(await loadStatement(app, t.tenantId, { salePeriodEnd: `${month.slice(0, 8)}28`, lines }));
    }
    // A split change: the first recording's lines are re-allocated, their earlier rows superseded.
    await setShares(app, t.tenantId, split, { [u.owner!.tenantUserId]: '12.5', [u.user!.tenantUserId]: '87.5' });
    await waitForReallocation(app, t.tenantId);
  });
  after(async () => app.close());

  const ROUTES = ['/royalty/', '/royalty/month', '/royalty/accountingperiod', '/royalty/dsp', '/royalty/country', '/royalty/artist', '/royalty/product', '/royalty/asset', '/royalty/saletype', '/royalty/aggregator'];
  const FILTERS = ['', 'country=DE', 'dsp=Spotify&country=DE', 'saleType=stream&start=2024-02', 'periodFilterType=accounting&start=2024-01&end=2024-01', 'start=2024-01&end=2024-12'];
  async function answers(): Promise<Record<string, unknown>> {
    const out: Record<string, unknown> = {};
    const get = async (who: 'owner' | 'admin' | 'user', url: string) => {
      const res = await app.request('GET', url, { token: t.users[who]!.token });
      assert.equal(res.status, 200, `${url}: ${res.text}`);
      // History row ids are the table's serials under the earnings-table schema (they order rows
      // of the same line and time): compared without them, in payee order.
      const key = (r: any) => `${r.fileId} ${r.lineId.padStart(6, '0')} ${r.createdAt} ${r.tenantUserId}`;
      out[`${who} ${url}`] = url.includes('/history')
        ? { ...res.body, data: res.body.data.map(({ id: _id, ...r }: any) => r).sort((x: any, y: any) => key(x).localeCompare(key(y))) }
        : res.body;
    };
    for (const route of ROUTES) for (const qs of FILTERS) for (const who of ['admin', 'user'] as const) await get(who, `${route}${qs ? `?${qs}` : ''}`);
    for (const f of files) for (const who of ['admin', 'user'] as const) await get(who, `/royalty/allocations/history?fileId=${f}&size=200`);
    await get('admin', '/accounting/gettotaldue');
    await get('admin', '/accounting/refreshstats');
    await get('admin', '/accounting/transactions/summary');
    for (const who of ['owner', 'admin', 'user'] as const) {
      const id = t.users[who]!.tenantUserId;
      await get('admin', `/accounting/getcurrentdue?userId=${id}`);
      await get('admin', `/accounting/${id}/stats`);
      await get(who, `/user/${id}/stats`);
      await get(who, `/user/${id}/monthly`);
    }
    return out;
  }
  const EARNINGS = `SELECT file_id, line_id, tenant_user_id, split_id, share::text, amount::numeric(28,12)::text AS amount, currency, accounting_period, sale_month,
                           asset_id, product_id, artist_id, dsp, country, sale_type, quantity::text, aggregator, superseded_at IS NULL AS current
                      FROM royalty_earnings WHERE tenant_id = ? ORDER BY file_id, line_id, superseded_at NULLS LAST, tenant_user_id`;

  it('down to the earnings table and up again: earnings rows, analytics, balances and history unchanged', async () => {
    const before = await answers();
    const owner = app.svc.db.owner;
    const viewed = (await owner.raw(EARNINGS, [t.tenantId])).rows;
    assert.ok(viewed.some((r: any) => !r.current), 'history rows exist');
    assert.ok(viewed.some((r: any) => !r.current && r.share === '33.333334'), 'the three-payee rows are history');
    assert.ok(viewed.some((r: any) => r.current && r.share === '87.500000'), 'the changed split pays now');

    // Migrations of later areas go down first, newest applied first (and come back up after these).
    const later: string[] = [];
    while ((await owner('knex_migrations').orderBy('id', 'desc').first('name')).name !== MIGRATIONS[0]) {
      const [, done] = (await owner.migrate.down()) as [number, string[]];
      later.unshift(...done);
    }
    for (const name of MIGRATIONS) {
      const [, done] = (await owner.migrate.down()) as [number, string[]];
      assert.deepEqual(done, [name]);
    }
    const { rows: kind } = await owner.raw(`SELECT relkind FROM pg_class WHERE relname = 'royalty_earnings'`);
    assert.equal(kind[0].relkind, 'r'); // a table again: one row per line and payee
    const stored = (await owner.raw(EARNINGS, [t.tenantId])).rows;
    assert.deepEqual(stored, viewed);
    assert.deepEqual(await answers(), before);

    const [, applied] = (await owner.migrate.latest()) as [number, string[]];
    assert.deepEqual(applied, [...[...MIGRATIONS].reverse(), ...later]);
    const { rows: kind2 } = await owner.raw(`SELECT relkind FROM pg_class WHERE relname = 'royalty_earnings'`);
    assert.equal(kind2[0].relkind, 'v');
    assert.deepEqual((await owner.raw(EARNINGS, [t.tenantId])).rows, stored);
    // Share sets grow with split versions, not lines: 3 splits + 1 changed version.
    const { rows: sets } = await owner.raw(`SELECT count(DISTINCT share_set_id)::int AS n FROM royalty_share_sets WHERE tenant_id = ?`, [t.tenantId]);
    assert.equal(sets[0].n, 4);
    assert.deepEqual(await answers(), before);
    // Every line's current earnings still sum to its base amount.
    const off = await tx(app, t.tenantId, (trx) =>
      trx.raw(`SELECT l.line_no FROM royalty_lines l JOIN royalty_earnings e ON e.file_id = l.file_id AND e.line_id = l.line_no AND e.superseded_at IS NULL
                GROUP BY l.file_id, l.line_no, l.base_amount HAVING sum(e.amount) <> l.base_amount`),
    );
    assert.deepEqual(off.rows, []);
  });

  it('royalty_share_amount: the payees of any split size (inline form up to 5, sub-SELECT beyond) sum to the line exactly', async () => {
    const { rows } = await app.svc.db.owner.raw(
      `WITH sets AS (
         SELECT n, array_agg(CASE WHEN i < n THEN 33.333333 / n ELSE 100 - (n - 1) * round(33.333333 / n, 6) END::numeric(9,6) ORDER BY i) AS shares
           FROM generate_series(1, 8) n CROSS JOIN LATERAL generate_series(1, n) i GROUP BY n
       ), bases AS (SELECT b::numeric(28,12) AS base FROM unnest(ARRAY['1.000000000001', '-7.777777777777', '0.000000000001', '123456.789012345678']) b)
       SELECT s.n, b.base, sum(royalty_share_amount(b.base, x.share, x.i = s.n,
                 ARRAY(SELECT y.share FROM unnest(s.shares) WITH ORDINALITY y(share, j) WHERE j <> x.i ORDER BY j))) AS total
         FROM sets s CROSS JOIN bases b CROSS JOIN LATERAL unnest(s.shares) WITH ORDINALITY x(share, i)
        GROUP BY s.n, b.base HAVING sum(royalty_share_amount(b.base, x.share, x.i = s.n,
                 ARRAY(SELECT y.share FROM unnest(s.shares) WITH ORDINALITY y(share, j) WHERE j <> x.i ORDER BY j))) <> b.base`,
    );
    assert.deepEqual(rows, []);
  });
});
