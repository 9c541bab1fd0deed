/**
 * The sliding-window rate limits (10-second buckets in `rate_limit_hits`, shared by every
 * process): sign-in, reset and login-link requests per address and per account (docs/auth.md).
 */
import type { Knex } from 'knex';
import type { Config } from '../../config';
import { clock } from '../../lib/clock';
import { sha256 } from '../../lib/crypto';
import { RateLimitError } from '../../lib/errors';

/** One counted rate-limit hit: its key and 10-second bucket. */
export interface RateLimitHit {
  key: string;
  bucket: Date;
}

export class RateLimits {
  constructor(
    private readonly owner: Knex,
    private readonly cfg: Pick<Config, 'loginRateLimit'>,
  ) {}

  /** Counts one hit under `key` and refuses it (429) beyond `max` in the window; the hit can be taken back (refund). */
  async hit(key: string, max: number, windowSeconds: number): Promise<RateLimitHit> {
    const now = clock.now();
    const bucket = new Date(Math.floor(now.getTime() / 10_000) * 10_000);
    const since = new Date(now.getTime() - windowSeconds * 1000);
    const [{ total }] = (
      await this.owner.raw(
        `WITH hit AS (
           INSERT INTO rate_limit_hits (key, window_start, count) VALUES (?, ?, 1)
           ON CONFLICT (key, window_start) DO UPDATE SET count = rate_limit_hits.count + 1
           RETURNING count)
         SELECT (SELECT count FROM hit) + COALESCE((SELECT sum(count) FROM rate_limit_hits WHERE key = ? AND window_start > ? AND window_start <> ?), 0) AS total`,
        [key, bucket, key, since, bucket],
      )
    ).rows as { total: string }[];
    if (Number(total) > max) {
      throw new RateLimitError(windowSeconds);
    }
    if (Math.random() < 0.01) await this.owner('rate_limit_hits').where('window_start', '<', new Date(now.getTime() - 3600_000)).delete();
    return { key, bucket };
  }

  /** Takes back hits that turned out not to count (a sign-in whose password was right); a bucket left at zero goes. */
  async refund(hits: RateLimitHit[]): Promise<void> {
    for (const h of hits) {
      await this.owner('rate_limit_hits').where({ key: h.key, window_start: h.bucket }).where('count', '>', 0).decrement('count', 1);
      await this.owner('rate_limit_hits').where({ key: h.key, window_start: h.bucket, count: 0 }).delete();
    }
  }

  /** Per address and per account (or recipient): a limit per address alone falls to many addresses. */
  async hitAddressAndAccountLimits(action: string, ip: string, email: string, perAccount: { max: number; windowSeconds: number }): Promise<RateLimitHit[]> {
    const byAddress = await this.hit(`${action}:${ip}`, this.cfg.loginRateLimit.max, this.cfg.loginRateLimit.windowSeconds);
    // keyed by a hash: the limits table holds no e-mail addresses
    const byAccount = await this.hit(`${action}:to:${sha256(email.trim().toLowerCase())}`, perAccount.max, perAccount.windowSeconds);
    return [byAddress, byAccount];
  }
}
