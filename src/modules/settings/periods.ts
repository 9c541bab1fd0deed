/**
 * Accounting periods. A workspace reports to its payees monthly, quarterly or half-yearly;
 * each statement file falls into the period containing its statement (reporting) month.
 * Periods are named by their first day (a DATE in Postgres) and by a label.
 */
export type Cadence = 'monthly' | 'quarterly' | 'half-yearly';
export const CADENCES: Cadence[] = ['monthly', 'quarterly', 'half-yearly'];

const MONTHS_PER: Record<Cadence, number> = { monthly: 1, quarterly: 3, 'half-yearly': 6 };

/** 'YYYY-MM-DD' or 'YYYY-MM' → first day of the accounting period containing it, 'YYYY-MM-01'. */
export function accountingPeriodStart(date: string, cadence: Cadence): string {
  const m = /^(\d{4})-(\d{2})/.exec(date);
  if (!m) throw new Error(`not a date: ${date}`);
  const year = Number(m[1]);
  const month = Number(m[2]);
  if (month < 1 || month > 12) throw new Error(`not a date: ${date}`);
  const span = MONTHS_PER[cadence];
  const first = Math.floor((month - 1) / span) * span + 1;
  return `${year}-${String(first).padStart(2, '0')}-01`;
}

/** Last day of the period that starts at `start`. */
export function accountingPeriodEnd(start: string, cadence: Cadence): string {
  const [y, mo] = start.split('-').map(Number) as [number, number];
  const endMonthExclusive = new Date(Date.UTC(y, mo - 1 + MONTHS_PER[cadence], 1));
  return new Date(endMonthExclusive.getTime() - 86400_000).toISOString().slice(0, 10);
}

/** '2026-10' (monthly), '2026-Q4' (quarterly), '2026-H2' (half-yearly). */
export function accountingPeriodLabel(start: string, cadence: Cadence): string {
  const [y, mo] = start.split('-').map(Number) as [number, number];
  if (cadence === 'monthly') return `${y}-${String(mo).padStart(2, '0')}`;
  if (cadence === 'quarterly') return `${y}-Q${Math.floor((mo - 1) / 3) + 1}`;
  return `${y}-H${mo <= 6 ? 1 : 2}`;
}

/** SQL expression giving the period start of a DATE column for a cadence held in a column or literal. */
export function accountingPeriodSql(dateExpr: string, cadenceExpr: string): string {
  return `(date_trunc('year', ${dateExpr})::date + make_interval(months => ((extract(month from ${dateExpr})::int - 1) / (CASE ${cadenceExpr} WHEN 'quarterly' THEN 3 WHEN 'half-yearly' THEN 6 ELSE 1 END)) * (CASE ${cadenceExpr} WHEN 'quarterly' THEN 3 WHEN 'half-yearly' THEN 6 ELSE 1 END)))::date`;
}

/** "2026-10" | "2026-Q4" | "2026-H2" → its first day and the first day after it; null when not a period label. */
export function periodSpanOf(label: string): { start: string; end: string } | null {
  const m = /^(\d{4})-(?:(0[1-9]|1[0-2])|Q([1-4])|H([12]))$/.exec(label);
  if (!m) return null;
  const y = Number(m[1]);
  const [first, months] = m[2] ? [Number(m[2]), 1] : m[3] ? [(Number(m[3]) - 1) * 3 + 1, 3] : [(Number(m[4]) - 1) * 6 + 1, 6];
  const iso = (yy: number, mm: number) => `${yy + Math.floor((mm - 1) / 12)}-${String(((mm - 1) % 12) + 1).padStart(2, '0')}-01`;
  return { start: iso(y, first), end: iso(y, first + months) };
}
