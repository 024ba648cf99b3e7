import { GatewayError } from '@cg/contract';
import { DelayedError, type Job, Queue, UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { AccountLanes, type LaneSettings, type Wake } from './lanes';
import { WriteLedger } from './ledger';
import type { JobPayload, StoredOutcome } from './payload';
import { jobKeyPrefix, OPERATIONS_QUEUE, PARK_MS, queuePrefix, wakeJobs } from './queue';

function outcomeUnknown(): GatewayError {
  return new GatewayError(
    'UPSTREAM_OUTCOME_UNKNOWN',
    'an earlier attempt of this write was sent and did not finish (the worker stopped); it was not repeated: check before trying again',
  );
}

/** Thrown by a processor for a failure that may succeed if tried again later. */
export class RetryableError extends Error {
  override readonly name = 'RetryableError';
  constructor(
    readonly error: GatewayError,
    /** The wait the platform asked for (Retry-After), if any. */
    readonly delayMs?: number,
    /** The platform rate-limited the account: the whole lane pauses for `delayMs`. */
    readonly pauseAccount = false,
  ) {
    super(error.toWire());
  }
}

export interface ProcessorContext {
  jobId: string;
  /** Call just before each request leaves for the platform (write ledger, media-stats gap). */
  beforeCall(write: boolean): Promise<void>;
  /** Call when a write request was answered with success (it is applied). */
  afterWrite(): void;
}

export type Processor = (payload: JobPayload, context: ProcessorContext) => Promise<StoredOutcome>;

export interface WorkerOptions {
  redis: Redis;
  prefix: string;
  concurrency: number;
  backoffMs: number;
  lanes: LaneSettings;
  /** How long write marks are kept (the job retention). */
  retentionSeconds: number;
  /** A job whose worker stops renewing its lock this long is taken over by another (stalled). */
  lockMs: number;
  onError?: (error: Error) => void;
}

export interface OperationsWorker {
  worker: Worker<JobPayload, StoredOutcome>;
  run(): Promise<void>;
  /** Stops taking jobs; waits for the running ones (or not, with `force`). */
  close(force?: boolean): Promise<void>;
}

const SWEEP_EVERY_MS = 15_000;

/**
 * Runs `processor` for each job, inside its account's lane: a job starts only when its lane grants
 * it a slot (concurrency, pacing, gap, 429 pause), and gives the slot back when its platform call is
 * over, waking the next job of the lane. Errors cross the queue as `CODE: message`: a
 * `RetryableError` with attempts left is retried with exponential backoff and jitter (or the
 * platform's Retry-After); anything else fails the job for good (`UnrecoverableError`).
 */
export function startWorker(processor: Processor, options: WorkerOptions): OperationsWorker {
  const lanes = new AccountLanes(options.redis, jobKeyPrefix(options.prefix), options.lanes);
  const ledger = new WriteLedger(options.redis, `${queuePrefix(options.prefix)}:`, options.retentionSeconds);
  // Waking lane jobs only sets delays of jobs that exist; this handle adds nothing.
  const wakeQueue = new Queue(OPERATIONS_QUEUE, {
    connection: options.redis,
    prefix: queuePrefix(options.prefix),
  });
  const waker = {
    wake: (wakes: Wake[]) => (wakes.length === 0 ? Promise.resolve() : wakeJobs(wakeQueue, wakes)),
  };

  const worker = new Worker<JobPayload, StoredOutcome>(
    OPERATIONS_QUEUE,
    async (job: Job<JobPayload, StoredOutcome>, token?: string) => {
      const jobId = job.id ?? '';
      const attemptToken = token ?? `${jobId}:${job.attemptsStarted}`;
      const lane = job.data.accountId;
      const gapped = job.data.gapped === true;
      if (lane !== undefined) {
        const claim = await lanes.claim(lane, jobId, gapped);
        if (claim.kind !== 'run') {
          await job.moveToDelayed(Date.now() + (claim.kind === 'delay' ? claim.delayMs : PARK_MS), token);
          // Only now, parked, may the job be queued again: a wake-up before this would be lost.
          const wakes =
            claim.kind === 'park'
              ? [...claim.wakes, ...(await lanes.requeue(lane, jobId, gapped))]
              : claim.wakes;
          await waker.wake(wakes);
          throw new DelayedError();
        }
        await waker.wake(claim.wakes);
      }
      let final = true;
      let calls = 0;
      let writesApplied = 0;
      try {
        if (job.data.write && (await ledger.sentByOther(jobId, attemptToken))) throw outcomeUnknown();
        return await processor(job.data, {
          jobId,
          beforeCall: async (write) => {
            calls += 1;
            if (write && !(await ledger.markSent(jobId, attemptToken))) throw outcomeUnknown();
            // A repeated call of a gapped job (after a re-login) restarts the gap from itself.
            if (gapped && calls > 1 && lane !== undefined) await lanes.touch(lane);
          },
          afterWrite: () => {
            writesApplied += 1;
          },
        });
      } catch (error) {
        if (error instanceof RetryableError) {
          if (error.pauseAccount && lane !== undefined && error.delayMs !== undefined) {
            await lanes.pause(lane, error.delayMs);
          }
          if (writesApplied > 0) {
            // An earlier write of this job is applied: repeating the job would send it again.
            throw new UnrecoverableError(
              new GatewayError(
                error.error.code,
                `${error.error.message} (not retried: an earlier step of this request was already applied)`,
                error.error.retryAfterSeconds,
              ).toWire(),
            );
          }
          // The platform did not apply the request: a later attempt may send it again.
          if (job.data.write) await ledger.clear(jobId, attemptToken);
          const attemptsLeft = (job.opts.attempts ?? 1) - (job.attemptsMade + 1);
          if (attemptsLeft > 0) {
            final = false;
            throw error;
          }
          throw new UnrecoverableError(error.error.toWire());
        }
        if (error instanceof GatewayError) throw new UnrecoverableError(error.toWire());
        options.onError?.(error as Error);
        throw new UnrecoverableError(
          new GatewayError('INTERNAL', 'the gateway failed to run the operation').toWire(),
        );
      } finally {
        if (lane !== undefined) await waker.wake(await lanes.release(lane, jobId, final, job.data.dedupe));
      }
    },
    {
      connection: options.redis,
      prefix: queuePrefix(options.prefix),
      concurrency: options.concurrency,
      lockDuration: options.lockMs,
      stalledInterval: options.lockMs,
      autorun: false,
      settings: {
        backoffStrategy: (attemptsMade, _type, error) => {
          const asked = error instanceof RetryableError ? error.delayMs : undefined;
          const exponential = options.backoffMs * 2 ** Math.max(0, attemptsMade - 1);
          // Jitter spreads retries of many jobs so they do not come back together.
          const jittered = Math.round(exponential / 2 + Math.random() * (exponential / 2));
          return Math.max(asked ?? 0, jittered);
        },
      },
    },
  );

  // Crash recovery, not scheduling: lanes whose leases are due are looked at, so slots held by a
  // dead worker return and their waiting jobs are woken. Every worker sweeps; the scripts make
  // concurrent sweeps harmless.
  const sweep = async () => {
    for (const lane of await lanes.dueLanes()) await waker.wake(await lanes.kick(lane));
  };
  let timer: NodeJS.Timeout | undefined;

  return {
    worker,
    run: async () => {
      timer = setInterval(() => {
        sweep().catch((error: unknown) => options.onError?.(error as Error));
      }, SWEEP_EVERY_MS);
      timer.unref();
      await worker.run();
    },
    close: async (force = false) => {
      clearInterval(timer);
      await worker.close(force);
      await wakeQueue.close();
    },
  };
}
