/**
 * The rules of a spreadsheet cell: numbers of numeric columns as written, every other text
 * neutralised against formula injection, quoting for every usual separator. Every CSV the
 * application writes (exports, statements, streamed lines) follows them; the HTTP layer
 * (src/http/export.ts) only sends what they make.
 */

export type ColumnKind = 'text' | 'decimal' | 'integer' | 'date';

const NUMERIC = /^-?\d+(\.\d+)?$/;
const INTEGER = /^-?\d+$/;
const DAY_OR_MONTH = /^(\d{4})-(\d{2})(?:-(\d{2}))?$/;
const FORMULA_START = /^[=+\-@\t\r]/;

/** A decimal string without trailing fraction zeros ("12.500" → "12.5", "3.000" → "3"). */
export function trimDecimal(s: string): string {
  return s.includes('.') ? s.replace(/\.?0+$/, '') : s;
}

/** Text a spreadsheet will not read as a formula: `'` before = + - @ tab CR. */
export function neutralise(s: string): string {
  return FORMULA_START.test(s) ? `'${s}` : s;
}

/**
 * The same guard in SQL, for CSV written by Postgres' own `COPY … TO STDOUT (FORMAT csv)`:
 * `expr` (a text expression) with `'` put before a leading = + - @ tab or CR.
 */
export function neutraliseSql(expr: string): string {
  return `CASE WHEN ${expr} ~ '^[-=+@\\t\\r]' THEN '''' || ${expr} ELSE ${expr} END`;
}

/** The cell's text before CSV quoting: numbers of numeric columns as they are, the rest neutralised. */
export function cellText(v: unknown, kind: ColumnKind = 'text'): string {
  if (v === null || v === undefined) return '';
  const s = v instanceof Date ? v.toISOString() : String(v);
  if (kind === 'decimal' && NUMERIC.test(s)) return trimDecimal(s);
  if (kind === 'integer' && INTEGER.test(s)) return s;
  if (kind === 'date' && DAY_OR_MONTH.test(s)) return s;
  return neutralise(s);
}

/**
 * A CSV cell is quoted when it holds a quote, a line break or any usual separator (`,` `;`
 * tab): a spreadsheet that splits on `;` or tab keeps `Song;=1+1` whole instead of starting a
 * cell with `=`.
 */
const CSV_QUOTED = /[",;\t\r\n]/;

/** The same rule as Papa.unparse's `quotes` option (its own rule misses `;` and tab). */
export const csvQuotes = (v: unknown): boolean => typeof v === 'string' && CSV_QUOTED.test(v);

export function csvCell(v: unknown, kind?: ColumnKind): string {
  const s = cellText(v, kind);
  return CSV_QUOTED.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function csvRow(values: unknown[], kinds?: (ColumnKind | undefined)[]): string {
  return values.map((v, i) => csvCell(v, kinds?.[i])).join(',') + '\r\n';
}
