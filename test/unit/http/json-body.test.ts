import assert from 'node:assert/strict';
import { exactNumber, parseLossless } from '../../../src/http/json-body';

describe('JSON bodies: numbers kept exactly as written', () => {
  it('a number a double holds exactly stays a number; any other becomes its exact decimal string', () => {
    assert.equal(exactNumber('30'), 30);
    assert.equal(exactNumber('0.1'), 0.1);
    assert.equal(exactNumber('1.0842317'), 1.0842317);
    assert.equal(exactNumber('-12.50'), -12.5);
    assert.equal(exactNumber('123456789012345'), 123456789012345); // 15 digits
    assert.equal(exactNumber('1e-7'), 1e-7);
    assert.equal(exactNumber('9007199254740992'), 9007199254740992); // 2^53: exact
    assert.equal(exactNumber('123456789012.123456'), '123456789012.123456');
    assert.equal(exactNumber('9007199254740993'), '9007199254740993');
    assert.equal(exactNumber('0.10000000000000001'), '0.10000000000000001');
    assert.equal(exactNumber('1.5E+20'), 1.5e20); // a double holds it
    assert.equal(exactNumber('1.00000000000000000001E+2'), '100.000000000000000001');
    assert.equal(exactNumber('1e400'), '1e400'); // beyond any limit: kept as written, refused as a decimal
    assert.equal(exactNumber('1e-400'), '1e-400');
  });

  it('parses a body losslessly; duplicate keys: the last wins (as JSON.parse)', () => {
    assert.deepEqual(parseLossless('{"amount": 123456789012.123456, "n": 2, "list": [1.5, 104.03068080226311]}'), {
      amount: '123456789012.123456',
      n: 2,
      list: [1.5, '104.03068080226311'],
    });
    assert.deepEqual(parseLossless('{"a": 1, "a": 2}'), { a: 2 });
    const o = parseLossless('{"__proto__": {"polluted": 1}}') as Record<string, unknown>;
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.ok(Object.prototype.hasOwnProperty.call(o, '__proto__'));
  });
});
