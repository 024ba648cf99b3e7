import { GatewayError } from '@cg/contract';
import { type Job, type JobsOptions, Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import {
  batchItem,
  batchItemId,
  batchOfGroup,
  canBatch,
  endedItems,
  isBatch,
  MAX_BATCH,
  parseBatchItemId,
} from './batch';
import { Coalescer } from './coalesce';
import { jobCancelled } from './failure';
import { IdempotencyKeys } from './idempotency';
import { OPERATIONS_QUEUE, queueKeys } from './keys';
import { type Admission, LANE_LEASE_MS, type LaneSettings, Lanes, type Wake } from './lanes';
import { type BatchOutcome, type JobPayload, laneOf, type QueuedData, type StoredOutcome } from './payload';
import {
  ended,
  type JobState,
  type JobView,
  normaliseState,
  resolvable,
  resultOf,
  type Waiter,
  Waiters,
  type WaitResult,
  within,
} from './results';
import { TenantJobs } from './tenant-jobs';
import { PARK_MS, wakeJobs } from './wake';

/** BullMQ's key prefix of the queue's jobs: `queueKeys(prefix).jobPrefix` (test/e2e/cancel.test.ts imports it). */
export const jobKeyPrefix = (prefix: string) => queueKeys(prefix).jobPrefix;

/** How long a wait that ended reads its job before answering it pending, state unknown. */
const FINAL_READ_MS = 1_000;

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
  /**
   * Note each tenant's jobs in its index (`tenantJobs`, `GET /jobs`): the API's queue does; one that
   * queues jobs of its own (the listener's backfills) does not.
   */
  indexJobs?: boolean;
  /** A failure after the requests were accepted (waking other jobs): they are safe; it is logged. */
  onError?: (error: Error) => void;
  /** Told of each request the queue's events say ended (in every process that listens). */
  onEnded?: (jobId: string, result: WaitResult) => void;
}

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

/** A request of a group, with its job id; `n`: its number in the group's batch, if it may join one. */
type Member = Submission & { jobId: string; n: number | undefined };

/** A member its lane accepted, to start after `delayMs` (`PARK_MS`: parked until woken). */
type Accepted = { member: Member; delayMs: number };

/** A member that shares the job `jobId` of an identical pending request. */
type Share = { member: Member; jobId: string };

/**
 * The API's side of the queue: admit to the account's lane, enqueue, wait for a result, read a job.
 *
 * Requests are admitted in groups: while one group's admission and add are on their way to Redis,
 * the next requests gather, and go together as soon as it is back (no timer: a lone request goes at
 * once). A group costs one admission script and one pipelined add whatever its size, and the reads
 * of it that their lanes let start now travel as one BullMQ job, a batch (batch.ts).
 */
export class OperationsQueue {
  readonly queue: Queue<QueuedData, StoredOutcome | BatchOutcome>;
  readonly lanes: Lanes;
  /** Callers' `Idempotency-Key`s: which job answers a repeated write. */
  readonly idempotency: IdempotencyKeys;
  /** Each tenant's recent jobs, newest first (written only with `indexJobs`). */
  readonly tenantJobs: TenantJobs;
  private readonly events: QueueEvents;
  private readonly waiters = new Waiters();
  /** Requests gather here while the admission of the ones before them is on its way. */
  private readonly admissions = new Coalescer<Submission>((group) => this.place(group), MAX_BATCH);
  /** Wake-ups that groups send after their jobs are added, until they are back. */
  private readonly settling = new Set<Promise<void>>();
  /** Resolved by `stopWaiting`. */
  private readonly stopped = resolvable<undefined>();

  constructor(private readonly options: QueueOptions) {
    const keys = queueKeys(options.prefix);
    this.queue = new Queue(OPERATIONS_QUEUE, { connection: options.redis, prefix: keys.bullmqPrefix });
    // Without a listener BullMQ prints each of its connection's errors with console.error: one stack
    // per reconnect attempt while Redis is away, which `watchRedis` already reports once.
    this.queue.on('error', () => undefined);
    this.lanes = new Lanes(options.redis, keys, options.lanes);
    this.idempotency = new IdempotencyKeys(options.redis, keys, this.keptSeconds(), LANE_LEASE_MS);
    this.tenantJobs = new TenantJobs(options.redis, options.prefix, this.keptSeconds() * 1000);
    this.events = this.listen(keys.bullmqPrefix);
  }

  /**
   * One event reader per process, whatever the number of waiting requests: results are dispatched
   * to in-process waiters by job id instead of one Redis subscription per request.
   */
  private listen(prefix: string): QueueEvents {
    const connection = this.options.redis.duplicate();
    // While Redis is away every reconnect attempt errs; the process's own connection reports it once
    // (`watchRedis`), so these are not reported again.
    connection.on('error', () => undefined);
    const events = new QueueEvents(OPERATIONS_QUEUE, { connection, prefix, autorun: true });
    events.on('error', () => undefined);
    events.on('completed', ({ jobId, returnvalue }) => {
      const value = returnvalue as unknown as StoredOutcome | BatchOutcome;
      if ('items' in value) this.settleItems(jobId, value);
      else this.ended(jobId, { state: 'completed', outcome: value });
    });
    // A batch reports requests that ended while others run, so a quick one is not held by a slow one.
    events.on('progress', ({ jobId, data }) => {
      if (typeof data === 'object' && data !== null && 'items' in data)
        this.settleItems(jobId, data as unknown as BatchOutcome);
    });
    events.on('failed', ({ jobId, failedReason }) => {
      this.ended(jobId, { state: 'failed', failedReason });
      this.failBatch(jobId, failedReason).catch((error: unknown) => this.options.onError?.(error as Error));
    });
    return events;
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
    const gapped = view.payload.gapped === true;
    const done = await this.lanes.cancel(lane, view.id, view.payload.dedupe, this.keptSeconds(), gapped);
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

  /** `again`: a second look, after the request moved out of its batch between two reads. */
  private async read(jobId: string, again: boolean): Promise<JobView | null> {
    const job = await this.queue.getJob(jobId);
    if (job) return isBatch(job.data) ? null : this.readJob(job as Job<JobPayload>);
    return this.readBatchItem(jobId, again);
  }

  /** A job of its own. */
  private async readJob(found: Job<JobPayload>): Promise<JobView | null> {
    const jobId = found.id as string;
    const payload = found.data;
    let job: Job<JobPayload> | undefined = found;
    const [bullState, cancelled] = await Promise.all([job.getState(), this.lanes.isCancelled(jobId)]);
    const state = normaliseState(bullState);
    if (ended(state)) {
      // It ended between the two reads: its result (or failure) is read again, not left out.
      if (!job.finishedOn) job = (await this.queue.getJob(jobId)) as Job<JobPayload> | undefined;
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

  /** A request's place in a batch: its outcome once it ended, else the batch's state. */
  private async readBatchItem(jobId: string, again: boolean): Promise<JobView | null> {
    const place = parseBatchItemId(jobId);
    if (!place) return null;
    const batch = await this.queue.getJob(place.batchId);
    const found = batch && batchItem(batch, place.n);
    if (!batch || !found) return null;
    const { payload, outcome } = found;
    // Moved out between the two reads: its own job exists now (unless it is gone already).
    if (outcome && 'moved' in outcome) return again ? null : this.read(jobId, true);
    if (outcome && 'failed' in outcome)
      return { id: jobId, state: 'failed', payload, failedReason: outcome.failed };
    if (outcome) return { id: jobId, state: 'completed', payload, outcome };
    const state = normaliseState(await batch.getState());
    if (state === 'failed') return { id: jobId, state, payload, failedReason: batch.failedReason };
    return { id: jobId, state: state === 'completed' ? 'unknown' : state, payload };
  }

  /** Admits a group, adds its jobs (one pipeline), then wakes whom the admissions granted. */
  private async place(group: Submission[]): Promise<void> {
    const groupId = this.options.newJobId();
    const { members, reads } = this.assignIds(group, groupId);
    const admitted = await this.admit(members);
    if (!admitted) return;
    const { accepted, shares, parkedLanes } = this.sortOut(members, admitted.admissions);
    // Reads that may start now travel together; a lone one is a job of its own like the rest.
    const batch = batchOfGroup(accepted, reads);
    const jobs = accepted
      .filter(({ member }) => !batch?.members.has(member))
      .map(({ member, delayMs }) => this.jobOf(member.jobId, member.payload, delayMs));
    if (batch) jobs.push(this.jobOf(groupId, batch.payload, 0));
    // Waiters are registered before the jobs exist, so a result that comes back at once is not missed.
    const waiters = accepted.map(({ member }) =>
      member.waitMs > 0 ? this.waiters.register(member.jobId) : undefined,
    );
    // Beside the add (one round trip): an entry whose add fails is left out when the index is read.
    const indexed = this.index(accepted);
    try {
      await this.queue.addBulk(jobs);
      await indexed;
    } catch (error) {
      for (const waiter of waiters) waiter?.dispose();
      await this.notAdded(error, { accepted, shares, wakes: admitted.wakes }, batch ? groupId : undefined);
      return;
    }
    for (const { member, jobId } of shares) member.placed({ jobId, shared: true, state: 'waiting' });
    accepted.forEach(({ member, delayMs }, i) => {
      const waiter = waiters[i];
      const state = delayMs > 0 ? 'delayed' : 'waiting';
      member.placed({ jobId: member.jobId, shared: false, state, ...(waiter ? { waiter } : {}) });
    });
    this.wakeAfterAdd(admitted.wakes, parkedLanes);
  }

  /** Notes the accepted requests in their tenants' indexes (`indexJobs`); a failure is only reported. */
  private index(accepted: Accepted[]): Promise<void> {
    if (!this.options.indexJobs || accepted.length === 0) return Promise.resolve();
    const jobs = accepted.map(({ member: { jobId, payload } }) => ({
      tenantId: payload.tenantId,
      jobId,
      op: payload.op,
      accountId: payload.accountId,
      at: payload.at,
    }));
    return this.tenantJobs.add(jobs).catch((error: unknown) => this.options.onError?.(error as Error));
  }

  /**
   * The group's requests with their job ids: the one a request must have, else a new one, or, for a
   * read that may join the group's batch, its place in it (`n`, `reads` of them).
   */
  private assignIds(group: Submission[], groupId: string): { members: Member[]; reads: number } {
    let reads = 0;
    const members = group.map((m) => {
      const n = m.jobId === undefined && canBatch(m.payload) ? reads++ : undefined;
      return {
        ...m,
        jobId: m.jobId ?? (n === undefined ? this.options.newJobId() : batchItemId(groupId, n)),
        n,
      };
    });
    return { members, reads };
  }

  /**
   * The lanes' answers for the group (one script): by member, those with a lane; and the wake-ups
   * of other jobs they granted. Undefined when Redis failed: every member is refused.
   */
  private async admit(
    members: Member[],
  ): Promise<{ admissions: Map<Member, Admission>; wakes: Wake[] } | undefined> {
    const laned = members.filter((m) => laneOf(m.payload) !== undefined);
    try {
      const admitted = await this.lanes.admit(
        laned.map((m) => ({
          lane: laneOf(m.payload) as string,
          jobId: m.jobId,
          gapped: m.payload.gapped === true,
          ...(m.payload.dedupe === undefined ? {} : { dedupeKey: m.payload.dedupe }),
        })),
      );
      const admissions = new Map(laned.map((m, i) => [m, admitted.admissions[i] as Admission]));
      return { admissions, wakes: admitted.wakes };
    } catch (error) {
      for (const m of members) m.refused(error);
      return undefined;
    }
  }

  /**
   * What the admissions make of the members: a full lane refuses its member (429), a shared job
   * answers its, the others are accepted (those without a lane at once); `parkedLanes`, the lanes
   * of the parked ones.
   */
  private sortOut(
    members: Member[],
    admissions: Map<Member, Admission>,
  ): { accepted: Accepted[]; shares: Share[]; parkedLanes: Set<string> } {
    const accepted: Accepted[] = [];
    const shares: Share[] = [];
    const parkedLanes = new Set<string>();
    for (const m of members) {
      const a = admissions.get(m) ?? { kind: 'ok', delayMs: 0 };
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
        if (a.delayMs === undefined) parkedLanes.add(laneOf(m.payload) as string);
        accepted.push({ member: m, delayMs: a.delayMs ?? PARK_MS });
      }
    }
    return { accepted, shares, parkedLanes };
  }

  /**
   * The group's add failed: its accepted requests are refused and leave their lanes, and so are the
   * requests sharing their jobs; the wake-ups the admissions granted still go out.
   */
  private async notAdded(
    error: unknown,
    { accepted, shares, wakes }: { accepted: Accepted[]; shares: Share[]; wakes: Wake[] },
    batchId: string | undefined,
  ): Promise<void> {
    await this.withdraw(
      accepted.map((a) => a.member),
      batchId,
    );
    for (const { member } of accepted) member.refused(error);
    // A request sharing the job of one of these (same group) would wait for a job that never comes.
    const refused = new Set(accepted.map((a) => a.member.jobId));
    for (const { member, jobId } of shares) {
      if (refused.has(jobId)) member.refused(error);
      else member.placed({ jobId, shared: true, state: 'waiting' });
    }
    await this.wake(wakes).catch((failure: unknown) => this.options.onError?.(failure as Error));
  }

  /**
   * The wake-ups go out beside the next group's admission instead of holding it back, and `close`
   * waits for them. The jobs are queued: a lost wake-up is repaired by the sweeper or the parked
   * job's own timer, so a failure is only reported.
   */
  private wakeAfterAdd(wakes: Wake[], parkedLanes: Set<string>): void {
    const settling = (async () => {
      await this.wake(wakes);
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
      const gapped = m.payload.gapped === true;
      await this.wake(await this.lanes.withdraw(lane, m.jobId, m.payload.dedupe, gapped).catch(() => []));
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
    const settled = this.waiters.register(jobId);
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

  /** A batch's requests that ended; a moved one is answered by its own job. */
  private settleItems(batchId: string, outcome: BatchOutcome): void {
    for (const { jobId, item } of endedItems(batchId, outcome)) {
      if ('failed' in item) this.ended(jobId, { state: 'failed', failedReason: item.failed });
      else this.ended(jobId, { state: 'completed', outcome: item });
    }
  }

  private ended(jobId: string, result: WaitResult): void {
    this.waiters.settle(jobId, result);
    this.options.onEnded?.(jobId, result);
  }

  // ---- job callbacks: requests answered 202, whose end becomes a jobs.completed / jobs.failed event

  /** Notes a request answered 202: its end is to be told as an event. */
  async awaitCallback(jobId: string): Promise<void> {
    await this.options.redis.zadd(queueKeys(this.options.prefix).callbacks, Date.now(), jobId);
  }

  /** Takes a noted request's callback: true for the one process that gets to tell it. */
  async claimCallback(jobId: string): Promise<boolean> {
    return (await this.options.redis.zrem(queueKeys(this.options.prefix).callbacks, jobId)) === 1;
  }

  /** Noted requests waiting at least `ms` (their end may have been missed: they are looked at). */
  callbacksOlderThan(ms: number, limit: number): Promise<string[]> {
    return this.options.redis.zrangebyscore(
      queueKeys(this.options.prefix).callbacks,
      '-inf',
      Date.now() - ms,
      'LIMIT',
      0,
      limit,
    );
  }

  /** A batch job failed as a whole: its waiting requests fail with it, except those moved out. */
  private async failBatch(batchId: string, failedReason: string): Promise<void> {
    for (let n = 0; n < MAX_BATCH; n++) {
      const id = batchItemId(batchId, n);
      if (!this.waiters.has(id) || (await this.queue.getJob(id))) continue;
      this.waiters.settle(id, { state: 'failed', failedReason });
    }
  }
}
