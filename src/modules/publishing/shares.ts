/**
 * Work shares (docs/publishing.md, "Share rules"): how a work's performance and mechanical
 * rights divide between its writers and publishers. Pure and exact (decimal.js).
 *
 * A work names its writers with their `share` of the writers' side (summing to 100) and its
 * publishers with their `share` of the publishers' side (summing to 100). Each right is split
 * between the two sides (`performanceSplit`, `mechanicalSplit`, each side in percent with at
 * most two decimals): by default performance 50/50 and mechanical 0/100 when the work has
 * publishers, 100/0 for both when it has none. The publishers' side of performance is at
 * most 50 (the writers keep at least half: the common CISAC rule). Each party's share of the
 * whole work is its side's total times its share, to the cent (0.01 %, CWR's precision),
 * rounded by largest remainder so that every right adds up to exactly 100.00.
 */
import Decimal from 'decimal.js';
import { apportion } from '../money/rounding';

export interface Split {
  writers: string;
  publishers: string;
}
export interface PartyShares {
  performanceShare: string;
  mechanicalShare: string;
}

export const DEFAULT_SPLITS = {
  withPublishers: { performance: { writers: '50', publishers: '50' }, mechanical: { writers: '0', publishers: '100' } },
  writersOnly: { performance: { writers: '100', publishers: '0' }, mechanical: { writers: '100', publishers: '0' } },
} as const;

const HUNDRED = new Decimal(100);

/** Problems of a work's shares, each naming its field (empty when the shares hold). */
export function shareProblems(
  writers: { writer: string; share: string | number }[],
  publishers: { publisher: string; share: string | number }[],
  performance: { writers: string | number; publishers: string | number },
  mechanical: { writers: string | number; publishers: string | number },
  where = 'body',
): string[] {
  const out: string[] = [];
  if (!writers.length) out.push(`${where}.writers must name at least one writer`);
  const seen = (ids: string[]) => ids.filter((id, i) => ids.indexOf(id) !== i);
  for (const id of new Set(seen(writers.map((w) => w.writer)))) out.push(`${where}.writers names writer ${id} more than once`);
  for (const id of new Set(seen(publishers.map((p) => p.publisher)))) out.push(`${where}.publishers names publisher ${id} more than once`);
  const sum = (xs: (string | number)[]) => xs.reduce<Decimal>((a, x) => a.plus(String(x)), new Decimal(0));
  if (writers.length && !sum(writers.map((w) => w.share)).eq(HUNDRED)) {
    out.push(`${where}.writers shares must add up to exactly 100 (they add up to ${sum(writers.map((w) => w.share)).toString()})`);
  }
  if (publishers.length && !sum(publishers.map((p) => p.share)).eq(HUNDRED)) {
    out.push(`${where}.publishers shares must add up to exactly 100 (they add up to ${sum(publishers.map((p) => p.share)).toString()})`);
  }
  for (const [name, s] of [['performanceSplit', performance], ['mechanicalSplit', mechanical]] as const) {
    const w = new Decimal(String(s.writers));
    const p = new Decimal(String(s.publishers));
    if (w.decimalPlaces() > 2 || p.decimalPlaces() > 2) out.push(`${where}.${name} sides must have at most 2 decimal places`);
    if (w.isNeg() || p.isNeg()) out.push(`${where}.${name} sides must not be negative`);
    if (!w.plus(p).eq(HUNDRED)) out.push(`${where}.${name}: writers + publishers must be exactly 100 (they are ${w.plus(p).toString()})`);
    if (!publishers.length && !p.isZero()) out.push(`${where}.${name}.publishers must be 0 when the work has no publishers`);
  }
  if (new Decimal(String(performance.publishers)).gt(50)) out.push(`${where}.performanceSplit.publishers must be at most 50 (writers keep at least half of the performing right)`);
  return out;
}

/**
 * Divide `total` percent among parties by their shares (summing to 100), to 0.01 each, with
 * the engine's rounding rule (money/rounding.ts: largest remainder, ties to the earlier
 * party); the parts sum to `total` exactly.
 */
export function divide(total: string | number, shares: (string | number)[]): string[] {
  const t = new Decimal(String(total));
  const items = shares.map((s, i) => ({ key: String(i).padStart(6, '0'), exact: t.times(String(s)).div(HUNDRED) }));
  return apportion(items, 2, t).map((d) => d.toFixed(2));
}

/** Each writer's and publisher's share of the whole work, per right. */
export function partyShares(
  writers: { share: string | number }[],
  publishers: { share: string | number }[],
  performance: Split,
  mechanical: Split,
): { writers: PartyShares[]; publishers: PartyShares[] } {
  const wp = divide(performance.writers, writers.map((w) => w.share));
  const wm = divide(mechanical.writers, writers.map((w) => w.share));
  const pp = publishers.length ? divide(performance.publishers, publishers.map((p) => p.share)) : [];
  const pm = publishers.length ? divide(mechanical.publishers, publishers.map((p) => p.share)) : [];
  return {
    writers: writers.map((_, i) => ({ performanceShare: wp[i]!, mechanicalShare: wm[i]! })),
    publishers: publishers.map((_, i) => ({ performanceShare: pp[i]!, mechanicalShare: pm[i]! })),
  };
}
