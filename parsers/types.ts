/**
 * The contract between the source-pattern engine (parsers/) and the ingestion jobs (jobs/).
 * Pure types: nothing here touches the database. Keep changes additive: the ingest job
 * and the royalty_lines table are built on these names.
 */
import type { Readable } from 'node:stream';

/** One statement line after mapping and normalising, in Rondo's canonical form. */
export interface CanonicalLine {
  /** 1-based physical line number in the (decompressed) file where the record starts. */
  lineNo: number;
  /** First day of the sale month, 'YYYY-MM-01'. */
  saleMonth: string | null;
  /** Sale period bounds, 'YYYY-MM-DD', when the source reports a range. */
  salePeriodStart: string | null;
  salePeriodEnd: string | null;
  /** First day of the accounting (reporting) month when the source reports one (dual-period sources). */
  accountingPeriod: string | null;
  dsp: string | null;
  /** ISO 3166-1 alpha-2 when recognisable (names and codes are mapped), else the raw trimmed value. */
  country: string | null;
  /** 12 characters, upper-case, no dashes. */
  isrc: string | null;
  /** Digits only, leading zeros kept. */
  upc: string | null;
  trackTitle: string | null;
  artist: string | null;
  releaseTitle: string | null;
  label: string | null;
  /** Normalised: 'stream' | 'download' | 'ugc' | 'physical' | 'return' | 'other' … */
  saleType: string | null;
  /** Decimal string; '0' when the source has none. */
  quantity: string;
  /** Decimal string in grossCurrency (or currency when grossCurrency is null). */
  gross: string | null;
  grossCurrency: string | null;
  /** Decimal string in `currency`: what the source owes the label for this line. Never a float. */
  net: string;
  /** ISO 4217, upper-case. */
  currency: string;
  /** Statement's own rate: 1 grossCurrency = exchangeRate currency. */
  exchangeRate: string | null;
  /** The distributor/aggregator that reported the line (e.g. 'DistroKid'). */
  aggregator: string | null;
  /**
   * Additive (parsers): the trimmed source text when the source had an ISRC / UPC that is
   * not valid after cleaning (`isrc`/`upc` are then null). Absent otherwise.
   */
  isrcRaw?: string;
  upcRaw?: string;
  /**
   * Additive (parsers): what was wrong with a kept line's cells (a UPC with a wrong check digit).
   * Taken off the line by the reader and reported to the sink as `kept` line errors.
   */
  notes?: { field: string; column: string; value: string; reason: string }[];
  /** Additive (parsers): the pattern's `extra` fields (ISWC, writers, song codes…) as text; absent when none. */
  extra?: Record<string, string>;
}

export interface LineError {
  lineNo: number;
  reason: string;
  /** The raw record as read (decoded text), for the errors CSV. */
  raw: string;
  /** The cell that failed, when one did: line field, column label and the value as read. */
  detail?: { field: string; column: string; value: string };
  /** A warning on a line that was kept (read and stored): not counted as a failed row. */
  kept?: boolean;
}

/** One DDEX DSR summary record compared with the sales records that point at it. */
export interface DsrSummaryCheck {
  summaryRecordId: string;
  /** Record type and version as written ('SY01.01'). */
  record: string;
  lineNo: number;
  currency: string;
  lines: number;
  usages: { file: string; read: string };
  net: { file: string; read: string };
  reconciles: boolean;
}

export interface ReadSummary {
  rowsRead: number;
  rowsIngested: number;
  rowsFailed: number;
  rowsSkipped: number;
  /** Sum of `net` per currency, decimal strings. */
  totals: Record<string, string>;
  /** Control totals the file itself carries (footer row counts, DSR FOOT…), when any. */
  control: {
    rows?: number;
    totals?: Record<string, string>;
    /** DDEX DSR: the FOOT's summary-record and block counts (checked), and each summary record against its sales records. */
    summaryRecords?: number;
    blocks?: number;
    summaries?: DsrSummaryCheck[];
  } | null;
  /** Whether the control totals (when present) match what was read. */
  reconciles: boolean | null;
  /** Lines kept with a warning (a UPC/EAN with a wrong check digit): reported to the sink as `kept` errors. */
  warnings?: number;
  /** Rows skipped by a rule or row kind, with the amounts they held per currency (when readable). */
  skipped?: { rows: number; totals: Record<string, string> };
  /** Cost, recharge and fee rows read as deductions (not sales): how many, and the amounts they take off per currency (positive). */
  deductions?: { rows: number; totals: Record<string, string> };
  /** Cost, recharge and fee rows read as expenses (recorded in the ledger by the ingest): how many, and their amounts per currency (positive). */
  expenses?: { rows: number; totals: Record<string, string> };
  /** Mapped columns (not marked optional) the file's header does not have. */
  missingColumns?: { field: string; column: string }[];
  /** Statement period found in the file (preamble, file name, or min/max sale month). */
  period: { start: string | null; end: string | null };
}

export interface LineSink {
  /** Called with batches of good lines; await it (back-pressure). */
  lines(batch: CanonicalLine[]): Promise<void> | void;
  error(err: LineError): void;
  /**
   * A cost, recharge or fee row the pattern reads as an `expense` (never a sale): the row mapped
   * as a line (its recording, product, month), `net` the amount it costs, made positive.
   */
  expense?(line: CanonicalLine): void;
}

export interface DetectionCandidate {
  patternKey: string;
  /** 0..1 overall confidence that this pattern reads the file. */
  score: number;
  confidence: { source: number; period: number; schema: number };
  period: { start: string | null; end: string | null } | null;
  reasons: string[];
}

export interface StatementSample {
  fileName: string;
  /** The first bytes of the file (a few KB), raw. */
  head: Buffer;
}

export type ReadStatement = (
  input: Readable,
  opts: { fileName: string; pattern: unknown; periodOverride?: { start: string; end: string } | null },
  sink: LineSink,
) => Promise<ReadSummary>;
