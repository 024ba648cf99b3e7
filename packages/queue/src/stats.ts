import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { OPERATIONS_QUEUE, type QueueKeys, queueKeys } from './keys';
import { LISTEN_QUEUE, listenPrefix } from './listen';

/**
 * What the metrics read of the queues and lanes when scraped (the API's `/metrics`): each queue's
 * jobs by state, how many platform accounts a 429 pauses now, and the backlog of each account that
 * has requests waiting: numbers, never an account's id. A few Redis commands per scrape, none on a
 * request's way.
 */

/** The queue states reported (BullMQ's `getJobCounts`). */
const STATES = ['waiting', 'active', 'delayed', 'failed', 'completed'] as const;
/** How long the paused lanes' set outlives the last pause noted: longer than any pause. */
const KEEP_PAUSES_MS = 61 * 60_000;
/** At most this many lanes are read per scrape (their backlogs, one ZCARD each, pipelined). */
const MAX_LANES = 10_000;

/** A queue of another package (the webhooks queue), by name and BullMQ prefix. */
export interface QueueRef {
  name: string;
  prefix: string;
}

export interface QueueStatsSnapshot {
  queues: { queue: string; counts: Record<string, number> }[];
  pausedAccounts: number;
  backlogs: number[];
}

/**
 * The accounts a platform 429 paused, kept beside the lanes (`QueueKeys.pausedLanes`: lane → until,
 * ms), since a lane's own pause is in its state hash, where only a scan of every lane would find it.
 * Written by the worker when it pauses a lane (rare: one command per 429), read when scraped.
 */
export class PausedLanes {
  constructor(
    private readonly redis: Redis,
    private readonly keys: QueueKeys,
  ) {}

  /**
   * The lane is paused `forMs` from now; the longer of two pauses wins, as in the lane's state. The
   * set goes an hour after the last pause noted (a platform's wait is at most an hour: the platform
   * client's `MAX_RETRY_AFTER_MS`), so nothing of it stays once no account is paused.
   */
  async note(lane: string, forMs: number): Promise<void> {
    const now = Date.now();
    await this.redis
      .multi()
      .zadd(this.keys.pausedLanes, 'GT', now + forMs, lane)
      .zremrangebyscore(this.keys.pausedLanes, '-inf', now)
      .pexpire(this.keys.pausedLanes, Math.max(forMs, KEEP_PAUSES_MS))
      .exec();
  }

  /** The lanes paused now. */
  current(limit = MAX_LANES): Promise<string[]> {
    return this.redis.zrangebyscore(this.keys.pausedLanes, Date.now(), '+inf', 'LIMIT', 0, limit);
  }
}

/** The queues' and lanes' numbers for the metrics (`snapshot`); `close` releases its queue handles. */
export class QueueStats {
  private readonly keys: QueueKeys;
  private readonly paused: PausedLanes;
  private readonly queues: { name: string; queue: Queue }[];

  constructor(
    private readonly redis: Redis,
    prefix: string,
    /** Queues of other packages to report too (the webhooks queue). */
    more: QueueRef[] = [],
  ) {
    this.keys = queueKeys(prefix);
    this.paused = new PausedLanes(redis, this.keys);
    const refs: QueueRef[] = [
      { name: OPERATIONS_QUEUE, prefix: this.keys.bullmqPrefix },
      { name: LISTEN_QUEUE, prefix: listenPrefix(prefix) },
      ...more,
    ];
    this.queues = refs.map(({ name, prefix: bullmqPrefix }) => {
      const queue = new Queue(name, { connection: redis, prefix: bullmqPrefix });
      queue.on('error', () => undefined); // Redis away: the scrape leaves these numbers out
      return { name, queue };
    });
  }

  async snapshot(): Promise<QueueStatsSnapshot> {
    const [queues, lanes] = await Promise.all([
      Promise.all(
        this.queues.map(async ({ name, queue }) => ({
          queue: name,
          counts: await queue.getJobCounts(...STATES),
        })),
      ),
      this.lanes(),
    ]);
    return { queues, ...lanes };
  }

  /**
   * The accounts paused now, and the backlog (unfinished requests) of every account with requests
   * waiting for a slot (the sweeper's index) or paused. An account whose few requests all run at once
   * is not in that index, and not in the distribution: it has no backlog to speak of. Login lanes
   * (`login:…`, a connection's) are not accounts and are left out.
   */
  private async lanes(): Promise<{ pausedAccounts: number; backlogs: number[] }> {
    const accounts = (lanes: string[]) => lanes.filter((lane) => !lane.startsWith('login:'));
    const [paused, waiting] = await Promise.all([
      this.paused.current(),
      this.redis.zrange(this.keys.lanes, 0, MAX_LANES - 1),
    ]);
    const lanes = [...new Set(accounts([...waiting, ...paused]))];
    const sizes = this.redis.pipeline();
    for (const lane of lanes) sizes.zcard(this.keys.lane(lane).jobs);
    const answers = lanes.length === 0 ? [] : ((await sizes.exec()) ?? []);
    const backlogs = answers.map(([error, size]) => (error ? 0 : Number(size))).filter((size) => size > 0);
    return { pausedAccounts: accounts(paused).length, backlogs };
  }

  async close(): Promise<void> {
    await Promise.all(this.queues.map(({ queue }) => queue.close()));
  }
}
