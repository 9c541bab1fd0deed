/** Built-in patterns: stores reporting directly (Apple, YouTube, Bandcamp, SoundCloud) and DDEX DSR. Plain data. */
import type { SourcePattern } from '../schema';

/**
 * A store's own sales export: the store is its aggregator and its DSP, and its name in lower
 * case is the pattern's key and what the export's file names contain.
 */
function storeExport(store: string, p: Pick<SourcePattern, 'name' | 'format' | 'columns'> & { headers: string[] }): SourcePattern {
  const id = store.toLowerCase();
  const { name, headers, ...rest } = p;
  return { key: id, name, aggregator: store, dsp: store, layout: 'table', detect: { fileName: id, headers }, ...rest };
}

export const appleMusic: SourcePattern = {
  key: 'apple-music-streaming',
  name: 'Apple Music streaming report (key/value preamble, Row Count footer)',
  aggregator: 'Apple',
  dsp: 'Apple Music',
  layout: 'table',
  detect: {
    fileName: 'apple|music|^[A-Z]?\\d+_\\d+',
    headers: ['Storefront Name', 'Apple Identifier', 'Membership Type', 'Net Royalty', 'ISRC', 'Item_Title', 'Item_Artist'],
  },
  format: { delimiter: '\t', encoding: 'auto', preamble: 'keyValue', decimal: '.' },
  columns: {
    saleMonth: { preamble: 'Start Date' },
    salePeriodStart: { preamble: 'Start Date' },
    salePeriodEnd: { preamble: 'End Date' },
    country: { from: 'Storefront Name' },
    isrc: { from: 'ISRC' },
    trackTitle: { from: 'Item_Title' },
    artist: { from: 'Item_Artist' },
    label: { from: 'Label/Studio/Network' },
    saleType: { const: 'stream' },
    quantity: { from: ['Quantity', 'Total Royalty Bearing Plays'] },
    net: { from: 'Net Royalty Total' },
    currency: { preamble: 'Currency' },
  },
  rows: [{ cell: 0, matches: '^Row Count', rowCountCell: 1, action: 'stop' }],
  period: { preambleStart: 'Start Date', preambleEnd: 'End Date' },
};

export const itunes: SourcePattern = {
  key: 'itunes-downloads',
  name: 'iTunes / Apple downloads financial report (22 columns, Total_Rows footer)',
  aggregator: 'Apple',
  dsp: 'iTunes',
  layout: 'table',
  detect: {
    fileName: '^\\d{6,}_\\d{4}_[A-Z]{2,3}(\\.txt)?(\\.gz)?$|itunes|financial',
    headers: ['Start Date', 'End Date', 'UPC', 'ISRC/ISBN', 'Vendor Identifier', 'Quantity', 'Partner Share',
      'Extended Partner Share', 'Partner Share Currency', 'Sales or Return', 'Apple Identifier', 'Country Of Sale'],
  },
  format: { delimiter: '\t', encoding: 'auto' },
  columns: {
    saleMonth: { from: 'Start Date' },
    salePeriodStart: { from: 'Start Date' },
    salePeriodEnd: { from: 'End Date' },
    upc: { from: 'UPC' },
    isrc: { from: 'ISRC/ISBN' },
    artist: { from: 'Artist/Show/Developer/Author' },
    trackTitle: { from: 'Title' },
    label: { from: 'Label/Studio/Network/Developer/Publisher' },
    country: { from: 'Country Of Sale' },
    saleType: { from: 'Sales or Return', map: { S: 'download', R: 'return' } },
    quantity: { from: 'Quantity', negativeWhen: { column: 'Sales or Return', values: ['R'] } },
    net: { from: 'Extended Partner Share', negativeWhen: { column: 'Sales or Return', values: ['R'] } },
    currency: { from: 'Partner Share Currency' },
  },
  rows: [{ cell: 0, equals: ['Total_Rows'], rowCountCell: 1, action: 'stop' }],
};

export const youtubeAssetRaw: SourcePattern = {
  key: 'youtube-asset-raw',
  name: 'YouTube Content ID asset_raw (and ADJ_asset_raw adjustments)',
  aggregator: 'YouTube',
  dsp: 'YouTube',
  layout: 'table',
  detect: {
    fileName: '^YouTube_.+_M_\\d{8}(_\\d{8})?_(ADJ_)?asset_raw(_v[\\d-]+)?\\.csv(\\.gz)?$',
    headers: ['Adjustment Type', 'Day', 'Country', 'Asset ID', 'Asset Title', 'Asset Type', 'Custom ID', 'ISRC', 'UPC',
      'Owned Views', 'Partner Revenue'],
  },
  format: { delimiter: ',', encoding: 'auto' },
  columns: {
    saleMonth: { from: 'Day' },
    country: { from: 'Country' },
    trackTitle: { from: 'Asset Title' },
    isrc: { from: 'ISRC' },
    upc: { from: 'UPC' },
    saleType: { const: 'ugc' },
    quantity: { from: 'Owned Views' },
    net: { from: 'Partner Revenue' },
    currency: { const: 'USD' },
  },
  period: { fileName: '_M_(?<start>\\d{8})(?:_(?<end>\\d{8}))?_' },
};

export const bandcamp = storeExport('Bandcamp', {
  name: 'Bandcamp sales export (often UTF-16)',
  headers: ['date', 'paid to', 'item type', 'item name', 'artist', 'currency', 'item price', 'quantity', 'sub total',
    'amount you received', 'net amount'],
  format: { delimiter: 'auto', encoding: 'auto' },
  columns: {
    saleMonth: { from: 'date' },
    saleType: { from: 'item type', map: { album: 'download', track: 'download', package: 'physical' } },
    trackTitle: { from: 'item name' },
    artist: { from: 'artist' },
    upc: { from: 'upc' },
    isrc: { from: 'isrc' },
    country: { from: ['country code', 'country'] },
    quantity: { from: 'quantity' },
    gross: { from: 'item total' },
    net: { from: 'net amount' },
    currency: { from: 'currency' },
  },
});

export const soundcloud = storeExport('SoundCloud', {
  name: 'SoundCloud for Artists (two preamble rows)',
  headers: ['Artist(s)', 'Reporting Period', 'Accounting Period', 'Release', 'Track', 'Country', 'Revenue (USD)'],
  format: { delimiter: ',', encoding: 'auto', linesBeforeHeader: 2 },
  columns: {
    saleMonth: { from: 'Reporting Period' },
    accountingPeriod: { from: 'Accounting Period' },
    artist: { from: 'Artist(s)' },
    releaseTitle: { from: 'Release' },
    trackTitle: { from: 'Track' },
    country: { from: 'Country' },
    quantity: { from: 'Units' },
    saleType: { const: 'stream' },
    net: { from: 'Revenue (USD)' },
    currency: { const: 'USD' },
  },
});

/**
 * DDEX DSR flat file, Basic Audio and UGC profiles (multi-record blocks). Records are read
 * by the published DSR Part 8 layouts built into the reader (parsers/dsr-records.ts, from
 * DDEX's BasicAudioProfile 1.0–1.2 and UgcProfile 1.0–1.2 definitions); this pattern only
 * names which cells make a line. SU01/SU02 records carry no revenue: they share their
 * summary record's revenue (SU.NetRevenue); SU03 records carry their own.
 */
export const ddexDsr: SourcePattern = {
  key: 'ddex-dsr',
  name: 'DDEX DSR flat file (Basic Audio / UGC, tab-separated)',
  aggregator: 'DDEX DSR',
  layout: 'ddex-dsr',
  detect: {
    fileName: '^DSR_[^_]+_[^_]+_.+\\.tsv(\\.gz)?$',
    headers: ['HEAD', 'SY'],
  },
  format: { delimiter: '\t', encoding: 'utf-8' },
  columns: {
    salePeriodStart: { from: 'SU.PeriodStart' },
    salePeriodEnd: { from: 'SU.PeriodEnd' },
    dsp: { from: 'HEAD.SenderName' },
    country: { from: 'SY.Territory', fileName: '^DSR_(?:[^_]+_){4}(?<v>[A-Z]{2}|Worldwide)_' },
    saleType: { from: 'SU.SaleType' },
    isrc: { from: 'AS.ISRC' },
    trackTitle: { from: 'AS.Title' },
    artist: { from: 'AS.DisplayArtistName' },
    upc: { from: 'RE.ICPN' },
    releaseTitle: { from: 'RE.Title' },
    label: { from: 'RE.Label' },
    quantity: { from: 'SU.Units' },
    net: { from: 'SU.NetRevenue' },
    currency: { from: 'SY.Currency' },
  },
  period: {
    fileName: '^DSR_(?:[^_]+_){3}(?<start>\\d{4}-(?:Q[1-4]|\\d{2}(?:-\\d{2}--\\d{4}-\\d{2}-\\d{2})?))_',
  },
  dsr: {},
};
