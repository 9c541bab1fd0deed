/**
 * The session-4 rollup migrations (20261123540000–540300), the quarter catalogue rollup
 * (20261123600000), the cross rollup by accounting period (600100) and its all-time twin
 * (610000, and 610100: fillfactor and a rewrite of the all-time tables) on a workspace that
 * already has data: rolled back one by one (each down() restores the previous schema: the
 * per-item line lists table, the old cross indexes) and applied again (each up() backfills
 * from the files' existing rows: the cross rows' line numbers, the artist × dimension,
 * one-dimension, quarter catalogue, period and all-time cross compact rollups). Afterwards the rollup
 * rows are the same as aggregateFile wrote them, and every /royalty/* answer is unchanged —
 * also when the workspace's cadence changed after its files were aggregated.
 */
import assert from 'node:assert/strict';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { createArtist, createAsset, createSplit, loadStatement, waitForReallocation, type LineIn } from './helpers';

// newest first: 20261124160000 (share sets: the earnings table back from lines ⋈ share sets, and again), 620200 (the item rollup by half-year / year, from the catalogue one), 620100 (the all-time item rollup, from the all-time catalogue rows), 620000 (the half-year / year catalogue rollup, from the files' catalogue rows), 610100 (fillfactor + a rewrite of the all-time tables), 610000 (the all-time cross
// rollup, from the period one), 600100 (the cross rollup by accounting period, from the files'
// cross rows), 600000 (the quarter catalogue rollup, from the files' catalogue rows), then session 4's
const ROLLED_BACK = ['20261123620200_royalty_item_halves_years.ts', '20261123620100_royalty_item_all.ts', '20261123620000_royalty_catalogue_halves_years.ts', '20261123610100_royalty_all_time_fillfactor.ts', '20261123610000_royalty_cross_all.ts', '20261123600100_royalty_cross_periods.ts', '20261123600000_royalty_catalogue_quarters.ts', '20261123540300_royalty_drop_file_lines.ts', '20261123540200_royalty_dim.ts', '20261123540100_royalty_artist_dim.ts', '20261123540000_royalty_cross_line_lists.ts'];

describe('rollup migrations 20261123540000–620200 down and up on existing data', function () {
  this.timeout(120_000);
  let app: TestApp;
  let t: TestTenant;

  before(async () => {
    app = await startTestApp({ workers: true });
    t = await createTestTenant(app, 'Migrations');
    const u = t.users;
    const artists = [await createArtist(app, t.tenantId, 'Alpha'), await createArtist(app, t.tenantId, 'Beta')];
    const isrcs = ['USMIG2400010', 'USMIG2400020', 'USMIG2400030'];
    for (const [i, isrc] of isrcs.entries()) await createAsset(app, t.tenantId, { title: `Song ${i}`, isrc, artistId: artists[i % 2] });
    await createSplit(app, t.tenantId, { target: 'artist', id: artists[0]!, shares: { [u.owner!.tenantUserId]: '70', [u.user!.tenantUserId]: '30' } });
    await createSplit(app, t.tenantId, { target: 'artist', id: artists[1]!, shares: { [u.user!.tenantUserId]: '100' } });
    await waitForReallocation(app, t.tenantId);
    // Quarterly while the files are aggregated (both files: Q1 2024, ending 2024-03-31); the
    // tests switch to monthly afterwards without re-aggregating.
    await app.svc.db.owner('tenants').where({ id: t.tenantId }).update({ accounting_cadence: 'quarterly' });
    const dsps = ['Spotify', 'Deezer', null];
    const countries = ['DE', 'US', 'FR', null];
    for (const [f, month] of ['2024-01-01', '2024-02-01'].entries()) {
      const lines: LineIn[] = [];
      for (let i = 0; i < 40; i++) {
        lines.push({
          saleMonth: i % 9 === 4 ? null : month,
          dsp: dsps[i % 3]!,
          country: countries[(i + f) % 4]!,
          saleType: i % 2 ? 'stream' : 'download',
          aggregator: i % 5 ? 'DistroKid' : null,
          isrc: i % 7 === 6 ? 'ZZUNK2400001' : isrcs[i % 3]!,
          quantity: String(i + 1),
          net: `${(i * 1.375).toFixed(3)}`,
          currency: 'USD',
        });
      }
      await loadStatement(app, t.tenantId, { salePeriodEnd: `${month.slice(0, 8)}28`, lines });
    }
  });
  after(async () => app.close());

  const ROUTES = ['/royalty/', '/royalty/month', '/royalty/dsp', '/royalty/country', '/royalty/artist', '/royalty/asset'];
  const FILTERS = ['', 'country=DE', 'dsp=Spotify&country=DE', 'saleType=stream&start=2024-02', 'periodFilterType=accounting&start=2024-01&end=2024-01', 'start=2024-01&end=2024-03', 'start=2024-01&end=2024-12'];
  async function answers(): Promise<Record<string, unknown>> {
    const out: Record<string, unknown> = {};
    for (const route of ROUTES) {
      for (const qs of FILTERS) {
        for (const who of ['admin', 'user'] as const) {
          const res = await app.request('GET', `${route}${qs ? `?${qs}` : ''}`, { token: t.users[who]!.token });
          assert.equal(res.status, 200, res.text);
          out[`${who} ${route}?${qs}`] = res.body.data;
        }
      }
    }
    return out;
  }
  async function rows(): Promise<Record<string, unknown[]>> {
    const q = async (sql: string) => (await app.svc.db.owner.raw(sql, [t.tenantId])).rows;
    return {
      cross: await q(`SELECT file_id, payee, sale_month, artist_id, product_id, asset_id, dim, value, revenue::text, lines,
                             ARRAY(SELECT x FROM unnest(line_nos) x ORDER BY x) AS line_nos
                        FROM royalty_agg_file_cross WHERE tenant_id = ? ORDER BY 1, 2, 3, 4, 5, 6, 7, 8`),
      artistDim: await q(`SELECT payee, dim, artist_id, value, sale_month, accounting_period, revenue::text, quantity::text, lines
                            FROM royalty_agg_artist_dim WHERE tenant_id = ? ORDER BY 1, 2, 3, 4, 5, 6`),
      dim: await q(`SELECT payee, dim, value, sale_month, accounting_period, revenue::text, quantity::text, lines
                      FROM royalty_agg_dim WHERE tenant_id = ? ORDER BY 1, 2, 3, 4, 5`),
      dimAll: await q(`SELECT payee, dim, value, revenue::text, quantity::text, lines FROM royalty_agg_dim_all WHERE tenant_id = ? ORDER BY 1, 2, 3`),
      catalogueQ: await q(`SELECT payee, sale_quarter, artist_id, product_id, asset_id, revenue::text, quantity::text, lines
                             FROM royalty_agg_catalogue_q WHERE tenant_id = ? ORDER BY 1, 2, 3, 4, 5`),
      itemH: await q(`SELECT payee, kind, grain, period_start, item, revenue::text, quantity::text, lines FROM royalty_agg_item_h WHERE tenant_id = ? ORDER BY 1, 2, 3, 4, 5`),
      itemAll: await q(`SELECT payee, kind, item, revenue::text, quantity::text, lines FROM royalty_agg_item_all WHERE tenant_id = ? ORDER BY 1, 2, 3`),
      catalogueH: await q(`SELECT payee, grain, period_start, artist_id, product_id, asset_id, revenue::text, quantity::text, lines
                             FROM royalty_agg_catalogue_h WHERE tenant_id = ? ORDER BY 1, 2, 3, 4, 5, 6`),
      crossPeriod: await q(`SELECT payee, dim, value, accounting_period, ap_end, artist_id, product_id, asset_id, revenue::text, quantity::text, lines
                              FROM royalty_agg_cross_period WHERE tenant_id = ? ORDER BY 1, 2, 3, 4, 5, 6, 7, 8`),
      crossAll: await q(`SELECT payee, dim, value, artist_id, product_id, asset_id, revenue::text, quantity::text, lines
                           FROM royalty_agg_cross_all WHERE tenant_id = ? ORDER BY 1, 2, 3, 4, 5, 6`),
      memberCross: await q(`SELECT file_id, payee, dim, value, accounting_period, ap_end, artist_id, product_id, asset_id, revenue::text, quantity::text, lines
                              FROM royalty_agg_file_member_cross WHERE tenant_id = ? ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9`),
    };
  }

  it('rolls back to the session-3 schema and back again; rollups and answers unchanged', async () => {
    // The cadence changed after the files were aggregated (no re-aggregation): the backfill
    // keeps each file's period as its rows hold it, or the rebuilt workspace rows would no
    // longer match the file's member rows (the members' prune compares the periods).
    await app.svc.db.owner('tenants').where({ id: t.tenantId }).update({ accounting_cadence: 'monthly' });
    const before = { answers: await answers(), rows: await rows() };
    assert.ok(before.rows.cross.some((r: any) => r.line_nos?.length), 'the workspace cross rows list their lines');
    assert.ok(before.rows.artistDim.length > 0 && before.rows.dim.length > 0 && before.rows.catalogueQ.length > 0 && before.rows.catalogueH.length > 0 && before.rows.itemAll.length > 0 && before.rows.itemH.length > 0 && before.rows.crossPeriod.length > 0 && before.rows.crossAll.length > 0 && before.rows.memberCross.length > 0);

    const owner = app.svc.db.owner;
    // Migrations of later areas go down first, newest applied first (and come back up after these).
    const later: string[] = [];
    while ((await owner('knex_migrations').orderBy('id', 'desc').first('name')).name !== ROLLED_BACK[0]) {
      const [, done] = (await owner.migrate.down()) as [number, string[]];
      later.unshift(...done);
    }
    for (const name of ROLLED_BACK) {
      const [, done] = (await owner.migrate.down()) as [number, string[]];
      assert.deepEqual(done, [name]);
    }
    // The session-3 schema: the per-item line lists are back, rebuilt from the lines.
    const { rows: lists } = await owner.raw(`SELECT count(*)::int AS n, sum(cardinality(line_nos))::int AS nos FROM royalty_agg_file_lines WHERE tenant_id = ?`, [t.tenantId]);
    const { rows: lines } = await owner.raw(`SELECT count(*)::int AS n FROM royalty_lines WHERE tenant_id = ? AND base_amount IS NOT NULL`, [t.tenantId]);
    assert.ok(lists[0].n > 0);
    assert.equal(lists[0].nos, lines[0].n);

    const [, applied] = (await owner.migrate.latest()) as [number, string[]];
    assert.deepEqual(applied, [...[...ROLLED_BACK].reverse(), ...later]);
    const { rows: ff } = await owner.raw(
      `SELECT relname, reloptions FROM pg_class WHERE relname IN ('royalty_agg_catalogue_all', 'royalty_agg_catalogue_h', 'royalty_agg_dims_all', 'royalty_agg_dim_all', 'royalty_agg_cross_all', 'royalty_agg_item_all', 'royalty_agg_item_h') ORDER BY relname`,
    );
    assert.deepEqual(ff.map((r: { reloptions: string[] }) => r.reloptions), Array(7).fill(['fillfactor=50']));
    assert.deepEqual(await rows(), before.rows);
    assert.deepEqual(await answers(), before.answers);
  });

  it('after a cadence change, the line-list path reads the files\' accounting periods as the rollups hold them', async () => {
    // The cadence is monthly now, the files were aggregated quarterly: both files' period
    // (Q1) ends 2024-03-31 in every rollup, so both overlap February. A request answered from
    // the line lists (a recording breakdown under two dimension filters) must agree with the
    // dims rollup (it recomputed the end from today's cadence: January's file dropped out).
    const qs = 'periodFilterType=accounting&start=2024-02&end=2024-02&dsp=Spotify&country=DE';
    for (const who of ['admin', 'user'] as const) {
      const lists = await app.request('GET', `/royalty/asset?${qs}`, { token: t.users[who]!.token });
      const dims = await app.request('GET', `/royalty/?${qs}`, { token: t.users[who]!.token });
      assert.equal(lists.status, 200, lists.text);
      assert.ok(dims.body.data.total.lines > 0, 'the comparison must see data');
      assert.deepEqual(lists.body.data.total, dims.body.data.total, who);
    }
  });
});
