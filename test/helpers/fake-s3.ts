/**
 * A small S3-compatible server for tests, on 127.0.0.1 (path-style: /bucket/key), speaking the
 * parts of S3's HTTP protocol Rondo uses: PutObject (x-amz-meta-*), GetObject (Range, If-Match),
 * HeadObject, DeleteObject, CopyObject (x-amz-copy-source, metadata directive, copy-source-if-match),
 * multipart upload (CreateMultipartUpload, UploadPart, UploadPartCopy, CompleteMultipartUpload,
 * AbortMultipartUpload), with S3's XML errors.
 *
 * Every request must be signed with AWS Signature V4 by the one known key pair: either an
 * `Authorization: AWS4-HMAC-SHA256 …` header (the signature and the signed payload hash are
 * checked) or a presigned URL (X-Amz-Signature, X-Amz-Credential, X-Amz-Date, X-Amz-Expires…;
 * refused once expired). Objects are kept in memory (tests use small ones).
 */
import http from 'node:http';
import crypto from 'node:crypto';
import type { AddressInfo } from 'node:net';

export interface FakeObject {
  data: Buffer;
  meta: Record<string, string>;
  etag: string;
  lastModified: Date;
  contentType: string;
}

export interface FakeS3 {
  endpoint: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  objects: Map<string, FakeObject>;
  /** In-progress multipart uploads (upload id → key, parts). */
  uploads: Map<string, { key: string; meta: Record<string, string>; parts: Map<number, Buffer> }>;
  /** One entry per request: operation name and key ("PutObject t1/…"). */
  log: string[];
  /** Requests refused (signature, expiry…) with the reason. */
  refused: string[];
  /** Bucket keys the store refuses to serve (403 AccessDenied), to simulate a policy or key problem. */
  deny: Set<string>;
  close(): Promise<void>;
}

const sha256hex = (b: Buffer | string) => crypto.createHash('sha256').update(b).digest('hex');
const hmac = (key: Buffer | string, s: string) => crypto.createHmac('sha256', key).update(s).digest();
const md5 = (b: Buffer) => crypto.createHash('md5').update(b).digest('hex');
/** RFC 3986 encoding, as SigV4 wants it. */
const rfc3986 = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
const xmlEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

class S3Error extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
  }
}

function parseAmzDate(s: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(s);
  if (!m) throw new S3Error(403, 'AccessDenied', `bad X-Amz-Date "${s}"`);
  return Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!);
}

export async function startFakeS3(opts: { bucket?: string; accessKeyId?: string; secretAccessKey?: string; region?: string } = {}): Promise<FakeS3> {
  const bucket = opts.bucket ?? 'rondo-test';
  const accessKeyId = opts.accessKeyId ?? 'AKIAFAKES3TEST';
  const secretAccessKey = opts.secretAccessKey ?? 'fake-secret-' + crypto.randomBytes(8).toString('hex');
  const region = opts.region ?? 'us-east-1';
  const objects = new Map<string, FakeObject>();
  const uploads: FakeS3['uploads'] = new Map();
  const log: string[] = [];
  const refused: string[] = [];
  const deny = new Set<string>();

  /** Checks the SigV4 signature of a request (header or presigned query). Throws S3Error 403. */
  function verify(req: http.IncomingMessage, rawPath: string, query: [string, string][], body: Buffer): void {
    const q = new Map(query);
    const auth = req.headers.authorization;
    let credential: string, signedHeaders: string, signature: string, amzDate: string, payloadHash: string;
    if (auth) {
      const m = /^AWS4-HMAC-SHA256 Credential=([^,]+),\s*SignedHeaders=([^,]+),\s*Signature=([0-9a-f]{64})$/.exec(auth);
      if (!m) throw new S3Error(400, 'AuthorizationHeaderMalformed', 'malformed Authorization header');
      [, credential, signedHeaders, signature] = m as unknown as [string, string, string, string];
      amzDate = String(req.headers['x-amz-date'] ?? '');
      payloadHash = String(req.headers['x-amz-content-sha256'] ?? '');
      if (!payloadHash) throw new S3Error(400, 'InvalidRequest', 'missing x-amz-content-sha256');
      if (payloadHash.startsWith('STREAMING-')) throw new S3Error(501, 'NotImplemented', `payload ${payloadHash} is not supported by the fake`);
      if (payloadHash !== 'UNSIGNED-PAYLOAD' && payloadHash !== sha256hex(body)) throw new S3Error(400, 'XAmzContentSHA256Mismatch', 'payload hash does not match the body');
      if (Math.abs(Date.now() - parseAmzDate(amzDate)) > 15 * 60_000) throw new S3Error(403, 'RequestTimeTooSkewed', 'request time too skewed');
    } else if (q.has('X-Amz-Signature')) {
      if (q.get('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256') throw new S3Error(400, 'AuthorizationQueryParametersError', 'X-Amz-Algorithm');
      credential = q.get('X-Amz-Credential') ?? '';
      signedHeaders = q.get('X-Amz-SignedHeaders') ?? '';
      signature = q.get('X-Amz-Signature') ?? '';
      amzDate = q.get('X-Amz-Date') ?? '';
      const expires = Number(q.get('X-Amz-Expires'));
      if (!Number.isInteger(expires) || expires < 1 || expires > 604800) throw new S3Error(400, 'AuthorizationQueryParametersError', 'X-Amz-Expires must be 1…604800');
      if (Date.now() > parseAmzDate(amzDate) + expires * 1000) throw new S3Error(403, 'AccessDenied', 'Request has expired');
      payloadHash = 'UNSIGNED-PAYLOAD';
    } else {
      throw new S3Error(403, 'AccessDenied', 'Anonymous requests are refused: no SigV4 signature');
    }
    const [akid, date, reg, service, term] = credential.split('/');
    if (akid !== accessKeyId) throw new S3Error(403, 'InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.');
    if (reg !== region || service !== 's3' || term !== 'aws4_request' || date !== amzDate.slice(0, 8)) throw new S3Error(403, 'AuthorizationHeaderMalformed', 'bad credential scope');
    const names = signedHeaders.split(';');
    if (!names.includes('host')) throw new S3Error(403, 'AccessDenied', 'host must be signed');
    const canonicalHeaders = names.map((n) => {
      const v = req.headers[n];
      return `${n}:${(Array.isArray(v) ? v.join(',') : String(v ?? '')).trim().replace(/\s+/g, ' ')}\n`;
    }).join('');
    const canonicalQuery = query
      .filter(([k]) => k !== 'X-Amz-Signature')
      .map(([k, v]) => [rfc3986(k), rfc3986(v)] as const)
      .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0))
      .map(([k, v]) => `${k}=${v}`)
      .join('&');
    const canonical = [req.method, rawPath, canonicalQuery, canonicalHeaders, signedHeaders, payloadHash].join('\n');
    const scope = `${date}/${region}/s3/aws4_request`;
    const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256hex(canonical)].join('\n');
    const key = hmac(hmac(hmac(hmac(`AWS4${secretAccessKey}`, date!), region), 's3'), 'aws4_request');
    const expected = crypto.createHmac('sha256', key).update(toSign).digest('hex');
    if (expected.length !== signature.length || !crypto.timingSafeEqual(Buffer.from(expected), Buffer.from(signature)))
      throw new S3Error(403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided. Check your key and signing method.');
  }

  function metaFrom(req: http.IncomingMessage): Record<string, string> {
    const meta: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (k.startsWith('x-amz-meta-')) meta[k.slice(11)] = String(v);
    return meta;
  }

  function sourceOf(req: http.IncomingMessage): FakeObject {
    const src = decodeURIComponent(String(req.headers['x-amz-copy-source']).replace(/^\//, ''));
    const slash = src.indexOf('/');
    if (src.slice(0, slash) !== bucket) throw new S3Error(404, 'NoSuchBucket', 'The specified bucket does not exist');
    const o = objects.get(src.slice(slash + 1));
    if (!o) throw new S3Error(404, 'NoSuchKey', 'The specified key does not exist.');
    const ifMatch = req.headers['x-amz-copy-source-if-match'];
    if (ifMatch && ifMatch !== o.etag) throw new S3Error(412, 'PreconditionFailed', 'At least one of the pre-conditions you specified did not hold');
    return o;
  }

  function handle(req: http.IncomingMessage, res: http.ServerResponse, body: Buffer): void {
    const url = req.url ?? '/';
    const qi = url.indexOf('?');
    const rawPath = qi < 0 ? url : url.slice(0, qi);
    const query: [string, string][] = qi < 0 ? [] : url.slice(qi + 1).split('&').filter(Boolean).map((p) => {
      const e = p.indexOf('=');
      const dec = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
      return e < 0 ? [dec(p), ''] : [dec(p.slice(0, e)), dec(p.slice(e + 1))];
    });
    const q = new Map(query);
    const parts = rawPath.split('/').slice(1).map(decodeURIComponent);
    const b = parts.shift();
    const key = parts.join('/');
    verify(req, rawPath, query, body);
    if (b !== bucket) throw new S3Error(404, 'NoSuchBucket', 'The specified bucket does not exist');
    if (!key) throw new S3Error(400, 'InvalidRequest', 'bucket operations are not supported by the fake');
    if (deny.has(key)) throw new S3Error(403, 'AccessDenied', 'Access Denied');
    const xml = (status: number, s: string) => {
      res.writeHead(status, { 'content-type': 'application/xml' });
      res.end(`<?xml version="1.0" encoding="UTF-8"?>\n${s}`);
    };
    const m = req.method;
    if (m === 'POST' && q.has('uploads')) {
      log.push(`CreateMultipartUpload ${key}`);
      const id = crypto.randomBytes(12).toString('hex');
      uploads.set(id, { key, meta: metaFrom(req), parts: new Map() });
      return xml(200, `<InitiateMultipartUploadResult><Bucket>${bucket}</Bucket><Key>${xmlEscape(key)}</Key><UploadId>${id}</UploadId></InitiateMultipartUploadResult>`);
    }
    if (q.has('uploadId')) {
      const id = q.get('uploadId')!;
      const up = uploads.get(id);
      if (!up || up.key !== key) throw new S3Error(404, 'NoSuchUpload', 'The specified upload does not exist.');
      if (m === 'PUT') {
        const n = Number(q.get('partNumber'));
        if (!Number.isInteger(n) || n < 1 || n > 10000) throw new S3Error(400, 'InvalidArgument', 'partNumber');
        if (req.headers['x-amz-copy-source']) {
          log.push(`UploadPartCopy ${key} #${n}`);
          const src = sourceOf(req);
          const r = /^bytes=(\d+)-(\d+)$/.exec(String(req.headers['x-amz-copy-source-range'] ?? ''));
          const data = r ? src.data.subarray(+r[1]!, +r[2]! + 1) : src.data;
          up.parts.set(n, Buffer.from(data));
          return xml(200, `<CopyPartResult><ETag>"${md5(data)}"</ETag><LastModified>${new Date().toISOString()}</LastModified></CopyPartResult>`);
        }
        log.push(`UploadPart ${key} #${n}`);
        up.parts.set(n, body);
        res.writeHead(200, { etag: `"${md5(body)}"` });
        return void res.end();
      }
      if (m === 'POST') {
        log.push(`CompleteMultipartUpload ${key}`);
        const listed = [...body.toString().matchAll(/<PartNumber>(\d+)<\/PartNumber>/g)].map((x) => Number(x[1]));
        if (!listed.length) throw new S3Error(400, 'MalformedXML', 'no parts');
        const chunks = listed.map((n) => {
          const p = up.parts.get(n);
          if (!p) throw new S3Error(400, 'InvalidPart', `part ${n} was not uploaded`);
          return p;
        });
        const data = Buffer.concat(chunks);
        const etag = `"${md5(Buffer.concat(chunks.map((c) => Buffer.from(md5(c), 'hex'))))}-${chunks.length}"`;
        objects.set(key, { data, meta: up.meta, etag, lastModified: new Date(), contentType: 'binary/octet-stream' });
        uploads.delete(id);
        return xml(200, `<CompleteMultipartUploadResult><Bucket>${bucket}</Bucket><Key>${xmlEscape(key)}</Key><ETag>${xmlEscape(etag)}</ETag></CompleteMultipartUploadResult>`);
      }
      if (m === 'DELETE') {
        log.push(`AbortMultipartUpload ${key}`);
        uploads.delete(id);
        res.writeHead(204);
        return void res.end();
      }
    }
    if (m === 'PUT' && req.headers['x-amz-copy-source']) {
      log.push(`CopyObject ${key}`);
      const src = sourceOf(req);
      const replace = req.headers['x-amz-metadata-directive'] === 'REPLACE';
      const etag = `"${md5(src.data)}"`;
      objects.set(key, { data: src.data, meta: replace ? metaFrom(req) : { ...src.meta }, etag, lastModified: new Date(), contentType: src.contentType });
      return xml(200, `<CopyObjectResult><ETag>${xmlEscape(etag)}</ETag><LastModified>${new Date().toISOString()}</LastModified></CopyObjectResult>`);
    }
    if (m === 'PUT') {
      log.push(`PutObject ${key}`);
      if (req.headers['content-length'] === undefined) throw new S3Error(411, 'MissingContentLength', 'You must provide the Content-Length HTTP header.');
      objects.set(key, { data: body, meta: metaFrom(req), etag: `"${md5(body)}"`, lastModified: new Date(), contentType: String(req.headers['content-type'] ?? 'binary/octet-stream') });
      res.writeHead(200, { etag: `"${md5(body)}"` });
      return void res.end();
    }
    if (m === 'DELETE') {
      log.push(`DeleteObject ${key}`);
      objects.delete(key);
      res.writeHead(204);
      return void res.end();
    }
    if (m === 'GET' || m === 'HEAD') {
      log.push(`${m === 'GET' ? 'GetObject' : 'HeadObject'} ${key}`);
      const o = objects.get(key);
      if (!o) throw new S3Error(404, 'NoSuchKey', 'The specified key does not exist.');
      if (req.headers['if-match'] && req.headers['if-match'] !== o.etag) throw new S3Error(412, 'PreconditionFailed', 'At least one of the pre-conditions you specified did not hold');
      const headers: Record<string, string | number> = { etag: o.etag, 'last-modified': o.lastModified.toUTCString(), 'content-type': o.contentType, 'accept-ranges': 'bytes' };
      for (const [k, v] of Object.entries(o.meta)) headers[`x-amz-meta-${k}`] = v;
      let data = o.data;
      let status = 200;
      const range = m === 'GET' ? req.headers.range : undefined;
      if (range) {
        const r = /^bytes=(\d*)-(\d*)$/.exec(range);
        if (!r || (r[1] === '' && r[2] === '')) throw new S3Error(400, 'InvalidArgument', 'bad Range');
        let start: number, end: number;
        if (r[1] === '') {
          start = Math.max(0, o.data.length - Number(r[2]));
          end = o.data.length - 1;
        } else {
          start = Number(r[1]);
          end = r[2] === '' ? o.data.length - 1 : Math.min(Number(r[2]), o.data.length - 1);
        }
        if (start >= o.data.length || start > end) throw new S3Error(416, 'InvalidRange', 'The requested range is not satisfiable');
        data = o.data.subarray(start, end + 1);
        status = 206;
        headers['content-range'] = `bytes ${start}-${end}/${o.data.length}`;
      }
      headers['content-length'] = data.length;
      res.writeHead(status, headers);
      return void res.end(m === 'GET' ? data : undefined);
    }
    throw new S3Error(405, 'MethodNotAllowed', `${m} is not supported by the fake`);
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        handle(req, res, Buffer.concat(chunks));
      } catch (err) {
        const e = err instanceof S3Error ? err : new S3Error(500, 'InternalError', (err as Error).message);
        if (e.status === 403 || e.status === 400) refused.push(`${req.method} ${req.url?.split('?')[0]}: ${e.code}`);
        if (req.method === 'HEAD') {
          res.writeHead(e.status, { 'x-amz-error-code': e.code });
          return void res.end();
        }
        res.writeHead(e.status, { 'content-type': 'application/xml' });
        res.end(`<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${e.code}</Code><Message>${xmlEscape(e.message)}</Message><RequestId>fake</RequestId></Error>`);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    endpoint, bucket, accessKeyId, secretAccessKey, region, objects, uploads, log, refused, deny,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Rondo's S3 settings for a fake (overrides for a wrong secret, another endpoint…). */
export function s3ConfigFor(fake: FakeS3, over: Partial<import('../../src/config').S3Config> = {}): import('../../src/config').S3Config {
  return {
    endpoint: fake.endpoint, region: fake.region, bucket: fake.bucket, prefix: 'rondo/',
    accessKeyId: fake.accessKeyId, secretAccessKey: fake.secretAccessKey, forcePathStyle: true, ...over,
  };
}
