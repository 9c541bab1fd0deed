/**
 * The cell-level pieces of reading a workbook: Excel's limits, OOXML text escapes, cell
 * references, number text (never a JS float), date formats and serials, and the SAX parser
 * every entry is read with. See xlsx.ts for the reading rules.
 */
import { SaxesParser, type SaxesTagPlain } from 'saxes';

export class XlsxError extends Error {}

export const MAX_ROWS = 1_048_576;
export const MAX_COLS = 16_384;
/** Excel's own limit on a cell's text; raw XML text may be longer by its escapes (`_x000D_`, 7 chars for 1). */
export const MAX_CELL_CHARS = 32_767;
export const MAX_RAW_CELL_CHARS = MAX_CELL_CHARS * 7;
/** A CSV line longer than this is refused (as the reader refuses a longer record). */
export const MAX_LINE_CHARS = 16 * 1024 * 1024;
/** Bytes kept per shared string beside its text (three Uint32 arrays). */
export const SHARED_STRING_OVERHEAD = 12;
export const local = (name: string): string => {
  const i = name.indexOf(':');
  return i === -1 ? name : name.slice(i + 1);
};

/** Decodes OOXML `_xHHHH_` escapes (control characters in strings). */
export function unescapeOoxml(s: string): string {
  if (s.indexOf('_x') === -1) return s;
  return s.replace(/_x([0-9A-Fa-f]{4})_/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));
}

/** Column letters of a cell reference → 0-based index; -1 when there are none. */
export function colOf(ref: string): number {
  let n = 0, i = 0;
  for (; i < ref.length; i++) {
    const c = ref.charCodeAt(i) | 0x20; // lower-case letters
    if (c < 97 || c > 122) break;
    n = n * 26 + (c - 96);
  }
  return i === 0 ? -1 : n - 1;
}

// ------------------------------------------------------------------------------- numbers

const NUM = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/**
 * The number text as written, unless it has 16+ significant digits (a double printed in
 * full): then rounded half-up to 15 significant digits, as plain decimal text. No float.
 */
export function excelNumber(text: string): string {
  const m = NUM.exec(text);
  if (!m) return text;
  const int = m[2] ?? '', frac = m[3] ?? '';
  const all = int + frac;
  let lead = 0;
  while (lead < all.length && all[lead] === '0') lead++;
  if (all.length - lead <= 15) return text;
  let point = int.length + (m[4] ? Number(m[4]) : 0); // digits of `all` before the decimal point
  const keep = all.slice(0, lead + 15).split('');
  if (all.charCodeAt(lead + 15) >= 53) {
    let i = keep.length - 1;
    for (; i >= 0; i--) {
      if (keep[i] === '9') keep[i] = '0';
      else {
        keep[i] = String.fromCharCode(keep[i]!.charCodeAt(0) + 1);
        break;
      }
    }
    if (i < 0) {
      keep.unshift('1');
      point++;
    }
  }
  let digits = keep.join('');
  let out: string;
  if (point <= 0) out = '0.' + '0'.repeat(-point) + digits;
  else {
    if (digits.length < point) digits = digits.padEnd(point, '0');
    const i = digits.slice(0, point).replace(/^0+(?=\d)/, '');
    const f = digits.slice(point);
    out = f ? `${i}.${f}` : i;
  }
  if (out.indexOf('.') !== -1) out = out.replace(/0+$/, '').replace(/\.$/, '');
  if (/^0(\.0*)?$/.test(out)) return '0';
  return m[1] === '-' ? '-' + out : out;
}

// ------------------------------------------------------------------------------- dates

export const BUILTIN_DATE_FORMATS = new Set([14, 15, 16, 17, 22, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 50, 51, 52, 53, 54, 55, 56, 57, 58]);

/** Whether a number format code shows a date (not a pure time, not a number). */
export function isDateFormat(code: string): boolean {
  let s = code.split(';')[0] ?? '';
  if (/\[(h+|m+|s+)\]/i.test(s)) return false; // elapsed time
  s = s.replace(/"[^"]*"/g, '').replace(/\\./g, '').replace(/\[[^\]]*\]/g, '').toLowerCase();
  if (/[dy]/.test(s)) return true;
  return /m/.test(s) && !/[hs]/.test(s);
}

const DAY_MS = 86_400_000;
const EPOCH_1900 = Date.UTC(1899, 11, 30);
const EPOCH_1904 = Date.UTC(1904, 0, 1);

/** Serial day number → 'YYYY-MM-DD' (null when it is not a plausible date). */
export function serialToIso(text: string, date1904: boolean): string | null {
  const v = Number(text); // a date serial, not an amount
  if (!Number.isFinite(v) || v < 1 || v > 2_958_465) return null;
  let days = Math.floor(v);
  if (!date1904 && days < 61) {
    if (days === 60) return '1900-02-29'; // Excel's fictitious day (kept as Excel shows it)
    days += 1; // before it, serials are one day off the 1899-12-30 epoch
  }
  const d = new Date((date1904 ? EPOCH_1904 : EPOCH_1900) + days * DAY_MS);
  return d.toISOString().slice(0, 10);
}
// ------------------------------------------------------------------------------- XML

export interface Sax {
  open(name: string, attrs: Record<string, string>): void;
  close?(name: string): void;
  text?(t: string): void;
}
/** A SAX parser over one entry: local names, attributes as strings; malformed XML is an XlsxError. */
export function saxParser(where: string, h: Sax): SaxesParser<{ xmlns: false; position: false }> {
  const p = new SaxesParser<{ xmlns: false; position: false }>({ xmlns: false, position: false });
  p.on('error', (e: Error) => {
    throw new XlsxError(`The xlsx workbook is corrupt: "${where}" is not well-formed XML (${e.message})`);
  });
  p.on('opentag', (t: SaxesTagPlain) => h.open(local(t.name), t.attributes as Record<string, string>));
  if (h.close) {
    const close = h.close;
    p.on('closetag', (t: SaxesTagPlain) => close(local(t.name)));
  }
  if (h.text) {
    p.on('text', h.text);
    p.on('cdata', h.text);
  }
  return p;
}
