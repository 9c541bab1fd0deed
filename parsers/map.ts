/**
 * Compiles a pattern's column mapping ONCE (header positions resolved to getters) into a
 * row → CanonicalLine function. Per-row work is a fixed list of getter + normaliser calls.
 */
import type { CanonicalLine } from './types';
import type { CanonicalField, FieldMapping, SourcePattern } from './schema';
import Decimal from 'decimal.js';
import {
  makeNegative,
  monthEnd,
  normCountry,
  normCurrency,
  normDate,
  fiscalOf,
  type FiscalYear,
  normDecimal,
  normIsrc,
  normSaleType,
  normText,
  normUpc,
  upcProblem,
  headerKey,
  type DecimalStyle,
} from './normalise';

/** Reads one raw cell for the current record ('' when absent). */
export type Getter = (row: string[]) => string;

/** Resolves a source column name to a getter, or null when the file has no such column. */
export type ColumnResolver = (name: string) => Getter | null;

/** A row the mapping cannot read; `field`, `column` and `value` say which cell (validation groups by them). */
export class RowError extends Error {
  constructor(message: string, readonly field?: string, readonly column?: string, readonly value?: string) {
    super(message);
  }
}

/** A cell reference as written in errors: the header name, or `column N` (1-based) for a position. */
export function refLabel(ref: string | number): string {
  return typeof ref === 'number' ? `column ${ref + 1}` : ref;
}

/** Getter of a column by name (through the resolver) or position. */
export function refGetter(ref: string | number, resolve: ColumnResolver): Getter | null {
  if (typeof ref === 'number') return (r) => r[ref] ?? '';
  return resolve(ref);
}

/** Exact decimal of one compute operand ('' = empty); a percentage ('50%') is divided by 100. */
function operand(raw: string, decimal: DecimalStyle, label: string, field: string): Decimal | null {
  const t = raw.trim();
  if (t === '') return null;
  const v = normDecimal(t, decimal);
  if (v === undefined || v === null) throw new RowError(`unparsable number in "${label}": "${raw}"`, field, label, raw);
  const d = new Decimal(v);
  return t.endsWith('%') ? d.div(100) : d;
}

/**
 * The getter of one mapping: its column (first `from` name present, else `column`), or its
 * computed amount, with `extract` applied. Null when the file has none of its columns.
 */
export function mappingGetter(field: string, m: FieldMapping, resolve: ColumnResolver, decimal: DecimalStyle): { get: Getter | null; label: string } {
  let get: Getter | null = null;
  let label = field;
  if (m.from !== undefined) {
    for (const name of Array.isArray(m.from) ? m.from : [m.from]) {
      get = resolve(name);
      if (get) {
        label = name;
        break;
      }
    }
  }
  if (!get && m.column !== undefined) {
    get = refGetter(m.column, resolve);
    label = refLabel(m.column);
  }
  if (!get && m.compute) {
    const parts = m.compute.of.map((ref) => ({ get: refGetter(ref, resolve), label: refLabel(ref) }));
    if (parts.every((x) => x.get !== null)) {
      const op = m.compute.op;
      const sign = op === 'difference' ? ' − ' : op === 'sum' ? ' + ' : op === 'join' ? ' / ' : ' × ';
      label = parts.map((x) => x.label).join(sign);
      if (op === 'join') get = (row) => parts.map((x) => x.get!(row).trim()).filter((v) => v !== '').join('/');
      else get = (row) => {
        let acc: Decimal | null = null;
        for (let i = 0; i < parts.length; i++) {
          const x = parts[i]!;
          const d = operand(x.get!(row), decimal, x.label, field);
          if (d === null) {
            if (op === 'product') throw new RowError(`missing value in "${x.label}"`, field, x.label, '');
            if (i === 0 && op === 'difference') acc = new Decimal(0);
            continue;
          }
          acc = acc === null ? d : op === 'product' ? acc.times(d) : op === 'difference' ? acc.minus(d) : acc.plus(d);
        }
        return acc === null ? '' : acc.toFixed();
      };
    }
  }
  if (get && m.extract !== undefined) {
    const re = new RegExp(m.extract, 'i');
    const inner = get;
    get = (row) => {
      const r = re.exec(inner(row));
      return r ? (r.groups?.v ?? r[1] ?? r[0]) : '';
    };
  }
  return { get, label };
}

/** Every column a mapping reads that the file does not have (the mapping is not `optional`). */
export function mappingMissing(m: FieldMapping, resolve: ColumnResolver): string[] {
  if (m.optional) return [];
  const out: string[] = [];
  if (m.from !== undefined) {
    const names = Array.isArray(m.from) ? m.from : [m.from];
    if (!names.some((n) => resolve(n)) && m.column === undefined && m.const === undefined && m.default === undefined && m.preamble === undefined && m.fileName === undefined)
      out.push(names.join(' | '));
  }
  if (m.compute) for (const ref of m.compute.of) if (typeof ref === 'string' && !resolve(ref)) out.push(ref);
  if (m.negativeWhen && !resolve(m.negativeWhen.column)) out.push(m.negativeWhen.column);
  return out;
}

type Kind = 'text' | 'date' | 'country' | 'isrc' | 'upc' | 'saleType' | 'decimal' | 'currency';
const KIND: Record<CanonicalField, Kind> = {
  saleMonth: 'date',
  salePeriodStart: 'date',
  salePeriodEnd: 'date',
  accountingPeriod: 'date',
  dsp: 'text',
  country: 'country',
  isrc: 'isrc',
  upc: 'upc',
  trackTitle: 'text',
  artist: 'text',
  releaseTitle: 'text',
  label: 'text',
  saleType: 'saleType',
  quantity: 'decimal',
  gross: 'decimal',
  grossCurrency: 'currency',
  net: 'decimal',
  currency: 'currency',
  exchangeRate: 'decimal',
};

interface Op {
  field: CanonicalField;
  kind: Kind;
  label: string;
  get: Getter | null;
  fallback: string | null; // preamble/fileName/const/default, already resolved
  map: Map<string, string> | null;
  dayFirst: boolean;
  fiscal: FiscalYear | null;
  neg: { get: Getter; values: Set<string> } | null;
}

export interface MapContext {
  fileName: string;
  preamble: Map<string, string>;
  resolve: ColumnResolver;
  /** Statement period start month ('YYYY-MM-01') used when a line has no sale month. */
  periodMonth: string | null;
}

/** Resolves a mapping's constant part (preamble, file name, const, default). */
function fallbackValue(m: FieldMapping, mapCtx: MapContext): string | null {
  if (m.preamble !== undefined) {
    const v = mapCtx.preamble.get(headerKey(m.preamble));
    if (v !== undefined && v.trim() !== '') return v.trim();
  }
  if (m.fileName !== undefined) {
    const r = new RegExp(m.fileName, 'i').exec(mapCtx.fileName);
    const v = r?.groups?.v ?? r?.[1];
    if (v) return v;
  }
  if (m.const !== undefined) return m.const;
  if (m.default !== undefined) return m.default;
  return null;
}

export function compileMapper(pattern: SourcePattern, mapCtx: MapContext): (row: string[], lineNo: number) => CanonicalLine {
  const decimal: DecimalStyle = pattern.format.decimal ?? '.';
  const ops: Op[] = [];
  for (const [field, m] of Object.entries(pattern.columns) as [CanonicalField, FieldMapping | undefined][]) {
    if (!m) continue;
    const { get, label } = mappingGetter(field, m, mapCtx.resolve, decimal);
    let neg: Op['neg'] = null;
    if (m.negativeWhen) {
      const g = mapCtx.resolve(m.negativeWhen.column);
      if (g) neg = { get: g, values: new Set(m.negativeWhen.values.map((v) => v.trim().toLowerCase())) };
    }
    ops.push({
      field,
      kind: KIND[field],
      label,
      get,
      fallback: fallbackValue(m, mapCtx),
      map: m.map ? new Map(Object.entries(m.map).map(([k, v]) => [k.trim().toLowerCase(), v])) : null,
      dayFirst: m.dayFirst ?? pattern.format.dayFirst ?? false,
      fiscal: fiscalOf(pattern.format),
      neg,
    });
  }
  // Fields with no column in this file are constant: normalise them once, not per row.
  const constOps = ops.filter((o) => o.get === null && o.neg === null);
  const rowOps = ops.filter((o) => !(o.get === null && o.neg === null));
  const dsp = pattern.dsp ?? null;
  const aggregator = pattern.aggregator;
  const periodMonth = mapCtx.periodMonth;

  const blank = (lineNo: number): CanonicalLine => ({
    lineNo,
    saleMonth: null,
    salePeriodStart: null,
    salePeriodEnd: null,
    accountingPeriod: null,
    dsp,
    country: null,
    isrc: null,
    upc: null,
    trackTitle: null,
    artist: null,
    releaseTitle: null,
    label: null,
    saleType: null,
    quantity: '0',
    gross: null,
    grossCurrency: null,
    net: '',
    currency: '',
    exchangeRate: null,
    aggregator,
  });
  const apply = (ops: Op[], row: string[], line: CanonicalLine): void => {
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i]!;
    let raw = op.get ? op.get(row) : '';
    if (raw === '' || (raw.charCodeAt(0) <= 32 && raw.trim() === '')) raw = op.fallback ?? '';
    if (op.map !== null) {
      const mapped = op.map.get(raw.trim().toLowerCase());
      if (mapped !== undefined) raw = mapped;
    }
    switch (op.kind) {
      case 'text':
        (line as unknown as Record<string, string | null>)[op.field] = normText(raw);
        break;
      case 'decimal': {
        const v = normDecimal(raw, decimal);
        if (v === undefined) throw new RowError(`unparsable number in "${op.label}": "${raw}"`, op.field, op.label, raw);
        if (v === null) {
          if (op.field === 'net') throw new RowError(`missing amount in "${op.label}"`, op.field, op.label, '');
          break;
        }
        const out = op.neg !== null && op.neg.values.has(op.neg.get(row).trim().toLowerCase()) ? makeNegative(v) : v;
        (line as unknown as Record<string, string | null>)[op.field] = out;
        break;
      }
      case 'date': {
        const d = normDate(raw, op.dayFirst, op.fiscal);
        if (d === undefined) throw new RowError(`unparsable date in "${op.label}": "${raw}"`, op.field, op.label, raw);
        if (d === null) break;
        if (op.field === 'saleMonth') {
          line.saleMonth = d.month;
          if (d.start !== null && d.start !== d.end) {
            line.salePeriodStart ??= d.start;
            line.salePeriodEnd ??= d.end;
          }
        } else if (op.field === 'salePeriodStart') line.salePeriodStart = d.start ?? d.month;
        else if (op.field === 'salePeriodEnd') line.salePeriodEnd = d.end ?? monthEnd(d.month);
        else line.accountingPeriod = d.month;
        break;
      }
      case 'country':
        line.country = normCountry(raw);
        break;
      case 'isrc': {
        const v = normIsrc(raw);
        if (v === undefined) {
          line.isrc = null;
          line.isrcRaw = raw.trim();
        } else line.isrc = v;
        break;
      }
      case 'upc': {
        const v = normUpc(raw);
        const wrong = v ? upcProblem(v) : null;
        if (v === undefined || wrong !== null) {
          line.upc = null;
          line.upcRaw = raw.trim();
          // a wrong check digit is most often a typo: the line is kept (its money is real), matched
          // without the UPC, and the reader reports it as a kept line's warning
          if (wrong !== null) (line.notes ??= []).push({ field: 'upc', column: op.label, value: raw.trim(), reason: wrong });
        } else line.upc = v;
        break;
      }
      case 'saleType':
        line.saleType = normSaleType(raw);
        break;
      case 'currency': {
        const v = normCurrency(raw);
        if (op.field === 'currency') {
          if (v === null) throw new RowError(`missing currency in "${op.label}"`, op.field, op.label, '');
          line.currency = v;
        } else line.grossCurrency = v;
        break;
      }
    }
  }
  };
  // Constant fields: computed once (a constant that fails to normalise fails every row).
  let constLine: CanonicalLine | null = null;
  let constError: RowError | null = null;
  try {
    constLine = blank(0);
    apply(constOps, [], constLine);
  } catch (e) {
    if (!(e instanceof RowError)) throw e;
    constError = e;
  }
  const constFields = constOps.map((o) => o.field);
  // Extra fields: text kept per line as it is (trimmed), empty ones left out.
  const extras = Object.entries(pattern.extra ?? {}).map(([name, m]) => ({
    name,
    get: mappingGetter(name, m, mapCtx.resolve, decimal).get,
    fallback: fallbackValue(m, mapCtx),
    map: m.map ? new Map(Object.entries(m.map).map(([k, v]) => [k.trim().toLowerCase(), v])) : null,
  }));
  const nConst = constFields.length;

  return (row, lineNo) => {
    if (constError !== null) throw constError;
    const line = blank(lineNo);
    for (let i = 0; i < nConst; i++) {
      const f = constFields[i]!;
      (line as unknown as Record<string, unknown>)[f] = (constLine as unknown as Record<string, unknown>)[f];
    }
    apply(rowOps, row, line);
    if (extras.length) {
      let extra: Record<string, string> | null = null;
      for (const x of extras) {
        let v = (x.get ? x.get(row) : '').trim();
        if (v === '') v = x.fallback ?? '';
        if (x.map) v = x.map.get(v.toLowerCase()) ?? v;
        if (v !== '') (extra ??= {})[x.name] = v;
      }
      if (extra) line.extra = extra;
    }
    if (line.saleMonth === null) {
      if (line.salePeriodStart !== null) line.saleMonth = line.salePeriodStart.slice(0, 8) + '01';
      else line.saleMonth = periodMonth;
    }
    return line;
  };
}
