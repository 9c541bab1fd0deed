/**
 * The object store: raw uploads, decompressed entries (and, for other areas, media).
 * Everything streams; nothing is ever held whole in memory.
 *
 *   putStream(key, readable) → { size, sha256 }   (written to a temp file, then renamed: a
 *                                                   reader never sees half an object)
 *   getStream(key, range?)   → Readable            (range: inclusive byte offsets, like HTTP)
 *   delete(key)              → void                (absent is fine)
 *   stat(key)                → { size, sha256 } | null
 *
 * The local-disk store (DATA_DIR/objects) is the default and the only one implemented.
 * An S3-compatible store would implement the same `ObjectStore` interface (multipart upload
 * in putStream, ranged GET in getStream, sha256 kept in object metadata); it is not built
 * yet (no S3 SDK dependency): see README "Statement ingestion".
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import crypto from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export interface ObjectStat {
  key: string;
  size: number;
  sha256: string | null;
  modifiedAt: Date;
}

export interface ObjectStore {
  putStream(key: string, readable: Readable | AsyncIterable<Buffer>): Promise<{ size: number; sha256: string }>;
  getStream(key: string, range?: { start?: number; end?: number }): Promise<Readable>;
  delete(key: string): Promise<void>;
  stat(key: string): Promise<ObjectStat | null>;
}

// letters, digits, `._-/`, spaces and parentheses (media file names); never `..` or `//`
const KEY_RE = /^[A-Za-z0-9][A-Za-z0-9._\-/ ()]{0,500}$/;

export function assertKey(key: string): void {
  if (!KEY_RE.test(key) || key.includes('..') || key.includes('//')) throw new Error(`invalid object key "${key}"`);
}

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

  async putStream(key: string, readable: Readable | AsyncIterable<Buffer>): Promise<{ size: number; sha256: string }> {
    const target = this.file(key);
    await fsp.mkdir(path.dirname(target), { recursive: true });
    const tmp = `${target}.${crypto.randomBytes(6).toString('hex')}.part`;
    const counter = new HashCounter();
    try {
      await pipeline(readable, counter, fs.createWriteStream(tmp));
      const sha256 = counter.hash.digest('hex');
      await fsp.writeFile(`${target}.meta.json`, JSON.stringify({ size: counter.size, sha256 }));
      await fsp.rename(tmp, target);
      return { size: counter.size, sha256 };
    } catch (err) {
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

const stores = new Map<string, ObjectStore>();
/** The store for a data directory (one per process and directory). */
export function objectStore(dataDir: string): ObjectStore {
  let s = stores.get(dataDir);
  if (!s) stores.set(dataDir, (s = new LocalObjectStore(path.join(dataDir, 'objects'))));
  return s;
}

/** Reads the first `n` bytes of an object. */
export async function readHead(store: ObjectStore, key: string, n: number): Promise<Buffer> {
  const st = await store.getStream(key, { start: 0, end: Math.max(0, n - 1) });
  const parts: Buffer[] = [];
  for await (const c of st) parts.push(c as Buffer);
  return Buffer.concat(parts);
}
