/**
 * Media: track links (docs/catalogue.md, "Media") and asset/product uploads.
 *
 * Track links: only http(s) URLs; the media type comes from `type`, the URL's extension or
 * the Content-Type the host answers, and must be audio or video; the link must answer a
 * HEAD (or, when HEAD is refused, a one-byte GET) with 2xx within 5 s. The record is
 * stored with processing_status `pending` for later processing (download + metadata).
 *
 * Uploads stream to the object store (src/lib/storage.ts); metadata (duration, bitrate,
 * sample rate, channels, codec, size, mime type) is read by music-metadata from the
 * stored object, so the upload is never held in memory.
 */
import path from 'node:path';
import type { Readable } from 'node:stream';
import { ValidationError } from '../../lib/errors';
import { guardedFetch, type OutboundPolicy } from '../../lib/outbound';
import { iso } from '../catalogue/common';

const AUDIO_EXT = new Set(['mp3', 'wav', 'flac', 'aac', 'm4a', 'ogg', 'oga', 'opus', 'aif', 'aiff', 'wma', 'alac']);
const VIDEO_EXT = new Set(['mp4', 'mov', 'webm', 'mkv', 'm4v', 'avi', 'mpg', 'mpeg']);
const MIME_BY_EXT: Record<string, string> = {
  mp3: 'audio/mpeg', wav: 'audio/wav', flac: 'audio/flac', aac: 'audio/aac', m4a: 'audio/mp4', ogg: 'audio/ogg', oga: 'audio/ogg', opus: 'audio/opus',
  aif: 'audio/aiff', aiff: 'audio/aiff', wma: 'audio/x-ms-wma', alac: 'audio/mp4', mp4: 'video/mp4', mov: 'video/quicktime', webm: 'video/webm',
  mkv: 'video/x-matroska', m4v: 'video/x-m4v', avi: 'video/x-msvideo', mpg: 'video/mpeg', mpeg: 'video/mpeg', jpg: 'image/jpeg', jpeg: 'image/jpeg', png: 'image/png',
};

export function extOf(name: string): string {
  return path.extname(name).slice(1).toLowerCase();
}

export function kindOf(name: string, mime?: string | null): 'audio' | 'video' | 'image' | 'other' {
  const e = extOf(name);
  if (AUDIO_EXT.has(e) || mime?.startsWith('audio/')) return 'audio';
  if (VIDEO_EXT.has(e) || mime?.startsWith('video/')) return 'video';
  if (mime?.startsWith('image/') || ['jpg', 'jpeg', 'png', 'gif', 'webp'].includes(e)) return 'image';
  return 'other';
}

export function mimeOf(name: string, given?: string | null): string {
  if (given && given !== 'application/octet-stream') return given;
  return MIME_BY_EXT[extOf(name)] ?? 'application/octet-stream';
}

export interface LinkCheck {
  type: 'audio' | 'video';
  name: string;
  mimeType: string | null;
  fileSize: number | null;
}

async function probe(url: string, allowPrivate: OutboundPolicy | boolean): Promise<Response> {
  const ctl = AbortSignal.timeout(5000);
  let res = await guardedFetch(url, { method: 'HEAD', signal: ctl }, allowPrivate);
  if (res.status === 405 || res.status === 501) {
    res = await guardedFetch(url, { method: 'GET', headers: { range: 'bytes=0-0' }, signal: ctl }, allowPrivate);
    await res.body?.cancel();
  }
  return res;
}

/** Validate a track media link: scheme, audio/video only, reachable. */
export async function checkTrackLink(rawUrl: string, wanted?: 'audio' | 'video', name?: string, allowPrivate: OutboundPolicy | boolean = false): Promise<LinkCheck> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new ValidationError('Invalid link', [`"${rawUrl}" is not a URL`], 'INVALID_LINK');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ValidationError('Invalid link', [`scheme ${url.protocol} is not allowed; use http or https`], 'INVALID_LINK_SCHEME');
  const fileName = name || decodeURIComponent(path.posix.basename(url.pathname)) || 'media';
  const byExt = kindOf(url.pathname);
  if (byExt === 'image') {
    throw new ValidationError('Only audio and video links are accepted for tracks', [`${fileName} is not audio or video`], 'UNSUPPORTED_MEDIA_TYPE');
  }
  if (wanted && (byExt === 'audio' || byExt === 'video') && byExt !== wanted) {
    throw new ValidationError('Media type does not match the link', [`the link is ${byExt}, not ${wanted}`], 'UNSUPPORTED_MEDIA_TYPE');
  }
  let res: Response;
  try {
    res = await probe(url.toString(), allowPrivate);
  } catch (err) {
    if (err instanceof ValidationError) throw err;
    throw new ValidationError('Link is not reachable', [`${url.host}: ${(err as Error).message}`], 'LINK_UNREACHABLE');
  }
  if (!res.ok) throw new ValidationError('Link is not reachable', [`${url.host} answered ${res.status}`], 'LINK_UNREACHABLE');
  const ctype = (res.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase() || null;
  const byMime = ctype?.startsWith('audio/') ? 'audio' : ctype?.startsWith('video/') ? 'video' : null;
  const type = wanted ?? (byExt === 'audio' || byExt === 'video' ? byExt : byMime);
  if (!type || (byMime === null && byExt !== 'audio' && byExt !== 'video' && ctype && ctype !== 'application/octet-stream')) {
    throw new ValidationError('Only audio and video links are accepted for tracks', [`${fileName} is ${ctype ?? 'of unknown type'}`], 'UNSUPPORTED_MEDIA_TYPE');
  }
  if (byMime && byMime !== type) throw new ValidationError('Media type does not match the link', [`the host says ${ctype}, not ${type}`], 'UNSUPPORTED_MEDIA_TYPE');
  const len = res.headers.get('content-length');
  const range = res.headers.get('content-range');
  const fileSize = range?.includes('/') ? Number(range.split('/')[1]) || null : len ? Number(len) : null;
  return { type, name: fileName, mimeType: ctype ?? mimeOf(fileName), fileSize };
}

/** A track media record (docs/catalogue.md, "Media"). */
export function trackMediaView(m: Record<string, unknown>) {
  const md = (m.metadata ?? {}) as Record<string, unknown>;
  return {
    cloudId: m.id as string,
    cloudUrl: m.url as string,
    type: m.type as string,
    name: m.name as string,
    isLink: !!m.is_link,
    releasePath: m.release_path as string,
    processingStatus: m.processing_status as string,
    metadata: {
      duration: (md.duration as number) ?? null,
      bitrate: (md.bitrate as string) ?? null,
      sampleRate: (md.sampleRate as string) ?? null,
      channels: (md.channels as string) ?? null,
      codec: (md.codec as string) ?? null,
      fileSize: (md.fileSize as number) ?? null,
      mimeType: (md.mimeType as string) ?? null,
      processedAt: (md.processedAt as string) ?? null,
      linkValidated: !!md.linkValidated,
    },
    createdAt: iso(m.created_at),
  };
}

/** Metadata of a stored media file (read by music-metadata from disk, or streamed from the object store; never whole in memory). */
export async function extractMetadata(file: string | (() => Promise<Readable>), name: string, size: number, mime: string | null) {
  const base = { duration: null as number | null, bitrate: null as string | null, sampleRate: null as string | null, channels: null as string | null, codec: null as string | null, fileSize: size, mimeType: mimeOf(name, mime), processedAt: new Date().toISOString() };
  const kind = kindOf(name, mime);
  if (kind !== 'audio' && kind !== 'video') return base;
  try {
    const { parseFile, parseStream } = await import('music-metadata'); // on first use (docs/operations.md)
    let format;
    if (typeof file === 'string') ({ format } = await parseFile(file, { duration: true, skipCovers: true }));
    else {
      const stream = await file();
      try {
        // the name too: its extension picks the parser when the MIME type does not
        ({ format } = await parseStream(stream, { mimeType: mimeOf(name, mime), size, path: name }, { duration: true, skipCovers: true }));
      } finally {
        stream.destroy();
      }
    }
    return {
      ...base,
      duration: format.duration != null ? Math.round(format.duration * 1000) / 1000 : null,
      bitrate: format.bitrate != null ? String(Math.round(format.bitrate)) : null,
      sampleRate: format.sampleRate != null ? String(format.sampleRate) : null,
      channels: format.numberOfChannels != null ? String(format.numberOfChannels) : null,
      codec: format.codec ?? format.container ?? null,
    };
  } catch {
    return base; // unreadable media: keep size and type, no audio facts
  }
}

export function mediaView(m: Record<string, unknown>) {
  return { id: m.id, name: m.name, kind: m.kind, mimeType: m.mime_type, size: Number(m.size), metadata: m.metadata, storageKey: m.storage_key, createdAt: iso(m.created_at), updatedAt: iso(m.updated_at) };
}
