/**
 * Streaming uploads: multipart (busboy) and raw bodies, straight into the object store. Used by
 * every route that reads a request body as a stream (statements, signed-URL PUTs, catalogue
 * media, pattern dry-runs).
 *
 * Nothing here sees Koa: a caller hands over the request stream and its headers. Every failure
 * of the body (malformed multipart, unclosed boundary, truncated part, oversized field or file,
 * a client that goes away mid-upload, a stream error anywhere) settles the returned promise with
 * a ValidationError (400) exactly once; every stream involved has an `error` listener, so no
 * body can raise an uncaught exception. A partly stored object is removed.
 */
import crypto from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { Transform, type Readable } from 'node:stream';
import busboy from 'busboy';
import type { ObjectStore } from '../lib/storage';
import { AppError, ValidationError } from '../lib/errors';

/** Largest single statement upload (bytes). */
export const MAX_UPLOAD_BYTES = 20 * 1024 ** 3;

/** Upload limits. Mutable so an operator (or a test) can tune them. */
export const UPLOAD_LIMITS = {
  /** Largest statement (multipart, signed-URL PUT, pattern dry-run sample). */
  statementBytes: MAX_UPLOAD_BYTES,
  /** Largest catalogue media file. */
  mediaBytes: 2 * 1024 ** 3,
  /** Largest text field (bytes); busboy keeps at most this much of a field, then the request is refused. */
  fieldSize: 64 * 1024,
  /** Text fields per request. */
  fields: 50,
  /** Parts (fields + files) per request. */
  parts: 100,
  /** Header pairs per part. */
  headerPairs: 100,
};

/** The body of an HTTP request, without the framework around it. */
export interface UploadSource {
  stream: Readable;
  headers: IncomingHttpHeaders;
}

export interface StoredPart {
  id: string;
  key: string;
  fileName: string;
  contentType: string | null;
  size: number;
  sha256: string;
}

export interface MultipartOptions {
  /** The file part's field name; `null` takes the first part with a file name, whatever its field. */
  fileField?: string | null;
  maxBytes?: number;
  /** Largest text field (default UPLOAD_LIMITS.fieldSize). */
  fieldSize?: number;
  /** Refuse a body without the file part (400 `missingCode`). */
  requireFile?: { code: string; message: string };
  /** The workspace's storage room (src/domain/quota.ts): a file past it is refused with its error, nothing kept. */
  quota?: Quota | null;
}

/** Room left in a workspace's storage and the error that refuses a body past it. */
export interface Quota {
  bytes: number;
  error: (adding: number | string) => AppError;
}

/** The byte limit of a body and the error past it: the file limit, or the storage room when smaller. */
function bodyLimit(maxBytes: number, quota: Quota | null | undefined): { max: number; error: () => AppError } {
  if (quota && quota.bytes < maxBytes) return { max: quota.bytes, error: () => quota.error(`more than ${quota.bytes}`) };
  return { max: maxBytes, error: () => tooLarge(maxBytes) };
}

const malformed = (why: string) => new ValidationError('Malformed multipart request', [why], 'MALFORMED_BODY');
const aborted = () => new ValidationError('Upload aborted: the request body ended before it was complete', [], 'UPLOAD_ABORTED');
const tooLarge = (max: number) => new ValidationError(`The file is larger than ${max} bytes`, [], 'FILE_TOO_LARGE');
const emptyFile = () => new ValidationError('The uploaded file is empty', [], 'EMPTY_FILE');

export function isMultipart(headers: IncomingHttpHeaders): boolean {
  return String(headers['content-type'] ?? '').toLowerCase().startsWith('multipart/form-data');
}

/** Settles once; every later failure is ignored. */
function onceGate() {
  let done = false;
  return (fn: () => void) => {
    if (done) return;
    done = true;
    fn();
  };
}

/** Failures of the request stream itself (client gone, socket error) as one callback; returns the detacher. */
function watchRequest(src: Readable, fail: (err: Error) => void): () => void {
  const onAborted = () => fail(aborted());
  const onError = () => fail(aborted());
  const onClose = () => {
    if (!(src as Readable & { complete?: boolean }).complete && !src.readableEnded) fail(aborted());
  };
  src.on('aborted', onAborted);
  src.on('error', onError);
  src.on('close', onClose);
  return () => {
    src.off('aborted', onAborted);
    src.off('close', onClose);
    // keep an error listener: an error after we are done must not become an uncaught exception
  };
}

/** Stop reading a body we no longer want (the rest is discarded, never buffered). */
function drain(src: Readable, bb?: busboy.Busboy): void {
  if (bb) src.unpipe(bb);
  if (!src.destroyed) src.resume();
}

/**
 * Parses a multipart request: the file part is streamed to `keyFor(id)` (never buffered whole),
 * text fields are collected (before or after the file). One file only.
 */
export async function receiveMultipart(
  src: UploadSource,
  store: Pick<ObjectStore, 'putStream' | 'delete'>,
  /** The object key of the file part (its new id, the client's file name); null skips that part. */
  keyFor: (id: string, fileName: string) => string | null,
  opts: MultipartOptions = {},
): Promise<{ file: StoredPart | null; fields: Record<string, string> }> {
  if (!isMultipart(src.headers)) throw new ValidationError('Expected multipart/form-data with a "file" part', [], 'MULTIPART_REQUIRED');
  const fileField = opts.fileField === undefined ? 'file' : opts.fileField;
  const limit = bodyLimit(opts.maxBytes ?? UPLOAD_LIMITS.statementBytes, opts.quota);
  const maxBytes = limit.max;
  let bb: busboy.Busboy;
  try {
    bb = busboy({
      headers: src.headers,
      limits: { files: 1, fields: UPLOAD_LIMITS.fields, parts: UPLOAD_LIMITS.parts, headerPairs: UPLOAD_LIMITS.headerPairs, fieldSize: opts.fieldSize ?? UPLOAD_LIMITS.fieldSize, fileSize: maxBytes },
    });
  } catch (err) {
    throw malformed((err as Error).message);
  }
  const fields: Record<string, string> = {};
  let stored: { key: string; done: Promise<StoredPart> } | null = null;
  let current: Readable | null = null;
  const gate = onceGate();
  const result = await new Promise<{ ok: true } | { ok: false; err: Error }>((resolve) => {
    // Busboy calls our handlers from inside its parser: it is torn down on the next tick, never
    // from within its own callbacks (destroying it there throws inside busboy).
    const fail = (err: Error) =>
      gate(() => {
        resolve({ ok: false, err });
        process.nextTick(() => {
          drain(src.stream, bb);
          bb.destroy();
          current?.destroy(err); // ends the store's write, which then removes its partial object
        });
      });
    const detach = watchRequest(src.stream, fail);
    bb.on('field', (name, value, info) => {
      if (info.valueTruncated) return fail(new ValidationError(`Field "${name}" is longer than ${opts.fieldSize ?? UPLOAD_LIMITS.fieldSize} bytes`, [name], 'FIELD_TOO_LARGE'));
      if (info.nameTruncated) return fail(malformed('a field name is too long'));
      fields[name] = value;
    });
    bb.on('file', (name, stream, info) => {
      stream.on('error', () => undefined); // reported through busboy's own error
      const wanted = fileField === null ? !!info.filename : name === fileField;
      const id = crypto.randomUUID();
      const key = wanted && !stored ? keyFor(id, info.filename ?? '') : null;
      if (key === null) {
        stream.resume();
        return;
      }
      current = stream;
      stream.on('end', () => (current = null));
      stream.on('limit', () => fail(limit.error()));
      const done = store.putStream(key, stream).then((r) => ({ id, key, fileName: info.filename || 'statement', contentType: info.mimeType || null, size: r.size, sha256: r.sha256 }));
      done.catch((err) => fail(err instanceof AppError ? err : malformed((err as Error).message)));
      stored = { key, done };
    });
    for (const ev of ['partsLimit', 'filesLimit', 'fieldsLimit'] as const) {
      bb.on(ev, () => fail(new ValidationError(`Too many ${ev.replace('Limit', '')} in the multipart request`, [], 'TOO_MANY_PARTS')));
    }
    bb.on('error', (err) => fail(malformed((err as Error).message)));
    bb.on('close', () => {
      detach();
      if (!stored) return gate(() => resolve({ ok: true }));
      stored.done.then(
        () => gate(() => resolve({ ok: true })),
        () => undefined, // its catch above fails the request
      );
    });
    src.stream.pipe(bb);
  });
  const s = stored as { key: string; done: Promise<StoredPart> } | null;
  if (!result.ok) {
    if (s) await s.done.catch(() => undefined).then(() => store.delete(s.key)).catch(() => undefined);
    throw result.err;
  }
  const file = s ? await s.done : null;
  if (file && file.size === 0) {
    await store.delete(file.key);
    throw emptyFile();
  }
  if (!file && opts.requireFile) throw new ValidationError(opts.requireFile.message, [], opts.requireFile.code);
  return { file, fields };
}

/** A store for one part that keeps its first `keep` bytes in memory (the rest is read and dropped). */
function memorySink(keep: number) {
  const got = { data: Buffer.alloc(0) };
  const sink: Pick<ObjectStore, 'putStream' | 'delete'> = {
    async putStream(_key, readable) {
      const parts: Buffer[] = [];
      let kept = 0, size = 0;
      for await (const c of readable as AsyncIterable<Buffer>) {
        size += c.length;
        if (kept < keep) {
          const part = c.subarray(0, keep - kept);
          parts.push(part);
          kept += part.length;
        }
      }
      got.data = Buffer.concat(parts);
      return { size, sha256: '' };
    },
    async delete() {},
  };
  return { sink, got };
}

/**
 * The first `headBytes` of the file part and the text fields (a sample: the rest of the file is
 * read and discarded, never held; still at most UPLOAD_LIMITS.statementBytes).
 */
export async function receiveMultipartHead(
  src: UploadSource,
  headBytes: number,
  opts: Omit<MultipartOptions, 'maxBytes'> = {},
): Promise<{ head: Buffer; fileName: string; fields: Record<string, string> }> {
  const { sink, got } = memorySink(headBytes);
  const { file, fields } = await receiveMultipart(src, sink, () => 'sample', { ...opts, maxBytes: UPLOAD_LIMITS.statementBytes });
  return { head: got.data, fileName: file?.fileName ?? '', fields };
}

/** Counts bytes and fails past `max`. */
class SizeLimit extends Transform {
  size = 0;
  constructor(readonly max: number, readonly error: () => AppError) {
    super();
  }
  override _transform(chunk: Buffer, _e: BufferEncoding, cb: (err?: Error | null, data?: Buffer) => void): void {
    this.size += chunk.length;
    if (this.size > this.max) return cb(this.error());
    cb(null, chunk);
  }
}

/** A raw request body (the whole body is the file) streamed to `key`; at most `maxBytes` (and the storage `quota`), never empty. */
export async function receiveRaw(src: UploadSource, store: Pick<ObjectStore, 'putStream' | 'delete'>, key: string, maxBytes = UPLOAD_LIMITS.statementBytes, quota?: Quota | null): Promise<{ size: number; sha256: string }> {
  const bound = bodyLimit(maxBytes, quota);
  const declared = Number(src.headers['content-length'] ?? NaN);
  if (declared > bound.max) {
    drain(src.stream);
    throw quota && quota.bytes < maxBytes ? quota.error(declared) : tooLarge(maxBytes);
  }
  const limit = new SizeLimit(bound.max, bound.error);
  const gate = onceGate();
  let failure: Error | null = null;
  const detach = watchRequest(src.stream, (err) =>
    gate(() => {
      failure = err;
      limit.destroy(err);
    }),
  );
  src.stream.on('error', () => undefined);
  limit.on('error', () => undefined);
  src.stream.pipe(limit);
  let r: { size: number; sha256: string };
  try {
    r = await store.putStream(key, limit);
  } catch (err) {
    drain(src.stream);
    await store.delete(key).catch(() => undefined);
    throw failure ?? err;
  } finally {
    detach();
  }
  if (r.size === 0) {
    await store.delete(key);
    throw emptyFile();
  }
  return r;
}

/**
 * A small raw body read whole into memory (a signed webhook, whose signature covers the exact
 * bytes): at most `maxBytes`. Failures are 400s like every other body: oversized
 * (PAYLOAD_TOO_LARGE, by its declared length or as it arrives) and a client that goes away
 * mid-body (UPLOAD_ABORTED).
 */
export async function receiveBuffer(src: UploadSource, maxBytes: number): Promise<Buffer> {
  const big = () => new ValidationError('Body too large', [], 'PAYLOAD_TOO_LARGE');
  if (Number(src.headers['content-length'] ?? NaN) > maxBytes) {
    drain(src.stream);
    throw big();
  }
  return new Promise<Buffer>((resolve, reject) => {
    const gate = onceGate();
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (fn: () => void) =>
      gate(() => {
        detach();
        src.stream.off('data', onData);
        src.stream.off('end', onEnd);
        fn();
      });
    const onData = (c: Buffer | string) => {
      const b = typeof c === 'string' ? Buffer.from(c) : c;
      size += b.length;
      if (size > maxBytes) {
        settle(() => reject(big()));
        drain(src.stream);
      } else chunks.push(b);
    };
    const onEnd = () => settle(() => resolve(Buffer.concat(chunks)));
    const detach = watchRequest(src.stream, (err) => settle(() => reject(err)));
    src.stream.on('error', () => undefined);
    src.stream.on('data', onData);
    src.stream.on('end', onEnd);
  });
}

/**
 * A small file part read whole into memory with the text fields (member imports): at most
 * `maxBytes` (FILE_TOO_LARGE past it), empty files refused like every upload.
 */
export async function receiveMultipartBuffer(src: UploadSource, maxBytes: number, opts: Omit<MultipartOptions, 'maxBytes'> = {}): Promise<{ data: Buffer; fileName: string; fields: Record<string, string> }> {
  const { sink, got } = memorySink(maxBytes);
  const { file, fields } = await receiveMultipart(src, sink, () => 'memory', { ...opts, maxBytes });
  return { data: got.data, fileName: file?.fileName ?? '', fields };
}
