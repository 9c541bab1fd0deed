/**
 * Who shares one publishing line (pure; docs/publishing.md, "Splitting"). For a work and a
 * right (performance | mechanical), a territory and a sale month:
 *
 *   - each writer of the work gets their share of that right (work_writers.*_share, percent of
 *     the whole work);
 *   - each publisher gets its share of that right, except the part it passes on: for every
 *     writer it represents on the work (work_writers.publisher_id) under an ACTIVE agreement
 *     (status active, start ≤ month ≤ end, territories holding the country or WORLD; a line
 *     without a country is covered by WORLD only), the writer gets writerShare % of the
 *     publisher's share × that writer's part of the writers the publisher represents
 *     (work_writers.share).
 *
 * Shares are percentages with 12 decimals; the payee with the largest share (ties: the
 * smallest kind:id) gets 100 − Σ the others. Null when the work's shares of the right do not
 * add up to 100 (the line is not paid; the work must be fixed first).
 */
import { Decimal } from '../money/common';

export interface WriterRow { work_id: string; writer_id: string; share: string; performance_share: string; mechanical_share: string; publisher_id: string | null }
export interface PublisherRow { work_id: string; publisher_id: string; performance_share: string; mechanical_share: string }
export interface AgreementRow { publisher_id: string; writer_id: string; territories: string[]; start_date: string; end_date: string | null; writer_share: string }
export interface PayeeShare { kind: 'writer' | 'publisher'; id: string; share: Decimal; getsRemainder: boolean }

const HUNDRED = new Decimal(100);

/** Whether an active agreement covers a line of `country` ('' = none) sold in `month` ('YYYY-MM-DD', '' = unknown). */
export function covers(a: AgreementRow, country: string, month: string): boolean {
  if (month && (a.start_date.slice(0, 7) > month.slice(0, 7) || (a.end_date !== null && a.end_date.slice(0, 7) < month.slice(0, 7)))) return false;
  const t = a.territories.map((x) => x.toUpperCase());
  return t.includes('WORLD') || (country !== '' && t.includes(country.toUpperCase()));
}

export function payeeShares(
  key: { right_type: 'performance' | 'mechanical'; country: string; month: string },
  writers: WriterRow[],
  publishers: PublisherRow[],
  agreements: AgreementRow[],
): PayeeShare[] | null {
  const col = key.right_type === 'mechanical' ? 'mechanical_share' : 'performance_share';
  const acc = new Map<string, Decimal>();
  const add = (kind: 'writer' | 'publisher', id: string, v: Decimal) => {
    const k = `${kind}:${id}`;
    acc.set(k, (acc.get(k) ?? new Decimal(0)).plus(v));
  };
  let total = new Decimal(0);
  for (const w of writers) {
    const s = new Decimal(w[col]);
    total = total.plus(s);
    if (!s.isZero()) add('writer', w.writer_id, s);
  }
  for (const p of publishers) {
    const s = new Decimal(p[col]);
    total = total.plus(s);
    if (s.isZero()) continue;
    const reps = writers.filter((w) => w.publisher_id === p.publisher_id);
    const repTotal = reps.reduce((a, w) => a.plus(w.share), new Decimal(0));
    let passed = new Decimal(0);
    if (!repTotal.isZero()) {
      for (const w of reps) {
        const a = agreements.find((x) => x.publisher_id === p.publisher_id && x.writer_id === w.writer_id && covers(x, key.country, key.month));
        if (!a) continue;
        const part = s.times(w.share).div(repTotal).times(a.writer_share).div(HUNDRED);
        passed = passed.plus(part);
        add('writer', w.writer_id, part);
      }
    }
    add('publisher', p.publisher_id, s.minus(passed));
  }
  if (!total.eq(HUNDRED) || acc.size === 0) return null;
  const list = [...acc.entries()]
    .filter(([, v]) => !v.isZero())
    .map(([k, v]) => ({ k, v }))
    .sort((a, b) => b.v.comparedTo(a.v) || (a.k < b.k ? -1 : a.k > b.k ? 1 : 0));
  const out: PayeeShare[] = list.map(({ k, v }, i) => {
    const [kind, id] = k.split(':') as ['writer' | 'publisher', string];
    return { kind, id, share: i === 0 ? new Decimal(0) : v.toDecimalPlaces(12, Decimal.ROUND_HALF_UP), getsRemainder: i === 0 };
  });
  out[0]!.share = HUNDRED.minus(out.slice(1).reduce((a, p) => a.plus(p.share), new Decimal(0)));
  return out;
}

/**
 * A line's amount split to its payees exactly as the database does (royalty_share_amount):
 * round(amount × share / 100, 12) each, the remainder payee amount − Σ the others.
 */
export function splitAmount(amount: Decimal.Value, shares: PayeeShare[]): Decimal[] {
  const a = new Decimal(amount);
  const parts = shares.map((p) => (p.getsRemainder ? null : a.times(p.share).div(HUNDRED).toDecimalPlaces(12, Decimal.ROUND_HALF_UP)));
  const rest = a.minus(parts.reduce<Decimal>((s, x) => (x ? s.plus(x) : s), new Decimal(0)));
  return parts.map((x) => x ?? rest);
}
