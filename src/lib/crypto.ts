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
 * The id of a key: the first 8 hex digits of its SHA-256. Names a key in a JWT header (`kid`)
 * and in front of a sealed value without revealing anything usable about it; operators see
 * which key a token or a stored secret needs.
 */
export function keyId(secret: string): string {
  return sha256(secret).slice(0, 8);
}

const KEY_ID_RE = /^[0-9a-f]{8}$/;

/**
 * Secrets at rest (processor secrets, payout details): AES-256-GCM. Several keys may be
 * given, the first seals and every one opens (rotation: a new key goes first, the old one
 * stays until `secrets:reencrypt` has re-sealed everything under the new one).
 * Output: keyId.base64url(iv).base64url(tag).base64url(ciphertext). Values sealed before
 * key ids existed (three parts) are opened by trying each key: GCM's tag tells the right one.
 */
export class SecretBox {
  private readonly keys: Array<{ id: string; key: Buffer }>;
  constructor(keyMaterial: string | readonly string[]) {
    const list = typeof keyMaterial === 'string' ? [keyMaterial] : keyMaterial;
    if (!list.length) throw new Error('SecretBox needs at least one key');
    this.keys = list.map((k) => ({ id: keyId(k), key: crypto.createHash('sha256').update(k).digest() }));
  }
  /** The id of the key that seals. */
  get currentKeyId(): string {
    return this.keys[0]!.id;
  }
  get keyIds(): string[] {
    return this.keys.map((k) => k.id);
  }
  seal(plain: string): string {
    const { id, key } = this.keys[0]!;
    const iv = crypto.randomBytes(12);
    const c = crypto.createCipheriv('aes-256-gcm', key, iv);
    const ct = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
    return [id, ...[iv, c.getAuthTag(), ct].map((b) => b.toString('base64url'))].join('.');
  }
  /** The id of the key a value was sealed with; null for a value sealed before key ids. */
  static keyIdOf(sealed: string): string | null {
    const parts = sealed.split('.');
    return parts.length === 4 && KEY_ID_RE.test(parts[0]!) ? parts[0]! : null;
  }
  /** Sealed under the current key (nothing for secrets:reencrypt to do). */
  isCurrent(sealed: string): boolean {
    return SecretBox.keyIdOf(sealed) === this.currentKeyId;
  }
  open(sealed: string): string {
    const parts = sealed.split('.');
    const id = SecretBox.keyIdOf(sealed);
    const [iv, tag, ct] = (id ? parts.slice(1) : parts).map((p) => Buffer.from(p, 'base64url'));
    const candidates = id ? this.keys.filter((k) => k.id === id) : this.keys;
    if (!candidates.length) throw new Error(`sealed with key ${id}, which is not among the configured encryption keys (${this.keyIds.join(', ')})`);
    for (const { key } of candidates) {
      try {
        const d = crypto.createDecipheriv('aes-256-gcm', key, iv!);
        d.setAuthTag(tag!);
        return Buffer.concat([d.update(ct!), d.final()]).toString('utf8');
      } catch {
        // wrong key (or tampered value): try the next
      }
    }
    throw new Error(`no configured encryption key (${this.keyIds.join(', ')}) opens this sealed value`);
  }
}

/** "…1234": at most the last 4 characters of a secret. */
export function mask(secret: string | null | undefined): string | null {
  if (!secret) return null;
  return `…${secret.slice(-4)}`;
}
