/**
 * The object store: raw uploads, decompressed entries, media. Everything streams; nothing is
 * ever held whole in memory. One contract, two implementations, chosen by configuration
 * (OBJECT_STORE, `objectStore(cfg)`):
 *
 *   putStream(key, readable) → { size, sha256 }   (counted and hashed while streaming; a reader
 *                                                   never sees half an object)
 *   getStream(key, range?)   → Readable            (range: inclusive byte offsets, like HTTP)
 *   delete(key)              → void                (absent is fine)
 *   stat(key)                → { size, sha256 | null, modifiedAt } | null
 *
 * - `LocalObjectStore` (default): files under DATA_DIR/objects, written to a temp file then
 *   renamed; sha256 in a `<key>.meta.json` beside the file.
 * - `S3ObjectStore` (`./s3-store`, OBJECT_STORE=s3): any S3-compatible bucket; multipart upload
 *   in putStream (bounded memory), ranged GET, sha256 in `x-amz-meta-sha256`. It also makes
 *   presigned PUT URLs for direct uploads (`DirectUploadStore`).
 *
 * Store failures (credentials refused, endpoint unreachable) are `ObjectStoreError` (HTTP 502),
 * a missing object is `ObjectStoreError` with notFound (or ENOENT from the local store):
 * test with `isMissingObject(err)`. The contract is tested once against both stores
 * (test/ingest/storage-contract.test.ts).
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import crypto from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Config } from '../config';
import { S3ObjectStore } from './s3-store';

export { ObjectStoreError, assertKey, isDirectUploadStore, isMissingObject } from './object-store';
export type { DirectUploadStore, ObjectStat, ObjectStore } from './object-store';
import { ObjectStoreError, assertKey, type ObjectStat, type ObjectStore } from './object-store';

/** sha256 + byte count of whatever passes through. */
export class HashCounter extends Transform {
  readonly hash = crypto.createHash('sha256');
  size = 0;
  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null, data?: Buffer) => void): void {
    this.hash.update(chunk);
    this.size += chunk.length;
    cb(null, chunk);
  }
}

export class LocalObjectStore implements ObjectStore {
  constructor(readonly root: string) {}

  private file(key: string): string {
    assertKey(key);
    return path.join(this.root, key);
  }

  /** The file holding an object (for libraries that want a path, e.g. media metadata). */
  localPath(key: string): string {
    return this.file(key);
  }

  async putStream(key: string, readable: Readable | AsyncIterable<Buffer>): Promise<{ size: number; sha256: string }> {
    const target = this.file(key);
    await fsp.mkdir(path.dirname(target), { recursive: true });
    const tmp = `${target}.${crypto.randomBytes(6).toString('hex')}.part`;
    const counter = new HashCounter();
    const out = fs.createWriteStream(tmp);
    try {
      await pipeline(readable, counter, out);
      const sha256 = counter.hash.digest('hex');
      await fsp.writeFile(`${target}.meta.json`, JSON.stringify({ size: counter.size, sha256 }));
      await fsp.rename(tmp, target);
      return { size: counter.size, sha256 };
    } catch (err) {
      // The file stream opens asynchronously: when the source fails at once, its open can
      // complete after the pipeline rejected. Wait until it is closed, or the temp file would
      // be created again after it was removed (a leftover .part, seen once in CI).
      if (!out.closed) await new Promise<void>((resolve) => out.once('close', () => resolve()));
      await fsp.rm(tmp, { force: true });
      throw err;
    }
  }

  async getStream(key: string, range: { start?: number; end?: number } = {}): Promise<Readable> {
    const f = this.file(key);
    await fsp.access(f); // a missing object fails here, not later inside a pipeline
    return fs.createReadStream(f, { start: range.start, end: range.end, highWaterMark: 256 * 1024 });
  }

  async delete(key: string): Promise<void> {
    const f = this.file(key);
    await fsp.rm(f, { force: true });
    await fsp.rm(`${f}.meta.json`, { force: true });
  }

  async stat(key: string): Promise<ObjectStat | null> {
    const f = this.file(key);
    try {
      const st = await fsp.stat(f);
      let sha256: string | null = null;
      try {
        sha256 = JSON.parse(await fsp.readFile(`${f}.meta.json`, 'utf8')).sha256 ?? null;
      } catch {
        /* written by something else: no digest */
      }
      return { key, size: st.size, sha256, modifiedAt: st.mtime };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }
}

export type StoreConfig = Pick<Config, 'dataDir' | 'objectStore' | 's3'>;

const stores = new Map<string, ObjectStore>();
/** The configured store (one per process and configuration): DATA_DIR/objects, or the S3 bucket. */
export function objectStore(cfg: StoreConfig): ObjectStore {
  const id = cfg.objectStore === 's3' ? `s3:${JSON.stringify(cfg.s3)}` : `local:${cfg.dataDir}`;
  let s = stores.get(id);
  if (!s) {
    if (cfg.objectStore === 's3') {
      if (!cfg.s3) throw new Error('OBJECT_STORE=s3 without S3 settings');
      s = new S3ObjectStore(cfg.s3);
    } else s = new LocalObjectStore(path.join(cfg.dataDir, 'objects'));
    stores.set(id, s);
  }
  return s;
}

/** Reads the first `n` bytes of an object. */
export async function readHead(store: ObjectStore, key: string, n: number): Promise<Buffer> {
  const st = await store.getStream(key, { start: 0, end: Math.max(0, n - 1) });
  const parts: Buffer[] = [];
  for await (const c of st) parts.push(c as Buffer);
  return Buffer.concat(parts);
}
