/** ISWC and IPI check digits, society codes, and the share rules (pure). */
import assert from 'node:assert/strict';
import { formatIswc, ipiWithCheck, normaliseIpi, normaliseIswc } from '../../../src/modules/publishing/identifiers';
import { societyCisac, societyOfCisac } from '../../../src/modules/publishing/cwr/societies';
import { divide, partyShares, shareProblems } from '../../../src/modules/publishing/shares';

describe('publishing identifiers', () => {
  it('ISWC: dashed, dotted, spaced and compact spellings of a valid ISWC are one compact form', () => {
    for (const s of ['T-034.524.680-1', 'T0345246801', 't-034524680-1', 'T 034 524 680 1', ' T-034.524.680-1 ']) assert.equal(normaliseIswc(s), 'T0345246801', s);
    assert.equal(formatIswc('T0345246801'), 'T-034.524.680-1');
  });

  it('ISWC: a wrong check digit, a missing T, or a wrong length is refused', () => {
    for (const s of ['T-034.524.680-2', '0345246801', 'T034524680', 'T03452468011', 'X0345246801', '']) assert.equal(normaliseIswc(s), null, s);
  });

  it('ISWC: every one of the ten check digits is right for exactly one value', () => {
    for (const nine of ['000000000', '123456789', '987654321', '555555555']) {
      const valid = [...Array(10).keys()].filter((c) => normaliseIswc(`T${nine}${c}`) !== null);
      assert.equal(valid.length, 1, nine);
    }
  });

  it('IPI name numbers: mod-101 check digits; short forms are zero-padded; wrong checks and letters refused', () => {
    assert.equal(normaliseIpi('00014107338'), '00014107338');
    assert.equal(normaliseIpi('14107338'), '00014107338');
    assert.equal(normaliseIpi('00014107339'), null);
    assert.equal(normaliseIpi('000141073380'), null);
    assert.equal(normaliseIpi('0001410733A'), null);
    const made = ipiWithCheck('123456789');
    assert.equal(normaliseIpi(made), made);
  });

  it('society codes map to CISAC numbers and back', () => {
    assert.equal(societyCisac('PRS'), '052');
    assert.equal(societyCisac('ascap'), '010');
    assert.equal(societyCisac('BMI'), '021');
    assert.equal(societyCisac(null), '');
    assert.equal(societyOfCisac('052'), 'PRS');
    assert.equal(societyOfCisac('   '), null);
  });
});

describe('publishing share rules', () => {
  const w = (share: number | string, writer = `w${share}`) => ({ writer, share });
  const p = (share: number | string, publisher = `p${share}`) => ({ publisher, share });
  const split = (writers: number | string, publishers: number | string) => ({ writers: String(writers), publishers: String(publishers) });

  it('accepts the common rule: performance 50/50, mechanical 0/100', () => {
    assert.deepEqual(shareProblems([w(50, 'a'), w(50, 'b')], [p(100)], split(50, 50), split(0, 100)), []);
  });

  it('refuses writer or publisher shares not adding to 100, a publishers\' performance side over 50, sides not adding to 100, duplicates', () => {
    const msgs = (...args: Parameters<typeof shareProblems>) => shareProblems(...args).join(' | ');
    assert.match(msgs([w(40, 'a'), w(50, 'b')], [], split(100, 0), split(100, 0)), /writers shares must add up to exactly 100 \(they add up to 90\)/);
    assert.match(msgs([w(100)], [p(60, 'x'), p(30, 'y')], split(50, 50), split(0, 100)), /publishers shares must add up to exactly 100/);
    assert.match(msgs([w(100)], [p(100)], split(40, 60), split(0, 100)), /performanceSplit\.publishers must be at most 50/);
    assert.match(msgs([w(100)], [p(100)], split(50, 50), split(10, 80)), /mechanicalSplit: writers \+ publishers must be exactly 100/);
    assert.match(msgs([w(100)], [], split(50, 50), split(100, 0)), /performanceSplit\.publishers must be 0 when the work has no publishers/);
    assert.match(msgs([w(50, 'a'), w(50, 'a')], [], split(100, 0), split(100, 0)), /names writer a more than once/);
    assert.match(msgs([w(100)], [p(100)], split('50.005', '49.995'), split(0, 100)), /at most 2 decimal places/);
    assert.match(msgs([], [], split(100, 0), split(100, 0)), /at least one writer/);
  });

  it('divides a side to the cent with the engine\'s largest-remainder rule, summing exactly', () => {
    assert.deepEqual(divide(50, ['33.333333', '33.333333', '33.333334']), ['16.67', '16.66', '16.67']);
    assert.deepEqual(divide(100, [50, 50]), ['50.00', '50.00']);
    assert.deepEqual(divide(0, [100]), ['0.00']);
    for (const n of [3, 6, 7, 9, 11]) {
      const parts = divide('66.67', Array(n).fill((100 / n).toFixed(6)).map((s, i) => (i === 0 ? (100 - Number((100 / n).toFixed(6)) * (n - 1)).toFixed(6) : s)));
      assert.equal(parts.reduce((s, x) => s + Math.round(Number(x) * 100), 0), 6667, `${n} parties`);
    }
  });

  it('gives each party its share of the whole work, per right', () => {
    const r = partyShares([{ share: 50 }, { share: 50 }], [{ share: 100 }], split(50, 50), split(0, 100));
    assert.deepEqual(r.writers, [{ performanceShare: '25.00', mechanicalShare: '0.00' }, { performanceShare: '25.00', mechanicalShare: '0.00' }]);
    assert.deepEqual(r.publishers, [{ performanceShare: '50.00', mechanicalShare: '100.00' }]);
  });
});
