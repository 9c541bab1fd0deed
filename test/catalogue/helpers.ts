import { gtinCheckDigit } from '../../src/modules/catalogue/identifiers';

let n = 0;
/** A valid 12-digit UPC-A, unique per call. */
export function upc(): string {
  const body = `19${String(Date.now() % 1e6).padStart(6, '0')}${String(++n).padStart(3, '0')}`;
  return body + gtinCheckDigit(body);
}
/** A well-formed ISRC, unique per call (dashed form). */
export function isrc(): string {
  const k = ++n;
  return `QZ-${String.fromCharCode(65 + (k % 26))}${String.fromCharCode(65 + (Math.floor(k / 26) % 26))}1-26-${String(k * 7 + (Date.now() % 1000)).padStart(5, '0').slice(-5)}`;
}
