/**
 * Token kinds (docs/auth.md, "Tokens" and "API keys"): JWT access (6 h), JWT refresh (1 d), API keys RWAK / RUAK /
 * GODK. Keys look like `RWAK_<keyId>_<secret>`: the key id finds the row, the secret's
 * SHA-256 is compared in constant time. Secrets are 256-bit random, so a fast hash is
 * enough; passwords (low entropy) use argon2.
 */
import { SignJWT, decodeProtectedHeader, jwtVerify, errors as joseErrors } from 'jose';
import type { KeyKind, PurposeSigner } from '../../lib/identity';
import { clock } from '../../lib/clock';
import { keyId, randomToken } from '../../lib/crypto';
import { TokenExpiredError, UnauthorizedError } from '../../lib/errors';

export { ANONYMOUS, REFRESH_COOKIE, type AuthContext, type KeyKind, type TokenKind } from '../../lib/identity';

export const ACCESS_TTL_SECONDS = 6 * 3600;
export const REFRESH_TTL_SECONDS = 24 * 3600;
/** Verified tokens kept in memory (see TokenSigner.verify): ~1 KB each. */
const VERIFIED_MAX = 10_000;

export const KEY_PREFIX = { workspace: 'RWAK', user: 'RUAK', god: 'GODK' } as const satisfies Record<KeyKind, string>;

export function detectTokenKind(token: string): 'jwt' | KeyKind | null {
  if (token.startsWith('RWAK_')) return 'workspace';
  if (token.startsWith('RUAK_')) return 'user';
  if (token.startsWith('GODK_')) return 'god';
  if (/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token)) return 'jwt';
  return null;
}

export function newApiKey(kind: KeyKind): { keyId: string; secret: string; token: string } {
  const keyId = randomToken(9);
  const secret = randomToken(32);
  return { keyId, secret, token: `${KEY_PREFIX[kind]}_${keyId}_${secret}` };
}

export function splitApiKey(token: string): { keyId: string; secret: string } | null {
  // key ids and secrets are base64url and may themselves contain '_': the id has a fixed length (12).
  const body = token.slice(5);
  const keyId = body.slice(0, 12);
  if (body[12] !== '_' || keyId.length !== 12) return null;
  return { keyId, secret: body.slice(13) };
}

export interface AccessClaims {
  typ: 'access';
  sub: string;
  sid: string;
  tid: number;
  tuid: string;
  /** Read-only impersonation token (POST /godmin/impersonate). */
  ro?: boolean;
}
export interface RefreshClaims {
  typ: 'refresh';
  sub: string;
  sid: string;
  jti: string;
}

/**
 * HS256 with one or more secrets: the first signs (its id in the `kid` header), every one
 * verifies the tokens that name it (rotation: the old secret stays listed until its tokens
 * have expired). A token without `kid` (signed before key ids) is tried against each.
 */
export class TokenSigner implements PurposeSigner {
  private readonly keys: Array<{ kid: string; key: Uint8Array }>;
  private get key(): Uint8Array {
    return this.keys[0]!.key;
  }
  private get header(): { alg: 'HS256'; kid: string } {
    return { alg: 'HS256', kid: this.keys[0]!.kid };
  }
  constructor(secrets: string | readonly string[]) {
    const list = typeof secrets === 'string' ? [secrets] : secrets;
    if (!list.length) throw new Error('TokenSigner needs at least one secret');
    this.keys = list.map((s) => ({ kid: keyId(s), key: new TextEncoder().encode(s) }));
  }

  private async verifySignature(token: string) {
    const opts = { algorithms: ['HS256'], currentDate: clock.now() };
    const { kid } = decodeProtectedHeader(token);
    if (kid !== undefined) {
      const k = this.keys.find((x) => x.kid === kid);
      if (!k) throw new UnauthorizedError('Invalid token', 'INVALID_TOKEN');
      return jwtVerify(token, k.key, opts);
    }
    let last: unknown;
    for (const k of this.keys) {
      try {
        return await jwtVerify(token, k.key, opts);
      } catch (err) {
        last = err;
        if (!(err instanceof joseErrors.JWSSignatureVerificationFailed)) break;
      }
    }
    throw last;
  }

  async signAccess(c: Omit<AccessClaims, 'typ'>, ttlSeconds?: number): Promise<string> {
    const now = clock.nowSeconds();
    return new SignJWT({ typ: 'access', sid: c.sid, tid: c.tid, tuid: c.tuid, ...(c.ro ? { ro: true } : {}) })
      .setProtectedHeader(this.header)
      .setSubject(c.sub)
      .setIssuedAt(now)
      .setExpirationTime(now + (ttlSeconds ?? ACCESS_TTL_SECONDS))
      .sign(this.key);
  }

  async signRefresh(c: { sub: string; sid: string }): Promise<string> {
    const now = clock.nowSeconds();
    return new SignJWT({ typ: 'refresh', sid: c.sid })
      .setProtectedHeader(this.header)
      .setSubject(c.sub)
      .setJti(randomToken(12))
      .setIssuedAt(now)
      .setExpirationTime(now + REFRESH_TTL_SECONDS)
      .sign(this.key);
  }

  /** Short-lived purpose tokens (password reset, invitations): signed, and also stored. */
  async signPurpose(purpose: string, sub: string, ttlSeconds: number, extra: Record<string, unknown> = {}): Promise<string> {
    const now = clock.nowSeconds();
    return new SignJWT({ typ: purpose, ...extra })
      .setProtectedHeader(this.header)
      .setSubject(sub)
      .setJti(randomToken(12))
      .setIssuedAt(now)
      .setExpirationTime(now + ttlSeconds)
      .sign(this.key);
  }

  /**
   * Tokens whose signature was verified, with their claims: an access token is presented on
   * every request, and jose's HMAC check (WebCrypto, asynchronous) cost ~0.25 ms of CPU a
   * request. Expiry and kind are still checked on every use; insertion order = age, the
   * oldest go first past VERIFIED_MAX.
   */
  private readonly verified = new Map<string, Record<string, unknown> & { exp?: number }>();

  async verify<T>(token: string, typ: string): Promise<T & { sub: string; exp: number }> {
    try {
      let payload = this.verified.get(token);
      if (payload && typeof payload.exp === 'number' && payload.exp <= clock.nowSeconds()) {
        this.verified.delete(token);
        payload = undefined;
      }
      if (!payload) {
        payload = (await this.verifySignature(token)).payload;
        if (this.verified.size >= VERIFIED_MAX) this.verified.delete(this.verified.keys().next().value!);
        this.verified.set(token, payload);
      }
      if (payload.typ !== typ) throw new UnauthorizedError(`Expected a ${typ} token`, 'WRONG_TOKEN_KIND');
      return payload as unknown as T & { sub: string; exp: number };
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired) {
        if (typ === 'access') throw new TokenExpiredError();
        throw new UnauthorizedError(`${typ === 'refresh' ? 'Refresh' : 'Verification'} token expired`, 'TOKEN_EXPIRED_' + typ.toUpperCase());
      }
      if (err instanceof UnauthorizedError) throw err;
      throw new UnauthorizedError('Invalid token', 'INVALID_TOKEN');
    }
  }
}
