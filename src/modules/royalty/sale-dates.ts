/** Date bounds of the analytics requests (YYYY-MM or YYYY-MM-DD) as dates. */
import { ValidationError } from '../../lib/errors';

export function startDate(s: string): string {
  return /^\d{4}-\d{2}$/.test(s) ? `${s}-01` : s;
}
export function endDate(s: string): string {
  if (/^\d{4}-\d{2}$/.test(s)) {
    const [y, m] = s.split('-').map(Number) as [number, number];
    return new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
  }
  return s;
}
export function checkDate(s: string, what: string): void {
  const d = startDate(s);
  const t = Date.parse(`${d}T00:00:00Z`);
  if (Number.isNaN(t) || new Date(t).toISOString().slice(0, 10) !== d) throw new ValidationError(`${what} must be YYYY-MM or YYYY-MM-DD`, [`${what}: ${s}`]);
}
