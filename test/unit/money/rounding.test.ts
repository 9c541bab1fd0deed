/** Money arithmetic: exact decimals, half-up rounding to the ledger's 12 places. */
import assert from 'node:assert/strict';
import { dec, money, toBase, SCALE, Decimal } from '../../../src/modules/money/common';

describe('money rounding', () => {
  it('reads JSON numbers by their shortest spelling, never as binary fractions', () => {
    assert.equal(dec(0.1).plus(dec(0.2)).toFixed(), '0.3');
    assert.equal(money('12.500'), '12.5');
    assert.equal(money(0), '0');
    assert.equal(money(null), null);
  });
  it(`base amounts round half-up to ${SCALE} places`, () => {
    assert.equal(toBase(new Decimal('1'), new Decimal('0.3333333333335')).toFixed(), '0.333333333334');
    assert.equal(toBase(new Decimal('-1'), new Decimal('0.3333333333335')).toFixed(), '-0.333333333334');
    assert.equal(toBase(new Decimal('100'), new Decimal('1.08')).toFixed(), '108');
    assert.equal(toBase(new Decimal('0.000000000001'), new Decimal('0.4')).toFixed(), '0');
  });
});
