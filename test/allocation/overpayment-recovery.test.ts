import assert from 'node:assert/strict';
import DecimalJs from 'decimal.js';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { createArtist, createAsset, createSplit, fileRow, loadStatement, setShares, tx, waitForReallocation, type LineIn } from './helpers';
import { apportion } from '../../src/modules/money/rounding';

const Decimal = DecimalJs.clone({ precision: 60 });
const D = (v: DecimalJs.Value) => new Decimal(v);
const ISRC = 'USREC2400001';

function line(p: Partial<LineIn> & { net: string }): LineIn {
  return { isrc: ISRC, saleMonth: '2024-01-01', dsp: 'Spotify', country: 'US', saleType: 'stream', quantity: '1', currency: 'USD', ...p };
}

/**
 * The royalty system's answer to "a split change after a payout": the payee was paid for a
 * share they no longer have. Their due stays 0 (never negative), the overpaid amount is an
 * overpayment-recovery receivable listed on their statement, and their next earnings recoup
 * it first. Issued statements never change, and the payees' amounts still add up exactly.
 */
describe('overpayment recovery: a split change after a payout', function () {
  this.timeout(180_000);
  let app: TestApp;
  let t: TestTenant;
  let a: string, b: string, c: string;
  let split: string;
  let jan: string;
  const admin = () => ({ token: t.users.admin!.token });
  const due = async (who: string) => (await app.request('GET', `/accounting/getcurrentdue?userId=${who}`, admin())).body.data.due as string;
  const run = async (period: string, payees: string[]) => {
    const r = await app.request('POST', '/statements/runs', { ...admin(), body: { period, payees } });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return r.body.data;
  };
  const figures = async (id: string) => (await app.request('GET', `/statements/${id}`, admin())).body.data.figures;

  before(async () => {
    app = await startTestApp({ workers: true });
    t = await createTestTenant(app, 'Recovery', ['owner', 'admin', 'user', 'guest']);
    a = t.users.user!.tenantUserId;
    b = t.users.guest!.tenantUserId;
    c = t.users.owner!.tenantUserId;
    const artist = await createArtist(app, t.tenantId, 'Payees', [a]);
    const asset = await createAsset(app, t.tenantId, { title: 'Shared Song', isrc: ISRC, artistId: artist });
    split = await createSplit(app, t.tenantId, { target: 'asset', id: asset, shares: { [a]: '50', [b]: '33.333333', [c]: '16.666667' } });
    await waitForReallocation(app, t.tenantId);
  });
  after(async () => app.close());

  it('pays out January, then a split change lowers the payee: due 0, the overpayment listed, totals exact', async () => {
    jan = await loadStatement(app, t.tenantId, { salePeriodEnd: '2024-01-31', lines: [line({ net: '100.005' }), line({ net: '20.001' }), line({ net: '-0.333' })] });
    assert.equal((await fileRow(app, t.tenantId, jan)).status, 'processed');
    const paid = await due(a);
    assert.equal(paid, '59.84'); // 50 % of 119.673 = 59.8365, the largest share takes the remainder cent
    // January's statement is issued, then the payee is paid what it said, in February
    const r = await run('2024-01', [a]);
    const issued = await app.request('POST', `/statements/runs/${r.id}/issue`, admin());
    assert.equal(issued.status, 200);
    const frozen = await app.request('GET', `/statements/${r.statements[0].id}/csv`, { token: t.users.user!.token });
    const pay = await app.request('POST', '/payment/', { ...admin(), body: { user: a, title: 'January payout', currency: 'USD', amount: paid, transactionDate: '2024-02-10T00:00:00Z' } });
    assert.equal(pay.status, 201, JSON.stringify(pay.body));
    assert.equal(await due(a), '0');

    // the split changes: a 20 %, b 63.333333 %, c 16.666667 % (re-allocation posts the difference into January)
    await setShares(app, t.tenantId, split, { [a]: '20', [b]: '63.333333', [c]: '16.666667' });
    await waitForReallocation(app, t.tenantId);
    assert.equal(await due(a), '0', 'due never negative');
    const summary = (await app.request('GET', `/accounting/transactions/summary?userId=${a}`, admin())).body.data;
    const royalties = D(summary.royalties);
    assert.equal(royalties.toFixed(), '23.93'); // 20 % of 119.673 = 23.9346
    assert.equal(summary.overpaymentRecovery, D(paid).minus(royalties).toFixed());
    assert.equal(D(summary.earnings).minus(summary.recouped).minus(summary.payments).plus(summary.reversals).plus(summary.adjustments).plus(summary.overpaymentRecovery).toFixed(), summary.due);
    const listed = await app.request('GET', `/accounting/transactions?userId=${a}&kind=overpayment_recovery`, admin());
    assert.equal(listed.status, 200, listed.text);
    assert.deepEqual(listed.body.data.map((x: { amount: string; accountingPeriod: string }) => [x.accountingPeriod, x.amount]), [['2024-02', '35.91']]);

    // every payee's January royalties still add up exactly to the file's rounded total (rounding.ts)
    type Sum = { tenant_user_id: string; s: string };
    const entries = (await tx(app, t.tenantId, (trx) => trx('ledger_entries').where({ source_type: 'file', source_id: jan }).select('tenant_user_id').sum({ s: 'amount' }).groupBy('tenant_user_id'))) as unknown as Sum[];
    assert.equal(entries.reduce((s, e) => s.plus(e.s), D(0)).toFixed(), '119.67');
    const exact = (await tx(app, t.tenantId, (trx) => trx('royalty_earnings').where({ file_id: jan }).whereNull('superseded_at').select('tenant_user_id').sum({ s: 'amount' }).groupBy('tenant_user_id'))) as unknown as Sum[];
    assert.equal(exact.length, 3);
    const expected = apportion(exact.map((e) => ({ key: e.tenant_user_id, exact: e.s })), 2);
    for (const [i, e] of exact.entries()) assert.equal(D(entries.find((x) => x.tenant_user_id === e.tenant_user_id)!.s).toFixed(), expected[i]!.toFixed());
    assert.ok(D(await due(b)).gt(0));

    // February's statement: the split change as an adjustment, the payout, the recovery; closing 0
    const feb = await run('2024-02', [a]);
    const f = await figures(feb.statements[0].id);
    assert.deepEqual(f.adjustments.map((x: { origin: string; amount: string }) => [x.origin, x.amount]), [['split_change', '-35.91']]);
    assert.equal(f.paymentsTotal, '-59.84');
    assert.deepEqual(f.recovery, [{ title: 'Overpayment held for recovery from later earnings', amount: '35.91' }]);
    assert.equal(f.recoveryOutstanding, '35.91');
    assert.equal(f.closingBalance, '0');
    const csv = await app.request('GET', `/statements/${feb.statements[0].id}/csv`, admin());
    assert.match(csv.text, /overpayment_recovery,Overpayment held for recovery from later earnings,,,35\.91,USD/);
    assert.equal((await app.request('POST', `/statements/runs/${feb.id}/issue`, admin())).status, 200);
    // the issued January statement did not change
    assert.equal((await app.request('GET', `/statements/${r.statements[0].id}/csv`, { token: t.users.user!.token })).text, frozen.text);
  });

  it('the next earnings recoup the overpayment first', async () => {
    // March: 100 → a earns 20; 35.91 still to recover → all of it recouped, due stays 0
    await loadStatement(app, t.tenantId, { salePeriodEnd: '2024-03-31', lines: [line({ net: '100', saleMonth: '2024-03-01' })] });
    assert.equal(await due(a), '0');
    // April: 500 → a earns 100; 15.91 left to recover → due 84.09
    await loadStatement(app, t.tenantId, { salePeriodEnd: '2024-04-30', lines: [line({ net: '500', saleMonth: '2024-04-01' })] });
    assert.equal(await due(a), '84.09');
    const rec = await app.request('GET', `/accounting/transactions?userId=${a}&kind=overpayment_recovery`, admin());
    assert.deepEqual(rec.body.data.map((x: { amount: string; accountingPeriod: string }) => [x.accountingPeriod, x.amount]).sort(), [['2024-02', '35.91'], ['2024-03', '-20'], ['2024-04', '-15.91']]);
    const mar = await figures((await run('2024-03', [a])).statements[0].id);
    assert.equal(mar.openingBalance, '0');
    assert.equal(mar.royaltiesTotal, '20');
    assert.deepEqual(mar.recovery, [{ title: 'Overpayment recovered from earnings', amount: '-20' }]);
    assert.equal(mar.recoveryOutstanding, '15.91');
    assert.equal(mar.closingBalance, '0');
    // the refresh finds nothing to post and the identities hold
    const st = await app.request('GET', '/accounting/refreshstats', admin());
    assert.equal(st.body.data.consistent, true, JSON.stringify(st.body.data));
  });
});
