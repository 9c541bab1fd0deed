import assert from 'node:assert/strict';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { accountingPeriodSql, accountingPeriodStart } from '../../src/modules/settings/periods';

describe('accounting periods', () => {
  describe('the SQL form agrees with the JS form', () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp();
    });
    after(async () => app.close());
    it('for every month of two years and every cadence', async () => {
      for (const cadence of ['monthly', 'quarterly', 'half-yearly'] as const) {
        const { rows } = await app.svc.db.owner.raw(
          `SELECT to_char(d, 'YYYY-MM-DD') AS d, to_char(${accountingPeriodSql('d', '?')}, 'YYYY-MM-DD') AS p
           FROM generate_series('2025-01-15'::date, '2026-12-15'::date, interval '1 month') AS g(d0), LATERAL (SELECT d0::date AS d) x`,
          [cadence, cadence],
        );
        for (const r of rows) assert.equal(r.p, accountingPeriodStart(r.d, cadence), `${r.d} ${cadence}`);
      }
    });
  });
});

describe('workspace settings and exchange rates', () => {
  let app: TestApp;
  let a: TestTenant;
  let b: TestTenant;
  before(async () => {
    app = await startTestApp();
    a = await createTestTenant(app, 'SetA');
    b = await createTestTenant(app, 'SetB');
  });
  after(async () => app.close());

  it('reads and changes settings; admins only change them', async () => {
    const r = await app.request('GET', '/settings/workspace', { token: a.users.guest!.token });
    assert.equal(r.status, 200);
    assert.equal(r.body.data.baseCurrency, 'USD');
    assert.equal(r.body.data.accountingCadence, 'monthly');
    assert.equal((await app.request('PUT', '/settings/workspace', { token: a.users.user!.token, body: { accountingCadence: 'quarterly' } })).status, 403);
    const u = await app.request('PUT', '/settings/workspace', { token: a.users.admin!.token, body: { accountingCadence: 'quarterly', baseCurrency: 'eur', autoCreateCatalogue: true } });
    assert.equal(u.status, 200);
    assert.deepEqual([u.body.data.accountingCadence, u.body.data.baseCurrency, u.body.data.autoCreateCatalogue], ['quarterly', 'EUR', true]);
    const other = await app.request('GET', '/settings/workspace', { token: b.users.owner!.token });
    assert.deepEqual([other.body.data.accountingCadence, other.body.data.baseCurrency], ['monthly', 'USD']);
    assert.equal((await app.request('PUT', '/settings/workspace', { token: a.users.admin!.token, body: { accountingCadence: 'weekly' } })).status, 400);
  });

  it('sets, lists and deletes monthly rates exactly; bad items reported, good ones saved', async () => {
    const put = await app.request('PUT', '/currency/rates', {
      token: a.users.admin!.token,
      body: { rates: [ { currency: 'usd', month: '2026-09', rate: '0.912345678901' }, { currency: 'GBP', month: '2026-09', rate: '1.1702' }, { currency: 'EUR', month: '2026-09', rate: '1' }, { currency: 'JPY', month: '2026-09', rate: '0' } ] },
    });
    assert.equal(put.status, 200);
    assert.equal(put.body.data.saved, 2);
    assert.equal(put.body.data.errors.length, 2);
    const list = await app.request('GET', '/currency/rates?from=2026-01&to=2026-12', { token: a.users.user!.token });
    assert.deepEqual(list.body.data.rates.map((r: any) => [r.currency, r.month, r.rate]), [ ['GBP', '2026-09', '1.1702'], ['USD', '2026-09', '0.912345678901'] ]);
    // update in place
    await app.request('PUT', '/currency/rates', { token: a.users.admin!.token, body: { rates: [{ currency: 'GBP', month: '2026-09', rate: '1.18' }] } });
    const one = await app.request('GET', '/currency/rates?currency=GBP', { token: a.users.user!.token });
    assert.deepEqual(one.body.data.rates.map((r: any) => r.rate), ['1.18']);
    assert.equal((await app.request('GET', '/currency/rates', { token: a.users.guest!.token })).status, 403);
    assert.equal((await app.request('PUT', '/currency/rates', { token: a.users.user!.token, body: { rates: [{ currency: 'GBP', month: '2026-10', rate: '1.2' }] } })).status, 403);
    // tenant B sees none and cannot delete A's
    const bl = await app.request('GET', '/currency/rates', { token: b.users.owner!.token });
    assert.deepEqual(bl.body.data.rates, []);
    assert.equal((await app.request('DELETE', '/currency/rates/GBP/2026-09', { token: b.users.owner!.token })).status, 404);
    assert.equal((await app.request('DELETE', '/currency/rates/GBP/2026-09', { token: a.users.admin!.token })).status, 200);
    assert.equal((await app.request('DELETE', '/currency/rates/GBP/2026-09', { token: a.users.admin!.token })).status, 404);
  });
});
