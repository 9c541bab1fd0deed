/**
 * aggregateFile moves a file's contribution in the compact rollups by its NET change (new
 * per-file rows minus the old ones): re-aggregating an unchanged file writes no compact row,
 * and after a split change only the members' rows move — the workspace rows (sums of the
 * unchanged lines) keep their row versions — while every compact table still equals the sum
 * of the files' per-file rows.
 */
import assert from 'node:assert/strict';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { createArtist, createAsset, createSplit, loadStatement, setShares, tx, waitForReallocation, type LineIn } from './helpers';
import { aggregateFile } from '../../src/modules/royalty/aggregate';
import { lockTenant } from '../../src/modules/royalty/allocate';

const ZERO = '00000000-0000-0000-0000-000000000000';
const COMPACT = ['royalty_agg_cross_all', 'royalty_agg_cross_period', 'royalty_agg_catalogue_all', 'royalty_agg_catalogue', 'royalty_agg_catalogue_h', 'royalty_agg_item_all', 'royalty_agg_item_h', 'royalty_agg_dims_all', 'royalty_agg_artist_dim', 'royalty_agg_period'];

describe('aggregateFile: compact rollups move by the net change only', function () {
  this.timeout(120_000);
  let app: TestApp;
  let t: TestTenant;
  let split = '';
  const files: string[] = [];

  before(async () => {
    app = await startTestApp({ workers: true });
    t = await createTestTenant(app, 'Net');
    const u = t.users;
    const artist = await createArtist(app, t.tenantId, 'Alpha');
    const isrcs = ['USNET2400010', 'USNET2400020'];
    for (const [i, isrc] of isrcs.entries()) await createAsset(app, t.tenantId, { title: `Song ${i}`, isrc, artistId: artist });
    split = await createSplit(app, t.tenantId, { target: 'artist', id: artist, shares: { [u.owner!.tenantUserId]: '70', [u.user!.tenantUserId]: '30' } });
    await waitForReallocation(app, t.tenantId);
    for (const month of ['2024-01-01', '2024-02-01']) {
      const lines: LineIn[] = [];
      for (let i = 0; i < 30; i++) {
        lines.push({ saleMonth: month, dsp: i % 2 ? 'Spotify' : 'Deezer', country: ['DE', 'US', 'FR'][i % 3]!, saleType: 'stream', aggregator: 'DistroKid', isrc: isrcs[i % 2]!, quantity: String(i + 1), net: `${(i * 0.731).toFixed(3)}`, currency: 'USD' });
      }
      files.push(await loadStatement(app, t.tenantId, { salePeriodEnd: `${month.slice(0, 8)}28`, lines }));
    }
  });
  after(async () => app.close());

  /** Every compact row of the workspace with its row version (xmin) and amounts. */
  async function snapshot(): Promise<Record<string, { key: string; xmin: string; amounts: string }[]>> {
    const out: Record<string, { key: string; xmin: string; amounts: string }[]> = {};
    for (const table of COMPACT) {
      const { rows } = await app.svc.db.owner.raw(
        `SELECT xmin::text AS xmin, payee::text AS payee, (to_jsonb(c) - 'revenue' - 'quantity' - 'lines')::text AS key, concat_ws('/', revenue, quantity, lines) AS amounts
           FROM ${table} c WHERE tenant_id = ? ORDER BY 3`,
        [t.tenantId],
      );
      out[table] = rows;
    }
    return out;
  }
  const reaggregate = (fileId: string) =>
    tx(app, t.tenantId, async (trx) => {
      await lockTenant(trx, t.tenantId);
      await aggregateFile(trx, t.tenantId, fileId);
    });

  it('re-aggregating an unchanged file writes no compact row', async () => {
    const before = await snapshot();
    assert.ok(before.royalty_agg_cross_all!.length > 0);
    await reaggregate(files[0]!);
    assert.deepEqual(await snapshot(), before);
  });

  it('after a split change, the members\' rows move and the workspace rows keep their versions', async () => {
    const before = await snapshot();
    await setShares(app, t.tenantId, split, { [t.users.owner!.tenantUserId]: '50', [t.users.user!.tenantUserId]: '50' });
    await waitForReallocation(app, t.tenantId);
    const after = await snapshot();
    for (const table of COMPACT) {
      const ws = (s: typeof before) => s[table]!.filter((r: any) => r.payee === ZERO);
      assert.deepEqual(ws(after), ws(before), `${table}: workspace rows untouched`);
      const members = (s: typeof before) => s[table]!.filter((r: any) => r.payee !== ZERO).map((r) => r.amounts);
      assert.notDeepEqual(members(after), members(before), `${table}: the members' rows moved`);
    }
    // Each compact table still equals its per-file source: the all-time cross table, from the
    // files' workspace cross rows and member cross rows.
    const { rows } = await app.svc.db.owner.raw(
      `SELECT (SELECT json_agg(x ORDER BY x) FROM (SELECT concat_ws('/', payee, dim, value, asset_id, trim_scale(revenue), trim_scale(quantity), lines) x FROM royalty_agg_cross_all WHERE tenant_id = ?) a) AS compact,
              (SELECT json_agg(x ORDER BY x) FROM (
                 SELECT concat_ws('/', payee, dim, value, asset_id, trim_scale(sum(revenue)), trim_scale(sum(quantity)), sum(lines)) x FROM (
                   SELECT payee, dim, value, asset_id, revenue, quantity, lines FROM royalty_agg_file_cross WHERE tenant_id = ? AND payee = ?
                   UNION ALL SELECT payee, dim, value, asset_id, revenue, quantity, lines FROM royalty_agg_file_member_cross WHERE tenant_id = ?) s
                 GROUP BY payee, dim, value, asset_id) b) AS files`,
      [t.tenantId, t.tenantId, ZERO, t.tenantId],
    );
    assert.ok(rows[0].compact.length > 0);
    assert.deepEqual(rows[0].compact, rows[0].files);
  });
});
