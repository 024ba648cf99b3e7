import type { Redis } from 'ioredis';

/** Where the marks of a queue (its keys' prefix, `{cg:q}:`) are: `{cg:q}:sent:<jobId>`. */
export const sentPrefix = (keyPrefix: string) => `${keyPrefix}sent:`;

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
    private readonly keyPrefix: string,
    private readonly ttlSeconds: number,
  ) {}

  /** True when this attempt owns the mark (new, or already its own); false: another attempt's. */
  async markSent(jobId: string, attempt: string): Promise<boolean> {
    const set = await this.redis.set(this.key(jobId), attempt, 'EX', this.ttlSeconds, 'NX');
    return set === 'OK' || (await this.redis.get(this.key(jobId))) === attempt;
  }

  /** A mark left by another attempt. */
  async sentByOther(jobId: string, attempt: string): Promise<boolean> {
    const owner = await this.redis.get(this.key(jobId));
    return owner !== null && owner !== attempt;
  }

  /** Removes this attempt's mark (compare and delete, so another attempt's mark stays). */
  async clear(jobId: string, attempt: string): Promise<void> {
    await this.redis.eval(
      "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0",
      1,
      this.key(jobId),
      attempt,
    );
  }

  private key(jobId: string): string {
    return `${sentPrefix(this.keyPrefix)}${jobId}`;
  }
}
