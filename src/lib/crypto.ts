import crypto from 'node:crypto';

export function sha256(text: string): string {
  return crypto.createHash('sha256').update(text).digest('hex');
}

export function randomToken(bytes = 32): string {
  return crypto.randomBytes(bytes).toString('base64url');
}

/** Constant-time comparison of two strings (hex digests, signatures). */
export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  if (ab.length !== bb.length) {
    crypto.timingSafeEqual(ab, ab); // same work either way
    return false;
  }
  return crypto.timingSafeEqual(ab, bb);
}

/**
 * Secrets at rest (processor secrets, payout details): AES-256-GCM with a key from config.
 * Output: base64url(iv).base64url(tag).base64url(ciphertext).
 */
export class SecretBox {
  private readonly key: Buffer;
  constructor(keyMaterial: string) {
    this.key = crypto.createHash('sha256').update(keyMaterial).digest();
  }
  seal(plain: string): string {
    const iv = crypto.randomBytes(12);
    const c = crypto.createCipheriv('aes-256-gcm', this.key, iv);
    const ct = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
    return [iv, c.getAuthTag(), ct].map((b) => b.toString('base64url')).join('.');
  }
  open(sealed: string): string {
    const [iv, tag, ct] = sealed.split('.').map((p) => Buffer.from(p, 'base64url'));
    const d = crypto.createDecipheriv('aes-256-gcm', this.key, iv!);
    d.setAuthTag(tag!);
    return Buffer.concat([d.update(ct!), d.final()]).toString('utf8');
  }
}

/** "…1234": at most the last 4 characters of a secret. */
export function mask(secret: string | null | undefined): string | null {
  if (!secret) return null;
  return `…${secret.slice(-4)}`;
}
