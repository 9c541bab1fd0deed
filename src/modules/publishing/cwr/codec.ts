/**
 * One CWR record to and from its fixed-width line, by the layouts of layouts.ts. Pure.
 */
import Decimal from 'decimal.js';
import { LAYOUTS, type Version } from './layouts';

export type Values = Record<string, string | number | null | undefined>;

export class CwrError extends Error {
  constructor(message: string, readonly line?: number) {
    super(line ? `line ${line}: ${message}` : message);
  }
}

/**
 * Text as CWR carries it: upper case, accents dropped, anything outside printable ASCII a
 * space, runs of spaces kept as they are (a reader gets back exactly this, trimmed).
 */
export function cwrText(s: string | null | undefined): string {
  if (!s) return '';
  return s.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toUpperCase().replace(/[^\x20-\x7e]/g, ' ');
}

/** A percentage (two decimals at most) as CWR's 5-digit share field: 50 → 05000. */
export function cwrShare(pct: string | number): string {
  return new Decimal(String(pct)).times(100).toFixed(0).padStart(5, '0');
}

/** A 5-digit share field back as a percentage string with two decimals: 05000 → '50.00'. */
export function shareOf(field: string): string {
  const t = field.trim();
  return t ? new Decimal(t).div(100).toFixed(2) : '0.00';
}

/** One record as its line (no line end). Values too long for their field are cut. */
export function formatRecord(version: Version, type: string, values: Values): string {
  const layout = LAYOUTS[version][type];
  if (!layout) throw new CwrError(`no CWR ${version} layout for ${type}`);
  let line = '';
  for (const f of layout) {
    const raw = f.name === 'recordType' ? type : values[f.name];
    const v = raw === null || raw === undefined ? '' : f.kind === 'A' ? cwrText(String(raw)) : String(raw);
    if (f.kind === 'N' && v && !/^\d+$/.test(v)) throw new CwrError(`${type}.${f.name} must be digits (got ${v})`);
    line += v === '' ? ' '.repeat(f.size) : f.kind === 'N' ? v.padStart(f.size, '0').slice(-f.size) : v.padEnd(f.size, ' ').slice(0, f.size);
  }
  return line;
}

/**
 * The fields of one line by its record type (trimmed; blank is ''). A short line reads as if
 * padded with spaces; characters past the layout (fields of a later revision) are ignored.
 * A record type without a layout here answers `values: null`.
 */
export function parseRecord(version: Version, line: string): { type: string; values: Record<string, string> | null } {
  const type = line.slice(0, 3);
  const layout = LAYOUTS[version][type];
  if (!layout) return { type, values: null };
  const values: Record<string, string> = {};
  for (const f of layout) values[f.name] = line.slice(f.start - 1, f.start - 1 + f.size).trim();
  return { type, values };
}
