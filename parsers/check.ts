/**
 * Validation of a pattern against a sample statement: what an admin needs to fix before a
 * pattern loads a layout exactly. Schema problems, every mapped column the sample's header
 * lacks (a misspelt column is an error, not a silent null), every value a normaliser cannot
 * read (grouped by field and column, with counts and examples), other line errors, and the
 * totals, skipped rows and control totals the sample would load. Database-free.
 */
import { Readable } from 'node:stream';
import type { CanonicalLine, ReadSummary } from './types';
import { validatePattern, type SourcePattern } from './schema';
import { readStatement } from './read';
import { CURRENCY_CODES, currencyIn } from './draft-advice';

const EXAMPLES = 5;
const SHOWN_LINES = 20;

export interface UnreadableValues {
  field: string;
  column: string;
  count: number;
  examples: { lineNo: number; value: string }[];
}

export interface SampleCheck {
  valid: boolean;
  /** Every problem as one sentence, in the order: schema, header, values, other line errors. */
  errors: string[];
  missingColumns: { field: string; column: string }[];
  unreadable: UnreadableValues[];
  /** Line errors not tied to one value (malformed records, wrong field counts, unknown row kinds). */
  otherErrors: { reason: string; count: number; lineNos: number[] }[];
  summary: ReadSummary | null;
  /** The first lines as they would be stored. */
  lines: CanonicalLine[];
  /** Guesses and doubts that do not stop the pattern from reading the sample, one sentence each. */
  warnings: string[];
}

/** Checks `pattern` (unvalidated input) against the sample's text. */
export async function checkPatternOnSample(pattern: unknown, sample: Buffer, fileName: string): Promise<SampleCheck> {
  const v = validatePattern(pattern);
  const out: SampleCheck = { valid: false, errors: [], missingColumns: [], unreadable: [], otherErrors: [], summary: null, lines: [], warnings: [] };
  if (!v.ok) {
    out.errors = v.errors;
    return out;
  }
  const p: SourcePattern = v.pattern;
  const byCell = new Map<string, UnreadableValues>();
  let cents = false, nonZero = 0;
  const other = new Map<string, { reason: string; count: number; lineNos: number[] }>();
  const kept: string[] = [];
  let keptCount = 0;
  try {
    out.summary = await readStatement(Readable.from([sample]), { fileName, pattern: p }, {
      lines(b) {
        for (const l of b) {
          if (out.lines.length < SHOWN_LINES) out.lines.push(l);
          if (l.net.includes('.') && !/\.0*$/.test(l.net)) cents = true;
          if (!/^-?0*(\.0*)?$/.test(l.net)) nonZero++;
        }
      },
      error(e) {
        if (e.kept) {
          // the line was kept (a UPC with a wrong check digit): a doubt to check, not an error
          if (kept.length < EXAMPLES) kept.push(e.reason);
          keptCount++;
          return;
        }
        if (e.detail) {
          const k = `${e.detail.field}\u0000${e.detail.column}`;
          let u = byCell.get(k);
          if (!u) byCell.set(k, (u = { field: e.detail.field, column: e.detail.column, count: 0, examples: [] }));
          u.count++;
          if (u.examples.length < EXAMPLES && !u.examples.some((x) => x.value === e.detail!.value)) u.examples.push({ lineNo: e.lineNo, value: e.detail.value });
          return;
        }
        const reason = e.reason.replace(/"[^"]*"/g, '"…"');
        let o = other.get(reason);
        if (!o) other.set(reason, (o = { reason: e.reason, count: 0, lineNos: [] }));
        o.count++;
        if (o.lineNos.length < EXAMPLES) o.lineNos.push(e.lineNo);
      },
    });
  } catch (e) {
    out.errors.push((e as Error).message);
    return out;
  }
  out.missingColumns = out.summary.missingColumns ?? [];
  for (const m of out.missingColumns)
    out.errors.push(`column "${m.column}" (mapped to ${m.field}) is not in the sample's header; fix the name, or mark the mapping optional if some files lack it`);
  out.unreadable = [...byCell.values()];
  for (const u of out.unreadable) {
    const ex = u.examples.map((x) => (x.value === '' ? '(empty)' : JSON.stringify(x.value))).join(', ');
    out.errors.push(`${u.count} value(s) in "${u.column}" (${u.field}) cannot be read, e.g. ${ex} (line ${u.examples.map((x) => x.lineNo).join(', ')})`);
  }
  out.otherErrors = [...other.values()];
  for (const o of out.otherErrors) out.errors.push(`${o.count} line(s): ${o.reason} (line ${o.lineNos.join(', ')})`);
  if (out.summary.reconciles === false) out.errors.push(`the file's control totals ${JSON.stringify(out.summary.control)} do not match what was read ${JSON.stringify({ rows: out.summary.rowsIngested + out.summary.rowsFailed, totals: out.summary.totals })}`);
  if (out.summary.rowsIngested === 0 && out.errors.length === 0) out.errors.push('no line was read from the sample');
  const cur = p.columns.currency;
  if (cur?.const !== undefined && !cur.from && cur.column === undefined) {
    const code = cur.const.trim().toUpperCase();
    if (!CURRENCY_CODES.has(code) && code === 'XXX') out.errors.push('the currency is not set: map it to a column or set the currency the statement is in');
    else if (![sample.subarray(0, 64 * 1024).toString('utf8'), sample.subarray(0, 64 * 1024).toString('latin1'), fileName.replace(/[_.\-]/g, ' ')].some((t) => currencyIn(t, code)))
      out.warnings.push(`the currency ${code} is a guess: no column, header or file name of the sample names it; confirm the statement is in ${code}`);
  }
  if (keptCount) out.warnings.push(`${keptCount} line(s) kept without an identifier that is not valid: ${kept.join('; ')}${keptCount > kept.length ? '; …' : ''}`);
  if (nonZero >= 3 && !cents)
    out.warnings.push(`every amount read is a whole number (${JSON.stringify(out.summary.totals)}): check the amount column holds money, not a count of sales`);
  out.valid = out.errors.length === 0;
  return out;
}
