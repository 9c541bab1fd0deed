/**
 * Opening stored files: a zip by its central directory (ranged reads of the object, so an
 * entry anywhere in it can be read first), and a statement's text — the stored bytes, or
 * for an .xlsx workbook its first sheet converted to CSV on the fly (src/lib/xlsx.ts), so
 * detection and readStatement see the same text either way.
 */
import { PassThrough, Readable, Transform } from 'node:stream';
import zlib from 'node:zlib';
import type unzipper from 'unzipper';
import { readHead, type ObjectStore } from './storage';
import { Workbook, markStoreError, type CsvOptions, type XlsxLimits } from './xlsx';
import { detectArchive } from '../../parsers';

type IngestLimits = {
  maxEntries: number;
  maxExpandedBytes: number;
  maxRatio: number;
  ratioFloorBytes: number;
  maxSharedStringsBytes: number;
};

/**
 * Archive limits (zip bombs). Mutable so an operator (or a test) can tune them; kept on
 * globalThis so every reader shares one object even if the loader instantiates this module twice.
 */
export const INGEST_LIMITS: IngestLimits = ((globalThis as { __rondoIngestLimits?: IngestLimits }).__rondoIngestLimits ??= {
  /** Statement entries in one zip. */
  maxEntries: 1000,
  /** Sum of expanded sizes of one archive. */
  maxExpandedBytes: 20 * 1024 ** 3,
  /** Expanded / compressed, per entry and for a gzip file (real statements: 5–20). */
  maxRatio: 200,
  /** Sizes below this are not ratio-checked (tiny files compress oddly). */
  ratioFloorBytes: 1024 * 1024,
  /** An .xlsx workbook's shared strings table (UTF-8 bytes), held in memory while its sheet is read. */
  maxSharedStringsBytes: 64 * 1024 * 1024,
});

export interface StoredZip {
  dir: unzipper.CentralDirectory;
  /** Compressed bytes read from the store so far (progress). */
  bytesRead(): number;
  /** An entry's content (see entryStream). */
  entry(f: unzipper.File): Promise<Readable>;
  /** Ends every read still open on the object (an entry abandoned half-way keeps none). */
  close(): void;
}

/** Opens a stored zip by its central directory. Rejects on a corrupt or truncated zip (unzipper's message). */
export async function openStoredZip(s: ObjectStore, key: string, size: number): Promise<StoredZip> {
  const open = new Set<Readable>();
  let bytes = 0;
  let closed = false;
  /** A ranged read of the object (to its end without a length, as unzipper asks); ended by close(). */
  const read = (offset: number, length?: number): Readable => {
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
  };
  const { default: unzipper } = await import('unzipper'); // on the first zip, not at start (docs/operations.md)
  const dir = await unzipper.Open.custom({ size: async () => size, stream: read });
  return {
    dir,
    bytesRead: () => bytes,
    entry: (f) => entryStream(f, read),
    close() {
      closed = true;
      for (const st of open) st.destroy();
      open.clear();
    },
  };
}

/**
 * An entry's content. Stored and deflated entries (nearly every statement zip) are read here:
 * one ranged read of the entry's bytes, inflated in 128 KB chunks, checked against the CRC-32
 * and size of the central directory (unzipper does not check either: a corrupt entry would be
 * read as a short or garbled statement). Measured, a 147 MB DistroKid entry: unzipper's entry
 * stream 0.64–0.68 s (9,069 chunks through its stream layers), a raw inflate 0.24–0.27 s.
 * Encrypted entries and other methods go through unzipper (which refuses what it cannot read).
 */
async function entryStream(f: unzipper.File, read: (offset: number, length: number) => Readable): Promise<Readable> {
  const method = f.compressionMethod;
  if (f.flags & 1 || (method !== 0 && method !== 8)) return f.stream();
  // The local header's name and extra lengths may differ from the central directory's.
  const head = await collect(read(f.offsetToLocalFileHeader, 30));
  if (head.length < 30 || head.readUInt32LE(0) !== 0x04034b50) throw new Error(`entry "${f.path}": no local file header at offset ${f.offsetToLocalFileHeader}`);
  const start = f.offsetToLocalFileHeader + 30 + head.readUInt16LE(26) + head.readUInt16LE(28);
  const raw = f.compressedSize > 0 ? read(start, f.compressedSize) : Readable.from([]);
  const check = new EntryCheck(f.path, f.crc32 >>> 0, f.uncompressedSize);
  if (method === 0) return raw.on('error', (e) => check.destroy(e)).pipe(check);
  const inflate = zlib.createInflateRaw({ chunkSize: 1 << 17 });
  raw.on('error', (e) => inflate.destroy(e));
  inflate.on('error', (e) => check.destroy(e));
  return raw.pipe(inflate).pipe(check);
}

async function collect(st: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of st) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

/** zlib.crc32 arrived in Node 20.15 / 22.2; before it only the size is checked. */
const HAS_CRC32 = typeof (zlib as { crc32?: unknown }).crc32 === 'function';

/** Counts an entry's bytes and its CRC-32; at the end both must be what the directory says. */
class EntryCheck extends Transform {
  private crc = 0;
  private n = 0;
  constructor(private readonly name: string, private readonly crc32: number, private readonly size: number) {
    super();
  }
  override _transform(chunk: Buffer, _e: BufferEncoding, cb: (err?: Error | null, data?: Buffer) => void): void {
    if (HAS_CRC32) this.crc = zlib.crc32(chunk, this.crc);
    this.n += chunk.length;
    cb(null, chunk);
  }
  override _flush(cb: (err?: Error | null) => void): void {
    if (this.n !== this.size) return cb(new Error(`entry "${this.name}" is ${this.n} bytes, the directory says ${this.size} (truncated or corrupt)`));
    if (HAS_CRC32 && this.crc >>> 0 !== this.crc32) return cb(new Error(`entry "${this.name}" fails its CRC-32 check (corrupt)`));
    cb();
  }
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
  const { default: unzipper } = await import('unzipper');
  const dir = await unzipper.Open.buffer(buf);
  const wb = await Workbook.open(dir.files, limits);
  const stream = wb.csv(csv);
  try {
    return await firstBytes(stream, maxBytes);
  } finally {
    stream.destroy();
  }
}
