/**
 * The analytics breakdowns as tables for `?format=csv|xlsx` (src/http/export.ts): every row
 * of every page of `royaltyAnalytics`, the columns of the JSON rows plus the currency.
 * Nothing here reads the rollups itself: the rows are the JSON answer's rows.
 */
import type { ExportColumn } from '../../http/export';
import type { royaltyAnalytics, GroupBy } from './analytics';

/** Rows per analytics call while exporting (the largest page of the JSON answer). */
export const EXPORT_PAGE = 1000;

/** The row keys of each breakdown (the names `royaltyAnalytics` gives its rows). */
const KEYS: Record<GroupBy, string[]> = {
  total: [],
  month: ['month'],
  accountingperiod: ['accountingPeriod', 'accountingPeriodEnd'],
  dsp: ['dsp'],
  country: ['country'],
  saletype: ['saleType'],
  aggregator: ['aggregator'],
  artist: ['artistId', 'artist'],
  product: ['productId', 'product', 'upc'],
  asset: ['assetId', 'asset', 'isrc'],
  file: ['fileId', 'fileName', 'source'],
};

/** Row keys that hold a month or a day (date cells in XLSX). */
const DATES = new Set(['month', 'accountingPeriod', 'accountingPeriodEnd']);

export function breakdownColumns(group: GroupBy): ExportColumn[] {
  return [
    ...KEYS[group].map((key) => ({ key, ...(DATES.has(key) ? { kind: 'date' as const } : {}) })),
    { key: 'revenue', kind: 'decimal' as const },
    { key: 'quantity', kind: 'decimal' as const },
    { key: 'lines', kind: 'integer' as const },
    { key: 'currency' },
  ];
}

/** Every row of a breakdown, page after page, each with the answer's currency. */
export async function* breakdownRows(
  fetch: (page: number, size: number) => ReturnType<typeof royaltyAnalytics>,
): AsyncGenerator<Record<string, unknown>> {
  for (let page = 1; ; page++) {
    const r = await fetch(page, EXPORT_PAGE);
    for (const row of r.rows) yield { ...row, currency: r.currency };
    if (page * EXPORT_PAGE >= r.pagination.total || !r.rows.length) return;
  }
}
