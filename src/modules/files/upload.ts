/** Streaming uploads: multipart (busboy) and raw PUT bodies, straight into the object store. */
import crypto from 'node:crypto';
import busboy from 'busboy';
import type { Context } from 'koa';
import type { ObjectStore } from '../../lib/storage';
import { ValidationError } from '../../lib/errors';

/** Largest single upload (bytes). */
export const MAX_UPLOAD_BYTES = 20 * 1024 ** 3;

export interface StoredPart {
  id: string;
  key: string;
  fileName: string;
  contentType: string | null;
  size: number;
  sha256: string;
}

/**
 * Parses a multipart request: the part named `fileField` is streamed to `keyFor(id)` (never
 * buffered whole), other fields are collected (before or after the file). One file only.
 */
export async function receiveMultipart(
  ctx: Context,
  store: ObjectStore,
  keyFor: (id: string) => string,
  opts: { fileField?: string; maxBytes?: number } = {},
): Promise<{ file: StoredPart | null; fields: Record<string, string> }> {
  const ct = ctx.get('content-type');
  if (!ct.toLowerCase().startsWith('multipart/form-data')) throw new ValidationError('Expected multipart/form-data with a "file" part', [], 'MULTIPART_REQUIRED');
  const fileField = opts.fileField ?? 'file';
  const fields: Record<string, string> = {};
  let stored: Promise<StoredPart> | null = null;
  let truncated = false;
  let bb: busboy.Busboy;
  try {
    bb = busboy({ headers: ctx.req.headers, limits: { files: 1, fields: 50, fieldSize: 1024 * 1024, fileSize: opts.maxBytes ?? MAX_UPLOAD_BYTES } });
  } catch (err) {
    throw new ValidationError('Malformed multipart request', [(err as Error).message], 'MALFORMED_BODY');
  }
  await new Promise<void>((resolve, reject) => {
    bb.on('field', (name, value) => {
      fields[name] = value;
    });
    bb.on('file', (name, stream, info) => {
      if (name !== fileField || stored) {
        stream.resume();
        return;
      }
      const id = crypto.randomUUID();
      const key = keyFor(id);
      stream.on('limit', () => {
        truncated = true;
      });
      stored = store.putStream(key, stream).then((r) => ({ id, key, fileName: info.filename || 'statement', contentType: info.mimeType || null, size: r.size, sha256: r.sha256 }));
      stored.catch(() => undefined);
    });
    bb.on('close', () => resolve());
    bb.on('error', (err) => reject(new ValidationError('Malformed multipart request', [(err as Error).message], 'MALFORMED_BODY')));
    ctx.req.on('aborted', () => reject(new ValidationError('Upload aborted', [], 'UPLOAD_ABORTED')));
    ctx.req.pipe(bb);
  });
  const file = stored ? await (stored as Promise<StoredPart>) : null;
  if (file && truncated) {
    await store.delete(file.key);
    throw new ValidationError(`The file is larger than ${opts.maxBytes ?? MAX_UPLOAD_BYTES} bytes`, [], 'FILE_TOO_LARGE');
  }
  return { file, fields };
}
