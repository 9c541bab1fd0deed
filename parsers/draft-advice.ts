/**
 * What a draft says about a sample besides column roles, so that it does not mislead: each
 * money column gross or net of fees and why, the amount never a whole-number quantity, the
 * currency and where it comes from, rows to filter (totals, shipping, payouts…), and
 * publishing income for society and mechanical layouts. Database-free.
 */
import Decimal from 'decimal.js';
import { headerKey, normDecimal } from './normalise';
/** What the advice needs of a draft's column (draft.ts's DraftColumn has it). */
interface DraftColumn {
  index: number;
  name: string | null;
  role: string | null;
  samples: string[];
}

export const CURRENCY_CODES = new Set(
  'USD EUR GBP JPY CAD AUD SEK NOK DKK CHF BRL MXN INR CNY KRW NZD ZAR PLN CZK HUF TRY RUB SGD HKD TWD IDR THB MYR PHP ARS CLP COP PEN ILS AED SAR'.split(' '),
);
const SYMBOLS: [RegExp, string][] = [[/£/, 'GBP'], [/€/, 'EUR'], [/¥|円/, 'JPY'], [/₹/, 'INR'], [/R\$/, 'BRL'], [/US\$/, 'USD']];

export interface MoneyColumn {
  index: number;
  name: string | null;
  basis: 'gross' | 'net' | 'fee' | 'unknown';
  why: string;
  /** Every sample value is a whole number. */
  wholeNumbers: boolean;
  /** A price per unit: another column is it × the quantity on every sample row. */
  perUnit?: boolean;
}
export interface CurrencyAdvice {
  code: string | null;
  source: 'column' | 'header' | 'fileName' | 'workspace' | 'none';
  why: string;
}
export interface RowFilter {
  kind: 'total' | 'shipping' | 'payout' | 'deduction' | 'tax' | 'refund';
  column: string | null;
  cell: number;
  matches: string;
  action: 'skip' | 'total' | 'deduction';
  rows: number;
  why: string;
}
export interface IncomeAdvice {
  income: 'recording' | 'publishing';
  why: string;
  extra: Record<string, string>;
}

const GROSS = /gross|brut|beforefee|beforecommission|beforededuction|^sales$|salesamount|salesvalue|grosssales|customerpaid|^price|retailprice|totalsales|retail|revenuebefore|^revenue$|^sales(eur|usd|gbp)?$/;
const NET = /^net|netrevenue|netamount|afterfee|aftercommission|earnings|payable|payout|youreceived|amountyou|royalt|due$|amountdue|yourshare|labelshare|^share|earned|netto|^income|distributed/;
const FEE = /fee|commission|deduction|charge|^tax|vat|withh|recoup/;
const MONEYISH = /amount|dollars|revenue|royalt|earn|net|gross|sales|price|fee|commission|payout|payable|income|total|value|share|due|paid|\$|£|€/;

const dec = (v: string): Decimal | null => {
  const n = normDecimal(v.trim());
  return n === null || n === undefined ? null : new Decimal(n);
};

/** Columns holding money: by name, or decimal values beside a money-like name. */
export function moneyColumns(header: string[] | null, data: string[][], columns: DraftColumn[]): MoneyColumn[] {
  const out: MoneyColumn[] = [];
  for (const c of columns) {
    const k = c.name ? headerKey(c.name) : '';
    const values = data.map((r) => (r[c.index] ?? '').trim()).filter((v) => v !== '');
    if (!values.length) continue;
    const nums = values.map(dec);
    if (nums.filter((x) => x !== null).length / values.length < 0.9) continue;
    if (c.role && c.role !== 'amount' && c.role !== 'quantity') continue;
    const named = header ? MONEYISH.test(k) && !/quantit|units|qty|count|streams|plays|views|downloads|id$|^id|number|code|rate$|percent|%|date|year|month/.test(k) : c.role === 'amount';
    if (!named) continue;
    const wholeNumbers = values.every((v) => /^\s*-?\d+\s*$/.test(v));
    let basis: MoneyColumn['basis'] = 'unknown';
    let why = `the name "${c.name ?? `column ${c.index + 1}`}" does not say whether fees are taken off`;
    if (FEE.test(k)) [basis, why] = ['fee', `the name "${c.name}" names a fee or deduction`];
    else if (GROSS.test(k) && !/^net/.test(k)) [basis, why] = ['gross', `the name "${c.name}" names an amount before fees (sales, price or gross)`];
    else if (NET.test(k)) [basis, why] = ['net', `the name "${c.name}" names what is paid out (net, earnings, royalty, payable)`];
    out.push({ index: c.index, name: c.name, basis, why, wholeNumbers });
  }
  // Arithmetic on the sample rows is stronger than a name: A − fee = B, or B a fixed share of A.
  const val = (r: string[], i: number) => dec(r[i] ?? '');
  const rowsWith = (f: (r: string[]) => boolean) => {
    const rows = data.filter((r) => out.every((m) => (r[m.index] ?? '').trim() !== ''));
    return rows.length >= 2 && rows.filter(f).length / rows.length >= 0.9;
  };
  const fees = out.filter((m) => m.basis === 'fee');
  for (const a of out) {
    for (const b of out) {
      // whole-number columns are counts more often than money: no relation is read from them
      if (a === b || a.basis === 'fee' || b.basis === 'fee' || a.wholeNumbers || b.wholeNumbers) continue;
      for (const f of fees) {
        const holds = rowsWith((r) => {
          const x = val(r, a.index), y = val(r, b.index), z = val(r, f.index);
          return x !== null && y !== null && z !== null && !x.eq(y) && (x.minus(z.abs()).eq(y));
        });
        if (holds) {
          a.basis = 'gross';
          a.why = `"${a.name}" − "${f.name}" = "${b.name}" on every sample row: it is before the fee`;
          b.basis = 'net';
          b.why = `"${b.name}" = "${a.name}" − "${f.name}" on every sample row: it is after the fee`;
        }
      }
      if (a.basis !== 'gross' || b.basis !== 'net') {
        // B a fixed share (< 1) of A on every row: A before a percentage fee, B after it
        let ratio: Decimal | null = null;
        const same = rowsWith((r) => {
          const x = val(r, a.index), y = val(r, b.index);
          if (x === null || y === null || x.isZero()) return false;
          const q = y.div(x).toDecimalPlaces(4);
          if (ratio === null) ratio = q;
          return q.eq(ratio) && q.gte(0.3) && q.lt(1);
        });
        if (same && ratio !== null) {
          const pct = new Decimal(ratio).times(100).toFixed();
          a.basis = 'gross';
          a.why = `"${b.name}" is ${pct}% of "${a.name}" on every sample row: "${a.name}" is before a fee`;
          b.basis = 'net';
          b.why = `"${b.name}" is ${pct}% of "${a.name}" on every sample row: it is after the fee`;
        }
      }
    }
  }
  // A per-unit amount: another money column is it × the quantity on every row (and not every quantity is 1).
  const q = columns.find((c) => c.role === 'quantity');
  if (q) {
    const qs = data.map((r) => dec(r[q.index] ?? ''));
    if (qs.some((x) => x !== null && !x.eq(1) && !x.isZero()))
      for (const u of out)
        for (const e of out) {
          if (u === e || u.basis === 'fee' || e.basis === 'fee') continue;
          if (rowsWith((r) => {
            const x = val(r, u.index), y = val(r, e.index), n = dec(r[q.index] ?? '');
            return x !== null && y !== null && n !== null && x.times(n).eq(y);
          })) {
            u.perUnit = true;
            u.why += `; it is per unit ("${e.name}" = it × "${q.name}")`;
          }
        }
  }
  return out;
}

/** The column to read as the net amount: net before unknown before gross, never a fee, decimals before whole numbers. */
export function pickAmount(money: MoneyColumn[], current: number | null): { index: number | null; warning: string | null } {
  const rank = (m: MoneyColumn) => (m.basis === 'net' ? 0 : m.basis === 'unknown' ? 1 : m.basis === 'gross' ? 2 : 9) + (m.perUnit ? 3 : 0) + (m.wholeNumbers ? 5 : 0);
  const cands = money.filter((m) => m.basis !== 'fee').sort((a, b) => rank(a) - rank(b) || (a.index === current ? -1 : b.index === current ? 1 : b.index - a.index));
  const best = cands[0];
  if (!best) return { index: current, warning: null };
  const cur = money.find((m) => m.index === current);
  // keep the role guess when it is as good as the best, or when it is not a column read as money here
  const chosen = current !== null && !cur ? null : cur && cur.basis !== 'fee' && rank(cur) <= rank(best) ? cur : best;
  if (!chosen) return { index: current, warning: null };
  let warning: string | null = null;
  if (chosen.wholeNumbers) warning = `every amount in "${chosen.name}" is a whole number: check it is money, not a count of sales`;
  else if (chosen.basis === 'gross') warning = `"${chosen.name}" is before fees and the sample has no column after them: the lines would overstate what is owed`;
  return { index: chosen.index, warning };
}

/** Whether a text names a currency code, as a word or by its symbol. */
export function currencyIn(text: string, code: string): boolean {
  if (new RegExp(`(?<![A-Za-z])${code}(?![A-Za-z])`).test(text)) return true;
  return SYMBOLS.some(([re, c]) => c === code && re.test(text));
}

/** The currency: a column, a code or symbol in the header or the lines above it, the file name, the workspace's. */
export function adviseCurrency(opts: {
  currencyColumn: DraftColumn | null;
  header: string[] | null;
  preamble: string[][];
  fileName: string;
  workspaceCurrency: string | null;
  amountName: string | null;
}): CurrencyAdvice {
  if (opts.currencyColumn) {
    const vals = [...new Set(opts.currencyColumn.samples.map((s) => s.trim().toUpperCase()))];
    return { code: vals[0] ?? null, source: 'column', why: `column "${opts.currencyColumn.name ?? `column ${opts.currencyColumn.index + 1}`}" holds the currency of each line (${vals.join(', ')})` };
  }
  const find = (text: string): string | null => {
    for (const m of text.toUpperCase().matchAll(/(?<![A-Z])([A-Z]{3})(?![A-Z])/g)) if (CURRENCY_CODES.has(m[1]!)) return m[1]!;
    for (const [re, code] of SYMBOLS) if (re.test(text)) return code;
    return null;
  };
  const texts: [string, string][] = [];
  if (opts.amountName) texts.push([opts.amountName, `the amount column's name "${opts.amountName}"`]);
  for (const h of opts.header ?? []) texts.push([h, `the header "${h}"`]);
  for (const r of opts.preamble) for (const c of r) if (c.trim()) texts.push([c, `the line above the header "${c.trim()}"`]);
  for (const [t, where] of texts) {
    const code = find(t);
    if (code) return { code, source: 'header', why: `${where} names ${code}` };
  }
  const fromName = find(opts.fileName.replace(/[_.\-]/g, ' '));
  if (fromName) return { code: fromName, source: 'fileName', why: `the file name "${opts.fileName}" names ${fromName}` };
  if (opts.workspaceCurrency)
    return { code: opts.workspaceCurrency, source: 'workspace', why: `the file does not say; ${opts.workspaceCurrency} is the workspace's base currency — a guess to confirm` };
  return { code: null, source: 'none', why: 'the file does not say which currency its amounts are in: set it' };
}

const FILTERS: [RowFilter['kind'], RegExp, string][] = [
  ['total', /^\s*(grand\s*|sub\s*)?totals?\b|^\s*summe\b|^\s*total\s+g[eé]n[eé]ral/i, 'a total row'],
  ['shipping', /shipping|postage|delivery charge|frais de port|versand/i, 'shipping, not music sales'],
  ['payout', /payout|withdrawal|paid out|transfer to|auszahlung|virement|^payment\b/i, 'money paid out, not earned'],
  ['refund', /^refund/i, 'a refund'],
  ['deduction', /^(recharges?|costs?|expenses?|fees?|commissions?|deductions?|charges?|marketing(\s+costs?)?|distribution\s+fees?)\b/i, 'a cost, recharge or fee: read as a deduction, not a negative sale (action `expense` records it as an expense of the recording\'s payees instead)'],
  ['tax', /^(vat|sales tax|tax)\b/i, 'tax'],
];

/** Rows the draft proposes to filter: a text cell naming a total, shipping, a payout, a refund or tax. */
export function proposeRowFilters(header: string[] | null, data: string[][], columns: DraftColumn[]): RowFilter[] {
  const out: RowFilter[] = [];
  const textCols = columns.filter((c) => !c.role || ['title', 'saleType', 'dsp', 'artist', 'date', 'period', 'isrc', 'upc'].includes(c.role));
  for (const [kind, re, what] of FILTERS) {
    for (const c of textCols) {
      // a song may be called "Cost of Living": costs are told by a type cell, not a title
      if (kind === 'deduction' && (c.role === 'title' || c.role === 'artist')) continue;
      const hits = data.filter((r) => re.test((r[c.index] ?? '').trim()));
      if (!hits.length || hits.length === data.length) continue;
      const lastIsTotal = kind === 'total' && hits.length === 1 && data.indexOf(hits[0]!) >= data.length - 2;
      const src = re.source;
      out.push({
        kind,
        column: header ? c.name : null,
        cell: c.index,
        matches: src,
        action: lastIsTotal ? 'total' : kind === 'deduction' ? 'deduction' : 'skip',
        rows: hits.length,
        why: `${hits.length} sample row(s) with ${JSON.stringify((hits[0]![c.index] ?? '').trim())} in "${c.name ?? `column ${c.index + 1}`}": ${what}${lastIsTotal ? '; read as the file\'s own total to compare with' : ''}`,
      });
      break;
    }
  }
  return out;
}

const PUBLISHING = /iswc|tunecode|workcode|songcode|worktitle|composer|songwriter|writer|^ipi|cae|society|performanc|mechanical|typeofright|righttype|perfsource|publisher/;

/** Society and mechanical layouts: publishing income, with the work fields the sample has. */
export function adviseIncome(header: string[] | null, data: string[][]): IncomeAdvice {
  if (!header) return { income: 'recording', why: 'no header names a work field', extra: {} };
  const keys = header.map((h) => headerKey(h));
  const hits = header.filter((_, i) => PUBLISHING.test(keys[i]!));
  const iswcByValue = header.find((_, i) => {
    const v = data.map((r) => (r[i] ?? '').trim()).filter((x) => x);
    return v.length > 0 && v.filter((x) => /^T-?\d{3}\.?\d{3}\.?\d{3}-?\d$/i.test(x)).length / v.length >= 0.8;
  });
  if (!hits.length && !iswcByValue) return { income: 'recording', why: 'no column names a work, writer, society or right type', extra: {} };
  const at = (re: RegExp, not?: RegExp) => header.find((_, i) => re.test(keys[i]!) && !(not && not.test(keys[i]!)));
  const extra: Record<string, string> = {};
  const iswc = at(/iswc/) ?? iswcByValue;
  if (iswc) extra.iswc = iswc;
  const work = at(/worktitle|^work$|songtitle|^song$|^title$|^titre$|workname|composition/);
  if (work) extra.workTitle = work;
  const writers = at(/writer|composer|author|auteur|songwriter/, /publisher/);
  if (writers) extra.writers = writers;
  const right = at(/righttype|typeofright|^rights?$|rightscategory|^usetype$/);
  if (right) extra.rightType = right;
  const code = at(/tunecode|songcode|workcode|workid|worknumber/);
  if (code) extra.workCode = code;
  const names = [...new Set([...hits, ...(iswcByValue ? [iswcByValue] : [])])];
  return { income: 'publishing', why: `${names.map((h) => `"${h}"`).join(', ')} name works, writers, societies or rights: society or mechanical income, matched to works`, extra };
}
