/**
 * Migration 20261124210000 (the 19 royalty_agg_* tables → the declared rollup shapes) keeps
 * every figure. A workspace with allocated statements (quarterly cadence while its files were
 * aggregated, monthly since: the files keep the period their rollups hold), a split change
 * (re-allocation) and ledger postings is taken back to the royalty_agg_* schema — its
 * per-file workspace rows, which the migration reads for each file's period, as the former
 * aggregate step wrote them — and migrated again (the shapes backfilled from the lines).
 * Afterwards every analytics route in both views, every balance and the shapes' rows are
 * unchanged.
 */
import assert from 'node:assert/strict';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { createArtist, createAsset, createSplit, loadStatement, setShares, waitForReallocation, type LineIn } from './helpers';
import { SHAPES, rebuildShapes, shapeColumns } from '../../src/modules/royalty/shapes';

const MIGRATION = '20261124210000_royalty_rollup_shapes.ts';

describe('migration to the rollup shapes keeps every figure', function () {
  this.timeout(180_000);
  let app: TestApp;
  let t: TestTenant;

  before(async () => {
    app = await startTestApp({ workers: true });
    t = await createTestTenant(app, 'Migrations');
    const u = t.users;
    const artists = [await createArtist(app, t.tenantId, 'Alpha'), await createArtist(app, t.tenantId, 'Beta')];
    const isrcs = ['USMIG2400010', 'USMIG2400020', 'USMIG2400030'];
    const assets: string[] = [];
    for (const [i, isrc] of isrcs.entries()) assets.push(await createAsset(app, t.tenantId, { title: `Song ${i}`, isrc, artistId: artists[i % 2] }));
    const split = await createSplit(app, t.tenantId, { target: 'asset', id: assets[0]!, shares: { [u.owner!.tenantUserId]: '33.333333', [u.admin!.tenantUserId]: '33.333333', [u.user!.tenantUserId]: '33.333334' } });
    await createSplit(app, t.tenantId, { target: 'artist', id: artists[0]!, shares: { [u.owner!.tenantUserId]: '70', [u.user!.tenantUserId]: '30' } });
    await createSplit(app, t.tenantId, { target: 'artist', id: artists[1]!, shares: { [u.user!.tenantUserId]: '100' } });
    await waitForReallocation(app, t.tenantId);
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
          net: i % 4 === 3 ? `-${(i * 0.1).toFixed(1)}` : `${(i * 1.000000000007).toFixed(12)}`,
          currency: 'USD',
        });
      }
      await loadStatement(app, t.tenantId, { salePeriodEnd: `${month.slice(0, 8)}28`, lines });
    }
    await setShares(app, t.tenantId, split, { [u.owner!.tenantUserId]: '12.5', [u.user!.tenantUserId]: '87.5' });
    await waitForReallocation(app, t.tenantId);
    await app.svc.db.owner('tenants').where({ id: t.tenantId }).update({ accounting_cadence: 'monthly' });
  });
  after(async () => app.close());

  const ROUTES = ['/royalty/', '/royalty/month', '/royalty/accountingperiod', '/royalty/dsp', '/royalty/country', '/royalty/artist', '/royalty/product', '/royalty/asset', '/royalty/saletype', '/royalty/aggregator'];
  const FILTERS = ['', 'country=DE', 'dsp=Spotify&country=DE', 'saleType=stream&start=2024-02', 'periodFilterType=accounting&start=2024-02&end=2024-02', 'start=2024-01&end=2024-03', 'periodFilterType=accounting&start=2024-01&end=2024-12&dsp=Deezer'];
  async function answers(): Promise<Record<string, unknown>> {
    const out: Record<string, unknown> = {};
    const get = async (who: 'owner' | 'admin' | 'user', url: string) => {
      const res = await app.request('GET', url, { token: t.users[who]!.token });
      assert.equal(res.status, 200, `${url}: ${res.text}`);
      out[`${who} ${url}`] = res.body;
    };
    for (const route of ROUTES) for (const qs of FILTERS) for (const who of ['admin', 'user', 'owner'] as const) await get(who, `${route}${qs ? `?${qs}` : ''}`);
    await get('admin', '/accounting/gettotaldue');
    await get('admin', '/accounting/refreshstats');
    for (const who of ['owner', 'admin', 'user'] as const) {
      const id = t.users[who]!.tenantUserId;
      await get('admin', `/accounting/getcurrentdue?userId=${id}`);
      await get(who, `/user/${id}/stats`);
      await get(who, `/user/${id}/monthly`);
    }
    return out;
  }
  async function shapeRows(): Promise<Record<string, unknown[]>> {
    const out: Record<string, unknown[]> = {};
    for (const s of SHAPES) {
      const cols = shapeColumns(s).map((c) => (['revenue', 'quantity'].includes(c) ? `${c}::text` : c)).join(', ');
      out[s.table] = (await app.svc.db.owner.raw(`SELECT ${cols} FROM ${s.table} WHERE tenant_id = ? ORDER BY ${shapeColumns(s).map((_, i) => i + 1).join(', ')}`, [t.tenantId])).rows;
    }
    return out;
  }

  it('down to the royalty_agg_* schema and up again: answers, balances and shape rows unchanged', async () => {
    const before = { answers: await answers(), rows: await shapeRows() };
    assert.ok(Object.values(before.rows).every((r) => r.length > 0));
    // The accounting-period answer holds the files' quarterly period (aggregated before the cadence changed).
    assert.deepEqual((before.answers['admin /royalty/accountingperiod'] as any).data.rows.map((r: any) => r.accountingPeriodEnd), ['2024-03-31']);
    const owner = app.svc.db.owner;
    const later: string[] = [];
    while ((await owner('knex_migrations').orderBy('id', 'desc').first('name')).name !== MIGRATION) {
      const [, done] = (await owner.migrate.down()) as [number, string[]];
      later.unshift(...done);
    }
    const [, down] = (await owner.migrate.down()) as [number, string[]];
    assert.deepEqual(down, [MIGRATION]);
    const { rows: tables } = await owner.raw(`SELECT count(*) FILTER (WHERE relname LIKE 'royalty\\_agg\\_%')::int AS old, count(*) FILTER (WHERE relname LIKE 'royalty\\_roll\\_%')::int AS new FROM pg_class WHERE relkind = 'r'`);
    assert.deepEqual(tables[0], { old: 19, new: 0 });
    // The old schema's per-file workspace rows: the lines' sums by file, month and the four dimensions, with the file's quarterly period.
    const { rows: old } = await owner.raw(
      `SELECT count(*)::int AS n, count(DISTINCT file_id)::int AS files, min(ap_end)::text AS ap_end, trim_scale(sum(revenue))::text AS revenue FROM royalty_agg_file_dims WHERE tenant_id = ?`,
      [t.tenantId],
    );
    const { rows: lines } = await owner.raw(`SELECT trim_scale(sum(base_amount))::text AS revenue FROM royalty_lines WHERE tenant_id = ?`, [t.tenantId]);
    assert.deepEqual({ files: old[0].files, ap_end: old[0].ap_end, revenue: old[0].revenue }, { files: 2, ap_end: '2024-03-31', revenue: lines[0].revenue });

    const [, applied] = (await owner.migrate.latest()) as [number, string[]];
    assert.deepEqual(applied, [MIGRATION, ...later]);
    assert.deepEqual(await shapeRows(), before.rows);
    assert.deepEqual(await answers(), before.answers);

    // What a migration after a changed declaration runs: every shape rebuilt from the lines,
    // each file keeping its period as held.
    await owner.transaction((trx) => rebuildShapes(trx, SHAPES.map((s) => s.table)));
    assert.deepEqual(await shapeRows(), before.rows);
    assert.deepEqual(await answers(), before.answers);
  });
});
