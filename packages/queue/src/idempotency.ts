import type { Redis } from 'ioredis';
import type { QueueKeys } from './keys';
import { luaScript } from './scripts';

/** What a caller's `Idempotency-Key` found. */
export type KeyClaim =
  /**
   * The key is this request's now: add its job as `jobId`, the id offered or a dead claim's.
   * `fresh`: the key named no job before, so a refused request gives it back (`release`).
   */
  | { kind: 'new'; jobId: string; fresh: boolean }
  /** The key's job exists: answer with it. */
  | { kind: 'replay'; jobId: string }
  /** Another request claimed the key a moment ago and its job is not added yet. */
  | { kind: 'pending' }
  /** The key's job is no longer kept, and its write may have been sent. */
  | { kind: 'lost'; jobId: string }
  /** The key's job was cancelled (DELETE /jobs/{id}) and is no longer kept. */
  | { kind: 'cancelled'; jobId: string }
  /** The key was claimed for a different request. */
  | { kind: 'mismatch' };

type KeyRedis = Redis & {
  idem_claim(record: string, failed: string, ...args: (string | number)[]): Promise<(string | number)[]>;
  idem_release(record: string, ...args: string[]): Promise<number>;
};

/**
 * Callers' `Idempotency-Key`s for writes: a key names one job of its tenant for `ttlSeconds`, and a
 * request that repeats it is answered by that job instead of being queued again, unless the job
 * failed with nothing applied (the platform unavailable after the retries, or refusing the account's
 * session): then the repeat is what the failure asked for, and runs. A record outlives the
 * retention by `PARK_MS`, so that a job that waits long (parked, paced) keeps its key. A claim and the add
 * of its job are two steps: a claim whose job does not exist is its adder's for `windowMs` (a
 * request repeating it meanwhile is told to try again); after that its adder is taken to have died
 * between the two, and the next request takes the key over with the same job id, so that an add
 * that lands late after all adds nothing. How a claim decides: lua/idem-claim.lua.
 */
export class IdempotencyKeys {
  private readonly redis: KeyRedis;

  constructor(
    redis: Redis,
    /** Records are `keys.idempotency(…)`: under the queue's hash tag, beside the jobs they name. */
    private readonly keys: QueueKeys,
    private readonly ttlSeconds: number,
    private readonly windowMs: number,
  ) {
    if (!('idem_claim' in redis)) {
      redis.defineCommand('idem_claim', { numberOfKeys: 2, lua: luaScript('idem-claim', ['bullmq']) });
      redis.defineCommand('idem_release', { numberOfKeys: 1, lua: luaScript('idem-release', ['bullmq']) });
    }
    this.redis = redis as KeyRedis;
  }

  /**
   * Claims `key` of `tenantId` for the request its `fingerprints` name (the first is recorded; any
   * matches), offering `jobId` for its job; or says which job already answers it.
   */
  async claim(tenantId: string, key: string, fingerprints: string[], jobId: string): Promise<KeyClaim> {
    const [kind, named, fresh] = await this.redis.idem_claim(
      this.keys.idempotency(tenantId, key),
      this.keys.failed,
      this.keys.jobPrefix,
      jobId,
      this.ttlSeconds,
      this.windowMs,
      this.keys.sentPrefix,
      this.keys.cancelledPrefix,
      ...fingerprints,
    );
    if (kind === 'new') return { kind, jobId: named as string, fresh: Number(fresh) === 1 };
    if (kind === 'replay' || kind === 'lost' || kind === 'cancelled') return { kind, jobId: named as string };
    return { kind: kind as 'pending' | 'mismatch' };
  }

  /**
   * Gives the key back when the request it was claimed for was refused: its job does not exist. Only
   * a fresh claim's: a key taken over keeps its record, since the claim it took over may still add
   * its job, and a re-run's keeps it too (the next repeat takes it over after the window).
   */
  async release(tenantId: string, key: string, claim: { jobId: string; fresh: boolean }): Promise<void> {
    if (!claim.fresh) return;
    await this.redis.idem_release(this.keys.idempotency(tenantId, key), this.keys.jobPrefix, claim.jobId);
  }
}
