import { Job, type Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { DeliveryJob } from './deliveries';
import type { EventKeys } from './keys';

/**
 * Takes a slot of an endpoint's in-flight deliveries (a lease: a crashed process's slot comes back
 * when it ends), and takes the job off the endpoint's parked set. With `park` 1 a job finding every
 * slot taken joins that set instead (keeping its place if it is there), to be woken by the next
 * release. KEYS: inflight ZSET, parked ZSET. ARGV: now, lease end, limit, job id, park, parked TTL.
 * 1 taken, 0 full.
 */
const ACQUIRE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZSCORE', KEYS[1], ARGV[4]) or redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[3]) then
  redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
  redis.call('PEXPIREAT', KEYS[1], ARGV[2])
  redis.call('ZREM', KEYS[2], ARGV[4])
  return 1
end
if ARGV[5] == '1' then
  redis.call('ZADD', KEYS[2], 'NX', ARGV[1], ARGV[4])
  redis.call('PEXPIRE', KEYS[2], ARGV[6])
end
return 0
`;

/**
 * Parks jobs already delayed (ARGV[4..]), then hands back the oldest parked job to wake if a slot is
 * free now (false otherwise). KEYS: inflight ZSET, parked ZSET. ARGV: now, limit, parked TTL, ids.
 */
const PARK = `
for i = 4, #ARGV do redis.call('ZADD', KEYS[2], 'NX', ARGV[1], ARGV[i]) end
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[2]) then
  return redis.call('ZPOPMIN', KEYS[2])[1] or false
end
return false
`;

/** Parked deliveries a release tries to wake before giving up (an entry may be stale: gone, running). */
const WAKE_TRIES = 3;

export interface SlotSettings {
  /** Deliveries of one endpoint in flight at once, across all processes. */
  endpointConcurrency: number;
  /** A parked delivery sleeps at most this long (its wake-up lost). */
  parkMs: number;
  /** A slot whose holder died comes back after this long. */
  leaseMs: number;
}

/**
 * The in-flight slots of each webhook endpoint and the deliveries parked behind them. A delivery over
 * the endpoint's concurrency sleeps in BullMQ's delayed set (for `parkMs` at most) and in the
 * endpoint's parked set; each release wakes the oldest parked one. The order of the steps is what
 * makes a wake-up never missed: a job is delayed before it is parked (a release can always wake what
 * it finds in the set), and a slot is given back before the set is read (a job parking meanwhile sees
 * the slot free and takes it).
 */
export class EndpointSlots {
  constructor(
    private readonly redis: Redis,
    private readonly keys: EventKeys,
    private readonly queue: Queue<DeliveryJob>,
    private readonly settings: SlotSettings,
  ) {}

  /** Takes a slot for `jobId`; with `park`, a job finding none joins the parked set. */
  async acquire(job: DeliveryJob, jobId: string, park: boolean): Promise<boolean> {
    const now = Date.now();
    const taken = await this.redis.eval(
      ACQUIRE,
      2,
      this.keys.inflight(job.tenantId, job.endpointId),
      this.keys.parked(job.tenantId, job.endpointId),
      now,
      now + this.settings.leaseMs,
      this.settings.endpointConcurrency,
      jobId,
      park ? 1 : 0,
      2 * this.settings.parkMs,
    );
    return taken === 1;
  }

  /**
   * Parks jobs the producer queued delayed by `parkMs` (their endpoint had deliveries parked), and
   * wakes the oldest parked one if a slot is free after all.
   */
  async park(tenantId: string, endpointId: string, jobIds: string[]): Promise<void> {
    const next = await this.redis.eval(
      PARK,
      2,
      this.keys.inflight(tenantId, endpointId),
      this.keys.parked(tenantId, endpointId),
      Date.now(),
      this.settings.endpointConcurrency,
      2 * this.settings.parkMs,
      ...jobIds,
    );
    if (typeof next === 'string') await this.wake(next);
  }

  /**
   * Gives the slot back, then wakes the endpoint's oldest parked delivery. A wake-up that fails is
   * not the delivery's failure: the parked job wakes after `parkMs` on its own.
   */
  async release(job: DeliveryJob, jobId: string): Promise<void> {
    await this.redis.zrem(this.keys.inflight(job.tenantId, job.endpointId), jobId);
    await this.wakeOldest(this.keys.parked(job.tenantId, job.endpointId)).catch(() => undefined);
  }

  /** Moves a delayed job to the waiting ones now; false when it is not delayed (gone, woken, running). */
  async wake(jobOrId: Job<DeliveryJob> | string): Promise<boolean> {
    const job = typeof jobOrId === 'string' ? await Job.fromId(this.queue, jobOrId) : jobOrId;
    if (!job) return false;
    return job.promote().then(
      () => true,
      () => false,
    );
  }

  /** Wakes the oldest parked job still asleep; an entry of one gone or running is passed over. */
  private async wakeOldest(parked: string): Promise<void> {
    for (let tries = 0; tries < WAKE_TRIES; tries++) {
      const [next] = await this.redis.zpopmin(parked);
      if (next === undefined || (await this.wake(next))) return;
    }
  }
}
