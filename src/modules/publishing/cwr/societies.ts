/** Rights societies and their CISAC society codes (the society fields of CWR records). Pure. */

export const SOCIETIES: Record<string, number> = {
  ACUM: 1, AKM: 5, APRA: 8, ARTISJUS: 9, ASCAP: 10, AMRA: 17, BMI: 21, BUMA: 23, CASH: 26, HFA: 34, GEMA: 35, JASRAC: 38,
  KODA: 40, MCPS: 44, OSA: 50, PRS: 52, SABAM: 55, SACEM: 58, SADAIC: 61, SAMRO: 63, SESAC: 71, SGAE: 72, SIAE: 74, STIM: 79,
  SUISA: 80, TEOSTO: 89, TONO: 90, UBC: 93, ZAIKS: 97, SOCAN: 101, COMPASS: 106, KOMCA: 118, IMRO: 128, ECAD: 308, MLC: 708, GMR: 778,
};
export const SOCIETY_CODES = Object.keys(SOCIETIES);

/** A society's CISAC code as CWR's three-digit field ('052'), blank when unknown. */
export function societyCisac(code: string | null | undefined): string {
  const n = code ? SOCIETIES[code.toUpperCase()] : undefined;
  return n === undefined ? '' : String(n).padStart(3, '0');
}

/** The society code of a CISAC number read from a CWR file (null when not in the list). */
export function societyOfCisac(field: string): string | null {
  const n = Number(field.trim());
  if (!field.trim() || !Number.isInteger(n)) return null;
  return SOCIETY_CODES.find((c) => SOCIETIES[c] === n) ?? null;
}
