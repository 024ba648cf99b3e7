import type { Redis } from 'ioredis';

/**
 * Write-ahead marks for writes: a job marks itself just before its write request leaves, and clears
 * the mark only when the platform provably did not apply it (refused connection, 429, 503). A job
 * that starts and finds its mark was sent before by an attempt that did not finish (a worker crash,
 * a lost lock): the write may be on the platform, so it is not sent again.
 */
export class WriteLedger {
  constructor(
    private readonly redis: Redis,
    private readonly keyPrefix: string,
    private readonly ttlSeconds: number,
  ) {}

  async markSent(jobId: string): Promise<void> {
    await this.redis.set(this.key(jobId), '1', 'EX', this.ttlSeconds);
  }

  async wasSent(jobId: string): Promise<boolean> {
    return (await this.redis.exists(this.key(jobId))) === 1;
  }

  async clear(jobId: string): Promise<void> {
    await this.redis.del(this.key(jobId));
  }

  private key(jobId: string): string {
    return `${this.keyPrefix}sent:${jobId}`;
  }
}
