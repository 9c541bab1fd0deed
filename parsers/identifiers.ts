/**
 * Identifiers: ISRC upper-cased without separators; UPC/EAN cleaned, padded back when a
 * spreadsheet lost its leading zeros, and check-digit validated (docs/patterns.md, normalisers;
 * docs/formats.md, identifiers).
 */

const ISRC_RE = /^[A-Z]{2}[A-Z0-9]{3}\d{7}$/;

/**
 * ISRC → 12 characters, upper case, no dashes/spaces ('us-rc1-76-07839' → 'USRC17607839').
 * Decision: an ISRC that is still not valid after cleaning returns `undefined`; the reader
 * stores `isrc: null` and keeps the trimmed source text in `isrcRaw` so nothing is lost
 * and the line still counts (an ISRC is not money).
 */
export function normIsrc(raw: string): string | null | undefined {
  if (raw.length === 12 && ISRC_RE.test(raw)) return raw;
  let s = raw.trim();
  if (s === '') return null;
  s = s.replace(/^="?|"$/g, '').replace(/^ISRC[:\s]*/i, '').replace(/[\s\-_.'"]/g, '').toUpperCase();
  if (s === '') return null;
  return ISRC_RE.test(s) ? s : undefined;
}

/**
 * UPC/EAN/ICPN → digits only, leading zeros kept. Strips Excel guards (`="0123"`), quotes,
 * apostrophes, `empty:`/`UPC:` prefixes, spaces and dashes. Values Excel already mangled
 * into scientific notation (`8.85E+11`) cannot be recovered and are `undefined`, as is
 * anything that is not 6–14 digits after cleaning.
 */
export function normUpc(raw: string): string | null | undefined {
  let s = raw.trim();
  if (s === '') return null;
  if (/^\d{6,14}$/.test(s)) return s.length < 12 ? padGtin(s) : s;
  s = s.replace(/^(?:empty|upc|ean|icpn)\s*:\s*/i, '').replace(/^=/, '').replace(/["'\s\-]/g, '');
  if (s === '' || /^(?:null|none|n\/a|empty)$/i.test(s)) return null;
  return /^\d{6,14}$/.test(s) ? (s.length < 12 ? padGtin(s) : s) : undefined;
}

/** True when the last digit of a GTIN (EAN-8, UPC-A, EAN-13, GTIN-14) is its check digit. */
export function gtinCheck(s: string): boolean {
  let sum = 0;
  for (let i = s.length - 2, w = 3; i >= 0; i--, w = 4 - w) sum += (s.charCodeAt(i) - 48) * w;
  return (10 - (sum % 10)) % 10 === s.charCodeAt(s.length - 1) - 48;
}

/**
 * Why a normalised UPC/EAN is not a barcode, or null when it is one: a GTIN length (8, 12, 13,
 * 14 digits) whose last digit is not its mod-10 check digit, or 9–11 digits that no leading
 * zeros make valid (a UPC-A with a wrong check digit, its zeros lost). 6–7 digit codes are
 * not GTINs and are kept as read (some stores report catalogue numbers there).
 */
export function upcProblem(v: string): string | null {
  if (!/^\d+$/.test(v) || v.length < 8) return null;
  const g = v.length < 12 ? v.padStart(12, '0') : v;
  if (gtinCheck(g)) return null;
  let sum = 0;
  for (let i = g.length - 2, w = 3; i >= 0; i--, w = 4 - w) sum += (g.charCodeAt(i) - 48) * w;
  return `UPC/EAN "${v}" has a wrong check digit (the last digit should be ${(10 - (sum % 10)) % 10})`;
}

/**
 * A barcode a spreadsheet stored as a number loses its leading zeros: 9–11 digits are padded
 * back to the 12 of a UPC-A when the padded code's check digit is right (the check digit does
 * not change with leading zeros, so it tells a barcode from a short catalogue number only by
 * length and validity). Anything else is kept as read.
 */
function padGtin(s: string): string {
  if (s.length < 9 || s.length === 8) return s;
  const p = s.padStart(12, '0');
  return gtinCheck(p) ? p : s;
}

