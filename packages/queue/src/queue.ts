import { GatewayError } from '@cg/contract';
import { Job, type JobsOptions, Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { Coalescer } from './coalesce';
import { IdempotencyKeys } from './idempotency';
import {
  AccountLanes,
  type Admission,
  cancelPrefix,
  jobCancelled,
  LANE_LEASE_MS,
  type LaneSettings,
  type Wake,
} from './lanes';
import { sentPrefix } from './ledger';
import {
  type BatchOutcome,
  batchItemId,
  isBatch,
  type JobPayload,
  laneOf,
  parseBatchItemId,
  type QueuedData,
  type StoredOutcome,
} from './payload';

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

/** How long a wait that ended reads its job before answering it pending, state unknown. */
const FINAL_READ_MS = 1_000;

/** Requests admitted together at most, and so the most reads one batch job carries. */
export const MAX_BATCH = 32;

export interface QueueOptions {
  redis: Redis;
  prefix: string;
  /** Finished jobs stay readable at /jobs/{id} this long. */
  retentionSeconds: number;
  attempts: number;
  backoffMs: number;
  lanes: LaneSettings;
  /** A new job id (`job_…`); a batched request's id is its batch's with `-<n>`. */
  newJobId: () => string;
  /** A failure after the requests were accepted (waking other jobs): they are safe; it is logged. */
  onError?: (error: Error) => void;
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

type Waiter = { promise: Promise<WaitResult>; dispose: () => void };

/**
 * Where an admitted request went: its own job or a batch (with its waiter, registered before the
 * add), or an identical pending request's job.
 */
type Placement = { jobId: string; shared: boolean; state: JobState; waiter?: Waiter };

interface Submission {
  payload: JobPayload;
  waitMs: number;
  /** The id the request must have (its sealed input names it); else the queue gives one. */
  jobId?: string;
  placed: (placement: Placement) => void;
  refused: (error: unknown) => void;
}

type Member = Submission & { jobId: string; n: number | undefined };

/**
 * The API's side of the queue: admit to the account's lane, enqueue, wait for a result, read a job.
 *
 * Requests are admitted in groups: while one group's admission and add are on their way to Redis,
 * the next requests gather, and go together as soon as it is back (no timer: a lone request goes at
 * once). A group costs one admission script and one pipelined add whatever its size, and the reads
 * of it that their lanes let start now travel as one BullMQ job, a batch.
 */
export class OperationsQueue {
  readonly queue: Queue<QueuedData, StoredOutcome | BatchOutcome>;
  readonly lanes: AccountLanes;
  /** Callers' `Idempotency-Key`s: which job answers a repeated write. */
  readonly idempotency: IdempotencyKeys;
  private readonly events: QueueEvents;
  private readonly waiters = new Map<string, Set<(result: WaitResult) => void>>();
  /** Requests gather here while the admission of the ones before them is on its way. */
  private readonly admissions = new Coalescer<Submission>((group) => this.place(group), MAX_BATCH);
  /** Wake-ups that groups send after their jobs are added, until they are back. */
  private readonly settling = new Set<Promise<void>>();
  /** Resolved by `stopWaiting`. */
  private readonly stopped = resolvable<undefined>();

  constructor(private readonly options: QueueOptions) {
    const prefix = queuePrefix(options.prefix);
    this.queue = new Queue(OPERATIONS_QUEUE, { connection: options.redis, prefix });
    // Without a listener BullMQ prints each of its connection's errors with console.error: one stack
    // per reconnect attempt while Redis is away, which `watchRedis` already reports once.
    this.queue.on('error', () => undefined);
    this.lanes = new AccountLanes(options.redis, jobKeyPrefix(options.prefix), options.lanes);
    this.idempotency = new IdempotencyKeys(
      options.redis,
      `${prefix}:idem:`,
      jobKeyPrefix(options.prefix),
      sentPrefix(`${prefix}:`),
      cancelPrefix(`${prefix}:`),
      this.keptSeconds(),
      LANE_LEASE_MS,
    );
    // One event reader per process, whatever the number of waiting requests: results are dispatched
    // to in-process waiters by job id instead of one Redis subscription per request.
    const eventsConnection = options.redis.duplicate();
    // While Redis is away every reconnect attempt errs; the process's own connection reports it once
    // (`watchRedis`), so these are not reported again.
    eventsConnection.on('error', () => undefined);
    this.events = new QueueEvents(OPERATIONS_QUEUE, { connection: eventsConnection, prefix, autorun: true });
    this.events.on('error', () => undefined);
    this.events.on('completed', ({ jobId, returnvalue }) => {
      const value = returnvalue as unknown as StoredOutcome | BatchOutcome;
      if ('items' in value) this.settleItems(jobId, value);
      else this.settle(jobId, { state: 'completed', outcome: value });
    });
    // A batch reports requests that ended while others run, so a quick one is not held by a slow one.
    this.events.on('progress', ({ jobId, data }) => {
      if (typeof data === 'object' && data !== null && 'items' in data)
        this.settleItems(jobId, data as unknown as BatchOutcome);
    });
    this.events.on('failed', ({ jobId, failedReason }) => {
      this.settle(jobId, { state: 'failed', failedReason });
      this.failBatch(jobId, failedReason).catch((error: unknown) => options.onError?.(error as Error));
    });
  }

  async ready(): Promise<void> {
    await Promise.all([this.queue.waitUntilReady(), this.events.waitUntilReady()]);
  }

  /**
   * Admits the request to its account's lane, enqueues it and, when `waitMs` > 0, waits for its
   * result up to that long. `jobId` is the id the request must have (its sealed input names it);
   * without one the queue gives it one. Returns the id of the job that answers: an identical pending
   * request's, when the operation shares (`payload.dedupe`). A full lane is 429 with Retry-After.
   */
  async submit(
    payload: JobPayload,
    waitMs: number,
    jobId?: string,
  ): Promise<{ jobId: string; result: WaitResult }> {
    const placement = await new Promise<Placement>((placed, refused) => {
      this.admissions
        .add({
          payload,
          waitMs,
          ...(jobId === undefined ? {} : { jobId }),
          placed,
          refused,
        })
        .catch(refused);
    });
    const { waiter } = placement;
    try {
      if (placement.shared)
        return { jobId: placement.jobId, result: await this.follow(placement.jobId, waitMs) };
      if (!waiter) return { jobId: placement.jobId, result: { state: 'pending', jobState: placement.state } };
      return { jobId: placement.jobId, result: await this.race(placement.jobId, waiter.promise, waitMs) };
    } finally {
      waiter?.dispose();
    }
  }

  wake(wakes: Wake[]): Promise<void> {
    return wakeJobs(this.queue, wakes);
  }

  /**
   * Removes finished jobs with everything they hold (a disconnected account's connect jobs). Returns
   * the ids it could not remove: a job still running (BullMQ keeps a locked job), or Redis failing.
   */
  async removeJobs(jobIds: string[]): Promise<string[]> {
    const kept = await Promise.allSettled(
      jobIds.map(async (jobId) => {
        if ((await this.queue.remove(jobId)) === 1) return false;
        // Nothing removed: gone already (its retention ended), or locked by a worker.
        return (await this.queue.getJobState(jobId)) !== 'unknown';
      }),
    );
    return jobIds.filter((_, i) => {
      const outcome = kept[i];
      return outcome?.status !== 'fulfilled' || outcome.value;
    });
  }

  /**
   * A request's job: its own, or its place in a batch (its outcome once the batch has ended, or
   * from the batch's latest progress report; else the batch's state).
   */
  get(jobId: string): Promise<JobView | null> {
    return this.read(jobId, false);
  }

  /**
   * Cancels a request that waits in BullMQ's delayed set (cancel.lua): it leaves its account's lane
   * at once, and ends failed with `JOB_CANCELLED` without a platform call. `started`: a worker has
   * it or is about to (its platform call may be on its way), or it has no lane; `finished`: it ended
   * otherwise. Cancelling a cancelled job again is `cancelled`.
   */
  async cancel(view: JobView): Promise<'cancelled' | 'started' | 'finished'> {
    if (ended(view.state)) {
      return GatewayError.fromWire(view.failedReason).code === 'JOB_CANCELLED' ? 'cancelled' : 'finished';
    }
    const lane = laneOf(view.payload);
    if (lane === undefined) return 'started';
    const done = await this.lanes.cancel(lane, view.id, view.payload.dedupe, this.keptSeconds());
    if (done.kind === 'cancelled') await this.wake(done.wakes);
    if (done.kind !== 'refused') return 'cancelled';
    // It may have ended since it was read.
    const now = await this.get(view.id);
    return now && ended(now.state) ? 'finished' : 'started';
  }

  /**
   * Ends every wait for a result now and makes later ones return at once: their callers get 202 and
   * the job's status URL, the jobs go on (the API process is stopping).
   */
  stopWaiting(): void {
    this.stopped.resolve(undefined);
  }

  async close(): Promise<void> {
    await this.admissions.drain();
    await Promise.all(this.settling);
    await Promise.all([this.events.close(), this.queue.close()]);
  }

  /** How long what belongs to an accepted job may be needed: a job parked up to `PARK_MS`, then kept. */
  private keptSeconds(): number {
    return this.options.retentionSeconds + PARK_MS / 1000;
  }

  private async read(jobId: string, again: boolean): Promise<JobView | null> {
    let job = await this.queue.getJob(jobId);
    if (job) {
      const payload = job.data;
      if (isBatch(payload)) return null;
      const [bullState, cancelled] = await Promise.all([job.getState(), this.lanes.isCancelled(jobId)]);
      const state = normaliseState(bullState);
      if (ended(state)) {
        // It ended between the two reads: its result (or failure) is read again, not left out.
        if (!job.finishedOn) job = await this.queue.getJob(jobId);
        if (!job) return null;
      } else if (cancelled) {
        // Cancelled, and not yet ended by a worker (none may run): answered as it will end.
        return { id: jobId, state: 'failed', payload, failedReason: jobCancelled().toWire() };
      }
      return {
        id: jobId,
        state,
        payload,
        ...(job.returnvalue === null || job.returnvalue === undefined
          ? {}
          : { outcome: job.returnvalue as StoredOutcome }),
        ...(job.failedReason ? { failedReason: job.failedReason } : {}),
      };
    }
    const place = parseBatchItemId(jobId);
    if (!place) return null;
    const batch = await this.queue.getJob(place.batchId);
    const payload = batch && isBatch(batch.data) ? batch.data.batch[place.n] : undefined;
    if (!batch || !payload) return null;
    const item =
      (batch.returnvalue as BatchOutcome | null)?.items?.[place.n] ??
      (batch.progress as BatchOutcome | undefined)?.items?.[place.n];
    // Moved out between the two reads: its own job exists now (unless it is gone already).
    if (item && 'moved' in item) return again ? null : this.read(jobId, true);
    if (item && 'failed' in item) return { id: jobId, state: 'failed', payload, failedReason: item.failed };
    if (item) return { id: jobId, state: 'completed', payload, outcome: item };
    const state = normaliseState(await batch.getState());
    if (state === 'failed') return { id: jobId, state, payload, failedReason: batch.failedReason };
    return { id: jobId, state: state === 'completed' ? 'unknown' : state, payload };
  }

  /** Admits a group, adds its jobs (one pipeline), then wakes whom the admissions granted. */
  private async place(group: Submission[]): Promise<void> {
    const groupId = this.options.newJobId();
    let reads = 0;
    const members: Member[] = group.map((m) => {
      const n = m.jobId === undefined && canBatch(m.payload) ? reads++ : undefined;
      return {
        ...m,
        jobId: m.jobId ?? (n === undefined ? this.options.newJobId() : batchItemId(groupId, n)),
        n,
      };
    });
    const laned = members.filter((m) => laneOf(m.payload) !== undefined);
    let admitted: { admissions: Admission[]; wakes: Wake[] };
    try {
      admitted = await this.lanes.admit(
        laned.map((m) => ({
          lane: laneOf(m.payload) as string,
          jobId: m.jobId,
          gapped: m.payload.gapped === true,
          ...(m.payload.dedupe === undefined ? {} : { dedupeKey: m.payload.dedupe }),
        })),
      );
    } catch (error) {
      for (const m of members) m.refused(error);
      return;
    }
    const admission = new Map(laned.map((m, i) => [m, admitted.admissions[i] as Admission]));
    const accepted: { member: Member; delayMs: number }[] = [];
    const batch: Member[] = [];
    const parkedLanes = new Set<string>();
    const shares: { member: Member; jobId: string }[] = [];
    for (const m of members) {
      const a = admission.get(m) ?? { kind: 'ok', delayMs: 0 };
      if (a.kind === 'full') {
        m.refused(
          new GatewayError(
            'RATE_LIMITED',
            `${m.payload.accountId === undefined ? 'this platform account' : `account ${m.payload.accountId}`} has as many requests queued as it may have; try again later`,
            a.retryAfterSeconds,
          ),
        );
      } else if (a.kind === 'share') {
        shares.push({ member: m, jobId: a.jobId });
      } else {
        if (a.delayMs === 0 && m.n !== undefined) batch.push(m);
        if (a.delayMs === undefined) parkedLanes.add(laneOf(m.payload) as string);
        accepted.push({ member: m, delayMs: a.delayMs ?? PARK_MS });
      }
    }
    // Reads that may start now travel together; a lone one is a job of its own like the rest.
    const inBatch = new Set(batch.length > 1 ? batch : []);
    const jobs = accepted
      .filter(({ member }) => !inBatch.has(member))
      .map(({ member, delayMs }) => this.jobOf(member.jobId, member.payload, delayMs));
    if (inBatch.size > 0) {
      const slots: (JobPayload | null)[] = Array.from({ length: reads }, () => null);
      for (const m of batch) slots[m.n as number] = m.payload;
      jobs.push(this.jobOf(groupId, { batch: slots }, 0));
    }
    // Waiters are registered before the jobs exist, so a result that comes back at once is not missed.
    const waiters = accepted.map(({ member }) =>
      member.waitMs > 0 ? this.register(member.jobId) : undefined,
    );
    try {
      await this.queue.addBulk(jobs);
    } catch (error) {
      for (const waiter of waiters) waiter?.dispose();
      await this.withdraw(
        accepted.map((a) => a.member),
        inBatch.size > 0 ? groupId : undefined,
      );
      for (const { member } of accepted) member.refused(error);
      // A request sharing the job of one of these (same group) would wait for a job that never comes.
      const refused = new Set(accepted.map((a) => a.member.jobId));
      for (const { member, jobId } of shares) {
        if (refused.has(jobId)) member.refused(error);
        else member.placed({ jobId, shared: true, state: 'waiting' });
      }
      await this.wake(admitted.wakes).catch((failure: unknown) => this.options.onError?.(failure as Error));
      return;
    }
    for (const { member, jobId } of shares) member.placed({ jobId, shared: true, state: 'waiting' });
    accepted.forEach(({ member, delayMs }, i) => {
      const waiter = waiters[i];
      const state = delayMs > 0 ? 'delayed' : 'waiting';
      member.placed({ jobId: member.jobId, shared: false, state, ...(waiter ? { waiter } : {}) });
    });
    // The wake-ups go out beside the next group's admission instead of holding it back, and `close`
    // waits for them. The jobs are queued: a lost wake-up is repaired by the sweeper or the parked
    // job's own timer, so a failure is only reported.
    const settling = (async () => {
      await this.wake(admitted.wakes);
      // A slot may have freed between the admission and the add: the lanes of parked jobs look again.
      if (parkedLanes.size > 0) await this.wake(await this.lanes.kick([...parkedLanes]));
    })().catch((error: unknown) => this.options.onError?.(error as Error));
    this.settling.add(settling);
    void settling.finally(() => this.settling.delete(settling));
  }

  /** Not added (Redis failed mid-way): the lanes must not wait for jobs that will never come. */
  private async withdraw(members: Member[], batchId: string | undefined): Promise<void> {
    const batchAdded = batchId !== undefined && (await this.queue.getJob(batchId).catch(() => true));
    for (const m of members) {
      const lane = laneOf(m.payload);
      if (lane === undefined || (m.n !== undefined && batchAdded)) continue;
      if (await this.queue.getJob(m.jobId).catch(() => true)) continue;
      await this.wake(await this.lanes.withdraw(lane, m.jobId, m.payload.dedupe).catch(() => []));
    }
  }

  private jobOf(jobId: string, data: QueuedData, delayMs: number) {
    const opts: JobsOptions = {
      jobId,
      ...(delayMs > 0 ? { delay: delayMs } : {}),
      attempts: this.options.attempts,
      backoff: { type: 'jitter', delay: this.options.backoffMs },
      removeOnComplete: { age: this.options.retentionSeconds },
      removeOnFail: { age: this.options.retentionSeconds },
    };
    return { name: isBatch(data) ? 'batch' : data.op, data, opts };
  }

  /** Waits up to `waitMs` for a job someone else added; it may have finished already. */
  async follow(jobId: string, waitMs: number): Promise<WaitResult> {
    const settled = this.register(jobId);
    const until = Date.now() + waitMs;
    try {
      // Absent: its adder is about to add it; the registered waiter hears its result either way. A
      // Redis that does not answer within the wait leaves the rest of the wait to `race`.
      const view = await within(
        this.get(jobId).then((found) => found ?? 'absent'),
        Math.max(waitMs, FINAL_READ_MS),
      );
      const now: WaitResult =
        view === null
          ? { state: 'pending', jobState: 'unknown' }
          : view === 'absent'
            ? { state: 'pending', jobState: 'waiting' }
            : resultOf(view);
      if (now.state !== 'pending' || waitMs <= 0) return now;
      return await this.race(jobId, settled.promise, Math.max(0, until - Date.now()));
    } finally {
      settled.dispose();
    }
  }

  private async race(jobId: string, settled: Promise<WaitResult>, waitMs: number): Promise<WaitResult> {
    // Undefined: the process stops waiting; null: the wait ran out.
    const result = await within(Promise.race([settled, this.stopped.promise]), waitMs);
    if (result) return result;
    // Read the job once: its result may have landed between two event reads. A Redis that does not
    // answer does not hold the wait past its end: the job's state is then unknown.
    const view = await within(this.get(jobId), FINAL_READ_MS);
    return view ? resultOf(view) : { state: 'pending', jobState: 'unknown' };
  }

  private register(jobId: string): Waiter {
    const { promise, resolve: resolver } = resolvable<WaitResult>();
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

  /** A batch's requests that ended; a moved one is answered by its own job. */
  private settleItems(batchId: string, outcome: BatchOutcome): void {
    outcome.items.forEach((item, n) => {
      if (!item || 'moved' in item) return;
      const id = batchItemId(batchId, n);
      if ('failed' in item) this.settle(id, { state: 'failed', failedReason: item.failed });
      else this.settle(id, { state: 'completed', outcome: item });
    });
  }

  /** A batch job failed as a whole: its waiting requests fail with it, except those moved out. */
  private async failBatch(batchId: string, failedReason: string): Promise<void> {
    for (let n = 0; n < MAX_BATCH; n++) {
      const id = batchItemId(batchId, n);
      if (!this.waiters.has(id) || (await this.queue.getJob(id))) continue;
      this.settle(id, { state: 'failed', failedReason });
    }
  }
}

/** `promise`'s value, or null if it has not settled within `ms`. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(resolve, ms, null);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Reads run together in a batch; writes, gapped and sealed operations keep a job each. */
function canBatch(payload: JobPayload): boolean {
  return (
    payload.accountId !== undefined &&
    payload.write !== true &&
    payload.gapped !== true &&
    payload.dedupe === undefined &&
    payload.sealed === undefined
  );
}

/** Sets the delay of lane-woken jobs; a job already running or gone needs nothing. */
export async function wakeJobs(queue: Queue, wakes: Wake[]): Promise<void> {
  await Promise.all(
    wakes.map((wake) =>
      new Job(queue, 'wake', null, {}, wake.jobId).changeDelay(wake.delayMs).catch(() => undefined),
    ),
  );
}

/** The job has finished, one way or the other. */
const ended = (state: JobState) => state === 'completed' || state === 'failed';

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

/** A promise and the function that settles it (Node 20 has no `Promise.withResolvers`). */
function resolvable<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}
