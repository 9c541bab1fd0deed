/**
 * The rollup shapes (shapes.ts) as the aggregate step writes them: a file's rows of every
 * shape are the GROUP BY of its allocated lines by the shape's keys (nothing else), a
 * re-aggregation writes the same rows, and a split change moves only the lines' share sets
 * (the workspace sums stay; the members' figures move, read through the share sets).
 * No shape holds more rows than the file has lines, and none holds a payee.
 */
import assert from 'node:assert/strict';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { createArtist, createAsset, createSplit, loadStatement, setShares, tx, waitForReallocation, type LineIn } from './helpers';
import { aggregateFile } from '../../src/modules/royalty/aggregate';
import { lockTenant } from '../../src/modules/royalty/allocate';
import { SHAPES, shapeKeys } from '../../src/modules/royalty/shapes';

describe('rollup shapes: a file\'s rows are the GROUP BY of its lines', function () {
  this.timeout(120_000);
  let app: TestApp;
  let t: TestTenant;
  let split = '';
  const files: string[] = [];

  before(async () => {
    app = await startTestApp({ workers: true });
    t = await createTestTenant(app, 'Shapes');
    const u = t.users;
    const artist = await createArtist(app, t.tenantId, 'Alpha');
    const isrcs = ['USSHP2400010', 'USSHP2400020'];
    for (const [i, isrc] of isrcs.entries()) await createAsset(app, t.tenantId, { title: `Song ${i}`, isrc, artistId: artist });
    split = await createSplit(app, t.tenantId, { target: 'artist', id: artist, shares: { [u.owner!.tenantUserId]: '70', [u.user!.tenantUserId]: '30' } });
    await waitForReallocation(app, t.tenantId);
    for (const month of ['2024-01-01', '2024-02-01']) {
      const lines: LineIn[] = [];
      for (let i = 0; i < 30; i++) {
        lines.push({ saleMonth: i % 4 ? month : '2023-12-01', dsp: i % 2 ? 'Spotify' : null, country: ['DE', 'US', 'FR'][i % 3]!, saleType: 'stream', aggregator: 'DistroKid', isrc: i % 5 === 4 ? 'ZZSHP2400099' : isrcs[i % 2]!, quantity: String(i + 1), net: `${(i * 0.731).toFixed(3)}`, currency: 'USD' });
      }
      files.push(await loadStatement(app, t.tenantId, { salePeriodEnd: `${month.slice(0, 8)}28`, lines }));
    }
  });
  after(async () => app.close());

  /** Every shape's rows, and the same GROUP BY straight from the lines. */
  async function shapesAndLines(): Promise<{ shape: string; rows: string[]; expected: string[]; lines: number }[]> {
    const out = [];
    for (const s of SHAPES) {
      const keys = shapeKeys(s);
      const row = (p: string) => `concat_ws('/', ${p}file_id, ${keys.map((k) => `coalesce(${p}${k}::text, '∅')`).join(', ')}, trim_scale(revenue), trim_scale(quantity), lines)`;
      const { rows } = await app.svc.db.owner.raw(`SELECT ${row('')} AS x FROM ${s.table} WHERE tenant_id = ? ORDER BY 1`, [t.tenantId]);
      const { rows: want } = await app.svc.db.owner.raw(
        `SELECT concat_ws('/', file_id, ${keys.map((k) => `coalesce(${k}::text, '∅')`).join(', ')}, trim_scale(sum(base_amount)), trim_scale(sum(quantity)), count(*)) AS x
           FROM royalty_lines WHERE tenant_id = ? AND base_amount IS NOT NULL GROUP BY file_id, ${keys.join(', ')} ORDER BY 1`,
        [t.tenantId],
      );
      const { rows: n } = await app.svc.db.owner.raw(`SELECT count(*)::int AS n FROM royalty_lines WHERE tenant_id = ?`, [t.tenantId]);
      out.push({ shape: s.table, rows: rows.map((r: any) => r.x), expected: want.map((r: any) => r.x), lines: n[0].n });
    }
    return out;
  }

  it('each shape = the GROUP BY of the lines by its keys; fewer rows than lines; no payee column', async () => {
    for (const s of await shapesAndLines()) {
      assert.ok(s.rows.length > 0, s.shape);
      assert.deepEqual(s.rows, s.expected, s.shape);
      assert.ok(s.rows.length < s.lines, `${s.shape}: ${s.rows.length} rows for ${s.lines} lines`);
    }
    const { rows } = await app.svc.db.owner.raw(`SELECT table_name FROM information_schema.columns WHERE table_name = ANY(?) AND column_name IN ('payee', 'tenant_user_id')`, [SHAPES.map((s) => s.table)]);
    assert.deepEqual(rows, []);
  });

  it('re-aggregating a file writes the same rows', async () => {
    const before = await shapesAndLines();
    await tx(app, t.tenantId, async (trx) => {
      await lockTenant(trx, t.tenantId);
      await aggregateFile(trx, t.tenantId, files[0]!);
    });
    assert.deepEqual(await shapesAndLines(), before);
  });

  it('a split change moves the lines\' share sets: the workspace sums stay, the members\' figures move', async () => {
    const member = async () => (await app.request('GET', '/royalty/', { token: t.users.user!.token })).body.data.total;
    const admin = async () => (await app.request('GET', '/royalty/product', { token: t.users.admin!.token })).body.data;
    const [m0, a0] = [await member(), await admin()];
    await setShares(app, t.tenantId, split, { [t.users.owner!.tenantUserId]: '50', [t.users.user!.tenantUserId]: '50' });
    await waitForReallocation(app, t.tenantId);
    const after = await shapesAndLines();
    for (const s of after) assert.deepEqual(s.rows, s.expected, s.shape);
    assert.deepEqual(await admin(), a0);
    const m1 = await member();
    assert.equal(m1.lines, m0.lines);
    assert.notEqual(m1.revenue, m0.revenue);
    // 30% → 50% of the same lines: exactly 5/3 of the figure before
    const { rows } = await app.svc.db.owner.raw(`SELECT trim_scale(?::numeric * 5 / 3)::text AS x`, [m0.revenue]);
    assert.equal(m1.revenue, rows[0].x);
  });
});
