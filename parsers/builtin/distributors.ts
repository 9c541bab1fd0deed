/** Built-in patterns: distributors (DistroKid, TuneCore, CD Baby, Believe, FUGA, The Orchard/AWAL). Plain data. */
import type { SourcePattern } from '../schema';

const distrokidCommon = {
  aggregator: 'DistroKid',
  layout: 'table',
  format: { delimiter: '\t', encoding: 'auto' },
  period: {},
} as const;

/** The columns every DistroKid layout shares (each layout adds its own). */
const distrokidColumns = {
  saleMonth: { from: 'Sale Month' },
  accountingPeriod: { from: 'Reporting Date' },
  dsp: { from: 'Store' },
  artist: { from: 'Artist' },
  trackTitle: { from: 'Title' },
  isrc: { from: 'ISRC' },
  upc: { from: 'UPC' },
  quantity: { from: 'Quantity' },
  country: { from: 'Country of Sale' },
  net: { from: 'Earnings (USD)' },
  currency: { const: 'USD' },
} as const;

export const distrokid2018: SourcePattern = {
  ...distrokidCommon,
  key: 'distrokid-2018',
  name: 'DistroKid (2018 layout, with Customer Paid)',
  detect: {
    fileName: '^DistroKid_\\d+.*\\.tsv$',
    headers: ['Reporting Date', 'Sale Month', 'Store', 'Artist', 'Title', 'ISRC', 'UPC', 'Quantity', 'Team Percentage',
      'Song/Album', 'Customer Paid', 'Customer Currency', 'Country of Sale', 'Songwriter Royalties Withheld', 'Earnings (USD)'],
  },
  columns: { ...distrokidColumns, gross: { from: 'Customer Paid' }, grossCurrency: { from: 'Customer Currency' } },
};

export const distrokid2023: SourcePattern = {
  ...distrokidCommon,
  key: 'distrokid-2023',
  name: 'DistroKid (2023 layout, 13 columns)',
  detect: {
    fileName: '^DistroKid_\\d+.*\\.tsv$',
    headers: ['Reporting Date', 'Sale Month', 'Store', 'Artist', 'Title', 'ISRC', 'UPC', 'Quantity', 'Team Percentage',
      'Song/Album', 'Country of Sale', 'Songwriter Royalties Withheld', 'Earnings (USD)'],
    absentHeaders: ['Customer Paid', 'Customer Currency', 'Date Inserted'],
  },
  columns: { ...distrokidColumns },
};

export const distrokidCurrent: SourcePattern = {
  ...distrokidCommon,
  key: 'distrokid',
  name: 'DistroKid (current layout, Date Inserted / Source Type / Recoup)',
  detect: {
    fileName: '^DistroKid_\\d+.*\\.tsv$',
    headers: ['Date Inserted', 'Reporting Date', 'Sale Month', 'Store', 'Artist', 'Title', 'ISRC', 'UPC', 'Quantity',
      'Team Percentage', 'Source Type', 'Country of Sale', 'Songwriter Royalties Withheld (USD)', 'Earnings (USD)', 'Recoup (USD)'],
  },
  columns: { ...distrokidColumns, saleType: { from: 'Source Type' } },
};

export const tunecore: SourcePattern = {
  key: 'tunecore',
  name: 'TuneCore sales report',
  aggregator: 'TuneCore',
  layout: 'table',
  detect: {
    fileName: 'tunecore|sales.?report',
    headers: ['Sales Period', 'Posted Date', 'Store Name', 'Country Of Sale', 'Artist', 'Release Type', 'Release Title',
      'Song Title', 'Label', 'UPC', 'Optional ISRC', 'Sales Type', '# Units Sold', 'Net Sales', 'Net Sales Currency',
      'Exchange Rate', 'Total Earned', 'Currency'],
  },
  format: { delimiter: ',', encoding: 'auto' },
  columns: {
    saleMonth: { from: 'Sales Period' },
    accountingPeriod: { from: 'Posted Date' },
    dsp: { from: 'Store Name' },
    country: { from: 'Country Of Sale' },
    artist: { from: 'Artist' },
    releaseTitle: { from: 'Release Title' },
    trackTitle: { from: 'Song Title' },
    label: { from: 'Label' },
    upc: { from: ['UPC', 'Optional UPC'] },
    isrc: { from: 'Optional ISRC' },
    saleType: { from: 'Sales Type' },
    quantity: { from: '# Units Sold' },
    gross: { from: 'Net Sales' },
    grossCurrency: { from: 'Net Sales Currency' },
    exchangeRate: { from: 'Exchange Rate' },
    net: { from: 'Total Earned' },
    currency: { from: 'Currency' },
  },
};

export const cdbaby: SourcePattern = {
  key: 'cdbaby',
  name: 'CD Baby digital/physical sales (tab-separated .txt)',
  aggregator: 'CD Baby',
  layout: 'table',
  detect: {
    fileName: 'cd.?baby|\\.txt$',
    headers: ['Report Date', 'Sales Date', 'Quantity', 'Price', 'Subtotal', 'Isrc', 'Barcode', 'CDBabySku', 'Album Name',
      'Artist Name', 'Track Name', 'Partner Name', 'Transaction Type', 'Delivery Country'],
  },
  format: { delimiter: '\t', encoding: 'auto' },
  columns: {
    saleMonth: { from: 'Sales Date' },
    accountingPeriod: { from: 'Report Date' },
    quantity: { from: 'Quantity' },
    isrc: { from: 'Isrc' },
    upc: { from: 'Barcode' },
    releaseTitle: { from: 'Album Name' },
    artist: { from: 'Artist Name' },
    trackTitle: { from: 'Track Name' },
    dsp: { from: 'Partner Name' },
    saleType: { from: 'Transaction Type' },
    country: { from: 'Delivery Country' },
    net: { from: 'Subtotal' },
    currency: { const: 'USD' },
  },
};

export const believe: SourcePattern = {
  key: 'believe',
  name: 'Believe (semicolon, decimal comma; French or English headers)',
  aggregator: 'Believe',
  layout: 'table',
  detect: {
    headers: ['Mois de reporting', 'Mois de vente', 'Plateforme', 'Pays / Région', 'Nom de l\'artiste', 'Titre de la piste',
      'UPC', 'ISRC', 'Type de vente', 'Quantité', 'Revenu net'],
    headerVariants: [
      ['Reporting Month', 'Sales Month', 'Platform', 'Country / Region', 'Artist Name', 'Track title', 'UPC', 'ISRC',
        'Sales Type', 'Quantity', 'Net Revenue'],
    ],
  },
  format: { delimiter: ';', encoding: 'auto', decimal: ',', dayFirst: true },
  columns: {
    accountingPeriod: { from: ['Mois de reporting', 'Reporting Month'] },
    saleMonth: { from: ['Mois de vente', 'Sales Month'] },
    dsp: { from: ['Plateforme', 'Platform'] },
    country: { from: ['Pays / Région', 'Country / Region'] },
    label: { from: ['Nom du label', 'Label Name'] },
    artist: { from: ['Nom de l\'artiste', 'Artist Name'] },
    releaseTitle: { from: ['Titre de la sortie', 'Release title'] },
    trackTitle: { from: ['Titre de la piste', 'Track title'] },
    upc: { from: 'UPC' },
    isrc: { from: 'ISRC' },
    saleType: { from: ['Type de vente', 'Sales Type'] },
    quantity: { from: ['Quantité', 'Quantity'] },
    gross: { from: ['Revenu brut', 'Gross Revenue'] },
    net: { from: ['Revenu net', 'Net Revenue'] },
    // Believe pays in the account currency (EUR for the statements we know); the client
    // payment currency column is what the consumer paid in, not the amounts' currency.
    currency: { const: 'EUR' },
  },
};

/** FUGA's column vocabulary, shared by distributors that run on it (Cargo's royalty_extended). */
export const fugaColumns = {
  saleMonth: { from: 'Sale Start date' },
  salePeriodStart: { from: 'Sale Start date' },
  salePeriodEnd: { from: 'Sale End date' },
  dsp: { from: 'DSP' },
  saleType: { from: 'Sale Type' },
  country: { from: 'Territory' },
  upc: { from: 'Product UPC' },
  label: { from: 'Product Label' },
  releaseTitle: { from: 'Product Title' },
  artist: { from: ['Asset Artist', 'Product Artist'] },
  trackTitle: { from: 'Asset Title' },
  isrc: { from: 'Asset ISRC' },
  exchangeRate: { from: 'Exchange Rate' },
  net: { from: 'Reported Royalty' },
  currency: { from: 'Currency' },
} satisfies SourcePattern['columns'];

export const fuga: SourcePattern = {
  key: 'fuga',
  name: 'FUGA sales report',
  aggregator: 'FUGA',
  layout: 'table',
  detect: {
    headers: ['Sale Start date', 'Sale End date', 'DSP', 'Sale Store Name', 'Sale Type', 'Territory', 'Product UPC',
      'Asset ISRC', 'Asset/Product', 'Original Gross Income', 'Original currency', 'Exchange Rate', 'Reported Royalty', 'Currency'],
  },
  format: { delimiter: 'auto', encoding: 'auto' },
  columns: {
    ...fugaColumns,
    quantity: { from: ['Asset Quantity', 'Product Quantity'] },
    gross: { from: 'Original Gross Income' },
    grossCurrency: { from: 'Original currency' },
  },
};

export const orchard: SourcePattern = {
  key: 'orchard',
  name: 'The Orchard / AWAL (upper-case headers)',
  aggregator: 'The Orchard',
  layout: 'table',
  detect: {
    headers: ['STATEMENT PERIOD', 'ACCOUNT ID', 'CONTRACT ID', 'TRANSACTION DATE', 'SALE COUNTRY', 'STORE', 'DISPLAY UPC',
      'ISRC', 'QUANTITY', 'ACCOUNT CURRENCY', 'NET SHARE ACCOUNT CURRENCY'],
  },
  format: { delimiter: 'auto', encoding: 'auto' },
  columns: {
    accountingPeriod: { from: 'STATEMENT PERIOD' },
    saleMonth: { from: ['SALE START DATE', 'TRANSACTION DATE'] },
    salePeriodStart: { from: 'SALE START DATE' },
    salePeriodEnd: { from: 'SALE END DATE' },
    country: { from: 'SALE COUNTRY' },
    dsp: { from: 'STORE' },
    label: { from: 'LABEL IMPRINT' },
    artist: { from: ['TRACK ARTIST', 'PRODUCT ARTIST'] },
    releaseTitle: { from: 'PRODUCT' },
    trackTitle: { from: 'TRACK' },
    upc: { from: 'DISPLAY UPC' },
    isrc: { from: 'ISRC' },
    saleType: { from: 'TRANSACTION TYPE' },
    quantity: { from: 'QUANTITY' },
    gross: { from: 'GROSS REVENUE SALE CURRENCY' },
    grossCurrency: { from: 'SALE CURRENCY' },
    exchangeRate: { from: 'CURRENCY CONVERSION RATE' },
    net: { from: 'NET SHARE ACCOUNT CURRENCY' },
    currency: { from: 'ACCOUNT CURRENCY' },
  },
};
