/**
 * The object store contract (see storage.ts for the two implementations and the factory):
 * the interfaces, its error and key rule. Its own file so the S3 implementation and the
 * factory both import it without importing each other.
 */
import type { Readable } from 'node:stream';
import { AppError } from './errors';

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

/** Stores that hand out URLs the client PUTs to directly (S3). The local store's uploads go through Rondo. */
export interface DirectUploadStore extends ObjectStore {
  presignPut(key: string, ttlSeconds: number): Promise<string>;
  /** Register what was PUT at `from`: hash it, move it to `to`; null when nothing was uploaded. */
  adopt(from: string, to: string, maxBytes: number): Promise<{ size: number; sha256: string } | null>;
}

export function isDirectUploadStore(s: ObjectStore): s is DirectUploadStore {
  return typeof (s as Partial<DirectUploadStore>).presignPut === 'function';
}

/** The object store failed (502 OBJECT_STORE_UNAVAILABLE) or has no such object (404 OBJECT_NOT_FOUND). */
export class ObjectStoreError extends AppError {
  constructor(message: string, readonly notFound = false, options?: { cause?: unknown }, status?: number, code?: string) {
    super(status ?? (notFound ? 404 : 502), code ?? (notFound ? 'OBJECT_NOT_FOUND' : 'OBJECT_STORE_UNAVAILABLE'), message);
    if (options?.cause !== undefined) (this as { cause?: unknown }).cause = options.cause;
  }
}

/** A read failed because the object does not exist (either store). */
export function isMissingObject(err: unknown): boolean {
  return (err instanceof ObjectStoreError && err.notFound) || (err as NodeJS.ErrnoException)?.code === 'ENOENT';
}

// letters, digits, `._-/`, spaces and parentheses (media file names); never `..` or `//`
const KEY_RE = /^[A-Za-z0-9][A-Za-z0-9._\-/ ()]{0,500}$/;

export function assertKey(key: string): void {
  if (!KEY_RE.test(key) || key.includes('..') || key.includes('//')) throw new Error(`invalid object key "${key}"`);
}

