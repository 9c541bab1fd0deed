/**
 * The analytics planner (pure): request → rollup shape + period cover. The coarsest declared
 * shape holding every column a request groups or filters by answers; a member's view only
 * from a shape keyed by share set; what no shape holds reads the statement lines.
 */
import assert from 'node:assert/strict';
import { planAnalytics, periodCover, type AnalyticsQuery, type GroupBy } from '../../../src/modules/royalty/planner';
import { SHAPES, shapeBuildOrder, shapeChains, shapeDdl, shapeInsert, shapeKeys, DIMENSION_COLUMNS, CATALOGUE } from '../../../src/modules/royalty/shapes';

const A = '11111111-1111-1111-1111-111111111111';
const shapeOf = (group: GroupBy, q: AnalyticsQuery, member = false) => planAnalytics(group, q, member).shape?.table ?? 'lines';

describe('analytics planner (request → shape + period cover)', () => {
  it('workspace: totals, months and periods from the period shape; statement dimensions from the dimensions shape', () => {
    for (const g of ['total', 'month', 'accountingperiod'] as GroupBy[]) {
      assert.equal(shapeOf(g, {}), 'royalty_roll_period', g);
      assert.equal(shapeOf(g, { file: A, periodFilterType: 'accounting', start: '2024-01' }), 'royalty_roll_period', g);
      assert.equal(shapeOf(g, { dsp: 'Spotify', country: 'DE', saleType: 'stream', start: '2024-01', end: '2024-03' }), 'royalty_roll_dims', g);
    }
    for (const g of ['dsp', 'country', 'saletype', 'aggregator'] as GroupBy[]) assert.equal(shapeOf(g, { dsp: 'Spotify' }), 'royalty_roll_dims', g);
  });

  it('workspace: artists from the share set × artist shape; the catalogue shape for products and recordings; artists × dimensions from their own shape', () => {
    assert.equal(shapeOf('artist', {}), 'royalty_roll_share_set_artist');
    assert.equal(shapeOf('total', { artist: A, start: '2024-01', end: '2024-06' }), 'royalty_roll_share_set_artist');
    assert.equal(shapeOf('artist', { file: A, periodFilterType: 'accounting', start: '2024-01' }), 'royalty_roll_share_set_artist');
    assert.equal(shapeOf('product', {}), 'royalty_roll_catalogue');
    assert.equal(shapeOf('asset', { artist: A, start: '2024-01' }), 'royalty_roll_catalogue');
    assert.equal(shapeOf('month', { product: A, releaseAssets: [A] }), 'royalty_roll_catalogue');
    assert.equal(shapeOf('total', { asset: A, file: A }), 'royalty_roll_catalogue');
    assert.equal(shapeOf('artist', { country: 'DE' }), 'royalty_roll_artist_dims');
    assert.equal(shapeOf('dsp', { artist: A, saleType: 'stream' }), 'royalty_roll_artist_dims');
    assert.equal(shapeOf('asset', { country: 'DE' }), 'lines');
    assert.equal(shapeOf('dsp', { product: A }), 'lines');
  });

  it('members: only shapes keyed by share set (share set × artist, then the catalogue); statement dimensions from the lines', () => {
    for (const g of ['total', 'month', 'accountingperiod', 'artist'] as GroupBy[]) {
      assert.equal(shapeOf(g, { start: '2024-02' }, true), 'royalty_roll_share_set_artist', g);
      assert.equal(shapeOf(g, { artist: A, file: A }, true), 'royalty_roll_share_set_artist', g);
    }
    for (const g of ['product', 'asset'] as GroupBy[]) assert.equal(shapeOf(g, { start: '2024-02' }, true), 'royalty_roll_catalogue', g);
    assert.equal(shapeOf('total', { asset: A }, true), 'royalty_roll_catalogue');
    for (const g of ['dsp', 'country', 'saletype', 'aggregator'] as GroupBy[]) assert.equal(shapeOf(g, {}, true), 'lines', g);
    assert.equal(shapeOf('artist', { dsp: 'Spotify' }, true), 'lines');
    assert.ok(planAnalytics('total', {}, true).needs.includes('share_set_id'));
  });

  it('raw: the lines whatever shape could answer', () => {
    assert.equal(planAnalytics('total', {}, false, { raw: true }).shape, null);
  });

  it('every plan with a shape: the shape holds every column the request needs (any breakdown × any filter set)', () => {
    const groups: GroupBy[] = ['total', 'month', 'accountingperiod', 'dsp', 'country', 'artist', 'product', 'asset', 'saletype', 'aggregator'];
    const filters: AnalyticsQuery[] = [{}, { dsp: 'x' }, { country: 'de' }, { saleType: 's' }, { artist: A }, { product: A }, { asset: A }, { file: A }, { releaseAssets: [A] }, { start: '2024-01' }, { end: '2024-02-15' }];
    for (const g of groups)
      for (const f1 of filters)
        for (const f2 of filters)
          for (const member of [false, true]) {
            const p = planAnalytics(g, { ...f1, ...f2 }, member);
            assert.ok(p.shape === null || p.needs.every((c) => shapeKeys(p.shape!).includes(c)), `${g} ${JSON.stringify({ ...f1, ...f2 })}`);
            // the coarsest: no EARLIER shape holds them all
            const i = p.shape ? SHAPES.indexOf(p.shape) : SHAPES.length;
            for (const s of SHAPES.slice(0, i)) assert.ok(!p.needs.every((c) => shapeKeys(s).includes(c)));
          }
  });

  it('period cover: sale months from the start month\'s first day; accounting periods overlapping the range', () => {
    assert.deepEqual(periodCover({ start: '2024-01-15', end: '2024-02' }), { by: 'sale', from: '2024-01-01', to: '2024-02-29' });
    assert.deepEqual(periodCover({ periodFilterType: 'accounting', start: '2024-01-15', end: '2024-03' }), { by: 'accounting', from: '2024-01-15', to: '2024-03-31' });
    assert.deepEqual(periodCover({}), { by: 'sale', from: null, to: null });
    const acc = planAnalytics('total', { periodFilterType: 'accounting', start: '2024-01', end: '2024-03' }, false);
    assert.deepEqual(acc.filters.map((f) => [f.sql, f.b]), [[`ap_end >= ?::date`, ['2024-01-01']], [`accounting_period <= ?::date`, ['2024-03-31']]]);
    assert.throws(() => periodCover({ start: '2024-13' }), /start must be YYYY-MM or YYYY-MM-DD/);
    assert.throws(() => periodCover({ end: '2024-02-30' }), /end must be/);
  });

  it('chains: the build order cut where a shape is built from the lines; the heaviest first; each chain self-contained', () => {
    const chains = shapeChains();
    assert.deepEqual(chains.map((c) => c.map((s) => s.table)), [
      ['royalty_roll_catalogue', 'royalty_roll_share_set_artist'],
      ['royalty_roll_artist_dims', 'royalty_roll_dims', 'royalty_roll_period'],
    ]);
    assert.equal(chains.flat().length, SHAPES.length);
    for (const chain of chains) {
      const order = shapeBuildOrder(chain);
      assert.equal(order[0]!.from, null); // from the lines
      for (const { from } of order.slice(1)) assert.ok(from && chain.includes(from)); // from its own chain's rows
    }
  });

  it('lines source: a product or an artist is read through its recordings in the catalogue shape, plus its lines without a recording', () => {
    const plan = planAnalytics('country', { artist: 'A', product: 'P', dsp: 'Spotify' }, false);
    assert.equal(plan.shape, null);
    const [dsp, artist, product] = plan.filters.map((f) => f.lines?.(7));
    assert.equal(dsp, undefined); // a statement dimension reads the lines as the shapes do
    for (const [f, col, v] of [[artist, 'artist_id', 'A'], [product, 'product_id', 'P']] as const) {
      assert.match(f!.sql, new RegExp(`tenant_id = \\? AND asset_id = ANY\\(ARRAY\\(SELECT DISTINCT c\\.asset_id FROM royalty_roll_catalogue c WHERE c\\.tenant_id = \\? AND c\\.${col} = \\? AND c\\.asset_id IS NOT NULL\\)\\) AND ${col} = \\?`));
      assert.match(f!.sql, new RegExp(`OR \\(tenant_id = \\? AND asset_id IS NULL AND ${col} = \\?\\)`));
      assert.deepEqual(f!.b, [7, 7, v, v, 7, v]);
    }
    // a release: its recordings, or its product through the product's recordings
    const release = planAnalytics('dsp', { product: 'P', releaseAssets: ['R1'], country: 'DE' }, false).filters.find((f) => f.cols.includes('product_id'))!;
    assert.deepEqual(release.lines!(3).b, [3, ['R1'], 3, 3, 'P', 'P', 3, 'P']);
  });

  it('declarations: at most 6 shapes; DDL and per-file insert produced from each (keys, grain, indexes)', () => {
    assert.ok(SHAPES.length <= 6);
    for (const s of SHAPES) {
      const [table, ...indexes] = shapeDdl(s);
      for (const k of shapeKeys(s)) assert.match(table!, new RegExp(`\\b${k} (date|uuid|text)`));
      assert.equal(indexes.length, 1 + s.indexes.length);
      const ins = shapeInsert(s, 'f');
      // each file's lines grouped by the shape's keys alone; the file's columns added to the groups
      assert.match(ins, /^\s+SELECT p\.tenant_id, p\.file_id, p\.accounting_period, p\.ap_end, g\.\*$/m);
      assert.match(ins, new RegExp(`GROUP BY ${shapeKeys(s).map((k) => `l.${k}`).join(', ')}\\) g$`));
    }
    assert.deepEqual(SHAPES.map(shapeKeys), [
      ['sale_month'],
      ['sale_month', ...DIMENSION_COLUMNS],
      ['sale_month', 'share_set_id', 'artist_id'],
      ['sale_month', 'share_set_id', ...CATALOGUE],
      ['sale_month', 'artist_id', ...DIMENSION_COLUMNS],
    ]);
  });

  it('build order: finer shapes first; a shape whose keys a built one holds is summed from the one with the fewest catalogue keys, then keys', () => {
    const order = shapeBuildOrder(SHAPES).map(({ shape, from }) => [shape.table, from?.table ?? 'lines']);
    assert.deepEqual(order, [
      ['royalty_roll_artist_dims', 'lines'],
      ['royalty_roll_dims', 'royalty_roll_artist_dims'],
      ['royalty_roll_catalogue', 'lines'],
      ['royalty_roll_share_set_artist', 'royalty_roll_catalogue'],
      ['royalty_roll_period', 'royalty_roll_dims'],
    ]);
    // Every source holds its shape's keys and grain; a shape from another sums its measures.
    for (const { shape, from } of shapeBuildOrder(SHAPES).filter((o): o is { shape: typeof o.shape; from: NonNullable<typeof o.from> } => o.from !== null)) {
      assert.equal(from.grain, shape.grain);
      for (const k of shapeKeys(shape)) assert.ok(shapeKeys(from).includes(k), `${from.table} holds ${k}`);
      assert.match(shapeInsert(shape, 'f', from), new RegExp(`sum\\(l.revenue\\), sum\\(l.quantity\\), sum\\(l.lines\\), sum\\(l.streams\\), sum\\(l.downloads\\)\\s+FROM ${from.table} l\\s+WHERE l.tenant_id = p.tenant_id AND l.file_id = p.file_id\\s+GROUP BY`));
    }
    // Built alone (a migration rebuilding one shape), a shape reads the lines.
    assert.deepEqual(shapeBuildOrder([SHAPES[0]!]).map((o) => o.from), [null]);
  });
});
