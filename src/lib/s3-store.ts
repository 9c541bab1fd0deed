/**
 * The S3-compatible object store (AWS S3, MinIO, R2, Ceph…): the same `ObjectStore` contract
 * as the local disk, plus presigned PUT URLs for direct uploads. See storage.ts for the contract
 * and README "Statement ingestion → Object store" for the decisions.
 *
 *   putStream   bytes are counted and hashed (sha256) as they pass. An object that fits in one
 *               part (8 MiB) is one PutObject with `x-amz-meta-sha256`. A bigger one is a
 *               multipart upload (@aws-sdk/lib-storage: at most queueSize × partSize buffered,
 *               whatever the file size); the digest is known only at the end, so it is then put
 *               into the object's metadata by a server-side copy onto itself (CopyObject up to
 *               5 GiB, UploadPartCopy above). Either way a reader never sees half an object.
 *   getStream   GetObject with an inclusive `Range: bytes=start-end`.
 *   delete      DeleteObject; an absent object is fine.
 *   stat        HeadObject: size, sha256 from `x-amz-meta-sha256` (null when absent), modifiedAt; null on 404.
 *   presignPut  a presigned PutObject URL (SigV4 query signature, expiring).
 *   adopt       registers a presigned upload: streams it once to compute its sha256, then moves it,
 *               by a conditional server-side copy (source ETag must be the one hashed), to its final
 *               key with the digest in its metadata, and removes the upload object.
 *
 * Failures of the store itself (refused credentials, unreachable endpoint, 5xx after the SDK's
 * retries) are thrown as `ObjectStoreError` (HTTP 502 OBJECT_STORE_UNAVAILABLE, a clear
 * message); a missing object as `ObjectStoreError` with `notFound` (404 OBJECT_NOT_FOUND).
 */
import crypto from 'node:crypto';
import { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand, CompleteMultipartUploadCommand, CopyObjectCommand, CreateMultipartUploadCommand, DeleteObjectCommand,
  GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client, UploadPartCopyCommand,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { S3Config } from '../config';
import { clock } from './clock';
import { assertKey, ObjectStoreError, type ObjectStat, type ObjectStore } from './object-store';

export interface S3StoreOptions {
  /** Multipart part size (S3's minimum is 5 MiB). */
  partSize?: number;
  /** Parts uploaded at once (memory: about (queueSize + 1) × partSize). */
  queueSize?: number;
  /** Largest object a single CopyObject may copy (S3: 5 GiB); above, a multipart copy. */
  maxCopyObjectBytes?: number;
  /** Part size of a multipart copy (S3: 5 MiB … 5 GiB). */
  copyPartSize?: number;
}

const SHA256_RE = /^[0-9a-f]{64}$/;
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'TimeoutError']);

type SdkError = Error & { $metadata?: { httpStatusCode?: number }; Code?: string; code?: string; $fault?: string };

function httpStatus(err: unknown): number | undefined {
  return (err as SdkError)?.$metadata?.httpStatusCode;
}

function isSdkOrNetworkError(err: unknown): boolean {
  const e = err as SdkError;
  return !!e && (e.$metadata !== undefined || NETWORK_CODES.has(String(e.code ?? e.name)) || e.name === 'CredentialsProviderError');
}

export class S3ObjectStore implements ObjectStore {
  readonly client: S3Client;
  readonly bucket: string;
  readonly prefix: string;
  private readonly partSize: number;
  private readonly queueSize: number;
  private readonly maxCopyObjectBytes: number;
  private readonly copyPartSize: number;

  constructor(readonly cfg: S3Config, opts: S3StoreOptions = {}) {
    this.bucket = cfg.bucket;
    this.prefix = cfg.prefix;
    this.partSize = opts.partSize ?? 8 * 1024 ** 2;
    this.queueSize = opts.queueSize ?? 2;
    this.maxCopyObjectBytes = opts.maxCopyObjectBytes ?? 5 * 1024 ** 3;
    this.copyPartSize = opts.copyPartSize ?? 512 * 1024 ** 2;
    this.client = new S3Client({
      region: cfg.region,
      endpoint: cfg.endpoint ?? undefined,
      forcePathStyle: cfg.forcePathStyle,
      credentials: cfg.accessKeyId && cfg.secretAccessKey ? { accessKeyId: cfg.accessKeyId, secretAccessKey: cfg.secretAccessKey } : undefined,
      // Only the checksums S3 requires: the SDK's default (CRC32 trailers on every upload, aws-chunked
      // bodies) is refused by several S3-compatible stores; our own sha256 is the integrity check.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      maxAttempts: 3,
      // A GET body may pause for long under back-pressure (COPY into Postgres): no socket idle timeout.
      requestHandler: { connectionTimeout: 10_000 },
    });
  }

  /** The bucket key of an object key. */
  private k(key: string): string {
    assertKey(key);
    return this.prefix + key;
  }

  private copySource(bucketKey: string): string {
    return `${this.bucket}/${bucketKey.split('/').map(encodeURIComponent).join('/')}`;
  }

  private fail(err: unknown, op: string, key: string): never {
    if (err instanceof ObjectStoreError) throw err;
    if (!isSdkOrNetworkError(err)) throw err; // not the store's: e.g. the source stream failed
    const e = err as SdkError;
    const status = httpStatus(err);
    if (status === 404 || e.name === 'NoSuchKey' || e.name === 'NotFound') throw new ObjectStoreError(`Object "${key}" not found in the object store`, true, { cause: err });
    const what = status === 403 || e.name === 'SignatureDoesNotMatch' || e.name === 'InvalidAccessKeyId' || e.name === 'AccessDenied' || e.name === 'Forbidden'
      ? 'refused the credentials'
      : status === undefined ? 'is unreachable' : `answered HTTP ${status}`;
    const detail = [e.name, e.message].filter((x) => x && x !== 'UnknownError').join(': ');
    throw new ObjectStoreError(`Object store ${what} (${op} "${key}" in bucket "${this.bucket}"${detail ? `: ${detail}` : ''})`, false, { cause: err });
  }

  async putStream(key: string, readable: Readable | AsyncIterable<Buffer>): Promise<{ size: number; sha256: string }> {
    const k = this.k(key);
    const hash = crypto.createHash('sha256');
    let size = 0;
    const it = (readable as AsyncIterable<Buffer | string>)[Symbol.asyncIterator]();
    const next = async (): Promise<Buffer | null> => {
      const r = await it.next();
      if (r.done) return null;
      const b = Buffer.isBuffer(r.value) ? r.value : Buffer.from(r.value);
      hash.update(b);
      size += b.length;
      return b;
    };
    try {
      // The first part decides: one PutObject (digest known before the request) or multipart.
      const head: Buffer[] = [];
      let headBytes = 0;
      let ended = false;
      while (headBytes < this.partSize) {
        const b = await next();
        if (b === null) {
          ended = true;
          break;
        }
        head.push(b);
        headBytes += b.length;
      }
      if (ended) {
        const body = Buffer.concat(head);
        const sha256 = hash.digest('hex');
        await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: k, Body: body, ContentLength: body.length, Metadata: { sha256 } }));
        return { size, sha256 };
      }
      async function* all(): AsyncGenerator<Buffer> {
        while (head.length) yield head.shift()!;
        for (let b = await next(); b !== null; b = await next()) yield b;
      }
      const up = new Upload({
        client: this.client,
        params: { Bucket: this.bucket, Key: k, Body: Readable.from(all(), { objectMode: false }) },
        partSize: this.partSize,
        queueSize: this.queueSize,
        leavePartsOnError: false, // aborted on error: no orphan parts billed
      });
      await up.done();
      const sha256 = hash.digest('hex');
      await this.copy(k, k, size, sha256);
      return { size, sha256 };
    } catch (err) {
      // Stop the producer (a multipart body, a gunzip pipeline…): nobody reads it any more.
      if (readable instanceof Readable && !readable.destroyed) readable.destroy(err as Error);
      else await it.return?.().catch(() => undefined);
      this.fail(err, 'put', key);
    }
  }

  /**
   * Server-side copy `src` → `dst` with `sha256` as the metadata (REPLACE). `ifMatch`: only if
   * the source still has that ETag. Up to maxCopyObjectBytes one CopyObject, else UploadPartCopy.
   */
  private async copy(src: string, dst: string, size: number, sha256: string, ifMatch?: string): Promise<void> {
    const CopySource = this.copySource(src);
    if (size <= this.maxCopyObjectBytes) {
      await this.client.send(new CopyObjectCommand({ Bucket: this.bucket, Key: dst, CopySource, CopySourceIfMatch: ifMatch, MetadataDirective: 'REPLACE', Metadata: { sha256 } }));
      return;
    }
    const { UploadId } = await this.client.send(new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: dst, Metadata: { sha256 } }));
    try {
      const parts: { PartNumber: number; ETag: string }[] = [];
      for (let start = 0, n = 1; start < size; start += this.copyPartSize, n++) {
        const end = Math.min(size, start + this.copyPartSize) - 1;
        const r = await this.client.send(new UploadPartCopyCommand({
          Bucket: this.bucket, Key: dst, UploadId, PartNumber: n, CopySource, CopySourceRange: `bytes=${start}-${end}`, CopySourceIfMatch: ifMatch,
        }));
        parts.push({ PartNumber: n, ETag: r.CopyPartResult!.ETag! });
      }
      await this.client.send(new CompleteMultipartUploadCommand({ Bucket: this.bucket, Key: dst, UploadId, MultipartUpload: { Parts: parts } }));
    } catch (err) {
      await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: dst, UploadId })).catch(() => undefined);
      throw err;
    }
  }

  async getStream(key: string, range: { start?: number; end?: number } = {}): Promise<Readable> {
    const k = this.k(key);
    const hasRange = range.start !== undefined || range.end !== undefined;
    const Range = hasRange ? `bytes=${range.start ?? 0}-${range.end ?? ''}` : undefined;
    try {
      const r = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: k, Range }));
      return r.Body as Readable;
    } catch (err) {
      // A range past the end (e.g. the head of an empty object): nothing to read, like a file.
      if (hasRange && httpStatus(err) === 416 && (await this.stat(key))) return Readable.from([]);
      this.fail(err, 'get', key);
    }
  }

  async delete(key: string): Promise<void> {
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.k(key) }));
    } catch (err) {
      if (httpStatus(err) === 404) return; // some S3-compatible stores answer 404 for an absent key
      this.fail(err, 'delete', key);
    }
  }

  async stat(key: string): Promise<ObjectStat | null> {
    try {
      const r = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.k(key) }));
      const sha = r.Metadata?.sha256?.toLowerCase() ?? null;
      return { key, size: Number(r.ContentLength ?? 0), sha256: sha && SHA256_RE.test(sha) ? sha : null, modifiedAt: r.LastModified ?? new Date(0) };
    } catch (err) {
      if (httpStatus(err) === 404 || (err as Error).name === 'NotFound') return null;
      this.fail(err, 'stat', key);
    }
  }

  /** A presigned PUT URL for `key`, valid `ttlSeconds` from now (the app clock). */
  async presignPut(key: string, ttlSeconds: number): Promise<string> {
    const cmd = new PutObjectCommand({ Bucket: this.bucket, Key: this.k(key) });
    try {
      return await getSignedUrl(this.client, cmd, { expiresIn: ttlSeconds, signingDate: clock.now() });
    } catch (err) {
      this.fail(err, 'presign', key);
    }
  }

  /**
   * Takes over an object PUT to a presigned URL at `from`: reads it once to compute its sha256
   * (bounded memory), then copies it server-side to `to` with the digest in its metadata, on
   * condition that it is still the object that was hashed (ETag), and deletes `from`. `to` is
   * out of reach of the presigned URL, so the registered bytes cannot be swapped afterwards.
   * null when nothing was uploaded; a FILE_TOO_LARGE error (upload removed) beyond maxBytes.
   */
  async adopt(from: string, to: string, maxBytes: number): Promise<{ size: number; sha256: string } | null> {
    const src = this.k(from), dst = this.k(to);
    let etag: string | undefined, size: number;
    try {
      const h = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: src }));
      etag = h.ETag;
      size = Number(h.ContentLength ?? 0);
    } catch (err) {
      if (httpStatus(err) === 404 || (err as Error).name === 'NotFound') return null;
      this.fail(err, 'stat', from);
    }
    if (size > maxBytes) {
      await this.delete(from);
      throw new ObjectStoreError(`The uploaded file is larger than ${maxBytes} bytes`, false, undefined, 400, 'FILE_TOO_LARGE');
    }
    try {
      const r = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: src, IfMatch: etag }));
      const hash = crypto.createHash('sha256');
      for await (const c of r.Body as Readable) hash.update(c as Buffer);
      const sha256 = hash.digest('hex');
      await this.copy(src, dst, size, sha256, etag);
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: src }));
      return { size, sha256 };
    } catch (err) {
      if (httpStatus(err) === 412) throw new ObjectStoreError(`The upload "${from}" changed while it was being registered; register it again`, false, { cause: err }, 409, 'UPLOAD_CHANGED');
      this.fail(err, 'adopt', from);
    }
  }

  close(): void {
    this.client.destroy();
  }
}
