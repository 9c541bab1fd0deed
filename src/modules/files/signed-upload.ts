/**
 * Signed upload URLs: made for one upload (Rondo's own signed PUT on the local store, a
 * presigned S3 PUT on S3), refused once used, and what was PUT adopted at the file's key.
 */
import crypto from 'node:crypto';
import type { AppServices } from '../../services';
import { withTenant } from '../../db';
import { isDirectUploadStore } from '../../lib/storage';
import { ValidationError } from '../../lib/errors';
import { clock } from '../../lib/clock';
import { getFile, storageKey, store, uploadKey } from './service';

/** POST /file/upload-url: Rondo's own signed PUT URL on the local store, a presigned S3 PUT on S3. */
export async function createUploadUrl(svc: AppServices, tenantId: number, by: string | null) {
  const fileId = crypto.randomUUID();
  const key = storageKey(tenantId, fileId);
  const ttl = svc.cfg.uploadUrlTtlSeconds;
  const expiresAt = new Date((clock.nowSeconds() + ttl) * 1000).toISOString();
  const s = store(svc);
  const uploadUrl = isDirectUploadStore(s)
    ? await s.presignPut(uploadKey(tenantId, fileId), ttl)
    : `${svc.cfg.publicUrl}/file/upload/${await svc.signer.signPurpose('upload', String(tenantId), ttl, { key, fid: fileId, by })}`;
  return { uploadUrl, method: 'PUT', fileId, key, expiresAt };
}

/** The file registered under `fileId` (a signed upload registered before), or null. */
export async function registeredFile(svc: AppServices, tenantId: number, fileId: string) {
  return withTenant(svc.db.app, tenantId, async (trx) => ((await trx('files').where({ id: fileId }).first('id')) ? getFile(trx, fileId) : null));
}

/** A signed upload URL is for one upload: refused once its file id is registered. */
export async function assertUploadUnused(svc: AppServices, tenantId: number, fileId: string): Promise<void> {
  if (await withTenant(svc.db.app, tenantId, (trx) => trx('files').where({ id: fileId }).first('id'))) {
    throw new ValidationError('This upload URL was already used', [], 'UPLOAD_URL_USED');
  }
}

/**
 * What was PUT to a signed upload URL, at the file's storage key: on S3 the presigned upload is
 * adopted (read once for its sha256, outside any transaction); on the local store it is already there.
 */
export async function adoptSignedUpload(svc: AppServices, tenantId: number, fileId: string, maxBytes: number): Promise<{ key: string; size: number; sha256: string }> {
  const key = storageKey(tenantId, fileId);
  const s = store(svc);
  let st: { size: number; sha256: string | null } | null = isDirectUploadStore(s) ? await s.adopt(uploadKey(tenantId, fileId), key, maxBytes) : null;
  st ??= await s.stat(key); // the local store; or an S3 upload adopted by an earlier call whose registration failed
  if (!st || !st.sha256) throw new ValidationError('Nothing was uploaded to this URL yet', [], 'UPLOAD_MISSING');
  if (st.size > maxBytes) {
    await s.delete(key);
    throw new ValidationError(`The file is larger than ${maxBytes} bytes`, [], 'FILE_TOO_LARGE');
  }
  return { key, size: st.size, sha256: st.sha256 };
}
