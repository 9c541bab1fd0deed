/**
 * The object store, behind a small interface so an S3-compatible store can replace the
 * local disk later. Keys are relative paths (`tenants/1/assets/<id>/song.mp3`); the local
 * store keeps them under DATA_DIR/objects. Writes stream (never buffered whole) and land
 * atomically (temporary file, then rename).
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import crypto from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';

export interface ObjectStat {
  key: string;
  size: number;
  modifiedAt: Date;
}

export interface ObjectStore {
  putStream(key: string, readable: Readable): Promise<ObjectStat>;
  getStream(key: string): Promise<Readable>;
  delete(key: string): Promise<void>;
  stat(key: string): Promise<ObjectStat | null>;
}

export class LocalObjectStore implements ObjectStore {
  constructor(private readonly root: string) {}

  private file(key: string): string {
    const clean = path.posix.normalize(key.replace(/\\/g, '/'));
    if (clean.startsWith('..') || path.posix.isAbsolute(clean) || clean.includes('\0')) throw new Error(`invalid object key ${key}`);
    return path.join(this.root, clean);
  }

  async putStream(key: string, readable: Readable): Promise<ObjectStat> {
    const dest = this.file(key);
    await fsp.mkdir(path.dirname(dest), { recursive: true });
    const tmp = `${dest}.${crypto.randomBytes(6).toString('hex')}.part`;
    try {
      await pipeline(readable, fs.createWriteStream(tmp));
      await fsp.rename(tmp, dest);
    } catch (err) {
      await fsp.rm(tmp, { force: true });
      throw err;
    }
    return (await this.stat(key))!;
  }

  async getStream(key: string): Promise<Readable> {
    const f = this.file(key);
    await fsp.access(f);
    return fs.createReadStream(f);
  }

  async delete(key: string): Promise<void> {
    await fsp.rm(this.file(key), { force: true });
  }

  async stat(key: string): Promise<ObjectStat | null> {
    try {
      const s = await fsp.stat(this.file(key));
      return { key, size: s.size, modifiedAt: s.mtime };
    } catch {
      return null;
    }
  }
}

const stores = new Map<string, ObjectStore>();
/** The store of a data directory (DATA_DIR/objects). */
export function objectStore(dataDir: string): ObjectStore {
  let s = stores.get(dataDir);
  if (!s) stores.set(dataDir, (s = new LocalObjectStore(path.join(dataDir, 'objects'))));
  return s;
}
