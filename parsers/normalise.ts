/**
 * Pure, per-value normalisers used on every statement row. They dominate ingest time
 * (measured with `npm run bench:ingest`), so each has a cheap fast path for the common shape and the slow,
 * general path only for the rest. Low-cardinality values (dates, countries, sale types)
 * are memoised by raw text.
 *
 * Conventions: `null` = the source cell is empty; `undefined` = the value is present but
 * cannot be understood (the caller turns that into a line error for required fields).
 */
import Decimal from 'decimal.js';

// ---------------------------------------------------------------------------------------
// Decimals
// ---------------------------------------------------------------------------------------

/** How a source writes numbers: '.' decimal point, ',' decimal comma, 'auto' guess per value. */
export type DecimalStyle = '.' | ',' | 'auto';

const PLAIN_DECIMAL = /^-?(?:0|[1-9]\d*)(?:\.\d+)?$/;
const NUMBERISH = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * Turns a source amount into an exact decimal string ('-0.000211', '1234.56', '0.02133').
 * Handles a decimal comma, thousands separators (`,` `.` space, NBSP, apostrophe),
 * no leading zero (`.021330`), accounting negatives `(12.50)`, a trailing minus `12.50-`,
 * leading `+`, currency symbols and scientific notation (`1.5E-7` → `0.00000015`).
 * Never goes through a JS float.
 */
export function normDecimal(raw: string, style: DecimalStyle = '.'): string | null | undefined {
  // fast path: already canonical (a negative zero loses its sign)
  if ((style !== ',' || raw.indexOf('.') === -1) && PLAIN_DECIMAL.test(raw))
    return raw.charCodeAt(0) === 45 && raw.charCodeAt(1) === 48 && isZero(raw) ? raw.slice(1) : raw;
  let s = raw.trim();
  if (s === '') return null;
  let neg = false;
  if (s[0] === '(' && s[s.length - 1] === ')') {
    neg = true;
    s = s.slice(1, -1).trim();
  }
  if (s[s.length - 1] === '-') {
    neg = !neg;
    s = s.slice(0, -1).trim();
  }
  // currency symbols / codes around the number: "$1.00", "1,00 €", "USD 3.5"
  s = s.replace(/^[^\d.,+\-]+|[^\d.,eE]+$/g, '');
  if (s[0] === '-') {
    neg = !neg;
    s = s.slice(1);
  } else if (s[0] === '+') s = s.slice(1);
  s = s.replace(/[\s\u00a0\u202f']/g, '');
  if (s === '') return undefined;

  const comma = s.indexOf(',');
  if (comma !== -1) {
    const dot = s.indexOf('.');
    let decimalSep: ',' | '.';
    if (style === ',') decimalSep = ',';
    else if (style === '.') decimalSep = '.';
    else if (dot !== -1) decimalSep = s.lastIndexOf(',') > s.lastIndexOf('.') ? ',' : '.';
    else {
      // only commas: one comma not followed by exactly three digits is a decimal comma
      const single = s.lastIndexOf(',') === comma;
      decimalSep = single && s.length - comma - 1 !== 3 ? ',' : '.';
    }
    if (decimalSep === ',') s = s.replace(/\./g, '').replace(',', '.');
    else s = s.replace(/,/g, '');
  } else if (style === ',' && s.indexOf('.') !== -1 && s.indexOf('.') !== s.lastIndexOf('.')) {
    s = s.replace(/\./g, ''); // "1.234.567" thousands with decimal comma style
  } else if (style === ',' && /^\d{1,3}\.\d{3}$/.test(s)) {
    s = s.replace('.', ''); // "1.234" in a decimal-comma file is one thousand two hundred…
  }
  // (any other dot in a decimal-comma file is taken as a decimal point: "0.5" stays 0.5)
  if (!NUMBERISH.test(s)) return undefined;
  let out: string;
  if (s.indexOf('e') !== -1 || s.indexOf('E') !== -1) out = new Decimal(s).toFixed();
  else {
    if (s[0] === '.') s = '0' + s;
    if (s[s.length - 1] === '.') s = s.slice(0, -1);
    // strip redundant leading zeros ("007.5" → "7.5")
    let i = 0;
    while (i < s.length - 1 && s[i] === '0' && s[i + 1] !== '.') i++;
    out = i ? s.slice(i) : s;
  }
  if (neg) out = negateDecimal(out);
  else if (out[0] === '-' && isZero(out)) out = out.slice(1);
  return out;
}

function isZero(s: string): boolean {
  return /^-?0(?:\.0*)?$/.test(s);
}

/** Flips the sign of a canonical decimal string; zero stays unsigned. */
export function negateDecimal(s: string): string {
  if (s[0] === '-') return s.slice(1);
  if (isZero(s)) return s;
  return '-' + s;
}

/** Forces a canonical decimal string negative (a return stays negative if already so). */
export function makeNegative(s: string): string {
  if (s[0] === '-' || isZero(s)) return s;
  return '-' + s;
}

// ---------------------------------------------------------------------------------------
// Dates → sale month / period
// ---------------------------------------------------------------------------------------

export interface NormDate {
  /** First day of the month, 'YYYY-MM-01'. */
  month: string;
  /** Period bounds when the value says more than a month (a day, a quarter, a range). */
  start: string | null;
  end: string | null;
}

const MONTHS: Record<string, number> = {};
function addMonths(names: string[]): void {
  names.forEach((n, i) => {
    for (const v of n.split('|')) MONTHS[v] = i + 1;
  });
}
// English, French, German, Spanish, Italian, Portuguese, Dutch; abbreviations included.
addMonths(['january|jan', 'february|feb', 'march|mar', 'april|apr', 'may', 'june|jun', 'july|jul', 'august|aug',
  'september|sep|sept', 'october|oct', 'november|nov', 'december|dec']);
addMonths(['janvier|janv', 'fevrier|fevr|fev', 'mars', 'avril|avr', 'mai', 'juin', 'juillet|juil', 'aout',
  'septembre', 'octobre', 'novembre', 'decembre']);
addMonths(['januar|jaenner', 'februar', 'maerz|marz|maer', 'april', 'mai', 'juni', 'juli', 'august', 'september',
  'oktober|okt', 'november', 'dezember|dez']);
addMonths(['enero|ene', 'febrero', 'marzo', 'abril|abr', 'mayo', 'junio', 'julio', 'agosto|ago', 'septiembre|setiembre',
  'octubre', 'noviembre', 'diciembre|dic']);
addMonths(['gennaio|gen', 'febbraio', 'marzo', 'aprile', 'maggio|mag', 'giugno|giu', 'luglio|lug', 'agosto',
  'settembre|set', 'ottobre|ott', 'novembre', 'dicembre']);
addMonths(['janeiro', 'fevereiro', 'marco', 'abril', 'maio', 'junho', 'julho', 'agosto', 'setembro', 'outubro',
  'novembro', 'dezembro']);

function pad2(n: number): string {
  return n < 10 ? '0' + n : String(n);
}
function daysIn(y: number, m: number): number {
  return new Date(Date.UTC(y, m, 0)).getUTCDate();
}
function ym(y: number, m: number): string {
  return `${y}-${pad2(m)}-01`;
}
function validYmd(y: number, m: number, d: number): boolean {
  return y >= 1900 && y <= 2200 && m >= 1 && m <= 12 && d >= 1 && d <= daysIn(y, m);
}
function day(y: number, m: number, d: number): NormDate | undefined {
  if (!validYmd(y, m, d)) return undefined;
  const iso = `${y}-${pad2(m)}-${pad2(d)}`;
  return { month: ym(y, m), start: iso, end: iso };
}
function monthOnly(y: number, m: number): NormDate | undefined {
  if (!validYmd(y, m, 1)) return undefined;
  return { month: ym(y, m), start: null, end: null };
}
function quarter(y: number, q: number): NormDate | undefined {
  if (y < 1900 || y > 2200) return undefined;
  const sm = (q - 1) * 3 + 1;
  return { month: ym(y, sm), start: `${y}-${pad2(sm)}-01`, end: `${y}-${pad2(sm + 2)}-${daysIn(y, sm + 2)}` };
}
function year2(y: number): number {
  return y < 100 ? 2000 + y : y;
}
function stripAccents(s: string): string {
  return s.normalize('NFD').replace(/[\u0300-\u036f]/g, '');
}

const RE_YM = /^(\d{4})[-/._ ](\d{1,2})$/;
const RE_YMD = /^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?:[T ].*)?$/;
const RE_COMPACT = /^(\d{4})(\d{2})(\d{2})?$/;
const RE_NUMERIC_DMY = /^(\d{1,2})[-/.](\d{1,2})[-/.](\d{2}|\d{4})(?:[ T].*)?$/;
const RE_MY = /^(\d{1,2})[-/._ ](\d{4})$/;
/** Accounting period codes: `P03 24`, `P3/2024`, `Period 03 2024`, `2024 P03`, `24-P03` (the period number is the month). */
const RE_PERIOD = /^p(?:eriod|er)?\.?\s*0?(\d{1,2})\s*[-_/ ]?\s*(\d{4}|\d{2})$/i;
const RE_YEAR_PERIOD = /^(\d{4}|\d{2})\s*[-_/ ]?\s*p(?:eriod|er)?\.?\s*0?(\d{1,2})$/i;
/** Quarters with a two-digit year: `Q1 24`, `Q1-24`, `Q1'24`, `24Q1`, `1Q24`. */
const RE_QUARTER2 = /^q([1-4])\s*[-_ /']?\s*(\d{2})$|^(\d{2})\s*[-_ ]?\s*q([1-4])$|^([1-4])\s*q\s*[-_ /']?\s*(\d{2})$/i;
/** A value with its own reading in brackets: `P03 24(Mar 24)`. */
const RE_BRACKETED = /^(.*?)\s*[([]([^)\]]+)[)\]]\s*$/;
const RE_NAMED_YY = /^([a-z]+)\.?[\s\-/,']+'?(\d{2})$/;
const RE_NAMED_DAY = /^(\d{1,2})\.?[\s\-/]+([a-z]+)\.?,?[\s\-/]+(\d{4})$|^([a-z]+)\.?\s+(\d{1,2}),?\s+(\d{4})$/;
const RE_YEAR_M = /^(\d{4})\s*M(\d{1,2})$/i;
const RE_QUARTER = /^(\d{4})\s*[-_ ]?\s*Q([1-4])$|^Q([1-4])\s*[-_ /]?\s*(\d{4})$/i;
/** `1Q2024`, `1Q 2024`, `1Q-2024`. */
const RE_QUARTER_FIRST = /^([1-4])\s*Q\s*[-_ /]?\s*(\d{4})$/i;
/** `20241` (year, then the quarter's digit), as several collecting societies write it. */
const RE_YEAR_QDIGIT = /^(\d{4})([1-4])$/;
/** Half-years: `2024-H1`, `2024H2`, `H1 2024`, `1H2024`, `2024 S1` (semestre). */
const RE_HALF = /^(\d{4})\s*[-_ ]?\s*[HS]([12])$|^[HS]([12])\s*[-_ /]?\s*(\d{4})$|^([12])\s*H\s*[-_ ]?\s*(\d{4})$/i;
/** Fiscal periods: `FY24 P03`, `FY2024 Q1`, `FY24-H1`, `P03 FY24`, `Q1 FY2024`, `FY2024`. */
const RE_FISCAL = /^FY\s*'?(\d{4}|\d{2})\s*[-_/ ]?\s*(?:P(?:eriod|er)?\.?\s*0?(\d{1,2})|Q([1-4])|[HS]([12]))?$/i;
const RE_FISCAL_LAST = /^(?:P(?:eriod|er)?\.?\s*0?(\d{1,2})|Q([1-4])|[HS]([12]))\s*[-_/ ]?\s*FY\s*'?(\d{4}|\d{2})$/i;
const RE_RANGE = /^(\S+?)\s*(?:--|\s-\s|\s+to\s+|\s+au\s+)\s*(\S+)$/i;
const RE_NAMED = /^([a-z]+)\.?[\s\-/,]+(\d{4})$|^(\d{4})[\s\-/,]+([a-z]+)\.?$/;

/**
 * A layout's fiscal year: the month it starts in (1–12) and which calendar year names it
 * (`end`, the default: FY2024 starting in April runs April 2023 – March 2024; `start`: April
 * 2024 – March 2025). January-start years are calendar years whichever names them.
 */
export interface FiscalYear {
  startMonth: number;
  namedBy?: 'start' | 'end';
}

/** The fiscal year a layout's format declares, or null (calendar periods). */
export function fiscalOf(format: { fiscalYearStart?: number; fiscalYearNamedBy?: 'start' | 'end' }): FiscalYear | null {
  return format.fiscalYearStart ? { startMonth: format.fiscalYearStart, namedBy: format.fiscalYearNamedBy ?? 'end' } : null;
}

/** Months [from, from + count) of fiscal year `fy`, counted from its first month. */
function fiscalSpan(fy: FiscalYear | null, y: number, from: number, count: number): NormDate | undefined {
  const sm = fy?.startMonth ?? 1;
  if (y < 1900 || y > 2200 || sm < 1 || sm > 12 || from < 0 || from + count > 12) return undefined;
  const startYear = sm > 1 && (fy?.namedBy ?? 'end') === 'end' ? y - 1 : y;
  const first = startYear * 12 + (sm - 1) + from;
  const last = first + count - 1;
  const fy0 = Math.floor(first / 12), fm0 = (first % 12) + 1;
  const ly = Math.floor(last / 12), lm = (last % 12) + 1;
  if (count === 1) return monthOnly(fy0, fm0);
  return { month: ym(fy0, fm0), start: `${fy0}-${pad2(fm0)}-01`, end: `${ly}-${pad2(lm)}-${pad2(daysIn(ly, lm))}` };
}

/** A fiscal code's period (P, 1–12), quarter or half, or the whole year when none is given. */
function fiscalPart(fy: FiscalYear | null, y: number, p?: string, q?: string, h?: string): NormDate | undefined {
  if (p !== undefined) return +p >= 1 && +p <= 12 ? fiscalSpan(fy, y, +p - 1, 1) : undefined;
  if (q !== undefined) return fiscalSpan(fy, y, (+q - 1) * 3, 3);
  if (h !== undefined) return fiscalSpan(fy, y, (+h - 1) * 6, 6);
  return fiscalSpan(fy, y, 0, 12);
}

/**
 * Understands a date-ish value and returns its month and, when known, its day/period
 * bounds. `dayFirst` settles `03/04/2023` (default month first, as US exports write it;
 * a first number over 12 is always the day). `fiscal`: the layout's fiscal year, which
 * places `FY…` codes and accounting period codes (`P03 24`); without one they are calendar
 * periods (P03 = March).
 */
export function parseDateValue(raw: string, dayFirst = false, fiscal: FiscalYear | null = null): NormDate | null | undefined {
  const s = raw.trim();
  if (s === '') return null;
  let m: RegExpExecArray | null;
  if ((m = RE_FISCAL.exec(s))) return fiscalPart(fiscal, year2(+m[1]!), m[2], m[3], m[4]);
  if ((m = RE_FISCAL_LAST.exec(s))) return fiscalPart(fiscal, year2(+m[4]!), m[1], m[2], m[3]);
  if ((m = RE_YM.exec(s))) return monthOnly(+m[1]!, +m[2]!);
  if ((m = RE_YMD.exec(s))) return day(+m[1]!, +m[2]!, +m[3]!);
  if ((m = RE_COMPACT.exec(s))) return m[3] ? day(+m[1]!, +m[2]!, +m[3]) : monthOnly(+m[1]!, +m[2]!);
  if ((m = RE_NUMERIC_DMY.exec(s))) {
    let a = +m[1]!, b = +m[2]!;
    const y = year2(+m[3]!);
    if (dayFirst ? b > 12 && a <= 12 : a > 12 && b <= 12) [a, b] = [b, a];
    return dayFirst ? day(y, b, a) : day(y, a, b);
  }
  if ((m = RE_MY.exec(s))) return monthOnly(+m[2]!, +m[1]!);
  if ((m = RE_YEAR_M.exec(s))) return monthOnly(+m[1]!, +m[2]!);
  if ((m = RE_QUARTER.exec(s))) return quarter(+(m[1] ?? m[4])!, +(m[2] ?? m[3])!);
  if ((m = RE_QUARTER_FIRST.exec(s))) return quarter(+m[2]!, +m[1]!);
  if ((m = RE_YEAR_QDIGIT.exec(s))) return quarter(+m[1]!, +m[2]!);
  if ((m = RE_HALF.exec(s))) {
    const y = +(m[1] ?? m[4] ?? m[6])!, h = +(m[2] ?? m[3] ?? m[5])!;
    const sm = h === 1 ? 1 : 7;
    return { month: ym(y, sm), start: `${y}-${pad2(sm)}-01`, end: `${y}-${pad2(sm + 5)}-${daysIn(y, sm + 5)}` };
  }
  if ((m = RE_PERIOD.exec(s))) return fiscal ? fiscalPart(fiscal, year2(+m[2]!), m[1]) : monthOnly(year2(+m[2]!), +m[1]!);
  if ((m = RE_YEAR_PERIOD.exec(s))) return fiscal ? fiscalPart(fiscal, year2(+m[1]!), m[2]) : monthOnly(year2(+m[1]!), +m[2]!);
  if ((m = RE_QUARTER2.exec(s))) return quarter(year2(+(m[2] ?? m[3] ?? m[6])!), +(m[1] ?? m[4] ?? m[5])!);
  if ((m = RE_BRACKETED.exec(s))) {
    // the bracketed reading when it is one, else the value before it
    const inner = parseDateValue(m[2]!, dayFirst, fiscal);
    return inner ?? (m[1] ? parseDateValue(m[1], dayFirst, fiscal) : undefined);
  }
  if ((m = RE_RANGE.exec(s))) {
    const a = parseDateValue(m[1]!, dayFirst, fiscal), b = parseDateValue(m[2]!, dayFirst, fiscal);
    if (!a || !b) return undefined;
    return { month: a.month, start: a.start ?? a.month, end: b.end ?? monthEnd(b.month) };
  }
  const low = stripAccents(s.toLowerCase());
  if ((m = RE_NAMED.exec(low))) {
    const mo = MONTHS[(m[1] ?? m[4])!];
    if (mo) return monthOnly(+(m[2] ?? m[3])!, mo);
  }
  if ((m = RE_NAMED_YY.exec(low))) {
    const mo = MONTHS[m[1]!];
    if (mo) return monthOnly(year2(+m[2]!), mo);
  }
  if ((m = RE_NAMED_DAY.exec(low))) {
    const mo = MONTHS[(m[2] ?? m[4])!];
    if (mo) return day(+(m[3] ?? m[6])!, mo, +(m[1] ?? m[5])!);
  }
  return undefined;
}

const dateMemo = new Map<string, NormDate | null | undefined>();
/** Memoised {@link parseDateValue} (statement dates repeat a lot). */
export function normDate(raw: string, dayFirst = false, fiscal: FiscalYear | null = null): NormDate | null | undefined {
  let key = dayFirst ? '\u0001' + raw : raw;
  if (fiscal && fiscal.startMonth !== 1) key = `\u0002${fiscal.startMonth}${fiscal.namedBy ?? 'end'}\u0002${key}`;
  let v = dateMemo.get(key);
  if (v === undefined && !dateMemo.has(key)) {
    v = parseDateValue(raw, dayFirst, fiscal);
    if (dateMemo.size > 50_000) dateMemo.clear();
    dateMemo.set(key, v);
  }
  return v;
}

/** Last day of the month of a 'YYYY-MM-01' string. */
export function monthEnd(month: string): string {
  const y = +month.slice(0, 4), mo = +month.slice(5, 7);
  return `${month.slice(0, 8)}${pad2(daysIn(y, mo))}`;
}

// ---------------------------------------------------------------------------------------
// Identifiers (ISRC, UPC/EAN): parsers/identifiers.ts
// ---------------------------------------------------------------------------------------

export { normIsrc, normUpc, gtinCheck, upcProblem } from './identifiers';

// ---------------------------------------------------------------------------------------
// Countries
// ---------------------------------------------------------------------------------------

const COUNTRY = new Map<string, string>();
function countryKey(s: string): string {
  return stripAccents(s.toLowerCase()).replace(/[^a-z0-9]/g, '');
}
const NOT_COUNTRIES = new Set(['FX', 'EU', 'EZ', 'UN', 'QO', 'XA', 'XB', 'ZZ', 'CP', 'DG', 'EA', 'IC', 'TA', 'AC', 'CQ', 'DD', 'SU', 'YU', 'CS', 'ZR', 'TP', 'BU', 'NT', 'AN', 'QU']);
(function buildCountries() {
  const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
  const langs = ['en', 'fr', 'de', 'es', 'it', 'pt', 'nl'].map(
    (l) => new Intl.DisplayNames([l], { type: 'region', fallback: 'code' }),
  );
  for (const a of letters)
    for (const b of letters) {
      const code = a + b;
      const en = langs[0]!.of(code);
      if (!en || en === code) continue; // not a region ICU knows
      COUNTRY.set(countryKey(code), code);
      if (NOT_COUNTRIES.has(code)) continue; // their names would shadow real countries ('France' → FX)
      for (const dn of langs) {
        const name = dn.of(code);
        if (name && name !== code) {
          const k = countryKey(name);
          if (!COUNTRY.has(k)) COUNTRY.set(k, code);
        }
      }
    }
  // alpha-3 codes of the territories statements use most, and common spellings
  const extra: Record<string, string> = {
    USA: 'US', GBR: 'GB', FRA: 'FR', DEU: 'DE', ESP: 'ES', ITA: 'IT', NLD: 'NL', BEL: 'BE', CHE: 'CH', AUT: 'AT',
    SWE: 'SE', NOR: 'NO', DNK: 'DK', FIN: 'FI', IRL: 'IE', PRT: 'PT', POL: 'PL', CZE: 'CZ', HUN: 'HU', ROU: 'RO',
    GRC: 'GR', TUR: 'TR', RUS: 'RU', UKR: 'UA', CAN: 'CA', MEX: 'MX', BRA: 'BR', ARG: 'AR', CHL: 'CL', COL: 'CO',
    PER: 'PE', AUS: 'AU', NZL: 'NZ', JPN: 'JP', KOR: 'KR', CHN: 'CN', HKG: 'HK', TWN: 'TW', SGP: 'SG', MYS: 'MY',
    IDN: 'ID', PHL: 'PH', THA: 'TH', VNM: 'VN', IND: 'IN', PAK: 'PK', ZAF: 'ZA', NGA: 'NG', KEN: 'KE', EGY: 'EG',
    MAR: 'MA', ISR: 'IL', SAU: 'SA', ARE: 'AE', LUX: 'LU', ISL: 'IS', BGR: 'BG', HRV: 'HR', SVN: 'SI', SVK: 'SK',
    SRB: 'RS', EST: 'EE', LVA: 'LV', LTU: 'LT', URY: 'UY', ECU: 'EC', VEN: 'VE', CRI: 'CR', DOM: 'DO', GTM: 'GT',
    UK: 'GB', 'Great Britain': 'GB', England: 'GB', 'United States of America': 'US', 'U.S.A.': 'US',
    'Korea, Republic of': 'KR', 'Republic of Korea': 'KR', 'Russian Federation': 'RU', 'Viet Nam': 'VN',
    'Czech Republic': 'CZ', 'Taiwan, Province of China': 'TW', 'Hong Kong SAR China': 'HK', 'Macau': 'MO',
    'Holland': 'NL', 'Ivory Coast': 'CI', 'Turkey': 'TR', 'Swaziland': 'SZ', 'Macedonia': 'MK', 'Burma': 'MM',
    'Iran, Islamic Republic of': 'IR', 'Bolivia, Plurinational State of': 'BO', 'Tanzania, United Republic of': 'TZ',
    'Moldova, Republic of': 'MD', 'Venezuela, Bolivarian Republic of': 'VE', 'Royaume Uni': 'GB', 'Etats Unis': 'US',
    'Corée du Sud': 'KR', 'Russie': 'RU',
  };
  for (const [k, v] of Object.entries(extra)) COUNTRY.set(countryKey(k), v);
})();

const countryMemo = new Map<string, string | null>();
/**
 * Country code or name (English, French, German, Spanish, Italian, Portuguese, Dutch) →
 * ISO 3166-1 alpha-2. Values that are not recognisable (e.g. DistroKid's `OU`,
 * "outside US", or `WW`) are kept as the trimmed, upper-cased-if-short raw value.
 */
export function normCountry(raw: string): string | null {
  let v = countryMemo.get(raw);
  if (v !== undefined) return v;
  const s = raw.trim();
  if (s === '') v = null;
  else if (s.length === 2 && s.toUpperCase() === 'OU') v = 'OU';
  else v = COUNTRY.get(countryKey(s)) ?? (s.length <= 3 ? s.toUpperCase() : s);
  if (countryMemo.size > 10_000) countryMemo.clear();
  countryMemo.set(raw, v);
  return v;
}

// ---------------------------------------------------------------------------------------
// Sale types, currencies, text
// ---------------------------------------------------------------------------------------

/** Canonical sale types written to `saleType`. */
export const SALE_TYPES = ['stream', 'download', 'ugc', 'physical', 'return', 'radio', 'sync', 'ringtone', 'other'] as const;

const saleMemo = new Map<string, string | null>();
/**
 * A source's sale/transaction type → one of {@link SALE_TYPES} by keyword
 * ('Audio Streams', 'Streaming', 'Interactive Stream' → stream; 'Download', 'Album
 * Download' → download; 'UGC', 'Content ID', 'YouTube Art Track'… → ugc; …). A pattern's
 * own value `map` is applied before this.
 */
export function normSaleType(raw: string): string | null {
  let v = saleMemo.get(raw);
  if (v !== undefined) return v;
  const s = raw.trim().toLowerCase();
  if (s === '') v = null;
  else if ((SALE_TYPES as readonly string[]).includes(s)) v = s;
  else if (/ugc|user.?generated|content ?id|art track|shorts|tiktok|facebook|instagram|creator/.test(s)) v = 'ugc';
  else if (/return|refund|chargeback|retour|rembours/.test(s)) v = 'return';
  else if (/stream|on.?demand|subscription|ad.?supported|premium|free.?tier|play|ecoute|webcast/.test(s)) v = 'stream';
  else if (/download|dl|t[eé]l[eé]chargement|purchase|paid|digital (album|track|single)|^(song|album|track|single)$|sale/.test(s))
    v = 'download';
  else if (/physical|vinyl|^cd$|cd |cassette|package|merch|lp/.test(s)) v = 'physical';
  else if (/radio|broadcast/.test(s)) v = 'radio';
  else if (/sync/.test(s)) v = 'sync';
  else if (/ringtone|ringback/.test(s)) v = 'ringtone';
  else v = 'other';
  if (saleMemo.size > 10_000) saleMemo.clear();
  saleMemo.set(raw, v);
  return v;
}

/** ISO 4217 currency code, upper case; symbols for the common ones. Unknown → trimmed upper-case raw. */
export function normCurrency(raw: string): string | null {
  const s = raw.trim();
  if (s === '') return null;
  if (s.length === 3) return s.toUpperCase();
  const sym: Record<string, string> = { $: 'USD', 'US$': 'USD', '€': 'EUR', '£': 'GBP', '¥': 'JPY', 'C$': 'CAD', 'A$': 'AUD' };
  return sym[s] ?? s.toUpperCase();
}

/** Trimmed text, empty → null. */
export function normText(raw: string): string | null {
  if (raw === '') return null;
  const c0 = raw.charCodeAt(0), c1 = raw.charCodeAt(raw.length - 1);
  if (c0 > 32 && c1 > 32) return raw;
  const s = raw.trim();
  return s === '' ? null : s;
}

/** Header cell → comparison key: case-, accent-, space- and punctuation-insensitive. */
export function headerKey(h: string): string {
  // letters and digits of any script: a Japanese or Cyrillic header must not collapse to ''
  return stripAccents(h.replace(/^\ufeff/, '').toLowerCase()).replace(/[^\p{L}\p{N}#%]+/gu, '');
}
