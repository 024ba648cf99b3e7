import { GatewayError } from '@cg/contract';
import { type Job, Queue, QueueEvents, UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { JobPayload, StoredOutcome } from './payload';

export const OPERATIONS_QUEUE = 'operations';

/** BullMQ keys are hash-tagged so that one queue's keys share a Cluster slot. */
export const queuePrefix = (prefix: string) => `{${prefix}:q}`;

export interface QueueOptions {
  redis: Redis;
  prefix: string;
  /** Finished jobs stay readable at /jobs/{id} this long. */
  retentionSeconds: number;
  attempts: number;
  backoffMs: number;
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

/** The API's side of the queue: enqueue, wait for a result, read a job. */
export class OperationsQueue {
  readonly queue: Queue<JobPayload, StoredOutcome>;
  private readonly events: QueueEvents;
  private readonly waiters = new Map<string, (result: WaitResult) => void>();

  constructor(private readonly options: QueueOptions) {
    const prefix = queuePrefix(options.prefix);
    this.queue = new Queue(OPERATIONS_QUEUE, { connection: options.redis, prefix });
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
   * Enqueues a job and, when `waitMs` > 0, waits for its result up to that long. The waiter is
   * registered before the job exists, so a result that comes back immediately is not missed.
   */
  async run(jobId: string, payload: JobPayload, waitMs: number): Promise<WaitResult> {
    if (waitMs <= 0) {
      await this.add(jobId, payload);
      return { state: 'pending', jobState: 'waiting' };
    }
    const settled = new Promise<WaitResult>((resolve) => this.waiters.set(jobId, resolve));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), waitMs);
    });
    try {
      await this.add(jobId, payload);
      const result = await Promise.race([settled, timeout]);
      if (result !== 'timeout') return result;
      // Read the job once: its result may have landed between two event reads.
      const view = await this.get(jobId);
      return view ? resultOf(view) : { state: 'pending', jobState: 'unknown' };
    } finally {
      clearTimeout(timer);
      this.waiters.delete(jobId);
    }
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

  private async add(jobId: string, payload: JobPayload): Promise<void> {
    await this.queue.add(payload.op, payload, {
      jobId,
      attempts: this.options.attempts,
      backoff: { type: 'jitter', delay: this.options.backoffMs },
      removeOnComplete: { age: this.options.retentionSeconds },
      removeOnFail: { age: this.options.retentionSeconds },
    });
  }

  private settle(jobId: string, result: WaitResult): void {
    const waiter = this.waiters.get(jobId);
    if (waiter) {
      this.waiters.delete(jobId);
      waiter(result);
    }
  }
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

/** Thrown by a processor for a failure that may succeed if tried again later. */
export class RetryableError extends Error {
  override readonly name = 'RetryableError';
  constructor(
    readonly error: GatewayError,
    /** The wait the platform asked for (Retry-After), if any. */
    readonly delayMs?: number,
  ) {
    super(error.toWire());
  }
}

export interface ProcessorContext {
  jobId: string;
  attempt: number;
  /** True when the job had been taken before by a worker that did not finish it (crash, stall). */
  resumed: boolean;
}

export type Processor = (payload: JobPayload, context: ProcessorContext) => Promise<StoredOutcome>;

export interface WorkerOptions {
  redis: Redis;
  prefix: string;
  concurrency: number;
  backoffMs: number;
  onError?: (error: Error) => void;
}

/**
 * Runs `processor` for each job. Errors cross the queue as `CODE: message`: a `RetryableError` with
 * attempts left is retried with exponential backoff and jitter (or the platform's Retry-After);
 * anything else fails the job for good (`UnrecoverableError`), so nothing is retried by accident.
 */
export function startWorker(processor: Processor, options: WorkerOptions): Worker<JobPayload, StoredOutcome> {
  const worker = new Worker<JobPayload, StoredOutcome>(
    OPERATIONS_QUEUE,
    async (job: Job<JobPayload, StoredOutcome>) => {
      const context: ProcessorContext = {
        jobId: job.id ?? '',
        attempt: job.attemptsMade + 1,
        resumed: (job.attemptsStarted ?? 0) > job.attemptsMade + 1,
      };
      try {
        return await processor(job.data, context);
      } catch (error) {
        if (error instanceof RetryableError) {
          const attemptsLeft = (job.opts.attempts ?? 1) - (job.attemptsMade + 1);
          if (attemptsLeft > 0) throw error;
          throw new UnrecoverableError(error.error.toWire());
        }
        if (error instanceof GatewayError) throw new UnrecoverableError(error.toWire());
        options.onError?.(error as Error);
        throw new UnrecoverableError(
          new GatewayError('INTERNAL', 'the gateway failed to run the operation').toWire(),
        );
      }
    },
    {
      connection: options.redis,
      prefix: queuePrefix(options.prefix),
      concurrency: options.concurrency,
      autorun: false,
      settings: {
        backoffStrategy: (attemptsMade, _type, error) => {
          const asked = error instanceof RetryableError ? error.delayMs : undefined;
          const exponential = options.backoffMs * 2 ** Math.max(0, attemptsMade - 1);
          // Full jitter spreads retries of many jobs so they do not return together.
          const jittered = Math.round(exponential / 2 + Math.random() * (exponential / 2));
          return Math.max(asked ?? 0, jittered);
        },
      },
    },
  );
  return worker;
}
