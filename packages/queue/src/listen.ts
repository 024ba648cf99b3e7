import { createHash } from 'node:crypto';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { queueKeys } from './keys';

/**
 * The listen queue: one long-running job per connected account, held by a listener process
 * (apps/listener) for as long as it holds the account's realtime connection.
 */
export const LISTEN_QUEUE = 'listen';

export interface ListenJob {
  tenantId: string;
  accountId: string;
}

/** BullMQ's prefix of the listen queue: the operations queue's (one slot in a Cluster). */
export const listenPrefix = (prefix: string) => queueKeys(prefix).bullmqPrefix;

/** One job per account: its id is derived, so watching an account twice is one job. */
export const listenJobId = (tenantId: string, accountId: string) =>
  `listen-${createHash('sha256').update(`${tenantId}\n${accountId}`).digest('hex').slice(0, 32)}`;

/**
 * Whether a listener holds the account now: its listen job is running under a lock (BullMQ's
 * `<job>:lock`, renewed while its holder lives), one EXISTS.
 */
export async function listenHeld(
  redis: Redis,
  prefix: string,
  tenantId: string,
  accountId: string,
): Promise<boolean> {
  const lock = `${listenPrefix(prefix)}:${LISTEN_QUEUE}:${listenJobId(tenantId, accountId)}:lock`;
  return (await redis.exists(lock)) === 1;
}

/** Starts and stops the holding of accounts (the worker when an account connects, the API when it goes). */
export class ListenJobs {
  /** The queue itself, for Bull Board. */
  readonly queue: Queue<ListenJob>;

  constructor(redis: Redis, prefix: string) {
    this.queue = new Queue<ListenJob>(LISTEN_QUEUE, { connection: redis, prefix: listenPrefix(prefix) });
  }

  /** Asks for the account's connection to be held (a no-op while it is). */
  async watch(tenantId: string, accountId: string): Promise<void> {
    await this.queue.add(
      LISTEN_QUEUE,
      { tenantId, accountId },
      { jobId: listenJobId(tenantId, accountId), removeOnComplete: true, removeOnFail: true, attempts: 1 },
    );
  }

  /**
   * Drops a job no process holds yet; a held one ends by itself within seconds, when its holder sees
   * that the account is gone.
   */
  async unwatch(tenantId: string, accountId: string): Promise<void> {
    const job = await this.queue.getJob(listenJobId(tenantId, accountId));
    if (job && !(await job.isActive())) await job.remove().catch(() => undefined);
  }

  close(): Promise<void> {
    return this.queue.close();
  }
}
