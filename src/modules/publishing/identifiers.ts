/**
 * Identifiers of the song side: ISWC (check digit) and IPI name numbers (mod 101 check
 * digits). Pure functions. Societies and their CISAC codes: cwr/societies.ts.
 */

/**
 * An ISWC in any usual spelling (`T-034.524.680-1`, `T0345246801`, `t 034 524 680 1`) as
 * its compact form `T0345246801`, or null when it is not one (wrong shape or check digit).
 * Check digit: 1 + Σ i·dᵢ over the nine digits (i = 1…9); the check is (10 − sum mod 10) mod 10.
 */
export function normaliseIswc(raw: string): string | null {
  const s = raw.trim().toUpperCase();
  if (!/^T[-. ]?\d{3}[-. ]?\d{3}[-. ]?\d{3}[-. ]?\d$/.test(s)) return null;
  const digits = s.replace(/\D/g, '');
  let sum = 1;
  for (let i = 0; i < 9; i++) sum += (i + 1) * Number(digits[i]);
  return (10 - (sum % 10)) % 10 === Number(digits[9]) ? `T${digits}` : null;
}

/** `T0345246801` → `T-034.524.680-1`. */
export function formatIswc(compact: string): string {
  const d = compact.slice(1);
  return `T-${d.slice(0, 3)}.${d.slice(3, 6)}.${d.slice(6, 9)}-${d[9]}`;
}

/**
 * An IPI name number: 11 digits, the last two a check over the first nine
 * (Σ dᵢ·(10 − i) for i = 0…8, mod 101; check = (101 − that) mod 100, 00 when it is 0).
 * Shorter spellings are left-padded with zeros (societies often drop them).
 */
export function normaliseIpi(raw: string): string | null {
  const s = raw.trim();
  if (!/^\d{1,11}$/.test(s)) return null;
  const d = s.padStart(11, '0');
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += Number(d[i]) * (10 - i);
  sum %= 101;
  const check = sum === 0 ? 0 : (101 - sum) % 100;
  return String(check).padStart(2, '0') === d.slice(9) ? d : null;
}

/** The two check digits that make nine digits a valid IPI name number (tests and demo data). */
export function ipiWithCheck(nine: string): string {
  for (let c = 0; c < 100; c++) {
    const candidate = `${nine}${String(c).padStart(2, '0')}`;
    if (normaliseIpi(candidate) === candidate) return candidate;
  }
  throw new Error(`no IPI check digits for ${nine}`);
}
