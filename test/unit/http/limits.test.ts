/** The schema layer's limits on their own: decimals, dates, currencies, the input guard. */
import assert from 'node:assert/strict';
import { compile, formatAjvErrors, CurrencyCode, DateIn, DateTimeIn, Int32, Money, MonthIn, MonthOrDateIn, Share, Strict, Type } from '../../../src/http/schema';
import { decimalProblem, inputProblems, isIso4217, MAX_DEPTH } from '../../../src/http/limits';

function problems(schema: Parameters<typeof compile>[0], value: unknown, kind: 'body' | 'query' = 'body'): string[] {
  const v = compile(schema, kind);
  return v(value) ? [] : formatAjvErrors('body', v.errors);
}

describe('request limits', () => {
  describe('decimals fit their column', () => {
    const money = { precision: 28, scale: 12 };
    const cases: [unknown, string | null][] = [
      ['9999999999999999.999999999999', null],
      [-12.5, null],
      ['0.000000000001', null],
      ['10000000000000000', 'must be less than 1e16 in absolute value (at most 16 digits before the point)'],
      [1e16, 'must be less than 1e16 in absolute value (at most 16 digits before the point)'],
      [1e300, 'must be less than 1e16 in absolute value (at most 16 digits before the point)'],
      ['0.0000000000001', 'must have at most 12 decimal places'],
      [1e-13, 'must have at most 12 decimal places'],
      ['1e5', 'must be a decimal number such as "12.50"'],
      ['NaN', 'must be a decimal number such as "12.50"'],
    ];
    for (const [v, want] of cases) it(`${JSON.stringify(v)} → ${want ?? 'fits'}`, () => assert.equal(decimalProblem(v, money), want));

    it('positive amounts refuse zero and negatives; shares fit NUMERIC(9,6)', () => {
      assert.equal(decimalProblem('0', { ...money, positive: true }), 'must be greater than 0');
      assert.equal(decimalProblem(-1, { ...money, positive: true }), 'must be greater than 0');
      assert.deepEqual(problems(Strict({ share: Share() }), { share: '1000' }), ['body.share must be less than 1e3 in absolute value (at most 3 digits before the point)']);
      assert.deepEqual(problems(Strict({ share: Share() }), { share: '33.3333333' }), ['body.share must have at most 6 decimal places']);
      assert.deepEqual(problems(Strict({ share: Share() }), { share: 33.333333 }), []);
    });

    it('names the field inside arrays and unions', () => {
      const s = Strict({ lines: Type.Array(Strict({ amount: Type.Union([Money(), Type.Null()]) })) });
      assert.ok(problems(s, { lines: [{ amount: 1 }, { amount: 1e20 }] }).includes('body.lines.1.amount must be less than 1e16 in absolute value (at most 16 digits before the point)'));
    });
  });

  describe('dates, months and currencies', () => {
    const s = Strict({ d: Type.Optional(DateIn()), t: Type.Optional(DateTimeIn()), m: Type.Optional(MonthIn()), md: Type.Optional(MonthOrDateIn()), c: Type.Optional(CurrencyCode()) });
    it('accepts dates of the business range', () => {
      assert.deepEqual(problems(s, { d: '1900-01-01', t: '2199-12-31T23:59:59Z', m: '2026-02', md: '2026-02', c: 'usd' }), []);
      assert.deepEqual(problems(s, { md: '2024-02-29' }), []);
    });
    const bad: [string, string, string][] = [
      ['d', '0000-01-01', 'must be a date (YYYY-MM-DD) from 1900-01-01 to 2199-12-31'],
      ['d', '2200-01-01', 'must be a date (YYYY-MM-DD) from 1900-01-01 to 2199-12-31'],
      ['d', '2023-02-29', 'must be a date (YYYY-MM-DD) from 1900-01-01 to 2199-12-31'],
      ['t', '0001-01-01T00:00:00Z', 'must be a date-time with a zone (RFC 3339) from 1900-01-01 to 2199-12-31'],
      ['t', '2026-01-01T00:00:00', 'must be a date-time with a zone (RFC 3339) from 1900-01-01 to 2199-12-31'],
      ['m', '0000-01', 'must be a month (YYYY-MM) from 1900-01 to 2199-12'],
      ['md', '2026-13', 'must be a month (YYYY-MM) or a date (YYYY-MM-DD) from 1900-01-01 to 2199-12-31'],
      ['md', '2026-02-30', 'must be a month (YYYY-MM) or a date (YYYY-MM-DD) from 1900-01-01 to 2199-12-31'],
      ['c', 'ABC', 'must be an ISO 4217 currency code (e.g. USD)'],
    ];
    for (const [k, v, msg] of bad) it(`${k}=${v} is refused`, () => assert.deepEqual(problems(s, { [k]: v }), [`body.${k} ${msg}`]));

    it('knows ISO 4217 codes in use', () => {
      for (const c of ['USD', 'EUR', 'JPY', 'BRL', 'CHF']) assert.equal(isIso4217(c), true, c);
      for (const c of ['ABC', 'XXX', 'usd', 'US', 'DEM']) assert.equal(isIso4217(c), false, c);
    });
  });

  it('integers stay within int4', () => {
    assert.deepEqual(problems(Type.Object({ n: Int32({ minimum: 1 }) }), { n: '2147483648' }, 'query'), ['body.n must be <= 2147483647']);
    assert.deepEqual(problems(Type.Object({ n: Int32({ minimum: 1 }) }), { n: '2147483647' }, 'query'), []);
  });

  describe('the input guard', () => {
    it('refuses NUL and unpaired surrogates in values and keys, naming where', () => {
      assert.deepEqual(inputProblems({ a: 'x\u0000y', b: ['ok', '\uD800'], c: { 'k\u0000': 1 }, d: '\uD83D\uDE00' }, 'body').sort(), [
        'body.a must not contain NUL characters',
        'body.b.1 must not contain unpaired surrogates',
        'body.c has a property name that must not contain NUL characters',
      ]);
    });
    it(`stops at ${MAX_DEPTH} levels without recursion`, () => {
      let deep: unknown = 1;
      for (let i = 0; i < 200_000; i++) deep = [deep];
      const p = inputProblems({ x: deep }, 'body');
      assert.equal(p.length, 1);
      assert.match(p[0]!, new RegExp(`^body\\.x(\\.0)+ is nested deeper than ${MAX_DEPTH} levels$`));
      let ok: unknown = 1;
      for (let i = 0; i < MAX_DEPTH - 1; i++) ok = [ok];
      assert.deepEqual(inputProblems({ x: ok }, 'body'), []);
    });
    it('leaves the text of bulk items to the per-item check, but not their depth', () => {
      assert.deepEqual(inputProblems({ items: [{ t: 'a\u0000' }], note: '\u0000' }, 'body', { skip: 'body.items' }), ['body.note must not contain NUL characters']);
    });
  });
});
