import { releaseHold } from '@cg/store';
import type { Redis } from 'ioredis';
import type { QueueKeys } from './keys';
import { luaScript } from './scripts';

/** What marking a write came to: `mine` (send it), `other` (another attempt's: outcome unknown), `lockLost`. */
export type Marked = 'mine' | 'other' | 'lockLost';

type LedgerRedis = Redis & { ledger_mark(...args: (string | number)[]): Promise<number> };

/**
 * Write-ahead marks for writes. An attempt marks its job with its own lock token just before a write
 * request leaves, and the mark is cleared only when the platform provably did not apply the write
 * (refused connection, 429, 503). A job that starts and finds a mark left by another attempt (a worker
 * killed, a lock lost): that write may be on the platform, so it is not sent again. Marking is
 * set-if-absent and checks the job's BullMQ lock in the same script, so two attempts of one job (one
 * whose lock lapsed, one the stalled-job check started) never both send: the first to mark owns the
 * write, and an attempt without its lock does not mark at all.
 */
export class WriteLedger {
  private readonly redis: LedgerRedis;

  constructor(
    redis: Redis,
    /** A job's mark is `keys.sent(jobId)`, its lock `keys.lock(jobId)`. */
    private readonly keys: QueueKeys,
    private readonly ttlSeconds: number,
  ) {
    // The number of keys depends on whether the attempt holds a lock, so it is passed with each call.
    if (!('ledger_mark' in redis)) redis.defineCommand('ledger_mark', { lua: luaScript('ledger-mark', []) });
    this.redis = redis as LedgerRedis;
  }

  /**
   * Marks the write for this attempt. `lockToken`: the job's BullMQ lock token, checked in the same
   * step (none: a job run without a lock, nothing to check).
   */
  async markSent(jobId: string, attempt: string, lockToken?: string): Promise<Marked> {
    const keys =
      lockToken === undefined ? [this.keys.sent(jobId)] : [this.keys.sent(jobId), this.keys.lock(jobId)];
    const marked = await this.redis.ledger_mark(
      keys.length,
      ...keys,
      attempt,
      this.ttlSeconds,
      lockToken ?? '',
    );
    return marked === 1 ? 'mine' : marked === 0 ? 'other' : 'lockLost';
  }

  /** A mark left by another attempt. */
  async sentByOther(jobId: string, attempt: string): Promise<boolean> {
    const owner = await this.redis.get(this.keys.sent(jobId));
    return owner !== null && owner !== attempt;
  }

  /** Removes this attempt's mark (compare and delete, so another attempt's mark stays). */
  async clear(jobId: string, attempt: string): Promise<void> {
    await releaseHold(this.redis, this.keys.sent(jobId), attempt);
  }
}
