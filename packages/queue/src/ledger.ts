import type { Redis } from 'ioredis';
import type { QueueKeys } from './keys';

/**
 * Write-ahead marks for writes. An attempt marks its job with its own lock token just before a write
 * request leaves, and the mark is cleared only when the platform provably did not apply the write
 * (refused connection, 429, 503). A job that starts and finds a mark left by another attempt (a worker
 * killed, a lock lost): that write may be on the platform, so it is not sent again. Marking is
 * set-if-absent, so two attempts of one job racing after a lost lock cannot both send.
 */
export class WriteLedger {
  constructor(
    private readonly redis: Redis,
    /** A job's mark is `keys.sent(jobId)`. */
    private readonly keys: QueueKeys,
    private readonly ttlSeconds: number,
  ) {}

  /** True when this attempt owns the mark (new, or already its own); false: another attempt's. */
  async markSent(jobId: string, attempt: string): Promise<boolean> {
    const set = await this.redis.set(this.keys.sent(jobId), attempt, 'EX', this.ttlSeconds, 'NX');
    return set === 'OK' || (await this.redis.get(this.keys.sent(jobId))) === attempt;
  }

  /** A mark left by another attempt. */
  async sentByOther(jobId: string, attempt: string): Promise<boolean> {
    const owner = await this.redis.get(this.keys.sent(jobId));
    return owner !== null && owner !== attempt;
  }

  /** Removes this attempt's mark (compare and delete, so another attempt's mark stays). */
  async clear(jobId: string, attempt: string): Promise<void> {
    await this.redis.eval(
      "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0",
      1,
      this.keys.sent(jobId),
      attempt,
    );
  }
}
