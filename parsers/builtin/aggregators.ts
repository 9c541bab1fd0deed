/**
 * Built-in patterns: more distributors and royalty platforms labels receive statements from
 * (iMusician, Amuse, OFFstep, Cargo, SmartRights, confirmed-sales exports). Plain data; the
 * published evidence for each layout is in docs/formats.md.
 */
import type { SourcePattern } from '../schema';
import { fugaColumns } from './distributors';

/** iMusician detailed sales report (CSV from the dashboard's Sales → Download). Amounts in EUR. */
export const imusician: SourcePattern = {
  key: 'imusician',
  name: 'iMusician sales report',
  aggregator: 'iMusician',
  layout: 'table',
  detect: {
    headers: ['Sales Date', 'Statement Date', 'Artist', 'Release title', 'Barcode', 'Label', 'ISRC', 'Track Title', 'Shop',
      'Transaction Type', 'Country', 'Quantity', 'Revenue EUR'],
  },
  format: { delimiter: 'auto', encoding: 'auto' },
  columns: {
    saleMonth: { from: 'Sales Date' },
    accountingPeriod: { from: 'Statement Date' },
    artist: { from: 'Artist' },
    releaseTitle: { from: 'Release title' },
    upc: { from: 'Barcode' },
    label: { from: 'Label' },
    isrc: { from: 'ISRC' },
    trackTitle: { from: 'Track Title' },
    dsp: { from: 'Shop' },
    saleType: { from: 'Transaction Type', map: { 'youtube monetization': 'ugc', 'youtube monetisation': 'ugc' } },
    country: { from: 'Country' },
    quantity: { from: 'Quantity' },
    net: { from: 'Revenue EUR' },
    currency: { const: 'EUR' },
  },
};

/**
 * Amuse financial statement (the wallet's statement download, an .xlsx read as its first sheet).
 * Credit rows are royalties; debit rows are the artist's withdrawals, skipped and reported.
 * `Amount` is before splits, `Total` after: the line's net is `Total`.
 */
export const amuse: SourcePattern = {
  key: 'amuse',
  name: 'Amuse financial statement',
  aggregator: 'Amuse',
  description: 'Wallet statement: credits (royalties per service and track) and debits (withdrawals, skipped)',
  layout: 'table',
  detect: {
    headers: ['Transaction date', 'Type', 'Source', 'Royalty Date', 'Service', 'UPC', 'ISRC', 'Artist', 'Release', 'Track',
      'Quantity', 'Amount', 'Split', 'Total'],
  },
  format: { delimiter: 'auto', encoding: 'auto' },
  columns: {
    saleMonth: { from: 'Royalty Date' },
    accountingPeriod: { from: 'Transaction date' },
    dsp: { from: 'Service' },
    upc: { from: 'UPC' },
    isrc: { from: 'ISRC' },
    artist: { from: 'Artist' },
    releaseTitle: { from: 'Release' },
    trackTitle: { from: 'Track' },
    quantity: { from: 'Quantity' },
    gross: { from: 'Amount' },
    net: { from: 'Total' },
    // The statement carries no currency column; Amuse wallets are kept in US dollars.
    currency: { const: 'USD' },
  },
  rows: [{ column: 'Type', matches: '^debit', action: 'skip' }],
};

/** OFFstep detailed monthly report, Masters tab (an .xlsx read as its first sheet, or that tab saved as CSV). */
export const offstep: SourcePattern = {
  key: 'offstep',
  name: 'OFFstep detailed monthly report (Masters)',
  aggregator: 'OFFstep',
  layout: 'table',
  detect: {
    headers: ['Album Title', 'Track Title', 'Artists', 'Label', 'Product type', 'Store', 'Territory', 'Sales type',
      'Transaction Month', 'Accounted Date', 'Original Currency', 'Gross (Original Currency)', 'Exchange Rate', 'Currency',
      'Gross', 'Quantity', 'Average Unit', 'Share', 'Fees', 'Net'],
  },
  format: { delimiter: 'auto', encoding: 'auto' },
  columns: {
    releaseTitle: { from: 'Album Title' },
    trackTitle: { from: 'Track Title' },
    // "the artist's name and their role": the role in brackets is dropped
    artist: { from: 'Artists', extract: '^\\s*(?<v>[^(]*[^(\\s])' },
    label: { from: 'Label' },
    dsp: { from: 'Store' },
    country: { from: 'Territory' },
    saleType: { from: 'Sales type' },
    saleMonth: { from: 'Transaction Month' },
    accountingPeriod: { from: 'Accounted Date' },
    grossCurrency: { from: 'Original Currency' },
    gross: { from: 'Gross (Original Currency)' },
    exchangeRate: { from: 'Exchange Rate' },
    quantity: { from: 'Quantity' },
    net: { from: 'Net' },
    currency: { from: 'Currency' },
  },
};

/** Cargo Distribution `<account>-royalty_extended.csv` (the detail file of its statement zip). */
export const cargo: SourcePattern = {
  key: 'cargo',
  name: 'Cargo Distribution royalty_extended',
  aggregator: 'Cargo Distribution',
  layout: 'table',
  detect: {
    fileName: 'royalty_extended',
    headers: ['Royalty ID', 'Asset ISRC', 'Asset Title', 'Asset Artist', 'Sale net receipts', 'Contract deal term',
      'Reported Royalty', 'Territory', 'Quantity', 'Sale Type', 'Sale Start date', 'Sale End date', 'DSP', 'Currency',
      'Product UPC', 'Statement Run ID'],
  },
  format: { delimiter: 'auto', encoding: 'auto' },
  columns: { ...fugaColumns, quantity: { from: 'Quantity' } },
};

/** SmartRights digital distribution sales export (CSV): one line per reported sale, amounts in `currency`. */
export const smartrights: SourcePattern = {
  key: 'smartrights-sales',
  name: 'SmartRights digital distribution sales export',
  aggregator: 'SmartRights',
  layout: 'table',
  detect: {
    headers: ['begin_date', 'end_date', 'import_date', 'country_code', 'isrc', 'track_title', 'upc', 'release_title',
      'artist_name', 'store_name', 'sale_type', 'total_sales', 'net_sales', 'currency', 'units', 'distributor'],
  },
  format: { delimiter: 'auto', encoding: 'auto' },
  columns: {
    saleMonth: { from: 'begin_date' },
    salePeriodStart: { from: 'begin_date' },
    salePeriodEnd: { from: 'end_date' },
    accountingPeriod: { from: 'import_date' },
    country: { from: ['country_code', 'country'] },
    isrc: { from: 'isrc' },
    trackTitle: { from: 'track_title' },
    upc: { from: 'upc' },
    releaseTitle: { from: 'release_title' },
    artist: { from: 'artist_name' },
    label: { from: 'label_name' },
    dsp: { from: 'store_name' },
    saleType: { from: 'sale_type' },
    quantity: { from: 'units' },
    gross: { from: 'total_sales' },
    grossCurrency: { from: 'currency' },
    net: { from: 'net_sales' },
    currency: { from: 'currency' },
  },
  extra: { composers: { from: 'composers', optional: true } },
};

/**
 * Confirmed sales report of white-label distribution platforms (CSV, one line per transaction
 * confirmed by a channel). Amounts in the reporting currency (`currency`); `net_total` is what
 * is owed after channel costs and withheld taxes.
 */
export const confirmedSales: SourcePattern = {
  key: 'confirmed-sales',
  name: 'Distribution platform confirmed sales report',
  aggregator: 'Distribution platform',
  layout: 'table',
  detect: {
    headers: ['start_date', 'end_date', 'confirmation_report_date', 'country', 'currency', 'type', 'units', 'unit_price',
      'gross_total', 'channel_costs', 'taxes', 'net_total', 'currency_rate', 'channel', 'display_artist', 'release', 'upc',
      'track', 'isrc'],
  },
  format: { delimiter: 'auto', encoding: 'auto' },
  columns: {
    saleMonth: { from: 'start_date' },
    salePeriodStart: { from: 'start_date' },
    salePeriodEnd: { from: 'end_date' },
    accountingPeriod: { from: 'confirmation_report_date' },
    country: { from: 'country' },
    quantity: { from: 'units' },
    gross: { from: 'gross_total' },
    grossCurrency: { from: 'currency' },
    net: { from: 'net_total' },
    currency: { from: 'currency' },
    dsp: { from: 'channel' },
    label: { from: 'label' },
    artist: { from: 'display_artist' },
    releaseTitle: { from: 'release' },
    upc: { from: 'upc' },
    trackTitle: { from: 'track' },
    isrc: { from: 'isrc' },
  },
  extra: { contentType: { from: 'type' } },
};
