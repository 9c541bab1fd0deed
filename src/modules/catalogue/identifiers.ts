/**
 * Recording and product identifiers, normalised the same way everywhere (API input,
 * statement ingestion, allocation), so that a statement line matches the catalogue.
 *
 * - ISRC (ISO 3901, written CC-XXX-YY-NNNNN): stored as 12 upper-case characters without
 *   separators: country (2 letters), registrant (3 alphanumerics), year (2 digits),
 *   designation (5 digits). `normaliseIsrc(' us-rc1-76-07839 ')` → `'USRC17607839'`.
 * - UPC/EAN (GTIN): stored as GTIN-13 (13 digits). A 12-digit UPC-A gets a leading 0;
 *   shorter values (spreadsheets drop leading zeros; EAN-8) are left-padded with zeros; a
 *   GTIN-14 whose indicator digit is 0 loses it. The check digit is verified by isValidUpc.
 */

const ISRC_RE = /^[A-Z]{2}[A-Z0-9]{3}\d{7}$/;

/** Canonical ISRC, or null when the value cannot be an ISRC. */
export function normaliseIsrc(raw: string | null | undefined): string | null {
  if (raw == null) return null;
  const s = String(raw)
    .trim()
    .replace(/^="?|"$/g, '')
    .replace(/^ISRC[:\s]*/i, '')
    .replace(/[\s\-_.'"]/g, '')
    .toUpperCase();
  return ISRC_RE.test(s) ? s : null;
}

/** `USRC17607839` → `US-RC1-76-07839` (display form). */
export function formatIsrc(isrc: string): string {
  return `${isrc.slice(0, 2)}-${isrc.slice(2, 5)}-${isrc.slice(5, 7)}-${isrc.slice(7)}`;
}

/** Canonical GTIN-13 digits, or null when the value has no place as a UPC/EAN (check digit NOT verified). */
export function normaliseUpc(raw: string | number | null | undefined): string | null {
  if (raw == null) return null;
  let s = String(raw)
    .trim()
    .replace(/^(?:upc|ean|icpn|gtin)\s*:?\s*/i, '')
    .replace(/^="?|"$/g, '')
    .replace(/["'\s\-]/g, '');
  if (!/^\d{6,14}$/.test(s)) return null;
  if (s.length === 14) {
    if (s[0] !== '0') return null;
    s = s.slice(1);
  }
  return s.padStart(13, '0');
}

/** GTIN check digit (mod 10, weights 3/1 from the right) of a digit string, any GTIN length. */
export function gtinCheckDigit(body: string): number {
  let sum = 0;
  for (let i = body.length - 1, w = 3; i >= 0; i--, w = w === 3 ? 1 : 3) sum += Number(body[i]) * w;
  return (10 - (sum % 10)) % 10;
}

/** True when raw normalises to a GTIN-13 whose last digit is its check digit. */
export function isValidUpc(raw: string | number | null | undefined): boolean {
  const s = normaliseUpc(raw);
  if (!s || /^0+$/.test(s)) return false;
  return gtinCheckDigit(s.slice(0, 12)) === Number(s[12]);
}

/** Normalise and validate in one step: the canonical UPC, or an error message. */
export function parseUpc(raw: string): { upc: string } | { error: string } {
  const upc = normaliseUpc(raw);
  if (!upc) return { error: `UPC "${raw}" is not a UPC/EAN (6 to 14 digits)` };
  if (!isValidUpc(upc)) return { error: `UPC "${raw}" has a wrong check digit` };
  return { upc };
}

export function parseIsrc(raw: string): { isrc: string } | { error: string } {
  const isrc = normaliseIsrc(raw);
  if (!isrc) return { error: `ISRC "${raw}" is not of the form CC-XXX-YY-NNNNN` };
  return { isrc };
}

/** ISO 3166-1 alpha-2 (upper case), or null. */
export function normaliseTerritory(raw: string): string | null {
  const s = raw.trim().toUpperCase();
  return /^[A-Z]{2}$/.test(s) ? s : null;
}
