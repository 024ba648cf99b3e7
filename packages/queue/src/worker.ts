import { DelayedError, type Job, Queue, UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import {
  attemptAndCarryOut,
  lastAttempt,
  type Processor,
  pauseAndUnmark,
  type Request,
  type Runner,
} from './attempt';
import { isBatch, runBatch } from './batch';
import { type FailureDecision, retryDelay } from './failure';
import { Gate } from './gate';
import { OPERATIONS_QUEUE, queueKeys } from './keys';
import { type LaneSettings, Lanes } from './lanes';
import { WriteLedger } from './ledger';
import type { RunObserver } from './observer';
import {
  type BatchOutcome,
  type BatchPayload,
  type JobPayload,
  laneOf,
  type QueuedData,
  type StoredOutcome,
} from './payload';
import { PausedLanes } from './stats';
import { PARK_MS } from './wake';
import { WorkerLanes } from './worker-lanes';

export type { Processor, ProcessorContext } from './attempt';

export interface WorkerOptions {
  redis: Redis;
  prefix: string;
  /** BullMQ jobs run at once by this process (a batch counts once). */
  concurrency: number;
  backoffMs: number;
  lanes: LaneSettings;
  /** How long write marks are kept (the job retention). */
  retentionSeconds: number;
  /** A job whose worker stops renewing its lock this long is taken over by another (stalled). */
  lockMs: number;
  onError?: (error: Error) => void;
  /** A request of a batch failed for good (a job of its own shows as a failed BullMQ job instead). */
  onRequestFailed?: (jobId: string, op: string, reason: string, requestId?: string) => void;
  /** Told of starts, retries, outcome-unknown writes and 429 pauses (the worker's metrics). */
  observer?: RunObserver;
}

export interface OperationsWorker {
  worker: Worker<QueuedData, StoredOutcome | BatchOutcome>;
  run(): Promise<void>;
  /**
   * Stops taking jobs and waits for the running ones; with `force` (also after a graceful close
   * began), they send no further platform call: each call not yet sent fails as retryable.
   */
  close(force?: boolean): Promise<void>;
}

const SWEEP_EVERY_MS = 15_000;

/**
 * Runs `processor` for each request, inside its account's lane: a request starts only when its lane
 * grants it a slot (concurrency, pacing, gap, 429 pause), and gives the slot back when its platform
 * call is over, waking the next job of the lane. Errors cross the queue as `CODE: message`: what a
 * failed attempt becomes is `decideFailure`'s (failure.ts): a `RetryableError` with attempts left is
 * retried with exponential backoff and jitter (or the platform's Retry-After); anything else fails
 * the request for good (`UnrecoverableError`).
 *
 * A batch job (reads granted together) runs its requests concurrently (batch.ts); each reports as it
 * ends. A request of it that may not start now, or must be retried, leaves the batch for a job of
 * its own under the same id, and from there is scheduled like any other job.
 */
export function startWorker(processor: Processor, options: WorkerOptions): OperationsWorker {
  const keys = queueKeys(options.prefix);
  // Adds the jobs that requests of a batch move to, and wakes lane jobs by setting their delays.
  const queue = new Queue<QueuedData>(OPERATIONS_QUEUE, {
    connection: options.redis,
    prefix: keys.bullmqPrefix,
  });
  queue.on('error', () => undefined); // Redis away: reported once by the process (`watchRedis`)
  const lanes = new WorkerLanes(
    new Lanes(options.redis, keys, options.lanes),
    queue,
    options.onError,
    new PausedLanes(options.redis, keys),
  );
  /** Set by a forced close: no call leaves any more; the jobs are retried elsewhere. */
  let stopping = false;
  const runner: Runner = {
    processor,
    lanes,
    ledger: new WriteLedger(options.redis, keys, options.retentionSeconds),
    queue,
    backoffMs: options.backoffMs,
    stopping: () => stopping,
    ...(options.onError ? { onError: options.onError } : {}),
    ...(options.onRequestFailed ? { onRequestFailed: options.onRequestFailed } : {}),
    ...(options.observer ? { observer: options.observer } : {}),
  };
  const worker = bullmqWorker(runner, keys.bullmqPrefix, options);
  worker.on('failed', (job, error) => releaseStalledOut(job, error, lanes));
  const running = lanes.running(worker, SWEEP_EVERY_MS);
  return {
    worker,
    run: running.run,
    close: async (force = false) => {
      // BullMQ's close answers a second call with the first's promise, so forcing is done here.
      if (force) stopping = true;
      await running.close(force);
      await queue.close();
    },
  };
}

/**
 * BullMQ's lock settings from `lockMs` (WORKER_LOCK_MS). A worker renews the locks of all its running
 * jobs in one call every quarter of it, so an event loop held up for less than three quarters of it
 * keeps them. Every worker's stalled-job check, every half of it, marks the running jobs and, at the
 * next check, takes back those whose lock lapsed meanwhile: a killed worker's jobs run again on
 * another within about 1.5 × lockMs (6 s at the default 4 s). A job taken back twice (it crashed two
 * workers) fails for good. A lock lost while the worker lives means its write is not sent (the write
 * ledger checks the lock when it marks).
 */
export function lockTimings(lockMs: number) {
  return {
    lockDuration: lockMs,
    lockRenewTime: Math.max(250, Math.floor(lockMs / 4)),
    stalledInterval: Math.max(500, Math.floor(lockMs / 2)),
    maxStalledCount: 1,
  };
}

/** BullMQ's own reason for failing a job taken back from dead workers too often. */
const STALLED_OUT = 'job stalled more than allowable limit';

/** Whether BullMQ failed a job for stalling too often (without running it: no release follows). */
export const stalledOut = (error: Error): boolean => error.message === STALLED_OUT;

/**
 * BullMQ fails a job that stalled too often without running it, so no release gives its slot back:
 * it is given back here, at once, instead of when its lease runs out. A batch is left to its lease
 * (its requests that moved out hold slots of their own under the same ids).
 */
function releaseStalledOut(job: Job<QueuedData> | undefined, error: Error, lanes: WorkerLanes): void {
  if (job?.id === undefined || !stalledOut(error) || isBatch(job.data)) return;
  const payload = job.data;
  const lane = laneOf(payload);
  if (lane === undefined) return;
  void lanes.release({
    lane,
    jobId: job.id,
    final: true,
    ...(payload.dedupe === undefined ? {} : { dedupeKey: payload.dedupe }),
    ...(payload.gapped === true ? { gapped: true } : {}),
  });
}

/** BullMQ's worker of the queue: a batch job to `runBatch`, any other to `runJob`; not started. */
function bullmqWorker(
  runner: Runner,
  prefix: string,
  options: WorkerOptions,
): Worker<QueuedData, StoredOutcome | BatchOutcome> {
  return new Worker<QueuedData, StoredOutcome | BatchOutcome>(
    OPERATIONS_QUEUE,
    (job, token) =>
      isBatch(job.data)
        ? runBatch(job as Job<BatchPayload>, runner)
        : runJob(job as Job<JobPayload>, token, runner),
    {
      connection: options.redis,
      prefix,
      concurrency: options.concurrency,
      ...lockTimings(options.lockMs),
      autorun: false,
      settings: {
        // A request moved out of a batch counts the attempts it had there (`priorAttempts`).
        backoffStrategy: (attemptsMade, _type, error, job) =>
          retryDelay(
            options.backoffMs,
            attemptsMade + ((job?.data as JobPayload | undefined)?.priorAttempts ?? 0),
            error,
          ),
      },
    },
  );
}

/** Runs a job of its own (not a batch): one request. */
async function runJob(
  job: Job<JobPayload>,
  token: string | undefined,
  runner: Runner,
): Promise<StoredOutcome> {
  const jobId = job.id ?? '';
  const request: Request = {
    jobId,
    payload: job.data,
    lane: laneOf(job.data),
    attemptToken: token ?? `${jobId}:${job.attemptsStarted}`,
    ...(token === undefined ? {} : { lockToken: token }),
    batched: false,
    attemptsLeft: !lastAttempt(job),
    // Waits for its lane cost no attempt (`DelayedError`); a request moved out of a batch to be
    // retried has `priorAttempts`.
    firstAttempt: job.attemptsMade === 0 && job.data.priorAttempts === undefined,
  };
  const gate = gateOf(request, runner);
  return attemptAndCarryOut(request, gate, runner, lastAttempt(job), (decision, error) =>
    carryOutJob(decision, error, job, token, request, runner),
  );
}

/** The job's lane gate: its claim sent at once, its slot given back with what the job came to. */
function gateOf(request: Request, runner: Runner): Gate {
  const { lane, jobId, payload } = request;
  if (lane === undefined) return new Gate(undefined);
  const gapped = payload.gapped === true;
  return new Gate(
    runner.lanes.claim([{ lane, jobId, gapped }]).then(([claim]) => claim),
    (final, idle) =>
      runner.lanes.release({
        lane,
        jobId,
        final,
        ...(payload.dedupe === undefined ? {} : { dedupeKey: payload.dedupe }),
        ...(gapped ? { gapped } : {}),
        // Let through, then nothing sent (its account gone, or needing a new login): the gap its
        // claim took is given back.
        ...(gapped && idle ? { idle: true } : {}),
      }),
  );
}

/** Carries out what a job's failed attempt becomes; BullMQ learns it from what this throws. */
async function carryOutJob(
  decision: FailureDecision,
  error: unknown,
  job: Job<JobPayload>,
  token: string | undefined,
  request: Request,
  runner: Runner,
): Promise<never> {
  switch (decision.kind) {
    case 'abort':
      throw error;
    case 'wait':
      // Costs no attempt (`DelayedError`).
      await job.moveToDelayed(Date.now() + (decision.delayMs ?? PARK_MS), token);
      // Only now, parked, may the job be queued again: a wake-up before this would be lost.
      if (decision.delayMs === undefined && request.lane !== undefined) {
        await runner.lanes.requeue(request.lane, request.jobId, request.payload.gapped === true);
      }
      throw new DelayedError();
    case 'retry':
      await pauseAndUnmark(decision, request, runner);
      throw decision.error;
    case 'fail':
      await pauseAndUnmark(decision, request, runner);
      throw new UnrecoverableError(decision.failure.toWire());
  }
}
