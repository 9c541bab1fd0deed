/** Accounting periods in JS (the SQL form is checked against this one in test/settings). */
import assert from 'node:assert/strict';
import { accountingPeriodEnd, accountingPeriodLabel, accountingPeriodStart } from '../../../src/modules/settings/periods';

describe('accounting periods', () => {
  const cases: [string, 'monthly' | 'quarterly' | 'half-yearly', string, string, string][] = [
    ['2026-10-15', 'monthly', '2026-10-01', '2026-10-31', '2026-10'],
    ['2026-02', 'monthly', '2026-02-01', '2026-02-28', '2026-02'],
    ['2024-02-10', 'quarterly', '2024-01-01', '2024-03-31', '2024-Q1'],
    ['2026-09-30', 'quarterly', '2026-07-01', '2026-09-30', '2026-Q3'],
    ['2026-12-01', 'quarterly', '2026-10-01', '2026-12-31', '2026-Q4'],
    ['2026-06-30', 'half-yearly', '2026-01-01', '2026-06-30', '2026-H1'],
    ['2026-07-01', 'half-yearly', '2026-07-01', '2026-12-31', '2026-H2'],
  ];
  for (const [date, cadence, start, end, label] of cases) {
    it(`${date} ${cadence} → ${label}`, () => {
      const s = accountingPeriodStart(date, cadence);
      assert.equal(s, start);
      assert.equal(accountingPeriodEnd(s, cadence), end);
      assert.equal(accountingPeriodLabel(s, cadence), label);
    });
  }
  it('rejects what is not a date', () => {
    assert.throws(() => accountingPeriodStart('October', 'monthly'));
    assert.throws(() => accountingPeriodStart('2026-13-01', 'monthly'));
  });
});
