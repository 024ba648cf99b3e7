import { GatewayError } from '@cg/contract';
import { DelayedError, type Job, Queue, UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { Coalescer } from './coalesce';
import {
  AccountLanes,
  type Claim,
  jobCancelled,
  type LaneSettings,
  type ReleaseRequest,
  type Wake,
} from './lanes';
import { WriteLedger } from './ledger';
import {
  type BatchOutcome,
  type BatchPayload,
  batchItemId,
  type ItemOutcome,
  isBatch,
  type JobPayload,
  laneOf,
  type QueuedData,
  type StoredOutcome,
} from './payload';
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

/** A call a stopping worker did not send: the job is tried again, by another worker. */
function notSentStopping(): RetryableError {
  return new RetryableError(
    new GatewayError('SERVICE_UNAVAILABLE', 'the worker stopped before sending this call; try again'),
  );
}

export interface ProcessorContext {
  jobId: string;
  /** Call just before each request leaves for the platform (write ledger, media-stats gap). */
  beforeCall(write: boolean): Promise<void>;
  /** Call when a write request was answered with success (it is applied). */
  afterWrite(): void;
  /** Call when the job's account no longer exists: its lane's state is set to expire. */
  accountGone(): Promise<void>;
}

export type Processor = (payload: JobPayload, context: ProcessorContext) => Promise<StoredOutcome>;

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
  onRequestFailed?: (jobId: string, op: string, reason: string) => void;
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
/** Lanes a sweep looks at per round. */
const SWEEP_LANES = 100;

/** A failure now fails the job for good: BullMQ will not run it again. */
const lastAttempt = (job: Job) => job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
/** A request of a batch that ended is reported before the batch ends once it waited this long. */
const REPORT_AFTER_MS = 20;

/** The lane did not let the job start now: it waits (delay) or queues again (park). */
class NotGranted extends Error {
  constructor(
    /** When the job may ask again; absent: it is parked until its lane wakes it. */
    readonly delayMs: number | undefined,
  ) {
    super(delayMs === undefined ? 'not granted: park' : `not granted: delay ${delayMs} ms`);
  }
}

/**
 * The lane's answer for a job, awaited only before the job's first platform call: what the job does
 * before it (reading its account and session) runs alongside the claim instead of after it. No
 * request leaves for the platform without `pass`.
 */
class Gate {
  private passed: boolean;
  /** The lane said "not now": the job holds no slot of its own to give back. */
  private denied = false;
  private givenBack = false;
  /** The claim itself failed (Redis): the attempt fails as a whole, and BullMQ tries it again. */
  failed = false;

  constructor(
    private readonly claim: Promise<Claim | undefined> | undefined,
    /**
     * Gives the job's slot back; `final`: the job will not run again; `ran`: its claim let it
     * through (whether or not it got as far as a platform call).
     */
    private readonly release: (final: boolean, ran: boolean) => Promise<void> = async () => {},
  ) {
    this.passed = claim === undefined;
    // Awaited in `pass` or `giveBack`.
    claim?.catch(() => undefined);
  }

  async pass(): Promise<void> {
    if (this.passed) return;
    let answer: Claim | undefined;
    try {
      answer = await this.claim;
    } catch (error) {
      this.failed = true;
      throw error;
    }
    if (answer?.kind !== 'run') {
      this.denied = true;
      if (answer?.kind === 'cancelled') throw jobCancelled();
      throw new NotGranted(answer?.kind === 'delay' ? answer.delayMs : undefined);
    }
    this.passed = true;
  }

  /** Its caller cancelled the job (the claim said so), whatever else it came to. */
  async cancelled(): Promise<boolean> {
    return (await this.claim?.catch(() => undefined))?.kind === 'cancelled';
  }

  /**
   * Gives the job's slot back, once, after its claim has landed whatever it said (a release must
   * come after the claim); nothing when there was no claim or the lane refused it.
   */
  async giveBack(final: boolean): Promise<void> {
    if (this.claim === undefined || this.denied || this.givenBack) return;
    this.givenBack = true;
    const answer = await this.claim.catch(() => undefined);
    await this.release(final, answer?.kind === 'run');
  }
}

/**
 * Runs `processor` for each request, inside its account's lane: a request starts only when its lane
 * grants it a slot (concurrency, pacing, gap, 429 pause), and gives the slot back when its platform
 * call is over, waking the next job of the lane. Errors cross the queue as `CODE: message`: a
 * `RetryableError` with attempts left is retried with exponential backoff and jitter (or the
 * platform's Retry-After); anything else fails the request for good (`UnrecoverableError`).
 *
 * A batch job (reads granted together) runs its requests concurrently; each reports as it ends. A
 * request of it that may not start now, or must be retried, leaves the batch for a job of its own
 * under the same id, and from there is scheduled like any other job.
 */
export function startWorker(processor: Processor, options: WorkerOptions): OperationsWorker {
  const lanes = new AccountLanes(options.redis, jobKeyPrefix(options.prefix), options.lanes);
  const ledger = new WriteLedger(options.redis, `${queuePrefix(options.prefix)}:`, options.retentionSeconds);
  // Adds the jobs that requests of a batch move to, and wakes lane jobs by setting their delays.
  const queue = new Queue<QueuedData>(OPERATIONS_QUEUE, {
    connection: options.redis,
    prefix: queuePrefix(options.prefix),
  });
  queue.on('error', () => undefined); // Redis away: reported once by the process (`watchRedis`)
  const wake = (wakes: Wake[]) => (wakes.length === 0 ? Promise.resolve() : wakeJobs(queue, wakes));
  // Slots are given back in groups. A final release is not awaited: the answer does not wait for it.
  // A job that will run again awaits its release: a late one would free the slot its next attempt
  // already holds.
  const releases = new Coalescer<ReleaseRequest>(async (done) => wake(await lanes.release(done)));
  const release = (request: ReleaseRequest): Promise<void> => {
    const sent = releases.add(request);
    if (request.final) {
      sent.catch((error: unknown) => options.onError?.(error as Error));
      return Promise.resolve();
    }
    return sent;
  };
  const backoff = (attemptsMade: number, error: unknown) => {
    const asked = error instanceof RetryableError ? error.delayMs : undefined;
    const exponential = options.backoffMs * 2 ** Math.max(0, attemptsMade - 1);
    // Jitter spreads retries of many jobs so they do not come back together.
    const jittered = Math.round(exponential / 2 + Math.random() * (exponential / 2));
    return Math.max(asked ?? 0, jittered);
  };

  const forget = async (lane: string | undefined) => {
    if (lane !== undefined) await lanes.forget(lane);
  };

  /** The lane's answers for jobs about to run; their wake-ups are applied as soon as they come. */
  function claim(requests: { lane: string; jobId: string; gapped: boolean }[]): Promise<Claim[]> {
    const claims = lanes.claim(requests);
    claims
      .then((answers) => wake(answers.flatMap((answer) => answer.wakes)))
      .catch((error: unknown) => options.onError?.(error as Error));
    return claims;
  }

  async function runJob(job: Job<JobPayload>, token: string | undefined): Promise<StoredOutcome> {
    const jobId = job.id ?? '';
    const attemptToken = token ?? `${jobId}:${job.attemptsStarted}`;
    const lane = laneOf(job.data);
    const gapped = job.data.gapped === true;
    // The job will not run again: its slot and its place in the backlog go. Left false when it throws
    // to be retried (a retryable failure, or Redis failing on the way).
    let ends = false;
    let calls = 0;
    let writesApplied = 0;
    const gate =
      lane === undefined
        ? new Gate(undefined)
        : new Gate(
            claim([{ lane, jobId, gapped }]).then(([c]) => c),
            (final, ran) =>
              release({
                lane,
                jobId,
                final,
                ...(job.data.dedupe === undefined ? {} : { dedupeKey: job.data.dedupe }),
                ...(gapped ? { gapped } : {}),
                // Let through, then nothing sent (its account gone, or needing a new login): the
                // gap its claim took is given back.
                ...(gapped && ran && calls === 0 ? { idle: true } : {}),
              }),
          );
    try {
      if (job.data.write && (await ledger.sentByOther(jobId, attemptToken))) throw outcomeUnknown();
      const outcome = await processor(job.data, {
        jobId,
        beforeCall: async (write) => {
          if (stopping) throw notSentStopping();
          await gate.pass();
          calls += 1;
          if (write && !(await ledger.markSent(jobId, attemptToken))) throw outcomeUnknown();
          // A repeated call of a gapped job (after a re-login) restarts the gap from itself.
          if (gapped && calls > 1 && lane !== undefined) await lanes.touch(lane);
        },
        afterWrite: () => {
          writesApplied += 1;
        },
        accountGone: () => forget(lane),
      });
      // Cancelled, and nothing sent: whatever it answered without the platform, it ends cancelled.
      if (calls === 0 && (await gate.cancelled())) throw jobCancelled();
      ends = true;
      return outcome;
    } catch (error) {
      if (gate.failed) throw error;
      // A failure before its first platform call (its account gone, say) does not hide that its
      // caller cancelled it: its status URL and its Idempotency-Key keep saying so.
      if (calls === 0 && (await gate.cancelled())) {
        ends = true;
        throw new UnrecoverableError(jobCancelled().toWire());
      }
      if (error instanceof NotGranted && lane !== undefined) {
        await job.moveToDelayed(Date.now() + (error.delayMs ?? PARK_MS), token);
        // Only now, parked, may the job be queued again: a wake-up before this would be lost.
        if (error.delayMs === undefined) await wake(await lanes.requeue(lane, jobId, gapped));
        throw new DelayedError();
      }
      if (error instanceof RetryableError) {
        if (error.pauseAccount && lane !== undefined && error.delayMs !== undefined) {
          await lanes.pause(lane, error.delayMs);
        }
        if (writesApplied > 0) {
          // An earlier write of this job is applied: repeating the job would send it again.
          ends = true;
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
        if (!lastAttempt(job)) throw error;
        throw new UnrecoverableError(error.error.toWire());
      }
      ends = true;
      const failure = failureOf(error);
      // The platform refused the account's session (a 401, or the re-login was refused): it applied
      // nothing of this job, which a caller's Idempotency-Key may then run again.
      if (job.data.write && writesApplied === 0 && failure.code === 'REAUTH_REQUIRED')
        await ledger.clear(jobId, attemptToken);
      throw new UnrecoverableError(failure.toWire());
    } finally {
      await gate.giveBack(ends || lastAttempt(job));
    }
  }

  /** Only reads travel in batches (see `canBatch`): running one again repeats no write. */
  async function runBatch(job: Job<BatchPayload>): Promise<BatchOutcome> {
    const batchId = job.id ?? '';
    const items: ({ n: number; id: string; lane: string; payload: JobPayload } | null)[] = job.data.batch.map(
      (payload, n) => {
        const lane = payload ? laneOf(payload) : undefined;
        return payload && lane !== undefined ? { n, id: batchItemId(batchId, n), lane, payload } : null;
      },
    );
    const outcomes: (ItemOutcome | null)[] = job.data.batch.map(() => null);
    let todo = items.filter((item) => item !== null);
    if (job.attemptsStarted > 1) {
      // Run again (its worker died, or the lane could not be asked): requests already reported keep
      // their outcome, and those that had moved to jobs of their own stay there.
      const reported = (job.progress as BatchOutcome | undefined)?.items ?? [];
      const moved = await Promise.all(todo.map((item) => queue.getJob(item.id)));
      for (const [k, item] of todo.entries()) {
        const earlier = reported[item.n];
        if (earlier) outcomes[item.n] = earlier;
        else if (moved[k]) outcomes[item.n] = { moved: true };
      }
      todo = todo.filter((item) => outcomes[item.n] === null);
    }
    const claims = claim(todo.map((item) => ({ lane: item.lane, jobId: item.id, gapped: false })));
    const progress = reporter(job, outcomes);

    /** A job of its own for the request, under its id, delayed (a park when `delayMs` is absent). */
    const moveOut = async (item: (typeof todo)[number], delayMs: number | undefined, attempts = 0) => {
      await queue.add(
        item.payload.op,
        { ...item.payload, ...(attempts > 0 ? { priorAttempts: attempts } : {}) },
        {
          jobId: item.id,
          delay: delayMs ?? PARK_MS,
          attempts: Math.max(1, (job.opts.attempts ?? 1) - attempts),
          ...(job.opts.backoff === undefined ? {} : { backoff: job.opts.backoff }),
          ...(job.opts.removeOnComplete === undefined ? {} : { removeOnComplete: job.opts.removeOnComplete }),
          ...(job.opts.removeOnFail === undefined ? {} : { removeOnFail: job.opts.removeOnFail }),
        },
      );
      if (delayMs === undefined) await wake(await lanes.requeue(item.lane, item.id, false));
      return { moved: true } as const;
    };

    const runItem = async (item: (typeof todo)[number], k: number): Promise<ItemOutcome> => {
      const gate = new Gate(
        claims.then((answers) => answers[k]),
        (final) => release({ lane: item.lane, jobId: item.id, final }),
      );
      // As in runJob: the request will not run again.
      let ends = false;
      try {
        const outcome = await processor(item.payload, {
          jobId: item.id,
          beforeCall: async (write) => {
            // Only reads are batched (canBatch); a write here would escape the write ledger.
            if (write) throw new GatewayError('INTERNAL', `operation ${item.payload.op} wrote from a batch`);
            if (stopping) throw notSentStopping();
            await gate.pass();
          },
          afterWrite: () => {},
          accountGone: () => forget(item.lane),
        });
        ends = true;
        return outcome;
      } catch (error) {
        if (gate.failed) throw error;
        if (error instanceof NotGranted) {
          return await moveOut(item, error.delayMs);
        }
        if (error instanceof RetryableError) {
          if (error.pauseAccount && error.delayMs !== undefined) await lanes.pause(item.lane, error.delayMs);
          if ((job.opts.attempts ?? 1) > 1) {
            // Its slot is given back before its own job exists, so that job never meets a late release.
            await gate.giveBack(false);
            return await moveOut(item, backoff(1, error), 1);
          }
        }
        const failed = failureOf(error instanceof RetryableError ? error.error : error).toWire();
        options.onRequestFailed?.(item.id, item.payload.op, failed);
        ends = true;
        return { failed };
      } finally {
        await gate.giveBack(ends || lastAttempt(job));
      }
    };

    const ran = await Promise.allSettled(
      todo.map(async (item, k) => {
        outcomes[item.n] = await runItem(item, k);
        progress.ended();
      }),
    );
    progress.stop();
    // Redis failed (the claim, a move, a pause): the batch is tried again as a whole, and what ended
    // is recorded first, so that it is neither sent again nor left unanswered.
    const failed = ran.find((result) => result.status === 'rejected');
    if (failed) {
      // Best effort: Redis may be what failed. Unrecorded, they run again (reads), or, on the last
      // attempt, are answered with the batch's failure.
      await job
        .updateProgress({ items: outcomes })
        .catch(() => job.updateProgress({ items: outcomes }))
        .catch(() => undefined);
      throw failed.reason;
    }
    return { items: outcomes };
  }

  /** Wraps anything that is not the gateway's own error as INTERNAL (and logs it). */
  function failureOf(error: unknown): GatewayError {
    if (error instanceof GatewayError) return error;
    options.onError?.(error as Error);
    return new GatewayError('INTERNAL', 'the gateway failed to run the operation');
  }

  /**
   * Reports requests of a batch that ended while others still run, so a quick one is not held by a
   * slow one. Requests of a batch mostly end together, and the batch's result carries them; only
   * when some are still unreported `REPORT_AFTER_MS` after they ended does a progress update go
   * out, carrying every outcome so far (so `GET /jobs/{id}` and a re-run of the batch see them all).
   */
  function reporter(
    job: Job<BatchPayload>,
    outcomes: (ItemOutcome | null)[],
  ): { ended(): void; stop(): void } {
    let timer: NodeJS.Timeout | undefined;
    const send = () => {
      timer = undefined;
      job.updateProgress({ items: outcomes }).catch((error: unknown) => options.onError?.(error as Error));
    };
    return {
      ended: () => {
        timer ??= setTimeout(send, REPORT_AFTER_MS);
      },
      stop: () => clearTimeout(timer),
    };
  }

  const worker = new Worker<QueuedData, StoredOutcome | BatchOutcome>(
    OPERATIONS_QUEUE,
    (job, token) =>
      isBatch(job.data) ? runBatch(job as Job<BatchPayload>) : runJob(job as Job<JobPayload>, token),
    {
      connection: options.redis,
      prefix: queuePrefix(options.prefix),
      concurrency: options.concurrency,
      lockDuration: options.lockMs,
      stalledInterval: options.lockMs,
      autorun: false,
      settings: {
        backoffStrategy: (attemptsMade, _type, error, job) =>
          backoff(attemptsMade + ((job?.data as JobPayload | undefined)?.priorAttempts ?? 0), error),
      },
    },
  );

  // Crash recovery, not scheduling: lanes whose leases are due are looked at, so slots held by a
  // dead worker return and their waiting jobs are woken. Every worker sweeps; the scripts make
  // concurrent sweeps harmless.
  const sweep = async () => {
    for (let round = 0; round < 10; round++) {
      const due = await lanes.dueLanes(SWEEP_LANES);
      if (due.length > 0) await wake(await lanes.kick(due));
      if (due.length < SWEEP_LANES) return;
    }
  };
  let timer: NodeJS.Timeout | undefined;
  /** Set by a forced close: no call leaves any more; the jobs are retried elsewhere. */
  let stopping = false;

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
      // BullMQ's close answers a second call with the first's promise, so forcing is done here.
      if (force) stopping = true;
      await worker.close(force);
      await releases.drain();
      await queue.close();
    },
  };
}
