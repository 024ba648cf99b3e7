import { createHash } from 'node:crypto';
import { randomId } from './ids';
import type { StoreKeys } from './keys';
import type { Redis } from './redis';

/** One request's place in its key's limit (`RateLimitStore.take`). */
export interface RateLimitVerdict {
  /** Whether the request is within the limit (it was counted) or past it (it was not). */
  allowed: boolean;
  limit: number;
  /** Requests the key may still make in the window, this one counted. */
  remaining: number;
  /** Milliseconds until the oldest request counted leaves the window: the next one then fits. */
  resetMs: number;
}

/** The window per-key limits are counted over: the imitated service sells requests a minute. */
export const RATE_WINDOW_MS = 60_000;

/**
 * A sliding log: the key's requests of the last `window` ms, one ZSET member each, scored by Redis'
 * own clock (so that API processes on hosts whose clocks differ count one window). A request past the
 * limit is not counted: a client that keeps knocking gets in as soon as its oldest request ages out.
 * Answers {allowed, remaining, ms until the oldest request leaves}.
 */
const TAKE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
local allowed = 0
if count < limit then
  redis.call('ZADD', KEYS[1], now, ARGV[3])
  count = count + 1
  allowed = 1
end
redis.call('PEXPIRE', KEYS[1], window)
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local reset = window
if oldest[2] then reset = tonumber(oldest[2]) + window - now end
return {allowed, limit - count, reset}
`;
const TAKE_SHA = createHash('sha1').update(TAKE).digest('hex');

/**
 * The API's limits, shared by every API process through Redis: each key's requests a minute, and
 * the failed authentications of each source address.
 */
export class RateLimitStore {
  /** Members of one key's log must differ even when two processes count in the same millisecond. */
  private readonly process = randomId(6);
  private sequence = 0;

  constructor(
    private readonly redis: Redis,
    private readonly keys: StoreKeys,
  ) {}

  /**
   * Counts one request of API key `keyId` against `limit` requests in any `RATE_WINDOW_MS`: one
   * script, one round trip (EVALSHA; the script is sent once per Redis that lacks it).
   */
  async take(keyId: string, limit: number): Promise<RateLimitVerdict> {
    this.sequence = (this.sequence + 1) % Number.MAX_SAFE_INTEGER;
    const args = [
      this.keys.keyRequests(keyId),
      limit,
      RATE_WINDOW_MS,
      `${this.process}${this.sequence.toString(36)}`,
    ];
    let answer: unknown;
    try {
      answer = await this.redis.evalsha(TAKE_SHA, 1, ...args);
    } catch (error) {
      if (!String((error as Error).message).startsWith('NOSCRIPT')) throw error;
      answer = await this.redis.eval(TAKE, 1, ...args);
    }
    const [allowed, remaining, resetMs] = answer as [number, number, number];
    return {
      allowed: allowed === 1,
      limit,
      remaining: Math.max(0, remaining),
      resetMs: Math.max(0, resetMs),
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
