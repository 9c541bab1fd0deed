/** What a CWR registration file carries, as the writer takes it and the reader gives it back. */
import type { Version } from './layouts';

export interface CwrPublisher {
  /** Submitter's interested-party number (9 characters). */
  code: string;
  name: string;
  ipi: string | null;
  society: string | null;
  controlled: boolean;
  /** CWR publisher type: E original, AM administrator, SE sub-publisher. */
  type: string;
  /** Percent of the whole work, two decimals. */
  prShare: string;
  mrShare: string;
  srShare: string;
}

export interface CwrWriter {
  code: string;
  lastName: string;
  firstName: string;
  ipi: string | null;
  society: string | null;
  controlled: boolean;
  /** CWR writer designation: CA, C, A, AR, AD, TR. */
  designation: string;
  prShare: string;
  mrShare: string;
  srShare: string;
  /** The controlled publisher representing the writer (PWR), by its code. */
  publisherCode: string | null;
}

export interface CwrRecording {
  isrc: string | null;
  title: string;
  displayArtist: string | null;
  releaseDate: string | null; // YYYYMMDD
  duration: number | null; // seconds
}

export interface CwrWork {
  transactionType: 'NWR' | 'REV';
  title: string;
  /** Submitter's work number (at most 14 characters). */
  code: string;
  iswc: string | null;
  language: string | null;
  duration: number | null; // seconds
  alternateTitles: { title: string; type: string; language: string | null }[];
  publishers: CwrPublisher[];
  writers: CwrWriter[];
  performers: string[];
  recordings: CwrRecording[];
}

export interface CwrSender {
  /** PB (publisher). */
  type: string;
  /** The sender's IPI name number (its last nine digits go into HDR). */
  ipi: string;
  name: string;
}

export interface CwrFile {
  version: Version;
  sender: CwrSender;
  createdAt: Date;
  software?: { name: string; version: string };
  works: CwrWork[];
}
