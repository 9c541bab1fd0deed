/**
 * Built-in patterns: collecting societies and the US collectives. Plain data. Evidence in
 * docs/formats.md ("Societies and collectives"). Publishing income keeps its work data in
 * `extra`: iswc, workTitle, writers (names separated by "/"), societyWorkId, rightType
 * (performance | mechanical).
 */
import type { SourcePattern } from '../schema';

/** PRS for Music distribution statement, CSV download of the member portal. */
export const prsDistribution: SourcePattern = {
  key: 'prs-distribution',
  name: 'PRS for Music distribution statement (CSV)',
  aggregator: 'PRS for Music',
  description: 'Quarterly distribution: one row per use of a work (Tunecode, ISWC, IP1…IP4), performance revenue in GBP',
  income: 'publishing',
  layout: 'table',
  detect: {
    fileName: 'prs',
    headers: ['Record Number', 'CAE Number', 'Rights Type', 'Distribution (posted)', 'Usage Narrative', 'Work Title',
      'Amount (performance revenue)', 'Perf Start Date', 'Number of Perfs', 'Tunecode', 'ISWC'],
  },
  format: { delimiter: ',', encoding: 'auto', dayFirst: true },
  columns: {
    saleMonth: { from: 'Perf Start Date' },
    salePeriodStart: { from: 'Perf Start Date' },
    salePeriodEnd: { from: 'Perf End Date' },
    dsp: { from: 'Usage Narrative' },
    trackTitle: { from: 'Work Title' },
    quantity: { from: 'Number of Perfs', default: '0' },
    net: { from: 'Amount (performance revenue)' },
    currency: { from: 'Currency', default: 'GBP' },
  },
  extra: {
    iswc: { from: 'ISWC', optional: true },
    workTitle: { from: 'Work Title' },
    writers: { compute: { op: 'join', of: ['IP1', 'IP2', 'IP3', 'IP4'] }, optional: true },
    societyWorkId: { from: 'Tunecode' },
    rightType: { from: 'Rights Type', map: { P: 'performance', PR: 'performance', M: 'mechanical', MR: 'mechanical' }, default: 'performance' },
  },
};

/** ASCAP writer / publisher statement detail (CSV export of the member portal, 41 columns). */
export const ascapStatement: SourcePattern = {
  key: 'ascap-statement',
  name: 'ASCAP domestic and international statement detail (CSV)',
  aggregator: 'ASCAP',
  description: 'Quarterly performance royalties per work, music user and performance period; Dollars in USD',
  income: 'publishing',
  layout: 'table',
  detect: {
    fileName: 'ascap',
    headers: ['DistributionYear', 'Distribution Quarter', 'Party Name', 'Performance Source/Broadcast Medium', 'Music User',
      'Work ID', 'Work Title', 'Number of Plays', 'Composer Name', 'Credits', 'Dollars', 'Type Of Right'],
  },
  format: { delimiter: ',', encoding: 'auto' },
  columns: {
    saleMonth: { from: 'Performance Start Date' },
    salePeriodStart: { from: 'Performance Start Date' },
    salePeriodEnd: { from: 'Performance End Date' },
    dsp: { from: 'Music User' },
    country: { from: 'Territory', optional: true },
    trackTitle: { from: 'Work Title' },
    artist: { from: 'Performing Artist', optional: true },
    quantity: { from: 'Number of Plays', default: '0' },
    net: { from: 'Dollars' },
    currency: { const: 'USD' },
  },
  extra: {
    workTitle: { from: 'Work Title' },
    writers: { from: 'Composer Name' },
    societyWorkId: { from: 'Work ID' },
    rightType: { const: 'performance' },
  },
};

/** BMI royalty statement export (writer or publisher), upper-case headers. */
export const bmiStatement: SourcePattern = {
  key: 'bmi-statement',
  name: 'BMI royalty statement export (CSV)',
  aggregator: 'BMI',
  description: 'Quarterly performance royalties per title and performance source; periods written as YYYYQ (20241)',
  income: 'publishing',
  layout: 'table',
  detect: {
    fileName: 'bmi',
    headers: ['PERIOD', 'W OR P', 'PARTICIPANT NAME', 'TITLE NAME', 'TITLE #', 'PERF SOURCE', 'COUNTRY OF PERFORMANCE',
      'PERF COUNT', 'ROYALTY AMOUNT', 'PERF PERIOD', 'CURRENT ACTIVITY AMT'],
  },
  format: { delimiter: ',', encoding: 'auto' },
  columns: {
    saleMonth: { from: 'PERF PERIOD' },
    accountingPeriod: { from: 'PERIOD' },
    dsp: { from: 'PERF SOURCE' },
    country: { from: 'COUNTRY OF PERFORMANCE' },
    trackTitle: { from: 'TITLE NAME' },
    quantity: { from: 'PERF COUNT', default: '0' },
    net: { from: 'ROYALTY AMOUNT' },
    currency: { const: 'USD' },
  },
  extra: {
    workTitle: { from: 'TITLE NAME' },
    writers: { from: 'PARTICIPANT NAME' },
    societyWorkId: { from: 'TITLE #' },
    rightType: { const: 'performance' },
  },
};

/** The MLC monthly royalty statement, Work Summary download (tab-separated). */
export const mlcWorkSummary: SourcePattern = {
  key: 'mlc-work-summary',
  name: 'The MLC royalty statement, Work Summary (TSV)',
  aggregator: 'The MLC',
  description: 'US blanket-licence mechanicals: one row per work, DSP, use type and territory; writers separated by "|"',
  income: 'publishing',
  layout: 'table',
  detect: {
    fileName: 'mlc|work.?summary',
    headers: ['Work Primary Title', 'MLC Song Code', 'ISWC', 'Work Writer List', 'DSP Name', 'Use Type',
      'Usage Period Start Date', 'Usage Period End Date', 'Number of Usages', 'Distributed Amount'],
  },
  format: { delimiter: '\t', encoding: 'auto' },
  columns: {
    saleMonth: { from: 'Usage Period Start Date' },
    salePeriodStart: { from: 'Usage Period Start Date' },
    salePeriodEnd: { from: 'Usage Period End Date' },
    dsp: { from: 'DSP Name' },
    country: { from: 'Territory', default: 'US', optional: true },
    trackTitle: { from: 'Work Primary Title' },
    quantity: { from: 'Number of Usages', default: '0' },
    net: { from: 'Distributed Amount' },
    currency: { const: 'USD' },
  },
  extra: {
    iswc: { from: 'ISWC' },
    workTitle: { from: 'Work Primary Title' },
    writers: { from: 'Work Writer List' },
    societyWorkId: { from: 'MLC Song Code' },
    rightType: { const: 'mechanical' },
  },
};

/**
 * SoundExchange statement detail: digital performance royalties of SOUND RECORDINGS (rights
 * owner and performer shares), so recording income paid by recording splits through the ISRC,
 * not publishing income.
 */
export const soundExchange: SourcePattern = {
  key: 'soundexchange-statement',
  name: 'SoundExchange statement detail (CSV)',
  aggregator: 'SoundExchange',
  description: 'US non-interactive digital radio, satellite and webcasting royalties per recording and service',
  income: 'recording',
  layout: 'table',
  detect: {
    fileName: 'soundexchange|sx_',
    headers: ['Service Name', 'Transmission Category', 'Featured Artist', 'Sound Recording Title', 'ISRC', 'Royalty Type',
      'Performances', 'Royalty Amount'],
  },
  format: { delimiter: ',', encoding: 'auto' },
  columns: {
    saleMonth: { from: 'Period Start Date' },
    salePeriodStart: { from: 'Period Start Date' },
    salePeriodEnd: { from: 'Period End Date' },
    dsp: { from: 'Service Name' },
    isrc: { from: 'ISRC' },
    trackTitle: { from: 'Sound Recording Title' },
    artist: { from: 'Featured Artist' },
    releaseTitle: { from: 'Album Title', optional: true },
    label: { from: 'Marketing Label', optional: true },
    saleType: { const: 'radio' },
    quantity: { from: 'Performances', default: '0' },
    country: { const: 'US' },
    net: { from: 'Royalty Amount' },
    currency: { const: 'USD' },
  },
};
