/**
 * A pattern proposed from a sample statement: encoding, delimiter, header row (or none), each
 * column's guessed role with a confidence, and a pattern the admin corrects and saves.
 * Roles come from header names first (a name says what a column is) and from the values
 * (an ISRC, a currency code, a date) second. Database-free.
 */
import Papa from 'papaparse';
import type { SourcePattern, CanonicalField } from './schema';
import { decodeHead, detectArchive, gunzipHead, guessNewline, sniffDelimiter, sniffEncoding } from './text';
import { headerKey, normCountry, normDate, normDecimal, normIsrc } from './normalise';
import { adviseCurrency, adviseIncome, moneyColumns, pickAmount, proposeRowFilters, type CurrencyAdvice, type IncomeAdvice, type MoneyColumn, type RowFilter } from './draft-advice';

export const ROLES = ['isrc', 'upc', 'title', 'artist', 'date', 'period', 'country', 'dsp', 'saleType', 'quantity', 'amount', 'currency'] as const;
export type Role = (typeof ROLES)[number];

/** The line field each role fills. */
export const ROLE_FIELD: Record<Role, CanonicalField> = {
  isrc: 'isrc', upc: 'upc', title: 'trackTitle', artist: 'artist', date: 'saleMonth', period: 'saleMonth', country: 'country',
  dsp: 'dsp', saleType: 'saleType', quantity: 'quantity', amount: 'net', currency: 'currency',
};

/** Header names: [role, regex on the header key, confidence]. Earlier entries win. */
const NAMES: [Role, RegExp, number][] = [
  ['isrc', /isrc/, 0.95],
  ['upc', /^(upc|ean|barcode|icpn|gtin)|upc$|upcean|productupc|releaseupc|^productcode$/, 0.9],
  ['currency', /currency|^cur$|^ccy$|devise|waehrung|moneda/, 0.9],
  ['amount', /^net(?!work)|^dollars$|earnings|earned|payable|royalt(y|ies)|amountdue|amount$|^revenue|revenue$|share|revenu|montant|^payout|^income|netto|totaldue|distributed|subtotal|^total$/, 0.9],
  ['quantity', /quantit|^(units|qty)|unitssold|^streams$|plays$|^downloads$|^nb|^count$|perfcount|performances$|^usages?$|numberof|views$/, 0.85],
  ['saleType', /saletype|salestype|transactiontype|typeofsale|usagetype|salesorreturn|^type$|contenttype|offertype|sourcetype|itemtype|typedevente|revenuetype|producttype|assettype|^format$|servicetype/, 0.8],
  ['country', /country|territory|^pays|^land$|^market$|storefront|^region$/, 0.9],
  ['dsp', /^(store|dsp|service|platform|plateforme|retailer|shop|outlet|channel|provider|partner|licensee|musicservice)(name)?$|storename|servicename|partnername|platformname|retailername|^store|^dsp|dspname|usagenarrative|^musicuser$|^perfsource$/, 0.85],
  ['period', /quarter|^period$|perfperiod|performanceperiod|statementperiod|distributionperiod|royaltyperiod|salesperiod|salesquarter|reportingperiod|^periode/, 0.85],
  ['date', /date|month|^mois|^day$|^period/, 0.85],
  ['artist', /artist|performer|interpr|kuenstler/, 0.9],
  ['title', /^(track|song|title|titre|name|work|item)(title|name)?$|tracktitle|songtitle|trackname|songname|worktitle|workprimarytitle|assettitle|recordingtitle|itemtitle|itemname|^title|^titre/, 0.85],
];
const NOT_TITLE = /album|release|product|bundle|label|project|sortie|^artist/;
/** Per role: words that make a column the better of two candidates (+), or the worse (−). */
const PREFER: Partial<Record<Role, [RegExp, RegExp]>> = {
  amount: [/^net|^dollars$|netshare|distributed|earned|extended|subtotal|royaltytotal|reportedroyalty|^partnerrevenue$|revenunet|^earnings|total/, /sales|price|rate|taux|auction|client|unit|original|gross|brut|item/],
  currency: [/^currency$|account|payment|payout|reporting|^devise$/, /sale|original|client|customer|netsales|price/],
  date: [/sale|vente|usage|consumption|transaction|start/, /report|posted|insert|statement|payment|paid|created|accounting|end/],
  period: [/sale|vente|usage|perf/, /statement|original/],
  quantity: [/quantit|units/, /price|rate/],
  artist: [/track|asset|song|recording/, /product|album|release|label/],
  country: [/code|iso/, /customer|billing/],
  saleType: [/sale|transaction/, /product|offer|asset|item|^format$/],
  dsp: [/^(dsp|service|platform|store|retailer|shop)(name)?$/, /salestore/],
};
const CURRENCIES = new Set('USD EUR GBP JPY CAD AUD SEK NOK DKK CHF BRL MXN INR CNY KRW NZD ZAR PLN CZK HUF TRY RUB SGD HKD TWD IDR THB MYR PHP ARS CLP COP PEN ILS AED SAR'.split(' '));

export interface DraftColumn {
  index: number;
  name: string | null;
  role: Role | null;
  confidence: number;
  /** The first non-empty values, as read. */
  samples: string[];
}

export interface Draft {
  encoding: string;
  delimiter: string;
  /** 1-based line of the header row, null when the file has none. */
  headerLine: number | null;
  columns: DraftColumn[];
  pattern: SourcePattern;
  /** Each money column: gross or net of fees (or a fee), and why. */
  money: MoneyColumn[];
  /** The currency proposed, and where it comes from. */
  currency: CurrencyAdvice;
  /** Rows proposed to be filtered (also in pattern.rows). */
  rowFilters: RowFilter[];
  /** Recording or publishing income, and why (publishing: pattern.income and work fields in pattern.extra). */
  income: IncomeAdvice;
  /** What the admin should check before saving: guesses and doubts, one sentence each. */
  warnings: string[];
}

function valueRole(values: string[]): { role: Role; confidence: number } | null {
  const v = values.filter((x) => x.trim() !== '').slice(0, 50);
  if (!v.length) return null;
  const share = (f: (x: string) => boolean) => v.filter(f).length / v.length;
  const t = (x: string) => x.trim();
  if (share((x) => !!normIsrc(x) && /[A-Za-z]/.test(x)) >= 0.8) return { role: 'isrc', confidence: 0.8 };
  if (share((x) => /^\s*="?\d{8,14}"?\s*$|^\s*\d{11,14}\s*$/.test(x)) >= 0.8) return { role: 'upc', confidence: 0.6 };
  if (share((x) => CURRENCIES.has(t(x).toUpperCase())) >= 0.9) return { role: 'currency', confidence: 0.8 };
  if (share((x) => /^\s*(\d{4}\s*[-_ ]?\s*[QH][1-4]|[QH][1-4]\s*[-_ /]?\s*\d{4}|[1-4]Q\s*\d{4}|\d{4}[1-4])\s*$/i.test(x)) >= 0.8) return { role: 'period', confidence: 0.7 };
  if (share((x) => !/^\s*-?[\d.,]+\s*$/.test(x) || /^\s*\d{4}[-/.]\d{1,2}/.test(x) ? !!normDate(x) : /^\s*(19|20)\d{2}(0[1-9]|1[0-2])(\d{2})?\s*$/.test(x)) >= 0.8) return { role: 'date', confidence: 0.6 };
  if (share((x) => t(x).length <= 3 && /^[A-Za-z]{2,3}$/.test(t(x)) && /^[A-Z]{2}$/.test(normCountry(x) ?? '')) >= 0.8) return { role: 'country', confidence: 0.6 };
  if (share((x) => /^-?\d+$/.test(t(x))) >= 0.9) return { role: 'quantity', confidence: 0.4 };
  if (share((x) => normDecimal(x) !== undefined && /\d/.test(x)) >= 0.9 && share((x) => /[.,]\d/.test(x)) > 0.3) return { role: 'amount', confidence: 0.4 };
  return null;
}

function nameRole(name: string): { role: Role; confidence: number } | null {
  const k = headerKey(name);
  if (!k) return null;
  for (const [role, re, c] of NAMES) {
    if (!re.test(k)) continue;
    if (role === 'title' && NOT_TITLE.test(k)) continue;
    if (role === 'upc' && /order|invoice|transaction|payment|customer/.test(k)) continue;
    if (role === 'amount' && /^currency|percent|%|tax|fee|commission|withh|brut|gross|id$|rate$|date$|type$|plays|views|units|quantit|(?<!ac)count/.test(k)) continue;
    if (role === 'currency' && /^net|revenue|royalt|amount|earn/.test(k)) continue;
    const pref = PREFER[role];
    let conf = c;
    if (pref && pref[0].test(k)) conf += 0.07;
    if (pref && pref[1].test(k)) conf -= 0.1;
    if (role === 'amount' && /total|extended/.test(k) && !/subtotal/.test(k)) conf += 0.02;
    if (role === 'amount' && /^net/.test(k)) conf += 0.01;
    if (role === 'date' && /start/.test(k)) conf += 0.01;
    // the day a royalty was earned, beside a wallet's transaction (payment) date
    if (role === 'date' && /royaltydate|usagedate/.test(k)) conf += 0.08;
    if (role === 'quantity' && /asset|track/.test(k)) conf += 0.01;
    return { role, confidence: conf };
  }
  return null;
}

/** Each column's role, guessed from its name and its values; one column per role (the most confident). */
function guessColumns(header: string[] | null, data: string[][]): DraftColumn[] {
  const width = header ? header.length : Math.max(0, ...data.slice(0, 50).map((r) => r.length));
  const cands: { index: number; role: Role; confidence: number }[] = [];
  const columns: DraftColumn[] = [];
  for (let i = 0; i < width; i++) {
    const values = data.map((r) => r[i] ?? '');
    const name = header ? header[i]!.trim() : null;
    const byName = name ? nameRole(name) : null;
    let byValue = valueRole(values);
    // long digit strings under a name for an order, invoice or payment are not barcodes
    if (byValue?.role === 'upc' && name && /order|invoice|transaction|payment|customer|reference|^ref|^id$|^no$|^#$/.test(headerKey(name))) byValue = null;
    // A name says what a column is; values only speak for columns whose name says nothing.
    const guess = byName ?? byValue;
    columns.push({ index: i, name, role: null, confidence: 0, samples: values.filter((v) => v.trim() !== '').slice(0, 3) });
    if (guess) cands.push({ index: i, ...guess });
  }
  // One column per role: the most confident (the leftmost on a tie).
  // Equal guesses: the leftmost column, except amounts guessed from values alone (the payable
  // amount usually closes a row: gross, deductions, then what is due).
  cands.sort((a, b) => b.confidence - a.confidence || (a.role === 'amount' && a.confidence < 0.5 ? b.index - a.index : a.index - b.index));
  const taken = new Set<string>();
  for (const c of cands) {
    const key = c.role === 'period' ? 'date' : c.role;
    if (taken.has(key)) continue;
    taken.add(key);
    columns[c.index]!.role = c.role;
    columns[c.index]!.confidence = Math.min(0.99, Math.round(c.confidence * 100) / 100);
  }
  return columns;
}

/** Rows of one kind in a header-less file: the kind cell's value, and the second cell's when it tells kinds apart. */
interface KindGroup { first: string; second: string | null; rows: string[][] }

const TOTAL_KIND = /^(t|tot|total|totals|trl|trailer|foot|footer|f|z|sum|summary)$/i;
const HEADER_KIND = /^(h|hdr|head|header)$/i;

/** Groups a header-less file's rows by record kind (short first cell, and a short second one), most common first. */
function groupKinds(rows: string[][]): KindGroup[] {
  const short = (v: string | undefined) => v !== undefined && v.trim() !== '' && v.trim().length <= 3;
  if (!rows.length || rows.some((r) => !short(r[0]))) return [];
  const groups = new Map<string, KindGroup>();
  for (const r of rows) {
    const first = r[0]!.trim(), second = short(r[1]) ? r[1]!.trim() : null;
    const k = `${first}\u0000${second ?? ''}`;
    if (!groups.has(k)) groups.set(k, { first, second, rows: [] });
    groups.get(k)!.rows.push(r);
  }
  const out = [...groups.values()];
  // a second cell only names a kind when the first cell's value comes with several of them
  for (const g of out) if (out.filter((o) => o.first === g.first).length === 1) g.second = null;
  return out.sort((a, b) => b.rows.length - a.rows.length);
}

/** Row kinds proposed for a header-less file: the most common kind is data, totals rows control totals, header rows skipped. */
function proposeKinds(kinds: KindGroup[], main: DraftColumn[]): Record<string, unknown> | undefined {
  if (kinds.length < 2) return undefined;
  const mainAt = new Map(main.filter((c) => c.role).map((c) => [ROLE_FIELD[c.role!], c.index]));
  const out = kinds.map((g, i) => {
    const kind: Record<string, unknown> = { name: `${g.first}${g.second ? ' ' + g.second : ''} rows`, values: [g.first] };
    if (g.second) kind.where = { 1: [g.second] };
    const own = guessColumns(null, g.rows).filter((c) => c.role);
    if (i > 0 && HEADER_KIND.test(g.first)) return { ...kind, use: 'skip' };
    if (i > 0 && TOTAL_KIND.test(g.first)) {
      const at = (r: Role) => own.find((c) => c.role === r)?.index;
      if (at('amount') === undefined) return { ...kind, use: 'skip' };
      const columns: Record<string, unknown> = { net: { column: at('amount') } };
      if (at('currency') !== undefined) columns.currency = { column: at('currency') };
      return { ...kind, use: 'total', columns, ...(at('quantity') !== undefined ? { rowCountCell: at('quantity') } : {}) };
    }
    if (i === 0) return { ...kind, use: 'data' };
    // another data kind: only the fields found somewhere else than in the main kind
    const columns: Record<string, unknown> = {};
    for (const c of own) if (mainAt.has(ROLE_FIELD[c.role!]) && mainAt.get(ROLE_FIELD[c.role!]) !== c.index) columns[ROLE_FIELD[c.role!]] = { column: c.index };
    return { ...kind, use: 'data', ...(Object.keys(columns).length ? { columns } : {}) };
  });
  return { cell: 0, kinds: out };
}

const isHeaderish = (row: string[]) => {
  const filled = row.filter((c) => c.trim() !== '');
  return filled.length >= 2 && filled.filter((c) => /[A-Za-z\p{L}]/u.test(c) && normDecimal(c) === undefined && !normIsrc(c)).length / filled.length >= 0.8;
};

/** Proposes a pattern for the sample (the first KB of a statement, as text bytes). */
export function draftPattern(head: Buffer, fileName: string, opts: { workspaceCurrency?: string | null } = {}): Draft {
  let bytes = head;
  if (detectArchive(head) === 'gzip') bytes = gunzipHead(head);
  const { encoding } = sniffEncoding(bytes);
  const text = decodeHead(bytes, encoding);
  const delimiter = sniffDelimiter(text);
  const cut = bytes.length >= 64 * 1024 ? Math.max(text.lastIndexOf('\n'), text.lastIndexOf('\r')) : -1;
  const whole = cut > 0 ? text.slice(0, cut) : text;
  const rows = Papa.parse<string[]>(whole, { delimiter, newline: guessNewline(whole), header: false, preview: 300 }).data.filter((r) => !(r.length === 1 && r[0] === ''));
  // The header: the first text-only row followed by rows of the same width (searched in the first 50).
  let headerAt = -1;
  for (let i = 0; i < Math.min(rows.length - 1, 50); i++) {
    const r = rows[i]!;
    if (!isHeaderish(r)) continue;
    const next = rows.slice(i + 1, i + 11);
    if (next.length && next.filter((n) => n.length === r.length).length / next.length >= 0.6 && next.some((n) => !isHeaderish(n))) {
      headerAt = i;
      break;
    }
  }
  const header = headerAt >= 0 ? rows[headerAt]! : null;
  let data = rows.slice(headerAt + 1);
  let kinds: KindGroup[] = [];
  if (!header) {
    // Header-less files often mix row kinds (first cells like T / S,M / S,P): roles are
    // guessed on the most common kind, whose cells are in the same places.
    kinds = groupKinds(data.slice(0, 200));
    if (kinds.length > 1) data = kinds[0]!.rows;
  }
  const columns = guessColumns(header, data);
  const warnings: string[] = [];
  // The amount: net of fees, never a column of whole numbers when one with cents exists.
  let money = moneyColumns(header, data, columns);
  const current = columns.find((c) => c.role === 'amount')?.index ?? null;
  const pick = pickAmount(money, current);
  if (pick.index !== null && pick.index !== current) {
    const old = current === null ? null : columns[current]!;
    if (old) {
      const whole = money.find((m) => m.index === old.index)?.wholeNumbers;
      old.role = whole && !columns.some((c) => c.role === 'quantity') ? 'quantity' : null;
      old.confidence = old.role ? 0.6 : 0;
    }
    const now = columns[pick.index]!;
    if (now.role === 'quantity' || now.role === null || now.role === 'amount') {
      now.role = 'amount';
      now.confidence = 0.8;
    }
  }
  if (pick.warning) warnings.push(pick.warning);
  // a whole-number column read as the quantity is not money
  money = money.filter((m) => !(m.wholeNumbers && columns[m.index]!.role === 'quantity'));
  const amountCol = columns.find((c) => c.role === 'amount') ?? null;
  const currency = adviseCurrency({
    currencyColumn: columns.find((c) => c.role === 'currency') ?? null,
    header,
    preamble: headerAt > 0 ? rows.slice(0, headerAt) : [],
    fileName,
    workspaceCurrency: opts.workspaceCurrency ?? null,
    amountName: amountCol?.name ?? null,
  });
  if (currency.source === 'workspace' || currency.source === 'none') warnings.push(`currency: ${currency.why}`);
  const rowFilters = header ? proposeRowFilters(header, data, columns) : [];
  const income = adviseIncome(header, data);
  const cols: Record<string, Record<string, unknown>> = {};
  for (const c of columns) {
    if (!c.role) continue;
    cols[ROLE_FIELD[c.role]] = header ? { from: c.name! } : { column: c.index };
  }
  cols.net ??= header ? { from: 'AMOUNT COLUMN' } : { column: 0 };
  // no currency in sight and no workspace's: 'XXX' (ISO 4217 for "no currency"), for the admin to set
  if (!cols.currency) cols.currency = { const: currency.code ?? 'XXX' };
  const base = fileName.replace(/\.(gz|zip)$/i, '').replace(/\.[^.]+$/, '');
  const key = (base.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 50) || 'new-source').replace(/^(.)$/, '$1-source');
  const pattern = {
    key: /^[a-z0-9]/.test(key) ? key : `s-${key}`,
    name: base || 'New source',
    aggregator: base || 'New source',
    layout: 'table',
    ...(income.income === 'publishing' ? { income: 'publishing' } : {}),
    detect: {
      headers: header ? columns.filter((c) => c.role).map((c) => c.name!)
        : kinds.length > 1 ? [...new Set(kinds.map((k) => k.first))] : [...new Set(data.slice(0, 50).map((r) => (r[0] ?? '').trim()))].slice(0, 3),
    },
    format: {
      delimiter,
      encoding: encoding === 'utf-16be' ? 'auto' : encoding,
      ...(header ? {} : { header: "none" }),
      ...(columns.some((c) => c.role === 'amount' && c.samples.some((s) => /^\s*-?\d+,\d{1,6}\s*$/.test(s))) ? { decimal: ',' } : {}),
    },
    columns: cols,
    ...(rowFilters.length ? { rows: rowFilters.map((f) => ({ ...(f.column !== null ? { column: f.column } : { cell: f.cell }), matches: f.matches, action: f.action })) } : {}),
    ...(Object.keys(income.extra).length ? { extra: Object.fromEntries(Object.entries(income.extra).map(([k, v]) => [k, { from: v, optional: true }])) } : {}),
    ...(header ? {} : { rowKinds: proposeKinds(kinds, columns) }),
  } as unknown as SourcePattern;
  if (!pattern.rowKinds) delete pattern.rowKinds;
  if (pattern.detect.headers.length === 0) pattern.detect.headers = [header?.[0] ?? 'x'];
  return { encoding, delimiter, headerLine: header ? headerAt + 1 : null, columns, pattern, money, currency, rowFilters, income, warnings };
}
