import assert from 'node:assert/strict';
import fc from 'fast-check';
import Decimal from 'decimal.js';
import { startTestApp, createTestTenant, type TestApp } from '../helpers/app';
import { withTenant } from '../../src/db';
import { apportion, apportionSql, minorDigits } from '../../src/modules/money/rounding';
import { allocateFile, uuid } from './helpers';

const D = (v: Decimal.Value) => new Decimal(v);
const sum = (xs: Decimal.Value[]) => xs.reduce<Decimal>((a, b) => a.plus(b), D(0));

describe('money: rounding where money leaves the exact world', function () {
  it('minor units follow ISO 4217 (JPY 0, USD 2, KWD 3)', () => {
    assert.deepEqual(['JPY', 'USD', 'EUR', 'KWD'].map(minorDigits), [0, 2, 2, 3]);
  });

  it('largest remainder: members add up to the rounded total, each within one unit of its exact amount (property)', () => {
    const exact = fc.integer({ min: -5_000_000_000, max: 90_000_000_000 }).map((n) => D(n).div(1e9).toFixed());
    fc.assert(
      fc.property(fc.array(exact, { minLength: 1, maxLength: 12 }), fc.constantFrom(0, 2, 3), (xs, digits) => {
        const items = xs.map((x, i) => ({ key: `k${String(i).padStart(3, '0')}`, exact: x }));
        const out = apportion(items, digits);
        assert.equal(sum(out).toFixed(), sum(xs).toDecimalPlaces(digits, Decimal.ROUND_HALF_UP).toFixed());
        const unit = D(10).pow(-digits);
        out.forEach((o, i) => {
          assert.equal(o.decimalPlaces() <= digits, true);
          assert.equal(o.minus(xs[i]!).abs().lt(unit), true, `${o} vs ${xs[i]}`);
        });
      }),
      { numRuns: 300 },
    );
  });

  it('ties go by the stable key', () => {
    assert.deepEqual(apportion([{ key: 'b', exact: '1' }, { key: 'a', exact: '1' }, { key: 'c', exact: '1' }].map((x) => ({ ...x, exact: D(x.exact).div(3) })), 2).map(String), ['0.33', '0.34', '0.33']);
  });

  describe('in Postgres', () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp();
    });
    after(async () => app.close());

    it('the SQL rule gives the same amounts as the TypeScript rule (property)', async () => {
      const exact = fc.integer({ min: -1_000_000, max: 9_000_000 }).map((n) => D(n).div(1e5).toFixed());
      await fc.assert(
        fc.asyncProperty(fc.array(exact, { minLength: 1, maxLength: 8 }), fc.constantFrom(0, 2, 3), async (xs, digits) => {
          const keys = xs.map((_, i) => `k${String(i).padStart(3, '0')}`);
          const input = `SELECT 1 AS g, k, x::numeric AS exact FROM unnest(?::text[], ?::text[]) AS t(k, x)`;
          const r = await app.svc.db.owner.raw(`SELECT k, rounded::text FROM (${apportionSql(input, ['g'], 'k', digits)}) z ORDER BY k`, [keys, xs]);
          const ts = apportion(keys.map((k, i) => ({ key: k, exact: xs[i]! })), digits);
          assert.deepEqual(r.rows.map((x: { rounded: string }) => D(x.rounded).toFixed()), ts.map((x) => x.toFixed()));
        }),
        { numRuns: 60 },
      );
    });

    it("a file's payees add up exactly to the file's rounded total; balances carry no sub-cent residue", async () => {
      const t = await createTestTenant(app, 'Round', ['admin', 'user', 'owner']);
      const payees = [t.users.admin!.tenantUserId, t.users.user!.tenantUserId, t.users.owner!.tenantUserId];
      const file = uuid();
      // 10.00 split in thirds over two lines, exact to 12 places
      await allocateFile(app, t.tenantId, file, [
        ...payees.map((p) => ({ payee: p, amount: '2.333333333333' })),
        ...payees.map((p, i) => ({ payee: p, amount: i === 0 ? '1.000000000001' : '1' })),
      ]);
      await withTenant(app.svc.db.app, t.tenantId, async (trx) => {
        const rows = await trx('ledger_entries').where({ source_id: file }).select('tenant_user_id', 'amount');
        const byPayee = new Map(rows.map((r) => [r.tenant_user_id as string, D(r.amount as string).toFixed()]));
        assert.equal(sum(rows.map((r) => r.amount as string)).toFixed(), '10');
        // exact: 3.333333333334, 3.333333333333, 3.333333333333 → the first gets the remainder cent
        assert.deepEqual(payees.map((p) => byPayee.get(p)), ['3.34', '3.33', '3.33']);
        for (const r of rows) assert.equal(D(r.amount as string).decimalPlaces() <= 2, true);
      });
      const rs = await app.request('GET', '/accounting/refreshstats', { token: t.users.admin!.token });
      assert.equal(rs.body.data.consistent, true, JSON.stringify(rs.body.data));
      assert.equal(rs.body.data.royaltiesAllocated, '10');
    });

    it('revenue shares and derived payment amounts are posted in minor units', async () => {
      const t = await createTestTenant(app, 'RoundRev', ['admin', 'user', 'owner']);
      const [a, b, c] = [t.users.admin!.tenantUserId, t.users.user!.tenantUserId, t.users.owner!.tenantUserId];
      const r = await app.request('POST', '/revenue/', {
        token: t.users.admin!.token,
        body: { title: 'Sync', amount: 100, currency: 'USD', date: '2026-10-03', splits: [{ user: a, share: 33.333333 }, { user: b, share: 33.333334 }, { user: c, share: 33.333333 }] },
      });
      assert.equal(r.status, 201);
      const split = new Map(r.body.data.splits.map((s: { user: string; amount: string }) => [s.user, s.amount]));
      assert.deepEqual([split.get(a), split.get(b), split.get(c)], ['33.33', '33.34', '33.33']);
      const p = await app.request('POST', '/payment/', { token: t.users.admin!.token, body: { user: a, title: 'x', currency: 'EUR', amount: 10, conversionRate: 1.083333, transactionDate: '2026-10-20T00:00:00Z' } });
      assert.equal(p.status, 201, JSON.stringify(p.body));
      const due = await app.request('GET', `/accounting/getcurrentdue?userId=${a}`, { token: t.users.admin!.token });
      assert.equal(due.body.data.due, '22.5'); // 33.33 − round(10.83333, 2)
    });
  });
});
