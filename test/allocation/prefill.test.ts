/**
 * The ingest fills base amounts in flight (src/modules/royalty/prefill.ts) with a JS
 * multiplication that must equal what allocation's SQL would store: round(net × rate,
 * greatest(20, scale(net))) on the net as written. Compared with Postgres itself over random values (fast-check).
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { startTestApp, type TestApp } from '../helpers/app';
import { multiplyRound } from '../../src/modules/royalty/prefill';

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

  it('multiplyRound(net, rate) = Postgres trim_scale(round(net × rate, greatest(20, scale(net))))', async () => {
    const samples = fc.sample(fc.tuple(decimal(12, 16), decimal(4, 20)), 400);
    samples.push(['104.03068080226311', '1'], ['1.0000000000000000000001', '1'], ['-0.000000000000000000005', '0.5'], ['0.00000000000000000005', '0.1'], ['0.0000000000005', '1'], ['-0.0000000000005', '1'], ['1.2345678901235', '1.5'], ['-2.5', '0.0000000000002'], ['0', '1.08']);
    const { rows } = await app.svc.db.owner.raw(
      `SELECT trim_scale(round(n::numeric * r::numeric, greatest(20, scale(n::numeric))))::text AS v FROM unnest(?::text[], ?::text[]) WITH ORDINALITY AS x(n, r, o) ORDER BY o`,
      [samples.map((s) => s[0]), samples.map((s) => s[1])],
    );
    samples.forEach(([n, r], i) => assert.equal(multiplyRound(n, r), rows[i].v, `${n} × ${r}`));
  });
});
