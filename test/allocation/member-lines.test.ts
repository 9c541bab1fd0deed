/**
 * A member's view that no rollup shape answers (by a statement dimension) reads only the lines
 * of what their share sets pay: their recordings through the lines' recording index, and
 * their products' lines without a recording through its partial index (analytics.ts,
 * memberCatalogue). Exact either way: every route equals the direct sum over the lines ⋈ the
 * member's share sets, for a member paid by a recording split and by a product split on
 * lines that name no recording, and for one paid by the recording split only.
 */
import assert from 'node:assert/strict';
import DecimalBase from 'decimal.js';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { createArtist, createAsset, createProduct, createSplit, loadStatement, tx, waitForReallocation, type LineIn } from './helpers';
import { memberCatalogue, royaltyAnalytics } from '../../src/modules/royalty/analytics';
import { routeRegistry } from '../../src/http/route';
import { withTenant } from '../../src/db';

const Decimal = DecimalBase.clone({ precision: 80 });

describe("a member's lines read through their recordings and products", function () {
  this.timeout(120_000);
  let app: TestApp;
  let t: TestTenant;
  let ids: { a1: string; product: string };

  before(async () => {
    app = await startTestApp({ workers: true });
    t = await createTestTenant(app, 'Member lines');
    const u = t.users;
    const artist = await createArtist(app, t.tenantId, 'Emm Lines');
    const a1 = await createAsset(app, t.tenantId, { title: 'One', isrc: 'QZMLN2600001', artistId: artist });
    await createAsset(app, t.tenantId, { title: 'Two', isrc: 'QZMLN2600002', artistId: artist });
    // no artist on the album: its lines without a recording are found by their product alone
    const product = await createProduct(app, t.tenantId, { title: 'The Album', upc: '4006381333931' });
    // user: recording One (40 %) and the album's lines without a recording (100 %); guest:
    // recording One only; owner: recording Two (the artist's default).
    await createSplit(app, t.tenantId, { target: 'asset', id: a1, shares: { [u.user!.tenantUserId]: '40', [u.guest!.tenantUserId]: '60' } });
    await createSplit(app, t.tenantId, { target: 'product', id: product, shares: { [u.user!.tenantUserId]: '100' } });
    await createSplit(app, t.tenantId, { target: 'artist', id: artist, shares: { [u.owner!.tenantUserId]: '100' } });
    await waitForReallocation(app, t.tenantId);
    const lines: LineIn[] = [];
    for (let i = 0; i < 24; i++) {
      const base = { saleMonth: '2024-05-01', dsp: ['Spotify', 'Deezer', 'Tidal'][i % 3]!, country: ['US', 'DE'][i % 2]!, saleType: 'stream', quantity: String(i + 1), net: `${i}.${String(i * 13).padStart(3, '0')}`, currency: 'USD' };
      if (i % 4 === 0) lines.push({ ...base, isrc: 'QZMLN2600001' });
      else if (i % 4 === 1) lines.push({ ...base, isrc: 'QZMLN2600002' });
      else if (i % 4 === 2) lines.push({ ...base, upc: '4006381333931' }); // the album, no recording
      else lines.push({ ...base, isrc: 'QZZZZ2699999' }); // unknown: nobody's
    }
    // recording Two's many more lines: the user's and the guest's are a small part of the workspace's
    for (let i = 0; i < 100; i++) lines.push({ saleMonth: '2024-05-01', dsp: 'Spotify', country: 'FR', saleType: 'stream', isrc: 'QZMLN2600002', quantity: '1', net: '0.25', currency: 'USD' });
    await loadStatement(app, t.tenantId, { salePeriodEnd: '2024-05-31', lines });
    ids = { a1, product };
  });
  after(async () => app?.close());

  async function expected(payee: string, keyExpr: string): Promise<Map<string, { revenue: string; quantity: string; lines: number }>> {
    const { rows } = await tx(app, t.tenantId, (trx) =>
      trx.raw(
        `SELECT ${keyExpr} AS k, sum(l.base_amount * s.share * 0.01)::text AS revenue, sum(l.quantity)::text AS quantity, count(*)::int AS lines
           FROM royalty_lines l JOIN royalty_share_sets s ON s.tenant_id = l.tenant_id AND s.share_set_id = l.share_set_id AND s.tenant_user_id = ?
          GROUP BY 1`,
        [payee],
      ),
    );
    return new Map(rows.map((r: any) => [String(r.k ?? ''), { revenue: new Decimal(r.revenue).toFixed(), quantity: new Decimal(r.quantity).toFixed(), lines: r.lines }]));
  }

  it('lines without a recording are there: each route by a statement dimension equals the direct sum', async () => {
    const noRecording = await tx(app, t.tenantId, (trx) =>
      trx.raw(`SELECT count(*)::int AS n FROM royalty_lines l JOIN royalty_share_sets s ON s.tenant_id = l.tenant_id AND s.share_set_id = l.share_set_id AND s.tenant_user_id = ? WHERE l.asset_id IS NULL AND l.product_id IS NOT NULL`, [t.users.user!.tenantUserId]),
    );
    assert.equal(noRecording.rows[0].n, 6); // the album's lines: the user's only through the product
    // what the user's and the guest's lines are read through: a few recordings and products, not a scan
    const through = async (who: 'user' | 'guest') => tx(app, t.tenantId, (trx) => memberCatalogue(trx, t.tenantId, t.users[who]!.tenantUserId));
    assert.deepEqual(await through('user'), { assets: [ids.a1], products: [ids.product], artists: [] });
    assert.deepEqual(await through('guest'), { assets: [ids.a1], products: [], artists: [] });
    // the owner is paid by most of the workspace's lines (recording Two's): scanned
    assert.equal(await tx(app, t.tenantId, (trx) => memberCatalogue(trx, t.tenantId, t.users.owner!.tenantUserId)), null);
    for (const who of ['user', 'guest'] as const) {
      const payee = t.users[who]!.tenantUserId;
      for (const [group, route, key, keyExpr] of [['dsp', '/royalty/dsp', 'dsp', 'l.dsp'], ['country', '/royalty/country', 'country', 'l.country'], ['saletype', '/royalty/saletype', 'saleType', 'l.sale_type']] as const) {
        const res = await app.request('GET', route, { token: t.users[who]!.token });
        assert.equal(res.status, 200, res.text);
        const got = new Map(res.body.data.rows.map((r: any) => [String(r[key] ?? ''), { revenue: r.revenue, quantity: r.quantity, lines: r.lines }]));
        assert.deepEqual(got, await expected(payee, keyExpr), `${who} ${route}`);
        // answered by the lines (no shape holds a member's statement dimensions)
        const direct = await tx(app, t.tenantId, (trx) => royaltyAnalytics(trx, t.tenantId, payee, group, {}));
        assert.equal(direct.source, 'lines × share sets');
      }
    }
    // the user: recording One's 6 lines and the album's 6; the guest: recording One's 6 lines
    const lines = async (who: 'user' | 'guest') => (await app.request('GET', '/royalty/', { token: t.users[who]!.token })).body.data.total.lines;
    assert.deepEqual([await lines('user'), await lines('guest')], [12, 6]);
  });

  it('the analytics routes read one snapshot: their transaction is REPEATABLE READ', async () => {
    const level = (snapshot: boolean) => withTenant(app.svc.db.app, t.tenantId, async (trx) => (await trx.raw(`SHOW transaction_isolation`)).rows[0].transaction_isolation, { snapshot });
    assert.deepEqual([await level(true), await level(false)], ['repeatable read', 'read committed']);
    const paths = ['/royalty/', '/royalty/month', '/royalty/dsp', '/royalty/country', '/royalty/asset', '/royalties/analytics/artist', '/revenue/analytics/country', '/releases/:id/analytics'];
    assert.deepEqual(paths.map((p) => routeRegistry.find((r) => r.method === 'get' && r.path === p)?.snapshot), paths.map(() => true));
  });
});
