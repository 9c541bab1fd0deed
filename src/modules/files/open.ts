/**
 * Opening stored files: a zip by its central directory (ranged reads of the object, so an
 * entry anywhere in it can be read first), and a statement's text — the stored bytes, or
 * for an .xlsx workbook its first sheet converted to CSV on the fly (src/lib/xlsx.ts), so
 * detection and readStatement see the same text either way.
 */
import { PassThrough, Transform, type Readable } from 'node:stream';
import unzipper from 'unzipper';
import { readHead, type ObjectStore } from '../../lib/storage';
import { Workbook, markStoreError, type CsvOptions, type XlsxLimits } from '../../lib/xlsx';
import { detectArchive } from '../../../parsers';

export interface StoredZip {
  dir: unzipper.CentralDirectory;
  /** Compressed bytes read from the store so far (progress). */
  bytesRead(): number;
  /** Ends every read still open on the object (an entry abandoned half-way keeps none). */
  close(): void;
}

/** Opens a stored zip by its central directory. Rejects on a corrupt or truncated zip (unzipper's message). */
export async function openStoredZip(s: ObjectStore, key: string, size: number): Promise<StoredZip> {
  const open = new Set<Readable>();
  let bytes = 0;
  let closed = false;
  const dir = await unzipper.Open.custom({
    size: async () => size,
    stream: (offset: number, length?: number) => {
      const pt = new PassThrough();
      const end = length ? Math.min(size - 1, offset + length - 1) : undefined;
      open.add(pt);
      pt.on('close', () => open.delete(pt));
      s.getStream(key, { start: offset, end }).then(
        (st) => {
          if (closed || pt.destroyed) return void st.destroy();
          open.add(st);
          st.on('close', () => open.delete(st));
          st.on('data', (c: Buffer) => (bytes += c.length));
          st.on('error', (e) => pt.destroy(markStoreError(e)));
          st.pipe(pt);
        },
        (e) => pt.destroy(markStoreError(e)),
      );
      return pt;
    },
  });
  return {
    dir,
    bytesRead: () => bytes,
    close() {
      closed = true;
      for (const st of open) st.destroy();
      open.clear();
    },
  };
}

export interface StatementText {
  /** The statement's text: the stored bytes, or CSV converted from the workbook's first sheet. */
  stream: Readable;
  workbook: boolean;
  /** Stored bytes consumed so far (progress against the stored size). */
  sourceBytes(): number;
  close(): void;
}

/**
 * Opens a stored statement for reading. A zip at this point is a workbook (the decompress
 * step unpacks every other zip); its sheet is streamed as CSV with `csv` options.
 * Rejects with XlsxError for a workbook that cannot be read.
 */
export async function openStatementText(s: ObjectStore, key: string, limits: XlsxLimits, csv: CsvOptions = {}): Promise<StatementText> {
  const head = await readHead(s, key, 8);
  if (detectArchive(head) === 'zip') {
    // the object's own size (a gzipped workbook was expanded: the file's recorded size is the gzip's)
    const size = (await s.stat(key))?.size ?? 0;
    const zip = await openStoredZip(s, key, size);
    try {
      const wb = await Workbook.open(zip.dir.files, limits);
      const stream = wb.csv(csv);
      stream.on('close', () => zip.close());
      return { stream, workbook: true, sourceBytes: () => zip.bytesRead(), close: () => (stream.destroy(), zip.close()) };
    } catch (e) {
      zip.close();
      throw e;
    }
  }
  const src = await s.getStream(key);
  let bytes = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _e, cb) {
      bytes += chunk.length;
      cb(null, chunk);
    },
  });
  src.on('error', (e) => counter.destroy(markStoreError(e)));
  src.pipe(counter);
  return { stream: counter, workbook: false, sourceBytes: () => bytes, close: () => (src.destroy(), counter.destroy()) };
}

/** The first `n` bytes of a statement's text (detection). */
export async function statementHead(s: ObjectStore, key: string, limits: XlsxLimits, n: number): Promise<Buffer> {
  const head = await readHead(s, key, n);
  if (detectArchive(head) !== 'zip') return head;
  const t = await openStatementText(s, key, limits);
  try {
    return await firstBytes(t.stream, n);
  } finally {
    t.close();
  }
}

/** The first `n` bytes of a stream (fewer when it ends first); stops reading there. */
async function firstBytes(stream: Readable, n: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let got = 0;
  for await (const c of stream as AsyncIterable<Buffer>) {
    parts.push(c);
    got += c.length;
    if (got >= n) break;
  }
  return Buffer.concat(parts).subarray(0, n);
}

/**
 * A workbook held in memory (the pattern creator's sample) as CSV text, at most `maxBytes`;
 * null when the bytes are not a zip. Rejects with XlsxError (or unzipper's error) when unreadable.
 */
export async function workbookBufferText(buf: Buffer, limits: XlsxLimits, maxBytes: number, csv: CsvOptions = {}): Promise<Buffer | null> {
  if (detectArchive(buf.subarray(0, 8)) !== 'zip') return null;
  const dir = await unzipper.Open.buffer(buf);
  const wb = await Workbook.open(dir.files, limits);
  const stream = wb.csv(csv);
  try {
    return await firstBytes(stream, maxBytes);
  } finally {
    stream.destroy();
  }
}
