import type { StoreKeys } from './keys';
import type { Redis } from './redis';

/** One request's place in its key's limit (`RateLimitStore.take`). */
export interface RateLimitVerdict {
  /** Whether the request is within the limit. */
  allowed: boolean;
  limit: number;
  /** Requests the key may still make in the window, this one counted (0 past the limit). */
  remaining: number;
  /** Milliseconds until the window ends: the key's count then starts again. */
  resetMs: number;
}

/** The window per-key limits are counted over: the imitated service sells requests a minute. */
export const RATE_WINDOW_MS = 60_000;

/**
 * The API's limits, shared by every API process through Redis: each key's requests a minute, and
 * the failed authentications of each source address.
 */
export class RateLimitStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: StoreKeys,
  ) {}

  /**
   * Counts one request of API key `keyId` against `limit` requests in the current clock minute
   * (fixed windows: `X-RateLimit-Reset` is when the minute ends): one INCR, one round trip, on the
   * way of every request. The minute's counter expires with it; its expiry is set by the request that
   * creates it (a process dying between the two leaves one stale counter, never read again). Windows
   * follow the API processes' clocks, which must agree (NTP) as for any fixed-window limiter.
   */
  async take(keyId: string, limit: number, now = Date.now()): Promise<RateLimitVerdict> {
    const window = Math.floor(now / RATE_WINDOW_MS);
    const key = this.keys.keyRequests(keyId, window);
    const count = await this.redis.incr(key);
    if (count === 1) await this.redis.pexpire(key, RATE_WINDOW_MS * 2);
    return {
      allowed: count <= limit,
      limit,
      remaining: Math.max(0, limit - count),
      resetMs: (window + 1) * RATE_WINDOW_MS - now,
    };
  }

  /**
   * Counts a failed authentication from `address`; answers how many it made in the window, which
   * starts at its first failure.
   */
  async failedAuth(address: string, windowMs: number): Promise<number> {
    const key = this.keys.authFailures(address);
    const [[, count] = [null, 0]] =
      (await this.redis.multi().incr(key).pexpire(key, windowMs, 'NX').exec()) ?? [];
    return Number(count);
  }
}
