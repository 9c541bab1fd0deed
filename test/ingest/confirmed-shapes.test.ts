/**
 * Built-in layouts open to admins, the last two promises: "a file confirmed once for a source is
 * not asked about again" (the next file of the same shape in that workspace is detected to the
 * confirmed source with full confidence), and "a workspace's own layout wins over a built-in
 * one for that workspace without asking again".
 */
import assert from 'node:assert/strict';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { fixture, upload, waitFile, seedRates } from './helpers';

/** Two layouts of a workspace that read the same header (a shop's orders, one reads the net, one the gross). */
function shop(key: string, net: string) {
  return {
    key, name: `Shop orders (${key})`, aggregator: 'Shop', layout: 'table',
    detect: { headers: ['Order Month', 'Item', 'ISRC', 'Gross', 'Net'] },
    format: { delimiter: ',', encoding: 'auto' },
    columns: { saleMonth: { from: 'Order Month' }, trackTitle: { from: 'Item' }, isrc: { from: 'ISRC' }, net: { from: net }, currency: { const: 'EUR' } },
  };
}
const orders = (month: string, n: number) =>
  `Order Month,Item,ISRC,Gross,Net\n${Array.from({ length: n }, (_, i) => `${month},Track ${i + 1},QZES8191234${i},2.00,1.50`).join('\n')}\n`;

describe('detection remembers: a confirmed shape and the workspace\'s own layout are not asked about again', function () {
  this.timeout(120_000);
  let app: TestApp;
  let a: TestTenant;
  let b: TestTenant;
  before(async () => {
    app = await startTestApp({ workers: true });
    a = await createTestTenant(app, 'Shapes A');
    b = await createTestTenant(app, 'Shapes B');
    await seedRates(app, a.tenantId, b.tenantId);
    for (const t of [a, b])
      for (const p of [shop('shop-net', 'Net'), shop('shop-gross', 'Gross')])
        assert.equal((await app.request('POST', '/sources', { token: t.users.admin!.token, body: { pattern: p } })).status, 201);
  });
  after(async () => app?.close());

  it('a file confirmed once for a source: the next file of the same shape is read with it, confident, without asking', async () => {
    const admin = a.users.admin!.token;
    const first = await waitFile(app, admin, (await upload(app, admin, 'orders_2024-03.csv', orders('2024-03', 2))).body.data.id);
    assert.equal(first.status, 'needs_confirmation', 'two layouts read this header: a person says which');
    const c = await app.request('POST', `/file/confirm-detection/${first.id}`, { token: admin, body: { source: 'shop-net' } });
    assert.equal(c.status, 200, c.text);
    assert.equal((await waitFile(app, admin, first.id, ['processed', 'failed'])).status, 'processed');

    // another month, other rows, the same shape: no question, the confirmed source, full confidence
    const next = await waitFile(app, admin, (await upload(app, admin, 'orders_2024-04.csv', orders('2024-04', 3))).body.data.id, ['processed', 'failed', 'needs_confirmation']);
    assert.equal(next.status, 'processed', JSON.stringify(next.detection));
    assert.equal(next.source.key, 'shop-net');
    assert.equal(next.detection.candidates[0].source, 'shop-net');
    assert.equal(next.detection.candidates[0].score, 1);
    assert.equal(next.confidence.source, 1);
    assert.match(next.detection.candidates[0].reasons.join(' '), /same shape was confirmed as this source in this workspace \("orders_2024-03\.csv"\)/);
    assert.deepEqual(next.totals, { EUR: '4.5' });

    // a person who corrects it is listened to: the latest confirmation of a shape wins
    const held = await upload(app, admin, 'orders_2024-05.csv', orders('2024-05', 1), { forceManualConfirmation: 'true' });
    const third = await waitFile(app, admin, held.body.data.id);
    assert.equal(third.status, 'needs_confirmation', 'forceManualConfirmation still holds a file');
    assert.equal(third.source.key, 'shop-net');
    assert.equal((await app.request('POST', `/file/confirm-detection/${third.id}`, { token: admin, body: { source: 'shop-gross' } })).status, 200);
    assert.equal((await waitFile(app, admin, third.id, ['processed', 'failed'])).status, 'processed');
    const fourth = await waitFile(app, admin, (await upload(app, admin, 'orders_2024-06.csv', orders('2024-06', 1))).body.data.id);
    assert.equal(fourth.status, 'processed');
    assert.equal(fourth.source.key, 'shop-gross');
    assert.deepEqual(fourth.totals, { EUR: '2' });
  });

  it('what one workspace confirmed is not another workspace\'s answer', async () => {
    const admin = b.users.admin!.token;
    const f = await waitFile(app, admin, (await upload(app, admin, 'orders_2024-04.csv', orders('2024-04', 3))).body.data.id);
    assert.equal(f.status, 'needs_confirmation');
    assert.ok(f.detection.candidates[0].score < 0.8);
  });

  it('a file of another shape is still asked about', async () => {
    const admin = a.users.admin!.token;
    const other = 'Order Month,Item,ISRC,Gross,Net,Coupon\n2024-04,Track 1,QZES81912340,2.00,1.50,X\n';
    const f = await waitFile(app, admin, (await upload(app, admin, 'orders_2024-04.csv', other)).body.data.id);
    assert.equal(f.status, 'needs_confirmation');
  });

  it('a workspace\'s own layout derived from a built-in one wins over it without asking; other workspaces keep the built-in', async () => {
    const admin = a.users.admin!.token;
    const def = (await app.request('GET', '/sources/builtin/tunecore', { token: admin })).body.data.pattern;
    const ours = { ...def, key: 'tunecore-ours', name: 'TuneCore (ours)' };
    assert.equal((await app.request('POST', '/sources', { token: admin, body: { pattern: ours } })).status, 201);
    const f = await waitFile(app, admin, (await upload(app, admin, 'tunecore-sales-report.csv', fixture('tunecore-sales-report.csv'))).body.data.id, ['processed', 'failed', 'needs_confirmation']);
    assert.equal(f.status, 'processed', JSON.stringify(f.detection));
    assert.equal(f.source.key, 'tunecore-ours');
    const [own, builtin] = f.detection.candidates;
    assert.equal(own.source, 'tunecore-ours');
    assert.equal(builtin.source, 'tunecore');
    assert.ok(own.score >= 0.8 && builtin.score < 0.8, JSON.stringify(f.detection.candidates));
    assert.match(own.reasons.join(' '), /the workspace's own layout, preferred to a built-in one/);

    const other = b.users.admin!.token;
    const g = await waitFile(app, other, (await upload(app, other, 'tunecore-sales-report.csv', fixture('tunecore-sales-report.csv'))).body.data.id, ['processed', 'failed', 'needs_confirmation']);
    assert.equal(g.source.key, 'tunecore');
    assert.equal(g.status, 'processed');
  });
});
