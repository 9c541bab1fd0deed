/**
 * The ingest fills base amounts in flight (src/modules/royalty/prefill.ts) with a JS
 * multiplication that must equal what allocation's SQL would store: round(net × rate, 12)
 * on a numeric(28,12) net. Compared with Postgres itself over random values (fast-check).
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { startTestApp, type TestApp } from '../helpers/app';
import { multiplyRound12 } from '../../src/modules/royalty/prefill';

const decimal = (intDigits: number, maxScale: number) =>
  fc
    .tuple(fc.boolean(), fc.bigInt({ min: 0n, max: 10n ** BigInt(intDigits) - 1n }), fc.integer({ min: 0, max: maxScale }), fc.bigInt({ min: 0n, max: 10n ** 20n }))
    .map(([neg, i, scale, f]) => {
      const frac = scale ? '.' + f.toString().padStart(20, '0').slice(0, scale) : '';
      return `${neg ? '-' : ''}${i}${frac}`;
    });

describe('ingest prefill: exact base amounts in JS', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(async () => app.close());

  it('multiplyRound12(net, rate) = Postgres round(net::numeric(28,12) × rate, 12)', async () => {
    const samples = fc.sample(fc.tuple(decimal(12, 16), decimal(4, 20)), 400);
    samples.push(['0.0000000000005', '1'], ['-0.0000000000005', '1'], ['1.2345678901235', '1.5'], ['-2.5', '0.0000000000002'], ['0', '1.08']);
    const { rows } = await app.svc.db.owner.raw(
      `SELECT round(n::numeric(28,12) * r::numeric, 12)::text AS v FROM unnest(?::text[], ?::text[]) WITH ORDINALITY AS x(n, r, o) ORDER BY o`,
      [samples.map((s) => s[0]), samples.map((s) => s[1])],
    );
    samples.forEach(([n, r], i) => assert.equal(multiplyRound12(n, r), rows[i].v, `${n} × ${r}`));
  });
});
