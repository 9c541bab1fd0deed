/**
 * Figures a person sees are in minor units and add up (docs/money.md, "Rounding"):
 *  - recoupment works on what the ledger credited (apportioned cents), never on the finer
 *    exact earnings: a payee who loses the remainder cent on every file is credited 0.00 and
 *    has nothing recouped and no overpayment held;
 *  - expense, revenue and payment summaries and an expense's `unrecouped` are sums of
 *    amounts rounded once to the minor unit, and agree with the ledger.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import Decimal from 'decimal.js';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { withTenant } from '../../src/db';
import { postRoyaltiesForFile } from '../../src/modules/money/ledger';
import { createExpense } from '../../src/modules/money/expenses';
import { createPayment } from '../../src/modules/money/payments';
import type { AuthContext } from '../../src/modules/auth/tokens';
import { allocateFile, uuid } from './helpers';

const D = (v: Decimal.Value) => new Decimal(v);

function adminAuth(t: TestTenant): AuthContext {
  return { kind: 'access', userId: null, tenantId: t.tenantId, tenantUserId: t.users.admin!.tenantUserId, role: 'admin', isSuperAdmin: false, sessionId: null, keyId: null };
}

describe('money: figures in minor units', function () {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(async () => app.close());

  /**
   * Three payees at 33.333333 / 33.333333 / 33.333334 %, one 0.02 line per file: the payees'
   * exact amounts are 0.0066666666, 0.0066666666 and 0.0066666668; the file's two cents go to
   * the two largest remainders (the 33.333334 % payee, then the smaller id of the other two),
   * so the third payee is credited 0.00 on every file. The expense is `payee`'s: that loser,
   * or the 33.333334 % payee (credited 0.01 a file).
   */
  async function loserFixture(target: boolean, payee: 'loser' | 'remainder' = 'loser') {
    const t = await createTestTenant(app, 'Cent', ['admin', 'user', 'guest']);
    const ids = [t.users.admin!.tenantUserId, t.users.user!.tenantUserId, t.users.guest!.tenantUserId].sort();
    const shares = ['33.333333', '33.333333', '33.333334'];
    const loser = ids[1]!;
    const asset = uuid();
    const set = crypto.randomUUID();
    await withTenant(app.svc.db.app, t.tenantId, async (trx) => {
      await trx('assets').insert({ tenant_id: t.tenantId, id: asset, title: 'Song', isrc: `USCNT26${String(t.tenantId % 100000).padStart(5, '0')}` });
      await trx('royalty_share_sets').insert(
        ids.map((p, i) => ({
          tenant_id: t.tenantId, share_set_id: set, tenant_user_id: p, share: shares[i], gets_remainder: i === 2,
          others: trx.raw('?::numeric[]', [shares.filter((_, j) => j !== i)]),
        })),
      );
    });
    for (let i = 0; i < 6; i++) {
      const file = crypto.randomUUID();
      await withTenant(app.svc.db.app, t.tenantId, async (trx) => {
        await trx('files').insert({ tenant_id: t.tenantId, id: file, original_name: `f${i}.csv`, status: 'processed', accounting_period: '2026-10-01', allocated_at: new Date() });
        await trx('royalty_lines').insert({
          tenant_id: t.tenantId, file_id: file, line_no: 1, net: '0.02', currency: 'USD', base_amount: '0.02', base_currency: 'USD',
          share_set_id: set, sale_month: '2026-10-01', accounting_period: '2026-10-01', asset_id: asset,
        });
        await postRoyaltiesForFile(trx, { id: file, accounting_period: '2026-10-01' });
      });
    }
    // the expense is recorded after the files (its recoupment is derived then), and the ledger refreshed
    const expense = await withTenant(app.svc.db.app, t.tenantId, (trx) =>
      createExpense(trx, adminAuth(t), {
        user: payee === 'loser' ? loser : ids[2]!, title: 'Advance', amount: 5, currency: 'USD', recoupable: true, date: '2026-01-01', ...(target ? { targetType: 'asset' as const, targetId: asset } : {}),
      }),
    );
    const refreshed = await app.request('GET', '/accounting/refresh', { token: t.users.admin!.token });
    assert.equal(refreshed.status, 200, refreshed.text);
    assert.deepEqual(refreshed.body.data.posted, { royalty: 0, revenue: 0, payment: 0, recoupment: 0, recovery: 0 });
    return { t, loser, expense: expense.id as string, others: [ids[0]!, ids[2]!] };
  }

  for (const target of [false, true]) {
    it(`case 1: a payee credited 0.00 on every file has nothing recouped and no overpayment held (${target ? 'expense on the recording' : 'untargeted expense'})`, async () => {
      const { t, loser, expense, others } = await loserFixture(target);
      const sums = await withTenant(app.svc.db.app, t.tenantId, async (trx) => {
        const r = await trx.raw(`SELECT tenant_user_id, kind, sum(amount)::text AS s FROM ledger_entries GROUP BY 1, 2`);
        return new Map(r.rows.map((x: { tenant_user_id: string; kind: string; s: string }) => [`${x.tenant_user_id}:${x.kind}`, D(x.s).toFixed()]));
      });
      // the file credits: 6 × 0.01 to each of the two others, 0 to the loser
      assert.equal(sums.get(`${others[0]}:royalty`), '0.06');
      assert.equal(sums.get(`${others[1]}:royalty`), '0.06');
      assert.equal(sums.get(`${loser}:royalty`) ?? '0', '0');
      // recouped ≤ credited: nothing is recouped, so no overpayment is held for recovery
      assert.equal(sums.get(`${loser}:expense_recoup`) ?? '0', '0');
      assert.equal(sums.get(`${loser}:overpayment_recovery`) ?? '0', '0');
      const x = await app.request('GET', `/expense/${expense}`, { token: t.users.admin!.token });
      assert.equal(x.status, 200, x.text);
      assert.equal(x.body.data.recouped, '0');
      assert.equal(x.body.data.unrecouped, '5');
      const s = await app.request('GET', `/accounting/transactions/summary?userId=${loser}`, { token: t.users.admin!.token });
      assert.equal(s.body.data.recouped, '0');
      assert.equal(s.body.data.overpaymentRecovery, '0');
      assert.equal(s.body.data.due, '0');
    });
  }

  it('case 1: the untargeted pool takes what the ledger credited, remainder cents included', async () => {
    // the 33.333334 % payee is credited 0.01 per file (exact 0.0066666668): 6 files → 0.06 recouped, not 0.04
    const { t, expense } = await loserFixture(false, 'remainder');
    const x = await app.request('GET', `/expense/${expense}`, { token: t.users.admin!.token });
    assert.equal(x.body.data.recouped, '0.06');
    assert.equal(x.body.data.unrecouped, '4.94');
  });

  it('case 2: an expense in another currency shows unrecouped and summaries in minor units', async () => {
    const t = await createTestTenant(app, 'Sub', ['admin', 'user']);
    const payee = t.users.user!.tenantUserId;
    await allocateFile(app, t.tenantId, uuid(), [{ payee, amount: '100' }]);
    const ids = await withTenant(app.svc.db.app, t.tenantId, async (trx) => {
      // 30 EUR at 1.0842317 = 32.526951 USD: recouped as 32.53
      const a = await createExpense(trx, adminAuth(t), { user: payee, title: 'Video', amount: 30, currency: 'EUR', conversionRate: '1.0842317', recoupable: true, date: '2026-09-01' });
      // 98848.81 EUR at 1.0003 = 98878.464643 USD (not recoupable): 98878.46
      const b = await createExpense(trx, adminAuth(t), { user: payee, title: 'Studio', amount: '98848.81', currency: 'EUR', conversionRate: '1.0003', recoupable: false, date: '2026-09-02' });
      return [a.id, b.id] as string[];
    });
    const a = await app.request('GET', `/expense/${ids[0]}`, { token: t.users.admin!.token });
    assert.equal(a.body.data.baseAmount, '32.526951'); // the record keeps the exact figure
    assert.equal(a.body.data.recouped, '32.53');
    assert.equal(a.body.data.unrecouped, '0');
    const s = (await app.request('GET', '/expense/summary', { token: t.users.admin!.token })).body.summary;
    assert.deepEqual(
      { totalAmount: s.totalAmount, recoupableAmount: s.recoupableAmount, recouped: s.recouped, unrecouped: s.unrecouped },
      { totalAmount: '98910.99', recoupableAmount: '32.53', recouped: '32.53', unrecouped: '0' },
    );
    assert.equal(D(s.byTargetType.reduce((acc: Decimal, b: { amount: string }) => acc.plus(b.amount), D(0))).toFixed(), s.totalAmount);
    const stats = await app.request('GET', `/accounting/${payee}/stats`, { token: t.users.admin!.token });
    assert.equal(stats.body.data.unrecouped, '0');
  });

  it('case 2: /payment/summary.totalPaid is what the ledger took (each payment rounded once)', async () => {
    const t = await createTestTenant(app, 'Paid', ['admin', 'user']);
    const payee = t.users.user!.tenantUserId;
    await allocateFile(app, t.tenantId, uuid(), [{ payee, amount: '500' }]);
    await withTenant(app.svc.db.app, t.tenantId, async (trx) => {
      await createPayment(trx, adminAuth(t), { user: payee, amount: '100.005', currency: 'USD' });
      await createPayment(trx, adminAuth(t), { user: payee, amount: '67.68', currency: 'USD' });
    });
    const s = (await app.request('GET', '/payment/summary', { token: t.users.admin!.token })).body.summary;
    const ledger = (await app.request('GET', `/accounting/transactions/summary?userId=${payee}`, { token: t.users.admin!.token })).body.data;
    assert.equal(ledger.payments, '167.69');
    assert.equal(s.totalPaid, '167.69');
    assert.equal(s.byStatus.completed.amount, '167.69');
    assert.deepEqual(s.byCurrency, [{ currency: 'USD', count: 2, amount: '167.69' }]);
  });
});
