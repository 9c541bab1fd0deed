/**
 * saleCover: a sale-date range's whole quarters split into the coarsest whole periods (years,
 * then halves, then the quarters left); the months outside the whole quarters stay with the
 * month rollup. Checked against a brute-force cover: every month of the range is in exactly
 * one period, and no two adjacent periods could have been one coarser period.
 */
import assert from 'node:assert/strict';
import { saleCover } from '../../../src/modules/royalty/analytics';

describe('saleCover (sale-dated catalogue breakdowns: years, halves, quarters, months)', () => {
  it('picks years, then halves, then quarters', () => {
    assert.deepEqual(saleCover('2024-01', '2024-12'), { first: '2024-01-01', lastDay: '2024-12-31', years: ['2024-01-01', '2024-01-01'], halves: [], quarters: [] });
    assert.deepEqual(saleCover('2024-01', '2024-06'), { first: '2024-01-01', lastDay: '2024-06-30', years: null, halves: ['2024-01-01'], quarters: [] });
    assert.deepEqual(saleCover('2024-04', '2024-09'), { first: '2024-04-01', lastDay: '2024-09-30', years: null, halves: [], quarters: ['2024-04-01', '2024-07-01'] });
    assert.deepEqual(saleCover('2023-07', '2024-06'), { first: '2023-07-01', lastDay: '2024-06-30', years: null, halves: ['2023-07-01', '2024-01-01'], quarters: [] });
    assert.deepEqual(saleCover('2023-04', '2026-03-31'), {
      first: '2023-04-01', lastDay: '2026-03-31', years: ['2024-01-01', '2025-01-01'], halves: ['2023-07-01'], quarters: ['2023-04-01', '2026-01-01'],
    });
    // a partial month at either end: those months come from the month rollup
    assert.deepEqual(saleCover('2023-12', '2024-07-15'), { first: '2024-01-01', lastDay: '2024-06-30', years: null, halves: ['2024-01-01'], quarters: [] });
    assert.equal(saleCover('2024-01', '2024-03-30'), null);
    // open on one side: the whole years up to the range (one index range), then the rest
    assert.deepEqual(saleCover(undefined, '2024-03-31'), { first: '1700-01-01', lastDay: '2024-03-31', years: ['1700-01-01', '2023-01-01'], halves: [], quarters: ['2024-01-01'] });
    assert.deepEqual(saleCover('2024-08', undefined), { first: '2024-10-01', lastDay: '2400-12-31', years: ['2025-01-01', '2400-01-01'], halves: [], quarters: ['2024-10-01'] });
  });

  it('covers every whole quarter exactly once, never with two periods that make a coarser one', () => {
    const months = (first: string, n: number) => Array.from({ length: n }, (_, i) => { const d = new Date(`${first}T00:00:00Z`); d.setUTCMonth(d.getUTCMonth() + i); return d.toISOString().slice(0, 10); });
    for (let y = 2023; y <= 2024; y++) {
      for (let m0 = 1; m0 <= 12; m0++) {
        for (let len = 1; len <= 40; len++) {
          const start = `${y}-${String(m0).padStart(2, '0')}`;
          const endD = new Date(Date.UTC(y, m0 - 1 + len, 0));
          const end = endD.toISOString().slice(0, 10);
          const c = saleCover(start, end);
          if (!c) continue;
          const covered: string[] = [];
          if (c.years) for (let yy = Number(c.years[0].slice(0, 4)); yy <= Number(c.years[1].slice(0, 4)); yy++) covered.push(...months(`${yy}-01-01`, 12));
          for (const h of c.halves) covered.push(...months(h, 6));
          for (const q of c.quarters) covered.push(...months(q, 3));
          covered.sort();
          const span = months(c.first, 60).filter((d) => d <= c.lastDay);
          assert.deepEqual(covered, span, `${start}..${end}`);
          assert.ok(c.first >= `${start}-01` && c.lastDay <= end, `${start}..${end} inside the range`);
          // coarsest: no two quarters of one half, no two halves of one year
          const halfOf = (d: string) => `${d.slice(0, 4)}-${Number(d.slice(5, 7)) <= 6 ? 1 : 2}`;
          assert.equal(new Set(c.quarters.map(halfOf)).size, c.quarters.length, `${start}..${end} quarters ${c.quarters}`);
          assert.equal(new Set(c.halves.map((d) => d.slice(0, 4))).size, c.halves.length, `${start}..${end} halves ${c.halves}`);
        }
      }
    }
  });
});
