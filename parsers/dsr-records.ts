/**
 * The DDEX DSR flat-file record layouts (DSR Part 8 record type definitions) as the
 * Basic Audio (BasicAudioProfile 1.0, 1.1, 1.2) and UGC (UgcProfile 1.0, 1.1.1, 1.2)
 * profiles publish them: the multi-record-block variant (blocks of RE/AS/MW/SU records,
 * FOOT) and the single-record-block variant of the 1.2 profiles (one SR01/SR02/SR03/SR06
 * record per sale carrying its release, resource and work, SRFO). One entry per record type and
 * version as written in cell 0; the cells after it in published order. A record type
 * keeps its layout in every profile version that uses it, so a record is read by its
 * own type, not by the HEAD's profile version.
 *
 * Cell notation: `Name` mandatory, `Name?` optional or conditional, `*` several
 * values separated by `|`, `:i` integer, `:d` decimal, `:b` boolean (true/false).
 * The HEAD's and summaries' date cells (`ddex_IsoDate`: YYYY, YYYY-MM or YYYY-MM-DD) and
 * currency cells (ISO 4217 codes) are typed by name (DATE_CELLS, CURRENCY_CELLS). A sales
 * record's ValidityPeriod dates are not checked: DDEX's own accepted UGC sample writes them
 * as YYYYMMDD.
 */

export type DsrCellKind = 's' | 'i' | 'd' | 'b' | 't' | 'c';
const DATE_CELLS = new Set(['UsageStartDate', 'UsageEndDate', 'SubPeriodStartDate', 'SubPeriodEndDate']);
const CURRENCY_CELLS = new Set(['Currency', 'CurrencyOfReporting', 'CurrencyOfTransaction', 'ExchangeRateBaseCurrency']);
export interface DsrCell {
  name: string;
  /** 1-based cell position (cell 0 is the record type). */
  pos: number;
  required: boolean;
  multi: boolean;
  kind: DsrCellKind;
}
export type DsrRole = 'head' | 'summary' | 'release' | 'resource' | 'work' | 'sale' | 'foot' | 'other';
export interface DsrRecordDef {
  type: string;
  role: DsrRole;
  /** Alias used in a pattern's `from: 'ALIAS.Field'`: HEAD, SY, RE, AS, MW, SU, FOOT (others: their 2 letters). */
  alias: string;
  cells: DsrCell[];
  byName: Map<string, DsrCell>;
}

const LAYOUTS: Record<string, string> = {
  'AS01': 'BlockId ResourceReference DspResourceId ISRC? Title SubTitle? DisplayArtistName DisplayArtistPartyId? Duration ResourceType',
  'AS01.01': 'BlockId ResourceReference DspResourceId ISRC?* Title SubTitle? DisplayArtistName DisplayArtistPartyId? Duration? ResourceType IsMasterRecording?:b',
  'AS02': 'BlockId ResourceReference DspResourceId ISRC? Title SubTitle? DisplayArtistName DisplayArtistPartyId? Duration ResourceType ISWC? ComposerAuthor?* ComposerAuthorPartyId?* Arranger?* ArrangerPartyId?* MusicPublisher?* MusicPublisherPartyId?* WorkContributor?* WorkContributorPartyId?*',
  'AS02.01': 'BlockId ResourceReference DspResourceId ISRC? Title SubTitle? DisplayArtistName DisplayArtistPartyId? Duration ResourceType ISWC? ComposerAuthor?* ComposerAuthorPartyId?* Arranger?* ArrangerPartyId?* MusicPublisher?* MusicPublisherPartyId?* WorkContributor?* WorkContributorPartyId?* ProprietaryWorkId?',
  'AS02.02': 'BlockId ResourceReference DspResourceId ISRC?* Title SubTitle? DisplayArtistName DisplayArtistPartyId? Duration? ResourceType ISWC? ComposerAuthor?* ComposerAuthorPartyId?* Arranger?* ArrangerPartyId?* MusicPublisher?* MusicPublisherPartyId?* WorkContributor?* WorkContributorPartyId?* ProprietaryWorkId? IsMasterRecording?:b',
  'FOOT': 'NumberOfLinesInFile:i NumberOfLinesInReport?:i NumberOfSummaryRecords:i NumberOfBlocksInFile:i NumberOfBlocksInReport?:i',
  'HEAD': 'MessageVersion Profile ProfileVersion MessageId MessageCreatedDateTime FileNumber:i NumberOfFiles:i UsageStartDate UsageEndDate SenderPartyId SenderName ServiceDescription? RecipientPartyId? RecipientName? RepresentedRepertoire?*',
  'LI01': 'BlockId SummaryRecordId RightsController RightsControllerPartyId? RightsControllerWorkId? RightSharePercentage:d RightsType? AllocatedNetRevenue:d AllocatedAmount:d',
  'LI01.01': 'BlockId SummaryRecordId? RightsController RightsControllerPartyId? RightsControllerWorkId? RightSharePercentage:d RightsType? AllocatedNetRevenue:d AllocatedAmount:d',
  'LI01.02': 'BlockId SummaryRecordId? RightsController RightsControllerPartyId? RightsControllerWorkId? RightSharePercentage:d RightsType? AllocatedNetRevenue:d AllocatedAmount:d AllocatedUsages?:d',
  'MW01': 'BlockId DspWorkId ISWC? Title SubTitle? ComposerAuthor?* ComposerAuthorPartyId?* Arranger?* ArrangerPartyId?* MusicPublisher?* MusicPublisherPartyId?* WorkContributor?* WorkContributorPartyId?* DataProvider?',
  'MW01.01': 'BlockId DspWorkId ISWC? Title SubTitle? ComposerAuthor?* ComposerAuthorPartyId?* Arranger?* ArrangerPartyId?* MusicPublisher?* MusicPublisherPartyId?* WorkContributor?* WorkContributorPartyId?* DataProvider? ProprietaryWorkId?',
  'RE01': 'BlockId ReleaseReference DspReleaseId ProprietaryReleaseId?* CatalogNumber? ICPN? DisplayArtistName DisplayArtistPartyId? Title SubTitle? ReleaseType? Label? PLine? DataProvider?',
  'RE02': 'BlockId ReleaseReference DspSubReleaseId ProprietarySubReleaseId?* UsedResources*',
  'RU01': 'BlockId SummaryRecordId DspReleaseId* Usages*:i',
  'RU01.01': 'BlockId SummaryRecordId DspReleaseId* Usages*:i ContentCategory',
  'RU02': 'BlockId SummaryRecordId DspReleaseId ReleaseTitle ReleaseURL Usages:i',
  'RU02.01': 'BlockId SummaryRecordId DspReleaseId ReleaseTitle ReleaseURL Usages:i ContentCategory?',
  'SR01': 'SummaryRecordId DspResourceId ISRC? ResourceTitle ResourceSubTitle? ResourceDisplayArtistName ResourceDisplayArtistPartyId? Duration? ResourceType ProprietaryWorkId? ISWC? ComposerAuthor?* ComposerAuthorPartyId?* Arranger?* ArrangerPartyId?* MusicPublisher?* MusicPublisherPartyId?* WorkContributor?* WorkContributorPartyId?* DspReleaseId? ProprietaryReleaseId?* ReleaseCatalogNumber? ICPN? ReleaseDisplayArtistName ReleaseDisplayArtistPartyId? ReleaseTitle ReleaseSubTitle? ReleaseType? ReleaseLabel? PLine? ReleaseDataProvider? NumberOfTransactedResources:i SalesTransactionId IsRoyaltyBearing:b SalesUpgrade:b Downloads:i Returns:i PriceConsumerPaidExcSalesTax?:d CalculatedPriceConsumerPaidForResourceExcSalesTax?:d PromotionalActivity?',
  'SR02': 'SummaryRecordId DspResourceId ISRC? ResourceTitle ResourceSubTitle? ResourceDisplayArtistName ResourceDisplayArtistPartyId? Duration? ResourceType ProprietaryWorkId? ISWC? ComposerAuthor?* ComposerAuthorPartyId?* Arranger?* ArrangerPartyId?* MusicPublisher?* MusicPublisherPartyId?* WorkContributor?* WorkContributorPartyId?* DspReleaseId? ProprietaryReleaseId?* ReleaseCatalogNumber? ICPN? ReleaseDisplayArtistName ReleaseDisplayArtistPartyId? ReleaseTitle ReleaseSubTitle? ReleaseType? ReleaseLabel? PLine? ReleaseDataProvider? SalesTransactionId IsRoyaltyBearing:b NumberOfStreams:d PromotionalActivity?',
  'SR03': 'SummaryRecordId DspResourceId ISRC? ResourceTitle ResourceSubTitle? ResourceDisplayArtistName? ResourceDisplayArtistPartyId? Duration? ResourceType WorkTitle DspWorkId ISWC? ComposerAuthor?* ComposerAuthorPartyId?* Arranger?* ArrangerPartyId?* MusicPublisher?* MusicPublisherPartyId?* WorkContributor?* WorkContributorPartyId?* DspReleaseId? ProprietaryReleaseId?* CatalogNumber? ICPN? ReleaseDisplayArtistName? ReleaseDisplayArtistPartyId? ReleaseTitle ReleaseSubTitle? ReleaseLabel? PLine? SalesTransactionId Usages:d NetRevenue?:d ValidityPeriodStart ValidityPeriodEnd ContentCategory RightsController? RightsControllerPartyId? RightsControllerWorkId? RightSharePercentage?:d RightsType? AllocatedNetRevenue?:d AllocatedAmount?:d AllocatedUsages?:d AllocatedNetUsage?:d',
  'SR06': 'SummaryRecordId DspResourceId ISRC? ResourceTitle ResourceSubTitle? ResourceDisplayArtistName? ResourceDisplayArtistPartyId? WorkTitle DspWorkId ISWC? ComposerAuthor?* ComposerAuthorPartyId?* Usages:d ValidityPeriodStart ValidityPeriodEnd ContentCategory RightsController? RightsControllerPartyId? RightsControllerWorkId? RightSharePercentage?:d RightsType? AllocatedAmount?:d AllocatedNetUsage?:d',
  'SRFO': 'NumberOfLinesInReport:i NumberOfSummaryRecords:i',
  'SU01': 'BlockId SummaryRecordId SalesTransactionId TransactedRelease? TransactedResource? IsRoyaltyBearing:b SalesUpgrade:b Usages:i Returns:i PriceConsumerPaidExcSalesTax?:d PromotionalActivity?',
  'SU02': 'BlockId SummaryRecordId SalesTransactionId TransactedRelease? TransactedResource? IsRoyaltyBearing?:b NumberOfStreams:i PriceConsumerPaidExcSalesTax?:d PromotionalActivity?',
  'SU03': 'BlockId SalesTransactionId SummaryRecordId? DspReleaseId Usages?:i NetRevenue:d ValidityPeriodStart? ValidityPeriodEnd?',
  'SU03.01': 'BlockId SalesTransactionId SummaryRecordId? DspReleaseId Usages?:i NetRevenue:d ValidityPeriodStart? ValidityPeriodEnd?',
  'SU03.02': 'BlockId SalesTransactionId SummaryRecordId? DspResourceId Usages:d NetRevenue:d ValidityPeriodStart? ValidityPeriodEnd? ContentCategory? IsRoyaltyBearing?:b',
  'SY01': 'SummaryRecordId DistributionChannel? DistributionChannelDPID? CommercialModel UseType Territory ServiceDescription? Usages:i Subscribers?:d Currency NetRevenue:d IndirectNetRevenue?:d',
  'SY01.01': 'SummaryRecordId DistributionChannel? DistributionChannelDPID? CommercialModel UseType Territory ServiceDescription? Usages:i Subscribers?:d CurrencyOfReporting NetRevenue:d IndirectNetRevenue?:d CurrencyOfTransaction? ExchangeRate?:d',
  'SY02': 'SummaryRecordId DistributionChannel? DistributionChannelDPID? CommercialModel UseType Territory ServiceDescription Usages:i Users?:i Currency NetRevenue:d RightsController? RightsControllerPartyId? AllocatedUsages?*:d AmountPayable?*:d AllocatedNetRevenue?:d',
  'SY02.01': 'SummaryRecordId DistributionChannel? DistributionChannelDPID? CommercialModel UseType Territory ServiceDescription Usages:i Users?:i Currency NetRevenue:d RightsController? RightsControllerPartyId? AllocatedUsages?*:d AllocatedRevenue?*:d AllocatedNetRevenue?:d RightsType?',
  'SY02.02': 'SummaryRecordId DistributionChannel? DistributionChannelDPID? CommercialModel UseType Territory ServiceDescription Usages:i Users?:i CurrencyOfReporting NetRevenue:d RightsController? RightsControllerPartyId? AllocatedUsages?*:d AllocatedRevenue?*:d AllocatedNetRevenue?:d RightsType? ContentCategory CurrencyOfTransaction? ExchangeRate?:d RightsTypePercentage?:d',
  'SY03': 'SummaryRecordId DistributionChannel? DistributionChannelDPID? CommercialModel UseType Territory ServiceDescription Usages:i Subscribers:d Currency NetRevenue:d RightsController? RightsControllerPartyId? AllocatedUsages?*:d AllocatedRevenue?*:d AllocatedNetRevenue?:d RightsControllerMarketShare?:d ConsumerPaidUnitPrice:d FreeOrTrialSubscribers:d ExchangeRateBaseCurrency? ExchangeRate?:d',
  'SY04': 'SummaryRecordId DistributionChannel? DistributionChannelDPID? CommercialModel UseType Territory ServiceDescription SubscriberType Subscribers:d SubPeriodStartDate? SubPeriodEndDate? UsagesInSubPeriod?:i UsagesInReportingPeriod?:i Currency ExchangeRateBaseCurrency? ExchangeRate?:d ConsumerPaidUnitPrice:d NetRevenue:d',
  'SY04.01': 'SummaryRecordId DistributionChannel? DistributionChannelDPID? CommercialModel UseType Territory ServiceDescription SubscriberType Subscribers:d SubPeriodStartDate? SubPeriodEndDate? UsagesInSubPeriod?:i UsagesInReportingPeriod?:i CurrencyOfReporting CurrencyOfTransaction? ExchangeRate?:d ConsumerPaidUnitPrice:d NetRevenue:d MusicUsagePercentage:d',
  'SY05': 'SummaryRecordId DistributionChannel? DistributionChannelDPID? CommercialModel UseType Territory ServiceDescription? RightsController? RightsControllerPartyId? RightsType TotalUsages?:i AllocatedUsages?*:d MusicUsageRatio?:d AllocatedRevenue?*:d AllocatedNetRevenue?:d RightsControllerMarketShare?:d',
  'SY05.02': 'SummaryRecordId DistributionChannel? DistributionChannelDPID? CommercialModel UseType Territory ServiceDescription? RightsController? RightsControllerPartyId? RightsType TotalUsages?:i AllocatedUsages?*:d MusicUsageRatio?:d AllocatedNetRevenue?*:d AllocatedRevenue?:d RightsControllerMarketShare?:d CurrencyOfReporting? CurrencyOfTransaction? ExchangeRate?:d SubscriberType? SubPeriodStartDate? SubPeriodEndDate? ContentCategory RightsTypePercentage?:d',
  'SY06.02': 'SummaryRecordId DistributionChannel? DistributionChannelDPID? CommercialModel UseType Territory ServiceDescription Usages:i Subscribers?:d CurrencyOfReporting NumberOfReleases?:i NetRevenue?:d IndirectNetRevenue?:d PreviewAvailable?:b CurrencyOfTransaction? ExchangeRate?:d ViewingHours?:d',
  'SY09': 'SummaryRecordId CommercialModel UseType Territory ServiceDescription? SubscriberType? RightsController? RightsControllerPartyId? RightsType? TotalUsages?:d AllocatedUsages?:d NetRevenue:d IndirectNetRevenue?:d RightsControllerMarketShare?:d CurrencyOfReporting CurrencyOfTransaction? ExchangeRate?:d RightsTypePercentage?:d',
};

function roleOf(type: string): DsrRole {
  const base = type.slice(0, 4);
  if (base === 'HEAD') return 'head';
  if (base === 'FOOT' || base === 'SRFO') return 'foot';
  if (base === 'RE01') return 'release';
  if (base.startsWith('SY')) return 'summary';
  if (base.startsWith('AS')) return 'resource';
  if (base.startsWith('MW')) return 'work';
  if (base.startsWith('SU') || base.startsWith('SR')) return 'sale';
  return 'other';
}

export function parseLayout(type: string, spec: string): DsrRecordDef {
  const cells = spec.split(' ').map((c, i): DsrCell => {
    const m = /^(\w+)(\?)?(\*)?(?::([idb]))?$/.exec(c);
    if (!m) throw new Error(`bad DSR cell spec "${c}" in ${type}`);
    const byName: DsrCellKind = DATE_CELLS.has(m[1]!) ? 't' : CURRENCY_CELLS.has(m[1]!) ? 'c' : 's';
    return { name: m[1]!, pos: i + 1, required: !m[2], multi: !!m[3], kind: (m[4] as DsrCellKind | undefined) ?? byName };
  });
  const role = roleOf(type);
  const alias = role === 'summary' ? 'SY' : role === 'sale' ? 'SU' : role === 'head' || role === 'foot' ? type : type.slice(0, 2);
  return { type, role, alias, cells, byName: new Map(cells.map((c) => [c.name, c])) };
}

/** Published record types by their cell-0 value. */
export const DSR_RECORDS: ReadonlyMap<string, DsrRecordDef> = new Map(
  Object.entries(LAYOUTS).map(([t, s]) => [t, parseLayout(t, s)]),
);

/**
 * A single-record-block sales record (SR01…SR06) seen as the release, resource or work record
 * it carries, so a pattern's `RE.Title`, `AS.ISRC`, `MW.ISWC` read it as they read RE01, AS01
 * and MW01 records: `ReleaseTitle` answers `Title` in the release view, `ResourceTitle` in the
 * resource view, `WorkTitle` in the work view (likewise `…Label`, `…DisplayArtistName`,
 * `ReleaseCatalogNumber`); names without the prefix (ISRC, ICPN, ISWC…) answer as they are.
 */
export function srView(def: DsrRecordDef, prefix: 'Release' | 'Resource' | 'Work'): DsrRecordDef {
  const byName = new Map(def.byName);
  for (const c of def.cells)
    if (c.name.startsWith(prefix) && c.name.length > prefix.length && c.name !== `${prefix}Type`) byName.set(c.name.slice(prefix.length), c);
  return { ...def, byName };
}

/** Record bases (first four characters) with at least one published layout. */
export const DSR_BASES: ReadonlySet<string> = new Set([...DSR_RECORDS.keys()].map((t) => t.slice(0, 4)));

/** The published versions of a record base ('SU02' → ['SU02']), for error messages. */
export function dsrVersions(base: string): string[] {
  return [...DSR_RECORDS.keys()].filter((t) => t.startsWith(base));
}

/**
 * Checks a record's cells against its published layout: mandatory cells present, integer,
 * decimal, boolean, date and currency cells well formed. Returns the first fault as "cell N (Name): …".
 */
export function checkCells(def: DsrRecordDef, row: string[]): string | null {
  for (const c of def.cells) {
    const v = (row[c.pos] ?? '').trim();
    if (v === '') {
      if (c.required) return row.length <= c.pos ? `cell ${c.pos} (${c.name}) is mandatory and the record ends after cell ${row.length - 1}` : `cell ${c.pos} (${c.name}) is mandatory and empty`;
      continue;
    }
    const values = c.multi ? v.split('|') : [v];
    for (const x of values) {
      if (c.kind === 'i' && !/^-?\d+$/.test(x)) return `cell ${c.pos} (${c.name}): "${x}" is not an integer`;
      if (c.kind === 'd' && !/^-?(?:\d+(?:\.\d*)?|\.\d+)$/.test(x)) return `cell ${c.pos} (${c.name}): "${x}" is not a decimal number`;
      if (c.kind === 'b' && !/^(?:true|false)$/i.test(x)) return `cell ${c.pos} (${c.name}): "${x}" is not true or false`;
      if (c.kind === 't' && !/^\d{4}(?:-(?:0[1-9]|1[0-2])(?:-(?:0[1-9]|[12]\d|3[01]))?)?$/.test(x)) return `cell ${c.pos} (${c.name}): "${x}" is not a date (YYYY, YYYY-MM or YYYY-MM-DD)`;
      if (c.kind === 'c' && !/^[A-Z]{3}$/.test(x)) return `cell ${c.pos} (${c.name}): "${x}" is not a currency code (three capital letters, ISO 4217)`;
    }
  }
  return null;
}
