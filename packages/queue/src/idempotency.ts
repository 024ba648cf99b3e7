import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

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

// A record is `<fingerprint> <jobId> <claimed at, ms>`; a request matches it when one of its
// fingerprints (one per encryption key: ARGV[7..]) is the record's. Redis's clock, so API processes'
// clocks cannot disagree about a record's age. The job's keys are in the record's slot (the queue's
// tag), and so is its write-ahead mark (ARGV[5] .. jobId), which stays while its write may have been
// applied.
// - The job exists: its answer is replayed, unless it failed for good with nothing applied (the
//   platform unavailable after the retries, or refusing the account's session, and no mark): then
//   the repeat is what the failure asked for, and runs as a new job.
// - No job, claimed within the window: its adder is at work.
// - No job after the window, no mark: never added (its adder died, or hangs): the key is taken over
//   under the same job id, so that an add landing late after all adds nothing (BullMQ ignores an
//   existing id).
// - No job and a mark: it ran and was removed early (a clock ahead, eviction): its write may have
//   been applied, and nothing may send it again.
// - No job, and its cancel mark (ARGV[6] .. jobId, which outlives the record): its caller cancelled
//   it, and a repeat is told so (its id taken over would run it after all).
const CLAIM = `
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local jobId, fresh = ARGV[1], 1
local record = redis.call('GET', KEYS[1])
if record then
  local fingerprint, claimed, at = string.match(record, '^(%x+) (%S+) (%d+)$')
  local same = false
  for i = 7, #ARGV do
    if fingerprint == ARGV[i] then same = true end
  end
  if not same then return {'mismatch'} end
  local marked = redis.call('EXISTS', ARGV[5] .. claimed) == 1
  if redis.call('EXISTS', ARGV[4] .. claimed) == 1 then
    local unapplied = false
    if not marked and redis.call('ZSCORE', ARGV[4] .. 'failed', claimed) then
      local reason = redis.call('HGET', ARGV[4] .. claimed, 'failedReason') or ''
      local code = string.match(reason, '^([A-Z_]+)[ :]')
      unapplied = code == 'UPSTREAM_UNAVAILABLE' or code == 'REAUTH_REQUIRED'
    end
    if not unapplied then return {'replay', claimed} end
  elseif now - tonumber(at) < tonumber(ARGV[3]) then
    return {'pending'}
  elseif marked then
    return {'lost', claimed}
  elseif redis.call('EXISTS', ARGV[6] .. claimed) == 1 then
    return {'cancelled', claimed}
  else
    jobId = claimed
  end
  fresh = 0
end
redis.call('SET', KEYS[1], ARGV[7] .. ' ' .. jobId .. ' ' .. now, 'EX', ARGV[2])
return {'new', jobId, fresh}`;

const RELEASE = `
local record = redis.call('GET', KEYS[1])
if record and string.match(record, '^%x+ (%S+) ') == ARGV[1]
  and redis.call('EXISTS', ARGV[2] .. ARGV[1]) == 0 then
  return redis.call('DEL', KEYS[1])
end
return 0`;

type KeyRedis = Redis & {
  idem_claim(key: string, ...args: (string | number)[]): Promise<(string | number)[]>;
  idem_release(key: string, ...args: string[]): Promise<number>;
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
 * that lands late after all adds nothing.
 */
export class IdempotencyKeys {
  private readonly redis: KeyRedis;

  constructor(
    redis: Redis,
    /** Where records live: under the queue's hash tag, beside the jobs they name. */
    private readonly keyPrefix: string,
    /** BullMQ's key prefix for the queue's jobs, e.g. `{cg:q}:operations:`. */
    private readonly jobPrefix: string,
    /** The write ledger's prefix for a job's write-ahead mark, e.g. `{cg:q}:sent:`. */
    private readonly sentPrefix: string,
    /** The prefix of a cancelled job's mark, e.g. `{cg:q}:cancel:` (cancel.lua). */
    private readonly cancelPrefix: string,
    private readonly ttlSeconds: number,
    private readonly windowMs: number,
  ) {
    if (!('idem_claim' in redis)) {
      redis.defineCommand('idem_claim', { numberOfKeys: 1, lua: CLAIM });
      redis.defineCommand('idem_release', { numberOfKeys: 1, lua: RELEASE });
    }
    this.redis = redis as KeyRedis;
  }

  /**
   * Claims `key` of `tenantId` for the request its `fingerprints` name (the first is recorded; any
   * matches), offering `jobId` for its job; or says which job already answers it.
   */
  async claim(tenantId: string, key: string, fingerprints: string[], jobId: string): Promise<KeyClaim> {
    const [kind, named, fresh] = await this.redis.idem_claim(
      this.recordKey(tenantId, key),
      jobId,
      this.ttlSeconds,
      this.windowMs,
      this.jobPrefix,
      this.sentPrefix,
      this.cancelPrefix,
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
    await this.redis.idem_release(this.recordKey(tenantId, key), claim.jobId, this.jobPrefix);
  }

  /** The caller's key is hashed: it may be long, and anything the caller chose. */
  private recordKey(tenantId: string, key: string): string {
    return `${this.keyPrefix}${tenantId}:${createHash('sha256').update(key).digest('hex')}`;
  }
}
