import assert from 'node:assert/strict';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { withTenant } from '../../src/db';
import { allocateFile, same, uuid } from './helpers';

/** Expenses, revenues, payments (bulk too), settings, summaries; roles; cross-tenant. */
describe('money: resources, bulk, roles, cross-tenant', function () {
  let app: TestApp;
  let a: TestTenant;
  let b: TestTenant;
  let ana: string; // payee (role user)
  let adm: string;
  const asset = uuid();
  const ids: Record<string, string> = {};

  before(async () => {
    app = await startTestApp();
    a = await createTestTenant(app, 'CrudA');
    b = await createTestTenant(app, 'CrudB');
    ana = a.users.user!.tenantUserId;
    adm = a.users.admin!.tenantUserId;
    await withTenant(app.svc.db.app, a.tenantId, (trx) => trx('assets').insert({ tenant_id: a.tenantId, id: asset, title: 'Song', isrc: 'USABC2600001' }));
    await allocateFile(app, a.tenantId, uuid(), [
      { payee: ana, amount: '100', assetId: asset },
      { payee: adm, amount: '50' },
    ]);
  });
  after(async () => app.close());

  const A = (role: string) => a.users[role]!.token;
  const B = (role: string) => b.users[role]!.token;

  it('POST /payment/bulk: invalid currency, unknown user and amountUSD/conversionRate contradictions are reported per item; the rest are created', async () => {
    const r = await app.request('POST', '/payment/bulk', {
      token: A('admin'),
      body: {
        payments: [
          { user: ana, firstName: 'Ana', lastName: 'Lima', title: 'Oct', transactionDate: '2026-10-31T12:00:00Z', currency: 'USD', amount: 10, memo: 'ok' },
          { user: ana, currency: 'XYZ', amount: 5 },
          { user: uuid(), currency: 'USD', amount: 5 },
          { user: b.users.user!.tenantUserId, currency: 'USD', amount: 5 }, // a member of another workspace is unknown here
          { user: ana, currency: 'EUR', amount: 100, amountUSD: 120, conversionRate: 1.1 }, // 110 ≠ 120
          { user: ana, currency: 'EUR', amount: 100, amountUSD: 108.005, conversionRate: 1.08 }, // within tolerance
          { user: ana, currency: 'EUR', amount: 50, conversionRate: 1.1 }, // amountUSD derived: 55
          { user: ana, currency: 'USD', amount: 5, conversionRate: 2 }, // USD must have rate 1
          { user: ana, currency: 'USD' }, // schema: amount missing
        ],
      },
    });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(Object.keys(r.body).sort(), ['createdPayments', 'errors', 'message']);
    assert.equal(r.body.createdPayments.length, 3);
    const errs: string[] = r.body.errors;
    assert.equal(errs.length, 6, JSON.stringify(errs));
    assert.ok(errs.some((e) => e.startsWith('payments[1]') && /currency must be an ISO 4217 currency code/.test(e)));
    assert.ok(errs.some((e) => e.startsWith('payments[2]') && /unknown user/.test(e)));
    assert.ok(errs.some((e) => e.startsWith('payments[3]') && /unknown user/.test(e)));
    assert.ok(errs.some((e) => e.startsWith('payments[4]') && /contradicts/.test(e)));
    assert.ok(errs.some((e) => e.startsWith('payments[7]') && /conversionRate must be 1/.test(e)));
    assert.ok(errs.some((e) => e.startsWith('payments[8]') && /amount/.test(e)));
    const list = (await app.request('GET', `/payment/?user=${ana}&size=50`, { token: A('admin') })).body.data;
    const eur = list.find((p: { amount: string }) => p.amount === '50');
    assert.equal(eur.amountUSD, '55');
    assert.equal(eur.baseAmount, '55');
    const usd = list.find((p: { title: string }) => p.title === 'Oct');
    assert.equal(usd.firstName, 'Ana');
    assert.equal(usd.transactionDate, '2026-10-31T12:00:00.000Z');
    ids.payment = usd.id;
    // 100 earned − (10 + 108.005 + 55) paid; the ledger posts 108.005 in cents, half away from zero: 108.01.
    // Paid 73.01 more than earned: due is 0 and the 73.01 is an overpayment held for recovery.
    const d = await app.request('GET', '/accounting/getcurrentdue', { token: A('user') });
    assert.ok(same(d.body.data.due, '0'), d.text);
    const sum = (await app.request('GET', `/accounting/transactions/summary?userId=${ana}`, { token: A('admin') })).body.data;
    assert.ok(same(sum.overpaymentRecovery, '73.01'), JSON.stringify(sum));
    // all invalid → still 200, zero created
    const none = await app.request('POST', '/payment/bulk', { token: A('admin'), body: { payments: [{ user: ana, currency: 'usdollars', amount: 1 }] } });
    assert.equal(none.status, 200);
    assert.deepEqual(none.body.createdPayments, []);
    assert.equal((await app.request('POST', '/payment/bulk', { token: A('user'), body: { payments: [{ user: ana, currency: 'USD', amount: 1 }] } })).status, 403);
    assert.equal((await app.request('POST', '/payment/bulk', { token: A('admin'), body: { payments: [] } })).body.success, false, 'bulk errors use the bulk error shape');
  });

  it('payments: get, update (ledger gets the difference), delete (reversal), bulk delete', async () => {
    const p = await app.request('PUT', `/payment/${ids.payment}`, { token: A('admin'), body: { amount: 12, memo: 'fixed' } });
    assert.equal(p.status, 200, p.text);
    assert.equal(p.body.data.amount, '12');
    const adj = (await app.request('GET', `/accounting/transactions?userId=${ana}&kind=adjustment`, { token: A('admin') })).body.data;
    assert.deepEqual(adj.map((x: { amount: string }) => x.amount), ['-2']);
    assert.equal((await app.request('PUT', `/payment/${ids.payment}`, { token: A('admin'), body: { amountUSD: 13 } })).status, 400);
    assert.equal((await app.request('DELETE', `/payment/${ids.payment}`, { token: A('user') })).status, 403);
    assert.equal((await app.request('DELETE', `/payment/${ids.payment}`, { token: A('admin') })).status, 200);
    assert.equal((await app.request('GET', `/payment/${ids.payment}`, { token: A('admin') })).status, 404);
    const rev = (await app.request('GET', `/accounting/transactions?userId=${ana}&kind=reversal`, { token: A('admin') })).body.data;
    assert.deepEqual(rev.map((x: { amount: string }) => x.amount), ['12']);
    const rest = (await app.request('GET', `/payment/?user=${ana}`, { token: A('admin') })).body.data.map((x: { id: string }) => x.id);
    const bd = await app.request('POST', '/payment/bulk/delete', { token: A('admin'), body: { ids: [...rest, ids.payment] } });
    assert.equal(bd.body.processedCount, rest.length);
    assert.deepEqual(bd.body.failedDeletions, [{ id: ids.payment, error: 'Payment not found' }]);
    assert.ok(same((await app.request('GET', '/accounting/getcurrentdue', { token: A('user') })).body.data.due, '100'));
  });

  it('expenses: create, bulk with per-item errors, list scoping, update re-derives recoupment, bulk delete reverses it', async () => {
    const e = await app.request('POST', '/expense/', { token: A('admin'), body: { user: ana, title: 'Mastering', amount: '40', currency: 'USD', targetType: 'asset', targetId: asset } });
    assert.equal(e.status, 201, e.text);
    assert.equal(e.body.data.recoupable, true);
    assert.equal(e.body.data.recouped, '40');
    ids.expense = e.body.data.id;
    const nr = await app.request('POST', '/expense/', { token: A('admin'), body: { user: adm, title: 'Lunch', amount: 12.5, currency: 'USD', recoupable: false } });
    assert.equal(nr.body.data.recouped, '0');
    const bulk = await app.request('POST', '/expense/bulk', {
      token: A('admin'),
      body: {
        expenses: [
          { user: ana, title: 'Ads', amount: 10, currency: 'USD' },
          { user: ana, title: 'Bad', amount: 10, currency: 'ABC' },
          { user: ana, title: 'No target', amount: 10, currency: 'USD', targetType: 'artist', targetId: uuid() },
          { user: uuid(), title: 'Nobody', amount: 10, currency: 'USD' },
          { title: 'schema' },
        ],
      },
    });
    assert.equal(bulk.status, 200, bulk.text);
    assert.equal(bulk.body.createdExpenses.length, 1);
    for (const i of [1, 2, 3, 4]) assert.ok(bulk.body.errors.some((e: string) => e.startsWith(`expenses[${i}]`)), `item ${i}: ${JSON.stringify(bulk.body.errors)}`);
    assert.ok(!bulk.body.errors.some((e: string) => e.startsWith('expenses[0]')));
    // the user sees only their own expenses
    const mine = (await app.request('GET', '/expense/', { token: A('user') })).body;
    assert.ok(mine.data.every((x: { user: string }) => x.user === ana));
    assert.equal(mine.pagination.total, 2);
    assert.equal((await app.request('GET', `/expense/${nr.body.data.id}`, { token: A('user') })).status, 404);
    assert.ok(same((await app.request('GET', '/accounting/getcurrentdue', { token: A('user') })).body.data.due, '60'));
    const up = await app.request('PUT', `/expense/${ids.expense}`, { token: A('admin'), body: { amount: 150 } });
    assert.equal(up.body.data.recouped, '100');
    assert.equal(up.body.data.unrecouped, '50');
    assert.ok(same((await app.request('GET', '/accounting/getcurrentdue', { token: A('user') })).body.data.due, '0'), 'recoupment never makes due negative');
    assert.equal((await app.request('PUT', `/expense/${ids.expense}`, { token: A('user'), body: { amount: 1 } })).status, 403);
    const del = await app.request('POST', '/expense/bulk/delete', { token: A('admin'), body: { ids: [ids.expense] } });
    assert.equal(del.body.processedCount, 1);
    assert.ok(same((await app.request('GET', '/accounting/getcurrentdue', { token: A('user') })).body.data.due, '100'));
    const sum = await app.request('GET', '/expense/summary', { token: A('user') });
    assert.equal(sum.status, 200);
    assert.deepEqual(Object.keys(sum.body).sort(), ['message', 'summary']);
    assert.equal(sum.body.summary.totalExpenses, 1);
    assert.equal((await app.request('GET', '/expense/summary', { token: A('admin') })).body.summary.totalExpenses, 2);
  });

  it('revenues: shares sum to exactly 100, apportioned in cents by largest remainder, revenue_share entries', async () => {
    const bad = await app.request('POST', '/revenue/', { token: A('admin'), body: { title: 'Sync', amount: 100, currency: 'USD', splits: [{ user: ana, share: 50 }, { user: adm, share: 49.9 }] } });
    assert.equal(bad.status, 400);
    const r = await app.request('POST', '/revenue/', {
      token: A('admin'),
      body: { title: 'Sync fee', source: 'sync', amount: 100, currency: 'USD', date: '2026-10-03', splits: [{ user: ana, share: 33.333333 }, { user: adm, share: 33.333334 }, { user: a.users.owner!.tenantUserId, share: 33.333333 }] },
    });
    assert.equal(r.status, 201, r.text);
    const parts = r.body.data.splits.map((s: { amount: string }) => s.amount);
    assert.deepEqual(parts.sort(), ['33.33', '33.33', '33.34']);
    ids.revenue = r.body.data.id;
    assert.equal(r.body.data.accountingPeriod, '2026-10');
    // uneven split: 0.05 at 70 / 30 → 0.035 / 0.015 → floors 0.03 / 0.01, the missing cent to the larger remainder
    const u = await app.request('POST', '/revenue/', { token: A('admin'), body: { title: 'Tiny', amount: '0.05', currency: 'USD', splits: [{ user: ana, share: 70 }, { user: adm, share: 30 }] } });
    assert.deepEqual(u.body.data.splits.map((s: { amount: string }) => s.amount), ['0.04', '0.01']);
    const mine = await app.request('GET', `/revenue/${ids.revenue}`, { token: A('user') });
    assert.deepEqual(mine.body.data.splits.map((s: { user: string }) => s.user), [ana], 'members see their own share only');
    const bulk = await app.request('POST', '/revenue/bulk', { token: A('admin'), body: { revenues: [{ title: 'Grant', amount: 10, currency: 'USD', splits: [{ user: ana, share: 100 }] }, { title: 'x', amount: 10, currency: 'USD', splits: [{ user: uuid(), share: 100 }] }] } });
    assert.equal(bulk.body.createdRevenues.length, 1);
    assert.equal(bulk.body.errors.length, 1);
    const put = await app.request('PUT', `/revenue/${bulk.body.createdRevenues[0]}`, { token: A('admin'), body: { amount: 20 } });
    assert.equal(put.body.data.splits[0].amount, '20');
    assert.equal((await app.request('DELETE', `/revenue/${bulk.body.createdRevenues[0]}`, { token: A('admin') })).status, 200);
    assert.equal((await app.request('DELETE', `/revenue/${bulk.body.createdRevenues[0]}`, { token: A('admin') })).status, 404);
    const s = await app.request('GET', '/revenue/summary', { token: A('user') });
    assert.equal(s.body.summary.yourShare, '33.37');
    // an admin's summary is the workspace's, by source and by payee (its declared answer: no yourShare)
    const all = await app.request('GET', '/revenue/summary', { token: A('admin') });
    assert.equal(all.status, 200, all.text);
    assert.equal(all.body.summary.yourShare, undefined);
    assert.ok(Array.isArray(all.body.summary.bySource) && all.body.summary.bySource.length > 0, all.text);
    assert.ok(Array.isArray(all.body.summary.byUser) && all.body.summary.byUser.some((u: { user: string }) => u.user === ana), all.text);
    const sum = await app.request('GET', '/accounting/transactions/summary', { token: A('user') });
    assert.equal(sum.body.data.revenueShares, '33.37');
    assert.equal((await app.request('POST', '/revenue/bulk/delete', { token: A('admin'), body: { ids: [uuid()] } })).body.failedDeletions.length, 1);
  });

  it('payment settings: own only, masked, default handling', async () => {
    const s = await app.request('POST', '/payment-setting', { token: A('user'), body: { method: 'paypal', details: { email: 'ana.lima@example.com' } } });
    assert.equal(s.status, 201, s.text);
    assert.equal(s.body.data.isDefault, true);
    assert.deepEqual(s.body.data.details, { email: '….com' });
    ids.setting = s.body.data.id;
    assert.equal((await app.request('POST', '/payment-setting', { token: A('user'), body: { user: adm, method: 'paypal', details: {} } })).status, 400);
    const u = await app.request('PUT', `/payment-setting/${ids.setting}`, { token: A('user'), body: { details: { email: 'new.address@example.org' } } });
    assert.equal(u.body.data.details.email, '….org');
    assert.equal((await app.request('GET', `/payment-setting/${ids.setting}`, { token: A('admin') })).status, 200);
    const other = await app.request('POST', '/payment-setting', { token: A('admin'), body: { method: 'bank_transfer', details: { iban: 'DE89370400440532013000' } } });
    assert.equal((await app.request('GET', `/payment-setting/${other.body.data.id}`, { token: A('user') })).status, 404);
    assert.equal((await app.request('GET', '/payment-setting', { token: A('user') })).body.pagination.total, 1);
    assert.equal((await app.request('GET', '/payment-setting', { token: A('guest') })).status, 403);
  });

  it('summaries: admin tenant-wide, members their own', async () => {
    await app.request('POST', '/payment/', { token: A('admin'), body: { user: adm, currency: 'USD', amount: 7 } });
    await app.request('POST', '/payment/', { token: A('admin'), body: { user: ana, currency: 'USD', amount: 3 } });
    const all = await app.request('GET', '/payment/summary', { token: A('owner') });
    const own = await app.request('GET', '/payment/summary', { token: A('user') });
    assert.equal(all.status, 200);
    assert.equal(all.body.summary.totalPayments, 2);
    assert.equal(all.body.summary.totalPaid, '10');
    assert.equal(own.body.summary.totalPayments, 1);
    assert.equal(own.body.summary.totalPaid, '3');
    for (const p of ['/payment/summary', '/expense/summary', '/revenue/summary']) assert.equal((await app.request('GET', p, { token: A('guest') })).status, 403, p);
  });

  it('role limits on every money route', async () => {
    const x = uuid();
    const routes: [string, string, unknown, Record<string, number>][] = [
      ['GET', '/accounting/getcurrentdue', undefined, { guest: 403, user: 200 }],
      ['GET', `/accounting/getcurrentdue?userId=${adm}`, undefined, { user: 403, admin: 200 }],
      ['GET', '/accounting/gettotaldue', undefined, { guest: 403, user: 200 }],
      ['GET', '/accounting/transactions', undefined, { guest: 403, user: 200 }],
      ['GET', `/accounting/transactions?userId=${adm}`, undefined, { user: 403, admin: 200 }],
      ['GET', '/accounting/transactions/summary', undefined, { guest: 403, user: 200 }],
      ['GET', '/accounting/transactions/monthly', undefined, { guest: 403, user: 200 }],
      ['GET', `/accounting/${adm}/stats`, undefined, { guest: 403, user: 403, admin: 200 }],
      ['GET', `/accounting/${ana}/stats`, undefined, { user: 200 }],
      ['GET', '/accounting/refresh', undefined, { user: 403, admin: 200 }],
      ['GET', '/accounting/refreshstats', undefined, { user: 403, admin: 200 }],
      ['POST', '/expense/', { user: ana, title: 't', amount: 1, currency: 'USD' }, { user: 403, admin: 201 }],
      ['GET', '/expense/', undefined, { guest: 403, user: 200 }],
      ['POST', '/expense/bulk/delete', { ids: [x] }, { user: 403, admin: 200 }],
      ['POST', '/revenue/', { title: 't', amount: 1, currency: 'USD', splits: [{ user: ana, share: 100 }] }, { user: 403, admin: 201 }],
      ['GET', '/revenue/', undefined, { guest: 403, user: 200 }],
      ['POST', '/payment/', { user: ana, amount: 1, currency: 'USD' }, { user: 403, admin: 201 }],
      ['GET', '/payment/', undefined, { guest: 403, user: 200 }],
      ['POST', '/payment-request/', { amount: 1 }, { guest: 403, user: 201 }],
      ['GET', '/payment-request/', undefined, { guest: 403, user: 200 }],
      ['PATCH', `/payment-request/${x}/approve`, {}, { user: 403, admin: 404 }],
      ['PATCH', `/payment-request/${x}/decline`, {}, { user: 403, admin: 404 }],
      ['GET', '/payment-setting', undefined, { guest: 403, user: 200 }],
      ['GET', '/integrations/workspace', undefined, { user: 403, admin: 200 }],
      ['PUT', '/integrations/workspace', { isEnabled: false }, { user: 403, admin: 404 }],
      ['GET', '/integrations/all', undefined, { user: 403, admin: 200 }],
      ['GET', '/integrations/info', undefined, { guest: 403, user: 200 }],
    ];
    for (const [method, path, body, expect] of routes) {
      for (const [role, status] of Object.entries(expect)) {
        const r = await app.request(method, path, { token: A(role), body });
        assert.equal(r.status, status, `${method} ${path} as ${role}: ${r.text}`);
      }
    }
    assert.equal((await app.request('GET', '/accounting/getcurrentdue')).status, 401);
  });

  it('payment requests: decline, edit and delete rules', async () => {
    const r = await app.request('POST', '/payment-request/', { token: A('user'), body: { amount: 2, paymentSettingId: ids.setting } });
    assert.equal(r.status, 201, r.text);
    assert.equal((await app.request('POST', '/payment-request/', { token: A('user'), body: { amount: '1.001' } })).status, 400, 'more decimals than USD has');
    assert.equal((await app.request('PUT', `/payment-request/${r.body.data.id}`, { token: A('user'), body: { amount: 3 } })).body.data.amount, '3');
    const d = await app.request('PATCH', `/payment-request/${r.body.data.id}/decline`, { token: A('admin'), body: { reason: 'Wrong month' } });
    assert.equal(d.body.data.status, 'declined');
    assert.equal(d.body.data.declineReason, 'Wrong month');
    assert.equal((await app.request('PATCH', `/payment-request/${r.body.data.id}/approve`, { token: A('admin'), body: {} })).status, 400);
    assert.equal((await app.request('PUT', `/payment-request/${r.body.data.id}`, { token: A('user'), body: { amount: 1 } })).status, 400);
    assert.equal((await app.request('DELETE', `/payment-request/${r.body.data.id}`, { token: A('user') })).status, 200);
    // without a processor integration an approval records a pending payment
    const r2 = (await app.request('POST', '/payment-request/', { token: A('user'), body: { amount: 1 } })).body.data.id;
    const ok = await app.request('PATCH', `/payment-request/${r2}/approve`, { token: A('admin'), body: {} });
    assert.equal(ok.body.data.payment.status, 'pending');
    assert.equal(ok.body.data.payment.reference, null);
    const del = await app.request('POST', '/payment-request/bulk/delete', { token: A('user'), body: { ids: [r2] } });
    assert.match(del.body.failedDeletions[0].error, /approved request cannot be deleted/);
  });

  it('cross-tenant: reads and writes of another workspace’s money records → 404 and nothing changes', async () => {
    const exp = (await app.request('POST', '/expense/', { token: A('admin'), body: { user: ana, title: 'A only', amount: 1, currency: 'USD' } })).body.data.id;
    const rev = (await app.request('GET', '/revenue/', { token: A('admin') })).body.data[0].id;
    const pay = (await app.request('GET', '/payment/', { token: A('admin') })).body.data[0].id;
    const req = (await app.request('POST', '/payment-request/', { token: A('user'), body: { amount: 1 } })).body.data.id;
    const set = ids.setting!;
    const before = await app.request('GET', '/accounting/transactions/summary', { token: A('admin') });
    const reads = [
      `/expense/${exp}`,
      `/revenue/${rev}`,
      `/payment/${pay}`,
      `/payment-request/${req}`,
      `/payment-setting/${set}`,
      `/accounting/${ana}/stats`,
      `/accounting/getcurrentdue?userId=${ana}`,
      `/accounting/statement/${ana}?period=2026-10`,
    ];
    for (const p of reads) {
      const r = await app.request('GET', p, { token: B('owner') });
      assert.equal(r.status, 404, `${p}: ${r.text}`);
      assert.ok(!r.text.includes(ana) || p.includes(ana), `${p} leaks`);
    }
    for (const p of ['/expense/', '/revenue/', '/payment/', '/payment-request/', '/payment-setting', '/accounting/transactions']) {
      const r = await app.request('GET', p, { token: B('owner') });
      assert.equal(r.status, 200);
      assert.equal(r.body.pagination.total, 0, p);
    }
    assert.equal((await app.request('GET', '/payment/summary', { token: B('owner') })).body.summary.totalPayments, 0);
    assert.equal((await app.request('GET', '/accounting/gettotaldue', { token: B('owner') })).body.data.totalDue, '0');
    const writes: [string, string, unknown][] = [
      ['PUT', `/expense/${exp}`, { amount: 999 }],
      ['PUT', `/revenue/${rev}`, { amount: 999 }],
      ['DELETE', `/revenue/${rev}`, undefined],
      ['PUT', `/payment/${pay}`, { amount: 999 }],
      ['DELETE', `/payment/${pay}`, undefined],
      ['PUT', `/payment-request/${req}`, { amount: 2 }],
      ['DELETE', `/payment-request/${req}`, undefined],
      ['PATCH', `/payment-request/${req}/approve`, {}],
      ['PATCH', `/payment-request/${req}/decline`, {}],
      ['PUT', `/payment-setting/${set}`, { label: 'x' }],
      ['DELETE', `/payment-setting/${set}`, undefined],
    ];
    for (const [m, p, body] of writes) assert.equal((await app.request(m, p, { token: B('owner'), body })).status, 404, `${m} ${p}`);
    for (const [p, id] of [['/expense/bulk/delete', exp], ['/revenue/bulk/delete', rev], ['/payment/bulk/delete', pay], ['/payment-request/bulk/delete', req], ['/payment-setting/bulk/delete', set]] as const) {
      const r = await app.request('POST', p, { token: B('owner'), body: { ids: [id] } });
      assert.equal(r.body.processedCount, 0, p);
    }
    // B cannot pay A's member or name them in an expense, revenue or request
    const bulk = await app.request('POST', '/payment/bulk', { token: B('admin'), body: { payments: [{ user: ana, currency: 'USD', amount: 1 }] } });
    assert.deepEqual(bulk.body.createdPayments, []);
    assert.equal((await app.request('POST', '/expense/', { token: B('admin'), body: { user: ana, title: 'x', amount: 1, currency: 'USD' } })).status, 400);
    assert.equal((await app.request('POST', '/revenue/', { token: B('admin'), body: { title: 'x', amount: 1, currency: 'USD', splits: [{ user: ana, share: 100 }] } })).status, 400);
    assert.equal((await app.request('POST', '/payment-request/', { token: B('admin'), body: { amount: 1, user: ana } })).status, 404);
    // and A's expense cannot target B's catalogue
    const bAsset = uuid();
    await withTenant(app.svc.db.app, b.tenantId, (trx) => trx('assets').insert({ tenant_id: b.tenantId, id: bAsset, title: 'B song', isrc: 'USABC2600002' }));
    assert.equal((await app.request('POST', '/expense/', { token: A('admin'), body: { user: ana, title: 'x', amount: 1, currency: 'USD', targetType: 'asset', targetId: bAsset } })).status, 400);
    const after = await app.request('GET', '/accounting/transactions/summary', { token: A('admin') });
    assert.deepEqual(after.body.data, before.body.data);
    assert.equal((await app.request('GET', `/expense/${exp}`, { token: A('admin') })).body.data.amount, '1');
  });
});
