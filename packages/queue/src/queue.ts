import { GatewayError } from '@cg/contract';
import { Job, Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { AccountLanes, type LaneSettings, type Wake } from './lanes';
import type { JobPayload, StoredOutcome } from './payload';

export const OPERATIONS_QUEUE = 'operations';

/** BullMQ keys are hash-tagged so that one queue's keys (and its lanes) share a Cluster slot. */
export const queuePrefix = (prefix: string) => `{${prefix}:q}`;
export const jobKeyPrefix = (prefix: string) => `${queuePrefix(prefix)}:${OPERATIONS_QUEUE}:`;

/**
 * A job waiting for a slot of its account sits in BullMQ's delayed set with this delay; it is woken
 * (its delay set to when it may start) by the lane, never by polling. Should a wake-up be lost to a
 * crash, the job wakes by itself after this long and asks its lane again.
 */
export const PARK_MS = 60 * 60_000;

export interface QueueOptions {
  redis: Redis;
  prefix: string;
  /** Finished jobs stay readable at /jobs/{id} this long. */
  retentionSeconds: number;
  attempts: number;
  backoffMs: number;
  lanes: LaneSettings;
}

export type JobState = 'waiting' | 'delayed' | 'active' | 'completed' | 'failed' | 'unknown';

export interface JobView {
  id: string;
  state: JobState;
  payload: JobPayload;
  outcome?: StoredOutcome;
  failedReason?: string;
}

export type WaitResult =
  | { state: 'completed'; outcome: StoredOutcome }
  | { state: 'failed'; failedReason: string }
  | { state: 'pending'; jobState: JobState };

/** The API's side of the queue: admit to the account's lane, enqueue, wait for a result, read a job. */
export class OperationsQueue {
  readonly queue: Queue<JobPayload, StoredOutcome>;
  readonly lanes: AccountLanes;
  private readonly events: QueueEvents;
  private readonly waiters = new Map<string, Set<(result: WaitResult) => void>>();

  constructor(private readonly options: QueueOptions) {
    const prefix = queuePrefix(options.prefix);
    this.queue = new Queue(OPERATIONS_QUEUE, { connection: options.redis, prefix });
    this.lanes = new AccountLanes(options.redis, jobKeyPrefix(options.prefix), options.lanes);
    // One event reader per process, whatever the number of waiting requests: results are dispatched
    // to in-process waiters by job id instead of one Redis subscription per request.
    this.events = new QueueEvents(OPERATIONS_QUEUE, {
      connection: options.redis.duplicate(),
      prefix,
      autorun: true,
    });
    this.events.on('completed', ({ jobId, returnvalue }) => {
      this.settle(jobId, { state: 'completed', outcome: returnvalue as unknown as StoredOutcome });
    });
    this.events.on('failed', ({ jobId, failedReason }) => {
      this.settle(jobId, { state: 'failed', failedReason });
    });
  }

  async ready(): Promise<void> {
    await Promise.all([this.queue.waitUntilReady(), this.events.waitUntilReady()]);
  }

  /**
   * Admits the job to its account's lane, enqueues it and, when `waitMs` > 0, waits for its result
   * up to that long. Returns the id of the job that answers: an identical pending request's, when
   * the operation shares (`payload.dedupe`). A full lane is 429 with Retry-After.
   */
  async submit(
    jobId: string,
    payload: JobPayload,
    waitMs: number,
  ): Promise<{ jobId: string; result: WaitResult }> {
    const lane = payload.accountId;
    if (lane === undefined) return { jobId, result: await this.enqueue(jobId, payload, waitMs, 0) };
    const admission = await this.lanes.admit(lane, jobId, {
      gapped: payload.gapped === true,
      ...(payload.dedupe === undefined ? {} : { dedupeKey: payload.dedupe }),
    });
    if (admission.kind === 'full') {
      throw new GatewayError(
        'RATE_LIMITED',
        `account ${lane} has ${admission.backlog} requests waiting, the most it may queue; try again later`,
        admission.retryAfterSeconds,
      );
    }
    if (admission.kind === 'share')
      return { jobId: admission.jobId, result: await this.waitFor(admission.jobId, waitMs) };
    const parked = admission.selfDelayMs === undefined;
    try {
      const result = await this.enqueue(
        jobId,
        payload,
        waitMs,
        admission.selfDelayMs ?? PARK_MS,
        async () => {
          await this.wake(admission.wakes);
          // A slot may have freed between the admission and the add: let the lane look again.
          if (parked) await this.wake(await this.lanes.kick(lane));
        },
      );
      return { jobId, result };
    } catch (error) {
      // Not added (Redis failed mid-way): the lane must not wait for a job that will never come.
      if (!(await this.queue.getJob(jobId).catch(() => undefined))) {
        await this.wake(await this.lanes.withdraw(lane, jobId, payload.dedupe).catch(() => []));
      }
      throw error;
    }
  }

  wake(wakes: Wake[]): Promise<void> {
    return wakeJobs(this.queue, wakes);
  }

  async get(jobId: string): Promise<JobView | null> {
    const job = await this.queue.getJob(jobId);
    if (!job) return null;
    const state = (await job.getState()) as string;
    return {
      id: jobId,
      state: normaliseState(state),
      payload: job.data,
      ...(job.returnvalue === null || job.returnvalue === undefined ? {} : { outcome: job.returnvalue }),
      ...(job.failedReason ? { failedReason: job.failedReason } : {}),
    };
  }

  async close(): Promise<void> {
    await Promise.all([this.events.close(), this.queue.close()]);
  }

  /**
   * Adds the job and waits. The waiter is registered before the job exists, so a result that comes
   * back at once is not missed.
   */
  private async enqueue(
    jobId: string,
    payload: JobPayload,
    waitMs: number,
    delayMs: number,
    afterAdd?: () => Promise<void>,
  ): Promise<WaitResult> {
    const settled = waitMs > 0 ? this.register(jobId) : undefined;
    try {
      await this.queue.add(payload.op, payload, {
        jobId,
        ...(delayMs > 0 ? { delay: delayMs } : {}),
        attempts: this.options.attempts,
        backoff: { type: 'jitter', delay: this.options.backoffMs },
        removeOnComplete: { age: this.options.retentionSeconds },
        removeOnFail: { age: this.options.retentionSeconds },
      });
      await afterAdd?.();
      if (!settled) return { state: 'pending', jobState: delayMs > 0 ? 'delayed' : 'waiting' };
      return await this.race(jobId, settled.promise, waitMs);
    } finally {
      settled?.dispose();
    }
  }

  /** Waits for a job someone else added; it may have finished already. */
  private async waitFor(jobId: string, waitMs: number): Promise<WaitResult> {
    const settled = this.register(jobId);
    try {
      // Absent: its adder is about to add it; the registered waiter hears its result either way.
      const view = await this.get(jobId);
      const now: WaitResult = view ? resultOf(view) : { state: 'pending', jobState: 'waiting' };
      if (now.state !== 'pending' || waitMs <= 0) return now;
      return await this.race(jobId, settled.promise, waitMs);
    } finally {
      settled.dispose();
    }
  }

  private async race(jobId: string, settled: Promise<WaitResult>, waitMs: number): Promise<WaitResult> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), waitMs);
    });
    try {
      const result = await Promise.race([settled, timeout]);
      if (result !== 'timeout') return result;
      // Read the job once: its result may have landed between two event reads.
      const view = await this.get(jobId);
      return view ? resultOf(view) : { state: 'pending', jobState: 'unknown' };
    } finally {
      clearTimeout(timer);
    }
  }

  private register(jobId: string): { promise: Promise<WaitResult>; dispose: () => void } {
    let resolver!: (result: WaitResult) => void;
    const promise = new Promise<WaitResult>((resolve) => {
      resolver = resolve;
    });
    const set = this.waiters.get(jobId) ?? new Set();
    set.add(resolver);
    this.waiters.set(jobId, set);
    return {
      promise,
      dispose: () => {
        set.delete(resolver);
        if (set.size === 0) this.waiters.delete(jobId);
      },
    };
  }

  private settle(jobId: string, result: WaitResult): void {
    const set = this.waiters.get(jobId);
    if (!set) return;
    this.waiters.delete(jobId);
    for (const resolve of set) resolve(result);
  }
}

/** Sets the delay of lane-woken jobs; a job already running or gone needs nothing. */
export async function wakeJobs(queue: Queue, wakes: Wake[]): Promise<void> {
  await Promise.all(
    wakes.map((wake) =>
      new Job(queue, 'wake', null, {}, wake.jobId).changeDelay(wake.delayMs).catch(() => undefined),
    ),
  );
}

function normaliseState(state: string): JobState {
  switch (state) {
    case 'waiting':
    case 'delayed':
    case 'active':
    case 'completed':
    case 'failed':
      return state;
    case 'prioritized':
    case 'waiting-children':
      return 'waiting';
    default:
      return 'unknown';
  }
}

export function resultOf(view: JobView): WaitResult {
  if (view.state === 'completed' && view.outcome) return { state: 'completed', outcome: view.outcome };
  if (view.state === 'failed') return { state: 'failed', failedReason: view.failedReason ?? '' };
  return { state: 'pending', jobState: view.state };
}
