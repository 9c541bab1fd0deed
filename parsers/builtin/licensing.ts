/**
 * Built-in patterns: licensing platforms' statements. Plain data. Evidence in docs/formats.md.
 */
import type { SourcePattern } from '../schema';

/**
 * ClicknClear's published royalty reporting specification: a header-less CSV whose rows are
 * totals (`T`) and sales (`S`) per income type (`M` master, `P` publishing). Each total row
 * carries the number of sales and the amount due for its income type: control totals.
 */
export const clicknclear: SourcePattern = {
  key: 'clicknclear',
  name: 'ClicknClear royalty report (header-less; T/S rows per income type)',
  aggregator: 'ClicknClear',
  description: 'Sync licences for sport and dance: master and publishing sales with their totals rows',
  layout: 'table',
  detect: { fileName: '_(STANDARD|Q[1-4])[_.]', headers: ['T', 'S'] },
  format: { delimiter: ',', encoding: 'auto', header: 'none' },
  columns: {
    saleMonth: { column: 2 },
    trackTitle: { column: 4 },
    artist: { column: 5 },
    isrc: { column: 6 },
    upc: { column: 7 },
    label: { column: 8 },
    country: { column: 9 },
    saleType: { const: 'sync' },
    quantity: { const: '1' },
    gross: { column: 11 },
    net: { column: 17 },
    currency: { column: 10 },
  },
  rowKinds: {
    cell: 0,
    kinds: [
      { name: 'totals', values: ['T'], use: 'total', rowCountCell: 4, columns: { net: { column: 7 }, currency: { column: 5 } } },
      { name: 'master sale', values: ['S'], where: { 1: ['M'] }, use: 'data' },
      {
        name: 'publishing sale',
        values: ['S'],
        where: { 1: ['P'] },
        use: 'data',
        columns: {
          isrc: { const: '' }, upc: { const: '' }, label: { const: '' },
          country: { column: 8 }, currency: { column: 9 }, gross: { column: 10 }, net: { column: 18 },
        },
        extra: { writers: { column: 6 }, iswc: { column: 7 } },
      },
    ],
  },
};
