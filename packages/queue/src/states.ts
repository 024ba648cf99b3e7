import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { OPERATIONS_QUEUE, queueKeys } from './keys';
import { type JobState, normaliseState } from './results';

/** Jobs' states, read without the rest of a queue (a worker's spool sweep). */
export class JobStates {
  readonly #queue: Queue;

  constructor(redis: Redis, prefix: string) {
    this.#queue = new Queue(OPERATIONS_QUEUE, { connection: redis, prefix: queueKeys(prefix).bullmqPrefix });
    this.#queue.on('error', () => undefined); // Redis away: reported once by the process (`watchRedis`)
  }

  /** `unknown` for a job that does not exist (never added, or removed after its retention). */
  async of(jobId: string): Promise<JobState> {
    return normaliseState(await this.#queue.getJobState(jobId));
  }

  close(): Promise<void> {
    return this.#queue.close();
  }
}
