/**
 * The ledger's per-file sums (FILES_EXACT: lines counted per share set, and per base amount
 * only where rounding can bite) equal the per-line rule of the royalty_earnings view, summed:
 * random share sets (shares of 0 to 6 decimals, 2 to 4 payees) and random base amounts (0 to
 * 12 decimals, negative ones too, repeated ones), per payee, to the last decimal.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fc from 'fast-check';
import Decimal from 'decimal.js';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { withTenant } from '../../src/db';
import { FILES_EXACT } from '../../src/modules/money/ledger';

const D = (v: Decimal.Value) => new Decimal(v);

/** A share set's shares: k positive shares of at most `scale` decimals summing to 100. */
const shareSet = fc.record({ k: fc.integer({ min: 2, max: 4 }), scale: fc.constantFrom(0, 1, 4, 6), seeds: fc.array(fc.integer({ min: 1, max: 1_000_000 }), { minLength: 3, maxLength: 3 }) }).map(({ k, scale, seeds }) => {
  const unit = D(10).pow(-scale);
  const whole = D(100).div(unit); // 100 in units of the scale
  const shares: Decimal[] = [];
  let left = whole;
  for (let i = 0; i < k - 1; i++) {
    const most = left.minus(k - 1 - i); // keep one unit for each share still to come
    const u = D(seeds[i]!).mod(most.div(2).floor().plus(1)).plus(1);
    shares.push(u.times(unit));
    left = left.minus(u);
  }
  shares.push(left.times(unit));
  return shares;
});
const amount = fc.record({ scale: fc.constantFrom(0, 2, 4, 6, 8, 12), units: fc.integer({ min: -5_000_000, max: 50_000_000 }) }).map(({ scale, units }) => D(units).times(D(10).pow(-scale)).toFixed());

describe('money: the ledger sums a file per share set exactly as the per-line rule', function () {
  let app: TestApp;
  let t: TestTenant;
  before(async () => {
    app = await startTestApp();
    t = await createTestTenant(app, 'Exact', ['owner', 'admin', 'user', 'guest']);
  });
  after(async () => app.close());

  it('FILES_EXACT = Σ royalty_earnings per payee (property)', async () => {
    const payees = Object.values(t.users).map((u) => u!.tenantUserId).sort();
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ shares: shareSet, amounts: fc.array(amount, { minLength: 1, maxLength: 12 }), repeat: fc.integer({ min: 1, max: 3 }) }), { minLength: 1, maxLength: 4 }),
        async (sets) => {
          const file = crypto.randomUUID();
          await withTenant(app.svc.db.app, t.tenantId, async (trx) => {
            await trx('files').insert({ tenant_id: t.tenantId, id: file, original_name: 'exact.csv', status: 'processed', accounting_period: '2026-10-01', allocated_at: new Date() });
            let line = 1;
            for (const { shares, amounts, repeat } of sets) {
              const set = crypto.randomUUID();
              const who = payees.slice(0, shares.length);
              // the remainder: the largest share, ties to the smallest payee id
              const rem = who.reduce((best, p, i) => (shares[i]!.gt(shares[who.indexOf(best)]!) ? p : best), who[0]!);
              await trx('royalty_share_sets').insert(
                who.map((p, i) => ({
                  tenant_id: t.tenantId, share_set_id: set, tenant_user_id: p, share: shares[i]!.toFixed(), gets_remainder: p === rem,
                  others: trx.raw('?::numeric[]', [who.filter((o) => o !== p).map((o) => shares[who.indexOf(o)]!.toFixed())]),
                })),
              );
              const rows = amounts.flatMap((a) => Array.from({ length: repeat }, () => a)).map((a) => ({
                tenant_id: t.tenantId, file_id: file, line_no: line++, net: a, currency: 'USD', base_amount: a, base_currency: 'USD', share_set_id: set, sale_month: '2026-10-01',
              }));
              await trx('royalty_lines').insert(rows);
            }
            const exact = await trx.raw(`SELECT tenant_user_id, exact::text AS v FROM (${FILES_EXACT}) x ORDER BY 1`, [[file], ['2026-10-01']]);
            const view = await trx.raw(`SELECT tenant_user_id, sum(amount)::text AS v FROM royalty_earnings WHERE file_id = ? AND superseded_at IS NULL GROUP BY 1 ORDER BY 1`, [file]);
            assert.deepEqual(
              exact.rows.map((r: { tenant_user_id: string; v: string }) => [r.tenant_user_id, D(r.v).toFixed()]),
              view.rows.map((r: { tenant_user_id: string; v: string }) => [r.tenant_user_id, D(r.v).toFixed()]),
            );
          });
        },
      ),
      { numRuns: 60 },
    );
  });
});
