import assert from 'node:assert/strict';
import fc from 'fast-check';
import Decimal from 'decimal.js';
import { covers, payeeShares, splitAmount, type AgreementRow, type PublisherRow, type WriterRow } from '../../../src/modules/publishing-income/shares';
import { apportion } from '../../../src/modules/money/rounding';

const W = (i: number) => `00000000-0000-4000-8000-00000000000${i}`;
const P = (i: number) => `00000000-0000-4000-9000-00000000000${i}`;

/** Random integer cents of a percentage (0.01 steps) that add up to `total` over `n` parts. */
const parts = (n: number, total: number) =>
  fc.array(fc.integer({ min: 0, max: 10_000 }), { minLength: n, maxLength: n }).map((raw) => {
    const sum = raw.reduce((a, b) => a + b, 0) || 1;
    const cents = raw.map((r) => Math.floor((r * total * 100) / sum));
    cents[0]! += total * 100 - cents.reduce((a, b) => a + b, 0);
    return cents.map((c) => new Decimal(c).div(100).toFixed(2));
  });

const work = fc.record({
  nWriters: fc.integer({ min: 1, max: 4 }),
  nPublishers: fc.integer({ min: 1, max: 3 }),
  writerSide: fc.integer({ min: 0, max: 100 }),
}).chain(({ nWriters, nPublishers, writerSide }) => fc.record({
  writerPerf: parts(nWriters, writerSide),
  pubPerf: parts(nPublishers, 100 - writerSide),
  writerShares: parts(nWriters, 100),
  reps: fc.array(fc.option(fc.integer({ min: 0, max: nPublishers - 1 }), { nil: null }), { minLength: nWriters, maxLength: nWriters }),
  agreementShares: fc.array(fc.option(fc.integer({ min: 0, max: 100_000_000 }).map((v) => new Decimal(v).div(1_000_000).toFixed(6)), { nil: null }), { minLength: nWriters, maxLength: nWriters }),
  amount: fc.integer({ min: -10_000_000_000, max: 10_000_000_000 }).map((v) => new Decimal(v).div(1_000_000).toFixed(6)),
}));

describe('publishing shares (pure)', () => {
  it('property: shares add up to 100 exactly, each payee gets its share, a line splits to its amount exactly, rounded amounts to the rounded total', () => {
    fc.assert(fc.property(work, (w) => {
      const writers: WriterRow[] = w.writerPerf.map((perf, i) => ({
        work_id: 'x', writer_id: W(i), share: w.writerShares[i]!, performance_share: perf, mechanical_share: '0', publisher_id: w.reps[i] === null ? null : P(w.reps[i]!),
      }));
      const publishers: PublisherRow[] = w.pubPerf.map((perf, j) => ({ work_id: 'x', publisher_id: P(j), performance_share: perf, mechanical_share: '0' }));
      const agreements: AgreementRow[] = writers.flatMap((wr, i) => (wr.publisher_id && w.agreementShares[i] !== null
        ? [{ publisher_id: wr.publisher_id, writer_id: wr.writer_id, territories: ['WORLD'], start_date: '2020-01-01', end_date: null, writer_share: w.agreementShares[i]! }]
        : []));
      const shares = payeeShares({ right_type: 'performance', country: 'GB', month: '2024-01-01' }, writers, publishers, agreements);
      assert.ok(shares, 'a work whose shares add up to 100 is paid');
      const total = shares.reduce((a, s) => a.plus(s.share), new Decimal(0));
      assert.ok(total.eq(100), total.toFixed());
      assert.equal(shares.filter((s) => s.getsRemainder).length, 1);
      // What each writer should get, from the definition (12 decimals, largest payee exact by remainder).
      for (const s of shares.filter((x) => !x.getsRemainder && x.kind === 'writer')) {
        const i = writers.findIndex((x) => x.writer_id === s.id);
        const own = new Decimal(writers[i]!.performance_share);
        let passed = new Decimal(0);
        const pub = writers[i]!.publisher_id;
        const a = agreements.find((x) => x.writer_id === s.id);
        if (pub && a) {
          const reps = writers.filter((x) => x.publisher_id === pub);
          const repTotal = reps.reduce((t, x) => t.plus(x.share), new Decimal(0));
          const pshare = new Decimal(publishers.find((p) => p.publisher_id === pub)!.performance_share);
          if (!repTotal.isZero()) passed = pshare.times(writers[i]!.share).div(repTotal).times(a.writer_share).div(100);
        }
        assert.ok(s.share.minus(own.plus(passed)).abs().lte('0.000000000001'), `${s.id}: ${s.share} vs ${own.plus(passed)}`);
      }
      const amounts = splitAmount(w.amount, shares);
      assert.ok(amounts.reduce((a, b) => a.plus(b), new Decimal(0)).eq(w.amount));
      const rounded = apportion(shares.map((s, i) => ({ key: `${s.kind}:${s.id}`, exact: amounts[i]! })), 2);
      assert.ok(rounded.reduce((a, b) => a.plus(b), new Decimal(0)).eq(new Decimal(w.amount).toDecimalPlaces(2, Decimal.ROUND_HALF_UP)));
      for (let i = 0; i < rounded.length; i++) assert.ok(rounded[i]!.minus(amounts[i]!).abs().lt('0.01'));
    }), { numRuns: 400 });
  });

  it('shares that do not add up to 100 pay nobody', () => {
    const writers: WriterRow[] = [{ work_id: 'x', writer_id: W(1), share: '100', performance_share: '40', mechanical_share: '0', publisher_id: null }];
    const publishers: PublisherRow[] = [{ work_id: 'x', publisher_id: P(1), performance_share: '50', mechanical_share: '100' }];
    assert.equal(payeeShares({ right_type: 'performance', country: '', month: '' }, writers, publishers, []), null);
    assert.deepEqual(payeeShares({ right_type: 'mechanical', country: '', month: '' }, writers, publishers, [])!.map((s) => [s.kind, s.share.toFixed()]), [['publisher', '100']]);
  });

  it('an agreement covers its territories and months only', () => {
    const a: AgreementRow = { publisher_id: P(1), writer_id: W(1), territories: ['GB', 'IE'], start_date: '2024-02-15', end_date: '2024-06-30', writer_share: '70' };
    assert.equal(covers(a, 'GB', '2024-02-01'), true);
    assert.equal(covers(a, 'GB', '2024-01-01'), false);
    assert.equal(covers(a, 'GB', '2024-07-01'), false);
    assert.equal(covers(a, 'US', '2024-03-01'), false);
    assert.equal(covers(a, '', '2024-03-01'), false);
    assert.equal(covers({ ...a, territories: ['WORLD'] }, '', '2024-03-01'), true);
  });
});
