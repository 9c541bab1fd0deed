/**
 * The share set decided while the ingest stores a line (src/modules/royalty/prefill.ts): a
 * converted line of a recording whose split no line field can change is stored with its share
 * set; conditional splits and unconverted lines are left to the allocation step, which
 * recomputes every decision, corrects what a change since the ingest undid, and writes no
 * history for a decision that was never allocated.
 */
import assert from 'node:assert/strict';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { LineCopyFormatter, LINE_COLUMNS } from '../../src/modules/files/line-copy';
import { LineMatcher } from '../../src/modules/royalty/prefill';
import type { CanonicalLine } from '../../parsers/types';
import { createArtist, createAsset, createSplit, loadStatement, tx, waitForFile, waitForReallocation } from './helpers';

const ISRC = { a: 'QZINF2600001', b: 'QZINF2600002', c: 'QZINF2600003' };

function canonical(n: number, isrc: string, country: string, currency: string): CanonicalLine {
  return {
    lineNo: n, saleMonth: '2024-03-01', salePeriodStart: null, salePeriodEnd: null, accountingPeriod: null, dsp: 'Spotify', country, isrc, upc: null,
    trackTitle: null, artist: null, releaseTitle: null, label: null, saleType: 'stream', quantity: '1', gross: null, grossCurrency: null, net: '1.50',
    currency, exchangeRate: null, aggregator: null,
  } as CanonicalLine;
}

describe('share sets decided in flight by the ingest', function () {
  this.timeout(120_000);
  let app: TestApp;
  let t: TestTenant;
  const assets: Record<string, string> = {};
  before(async () => {
    app = await startTestApp({ workers: true });
    t = await createTestTenant(app, 'Inflight');
    const artist = await createArtist(app, t.tenantId, 'Ina Flight');
    for (const k of ['a', 'b', 'c'] as const) assets[k] = await createAsset(app, t.tenantId, { title: `Song ${k}`, isrc: ISRC[k], artistId: artist });
    const [u, o] = [t.users.user!.tenantUserId, t.users.owner!.tenantUserId];
    await createSplit(app, t.tenantId, { target: 'asset', id: assets.a!, shares: { [u]: '25', [o]: '75' } });
    await createSplit(app, t.tenantId, { target: 'asset', id: assets.b!, territories: ['DE'], shares: { [u]: '60', [o]: '40' } });
    await waitForReallocation(app, t.tenantId);
  });
  after(async () => app?.close());

  it('stores a converted line of an unconditional split with its share set; conditional, unsplit and unconverted lines get none', async () => {
    const matcher = (await LineMatcher.open(app.svc, t.tenantId))!;
    assert.ok(matcher);
    const file = '5b1f0b1e-58f4-4c8e-9a55-6a9a1d2f4c11';
    const fmt = new LineCopyFormatter(t.tenantId, file, null, matcher, () => assert.fail('no line is refused'));
    const lines = [canonical(1, ISRC.a, 'US', 'USD'), canonical(2, ISRC.b, 'DE', 'USD'), canonical(3, ISRC.c, 'US', 'USD'), canonical(4, ISRC.a, 'US', 'JPY')];
    const out = [await fmt.add(lines), await fmt.flush()].filter((b): b is Buffer => b !== null);
    const rows = Buffer.concat(out).toString().split('\n').filter(Boolean).map((r) => r.split('\t'));
    const col = (c: string) => LINE_COLUMNS.indexOf(c as (typeof LINE_COLUMNS)[number]);
    const set = (n: number) => rows.find((r) => r[col('line_no')] === String(n))![col('share_set_id')];
    assert.equal(rows.length, 4);
    assert.equal(rows[0]!.length, LINE_COLUMNS.length);
    const setA = set(1)!;
    assert.match(setA, /^[0-9a-f-]{36}$/);
    const members = await tx(app, t.tenantId, (trx) => trx('royalty_share_sets').where({ share_set_id: setA }).orderBy('share').select('tenant_user_id', 'share'));
    assert.deepEqual(members.map((m: { tenant_user_id: string; share: string }) => [m.tenant_user_id, Number(m.share)]), [
      [t.users.user!.tenantUserId, 25],
      [t.users.owner!.tenantUserId, 75],
    ]);
    assert.equal(set(2), '\\N', 'a territory split is decided by the allocation step');
    assert.equal(set(3), '\\N', 'no split pays it');
    assert.equal(set(4), '\\N', 'not converted in flight (no JPY rate)');
  });

  it('the allocation corrects in-flight decisions a change undid and keeps no history of them', async () => {
    const [u, o] = [t.users.user!.tenantUserId, t.users.owner!.tenantUserId];
    const lines = [
      { isrc: ISRC.a, country: 'US' }, { isrc: ISRC.b, country: 'DE' }, { isrc: ISRC.b, country: 'FR' }, { isrc: ISRC.c, country: 'US' },
    ].map((l) => ({ ...l, saleMonth: '2024-03-01', saleType: 'stream', quantity: '1', net: '2.00', currency: 'USD' }));
    const fileId = await loadStatement(app, t.tenantId, { lines });
    const decisions = () => tx(app, t.tenantId, (trx) => trx('royalty_lines').where({ file_id: fileId }).orderBy('line_no').pluck('share_set_id'));
    const right = await decisions();
    assert.equal(right.filter((s: string | null) => s !== null).length, 2, 'the US line of a and the DE line of b are paid');
    const [setA, setB] = [right[0], right[1]];
    const payees = async (id: string) => (await tx(app, t.tenantId, (trx) => trx('royalty_share_sets').where({ share_set_id: id }).orderBy('tenant_user_id').pluck('tenant_user_id')));
    assert.deepEqual(await payees(setA), [u, o].sort());
    // As a fresh ingest would leave it with decisions made before a change: every one wrong.
    await app.svc.db.owner.raw(
      `UPDATE royalty_lines SET share_set_id = CASE line_no WHEN 2 THEN ?::uuid WHEN 3 THEN NULL ELSE ?::uuid END WHERE tenant_id = ? AND file_id = ?`,
      [setB, setA, t.tenantId, fileId],
    );
    await app.svc.db.owner.raw(`UPDATE files SET status = 'allocating', allocated_at = NULL WHERE tenant_id = ? AND id = ?`, [t.tenantId, fileId]);
    await app.svc.queue.send('royalty.allocate', { tenantId: t.tenantId, fileId });
    const f = await waitForFile(app, t.tenantId, fileId);
    assert.equal(f.status, 'processed');
    assert.ok(f.allocated_at, 'the allocation is recorded on the file');
    assert.deepEqual(await decisions(), right);
    const history = await tx(app, t.tenantId, (trx) => trx('royalty_allocation_history').where({ file_id: fileId }).count<{ count: string }[]>('* as count'));
    assert.equal(Number(history[0]!.count), 0, 'in-flight decisions are not earlier allocations');
  });

  it('the earnings view (statements, holdings, balances) shows a file\'s lines only once it is allocated', async () => {
    const lines = [{ isrc: ISRC.a, country: 'US', saleMonth: '2024-04-01', saleType: 'stream', quantity: '1', net: '4.00', currency: 'USD' }];
    const fileId = await loadStatement(app, t.tenantId, { lines });
    const earnings = () => tx(app, t.tenantId, (trx) => trx('royalty_earnings').where({ file_id: fileId }).whereNull('superseded_at').orderBy('share').pluck('amount'));
    assert.deepEqual((await earnings()).map(Number), [1, 3]);
    // as between the ingest's commit (share sets stored in flight) and the allocation's
    await app.svc.db.owner.raw(`UPDATE files SET allocated_at = NULL WHERE tenant_id = ? AND id = ?`, [t.tenantId, fileId]);
    const stored = await tx(app, t.tenantId, (trx) => trx('royalty_lines').where({ file_id: fileId }).whereNotNull('share_set_id').count<{ count: string }[]>('* as count'));
    assert.equal(Number(stored[0]!.count), 1, 'the line holds its share set');
    assert.deepEqual(await earnings(), []);
  });
});
