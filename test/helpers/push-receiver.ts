/**
 * A local Web Push endpoint standing in for a browser vendor's push service and the browser
 * behind it: it holds a subscription's private key, checks each request's VAPID JWT (RFC 8292:
 * ES256 signature by the `k=` key, audience = the endpoint's origin, expiry) and decrypts the
 * aes128gcm payload (RFC 8291 / RFC 8188) written from the RFCs, independent of the sender's library.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedPush {
  path: string;
  claims: { aud: string; exp: number; sub: string };
  vapidKey: string;
  ttl: string | undefined;
  payload: string;
}

const b64u = (b: Buffer) => b.toString('base64url');

function hkdf(salt: Buffer, ikm: Buffer, info: Buffer, len: number): Buffer {
  return Buffer.from(crypto.hkdfSync('sha256', ikm, salt, info, len));
}

function verifyVapid(header: string, origin: string): { claims: ReceivedPush['claims']; key: string } {
  const m = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(header);
  if (!m) throw new Error(`Authorization is not "vapid t=…, k=…": ${header}`);
  const [h, p, sig] = m[1]!.split('.');
  const jwtHeader = JSON.parse(Buffer.from(h!, 'base64url').toString());
  if (jwtHeader.alg !== 'ES256') throw new Error(`alg ${jwtHeader.alg}`);
  const point = Buffer.from(m[2]!, 'base64url');
  if (point.length !== 65 || point[0] !== 4) throw new Error('k is not an uncompressed P-256 point');
  const key = crypto.createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: b64u(point.subarray(1, 33)), y: b64u(point.subarray(33)) }, format: 'jwk' });
  const ok = crypto.verify('sha256', Buffer.from(`${h}.${p}`), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(sig!, 'base64url'));
  if (!ok) throw new Error('VAPID JWT signature does not verify');
  const claims = JSON.parse(Buffer.from(p!, 'base64url').toString());
  if (claims.aud !== origin) throw new Error(`aud ${claims.aud} is not ${origin}`);
  if (!(claims.exp > Date.now() / 1000) || claims.exp > Date.now() / 1000 + 24 * 3600 + 60) throw new Error(`exp ${claims.exp} out of range`);
  return { claims, key: m[2]! };
}

export class PushReceiver {
  readonly received: ReceivedPush[] = [];
  readonly refused: string[] = [];
  /** Statuses to answer, one per request, before the normal 201 (e.g. [410]). */
  readonly script: number[] = [];
  private readonly ecdh = crypto.createECDH('prime256v1');
  private readonly authSecret = crypto.randomBytes(16);
  private server: http.Server | null = null;
  url = '';

  constructor() {
    this.ecdh.generateKeys();
  }

  /** The PushSubscription JSON a browser would hand the app for `path`. */
  subscription(path = '/push/1') {
    return { endpoint: `${this.url}${path}`, keys: { p256dh: b64u(this.ecdh.getPublicKey()), auth: b64u(this.authSecret) } };
  }

  private decrypt(body: Buffer): string {
    const salt = body.subarray(0, 16);
    const rs = body.readUInt32BE(16);
    const idlen = body[20]!;
    const asPublic = body.subarray(21, 21 + idlen);
    const record = body.subarray(21 + idlen);
    if (record.length > rs) throw new Error('more than one record');
    const shared = this.ecdh.computeSecret(asPublic);
    const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), this.ecdh.getPublicKey(), asPublic]);
    const ikm = hkdf(this.authSecret, shared, keyInfo, 32);
    const cek = hkdf(salt, ikm, Buffer.from('Content-Encoding: aes128gcm\0'), 16);
    const nonce = hkdf(salt, ikm, Buffer.from('Content-Encoding: nonce\0'), 12);
    const d = crypto.createDecipheriv('aes-128-gcm', cek, nonce);
    d.setAuthTag(record.subarray(record.length - 16));
    const plain = Buffer.concat([d.update(record.subarray(0, record.length - 16)), d.final()]);
    let end = plain.length - 1;
    while (end >= 0 && plain[end] === 0) end--;
    if (plain[end] !== 2) throw new Error('missing last-record padding delimiter');
    return plain.subarray(0, end).toString('utf8');
  }

  async listen(): Promise<void> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        try {
          if (req.method !== 'POST') throw new Error(`method ${req.method}`);
          if (req.headers['content-encoding'] !== 'aes128gcm') throw new Error(`content-encoding ${req.headers['content-encoding']}`);
          const { claims, key } = verifyVapid(String(req.headers.authorization ?? ''), this.url);
          const payload = this.decrypt(Buffer.concat(chunks));
          const scripted = this.script.shift();
          if (scripted) {
            res.writeHead(scripted).end();
            return;
          }
          this.received.push({ path: req.url ?? '', claims, vapidKey: key, ttl: req.headers.ttl as string | undefined, payload });
          res.writeHead(201).end();
        } catch (err) {
          this.refused.push((err as Error).message);
          res.writeHead(400).end((err as Error).message);
        }
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', () => resolve()));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    const s = this.server;
    this.server = null;
    if (!s) return;
    await new Promise<void>((resolve) => s.close(() => resolve()));
    s.closeAllConnections?.();
  }
}
