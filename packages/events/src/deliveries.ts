import { Lanes, PARK_MS, type Wake, wakeJobs } from '@cg/queue';
import { Queue } from 'bullmq';
import type { ChainableCommander, Redis } from 'ioredis';
import { deliveryId as deliveryIdOf, isDeliveryId } from './ids';
import { type EventKeys, WEBHOOKS_QUEUE } from './keys';
import type { DeliveryAttempt, GatewayEvent } from './records';

/** What a delivery job carries: references only (no secret, no body). */
export interface DeliveryJob {
  tenantId: string;
  endpointId: string;
  deliveryId: string;
  /** The API request whose end the event tells (`PublishInput.requestId`), for log lines. */
  requestId?: string | undefined;
}

/** Attempts kept per endpoint (newest). */
const MAX_ATTEMPTS_KEPT = 1_000;

export interface DeliverySettings {
  retentionHours: number;
  /** Delay before each attempt, ms: the first is the delivery's, then one per retry. */
  retrySchedule: number[];
  /** Deliveries of one endpoint in flight at once, across all processes: its lane's slots. */
  endpointConcurrency: number;
  /** A 2xx must come within this long; a slot is leased for 5 s more. */
  timeoutMs: number;
}

/** A delivery job to add: its delivery, its job id (a manual one has its own) and its endpoint. */
type NewJob = { deliveryId: string; jobId: string; endpointId: string };

/**
 * The delivery queue's producing side and the delivery records: a delivery is one (endpoint, event),
 * `dlv_…` derived from both, a BullMQ job of that id (so a repeated fan-out adds nothing), and a hash
 * holding the body to send. Attempts are appended to the endpoint's attempts stream.
 *
 * Each endpoint has a lane (packages/queue `Lanes`, docs/scheduling.md "Webhook endpoints"), named by
 * its id, with `endpointConcurrency` slots leased for an attempt's time (`timeoutMs` + 5 s), and
 * neither pacing nor a backlog bound: a delivery due now is admitted to it before its job is added,
 * granted a slot (its job added to start now) or parked (its job added delayed by `PARK_MS`, its id
 * in the lane's wait list) until a release wakes it.
 */
export class Deliveries {
  readonly queue: Queue<DeliveryJob>;
  readonly lanes: Lanes;

  constructor(
    private readonly redis: Redis,
    private readonly keys: EventKeys,
    private readonly settings: DeliverySettings,
  ) {
    this.queue = new Queue<DeliveryJob>(WEBHOOKS_QUEUE, { connection: redis, prefix: keys.bullmqPrefix });
    this.queue.on('error', () => undefined); // Redis away: reported once by the process (`watchRedis`)
    this.lanes = new Lanes(redis, keys.lanes, {
      concurrency: settings.endpointConcurrency,
      intervalMs: 0,
      gapMs: 0,
      maxBacklog: Number.MAX_SAFE_INTEGER,
      // A slot a dead process held (or whose wake-up it took along) comes back this soon.
      leaseMs: settings.timeoutMs + 5_000,
    });
  }

  private get retentionMs(): number {
    return this.settings.retentionHours * 3_600_000;
  }

  /**
   * One delivery of `event` per endpoint, each a job; `manual`: one attempt, now, under a job id of its
   * own (a test event, or a caller's retry of a delivery); `requestId`: for the deliveries' log lines.
   */
  async enqueue(
    tenantId: string,
    endpointIds: string[],
    event: GatewayEvent,
    { manual = false, requestId }: { manual?: boolean; requestId?: string | undefined } = {},
  ): Promise<string[]> {
    if (endpointIds.length === 0) return [];
    const all = endpointIds.map((endpointId) => {
      const deliveryId = deliveryIdOf(endpointId, event.id);
      const jobId = manual
        ? `${deliveryId}-m${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`
        : deliveryId;
      return { deliveryId, jobId, endpointId };
    });
    const jobs = manual ? all : await this.notQueued(all);
    if (jobs.length > 0) await this.add(tenantId, jobs, event, manual, requestId);
    return all.map((job) => job.deliveryId);
  }

  /**
   * The deliveries of a repeated fan-out whose jobs exist are left out: admitted again, a job would
   * wait twice in its lane, or hold a slot that its ended job never gives back.
   */
  private async notQueued(jobs: NewJob[]): Promise<NewJob[]> {
    const read = this.redis.pipeline();
    for (const { jobId } of jobs) read.exists(this.queue.toKey(jobId));
    const exists = (await read.exec()) ?? [];
    return jobs.filter((_job, i) => exists[i]?.[1] !== 1);
  }

  /**
   * Stores the deliveries' records, then adds their jobs: one due now (a manual one, or a first
   * attempt without delay) is admitted to its endpoint's lane first, and its job added granted or
   * parked; one due later waits its delay in BullMQ and asks its lane when it wakes, as a retry does.
   */
  private async add(
    tenantId: string,
    jobs: NewJob[],
    event: GatewayEvent,
    manual: boolean,
    requestId: string | undefined,
  ): Promise<void> {
    const body = JSON.stringify(event);
    const records = this.redis.pipeline();
    for (const { deliveryId, jobId, endpointId } of jobs) {
      const key = this.keys.delivery(tenantId, endpointId, deliveryId);
      records
        .hset(key, { eventId: event.id, event: event.event, accountId: event.accountId ?? '', body })
        .pexpire(key, this.retentionMs)
        .sadd(this.keys.pending(tenantId, endpointId), jobId);
    }
    await records.exec();
    const schedule = this.settings.retrySchedule;
    const first = manual ? 0 : (schedule[0] ?? 0);
    const admitted = first === 0 ? await this.admit(jobs) : undefined;
    const keep = { age: Math.ceil(this.retentionMs / 1000) };
    try {
      await this.queue.addBulk(
        jobs.map(({ deliveryId, jobId, endpointId }, i) => ({
          name: 'deliver',
          data: { tenantId, endpointId, deliveryId, requestId },
          opts: {
            jobId,
            attempts: manual ? 1 : schedule.length,
            delay: admitted ? (admitted.delays[i] ?? PARK_MS) : first,
            backoff: { type: 'webhook' },
            removeOnComplete: keep,
            removeOnFail: keep,
          },
        })),
      );
    } catch (error) {
      if (admitted) await this.withdraw(jobs);
      throw error;
    }
    if (admitted) await this.wakeAfterAdd(jobs, admitted);
  }

  /**
   * Admits the jobs to their endpoints' lanes (one script): each one's delay, granted (0: now) or
   * undefined (parked); and the wake-ups of other jobs the admissions granted.
   */
  private async admit(jobs: NewJob[]): Promise<{ delays: (number | undefined)[]; wakes: Wake[] }> {
    const { admissions, wakes } = await this.lanes.admit(
      jobs.map(({ jobId, endpointId }) => ({ lane: endpointId, jobId, gapped: false })),
    );
    // Neither `share` nor `full`: deliveries share no job, and a lane of them has no backlog bound.
    const delays = admissions.map((admission) => (admission.kind === 'ok' ? admission.delayMs : undefined));
    return { delays, wakes };
  }

  /**
   * The jobs are added: the wake-ups the admissions granted go out, and the lanes of parked ones
   * look again (a slot may have freed between the admission and the add, its release finding the
   * parked job not there yet).
   */
  private async wakeAfterAdd(
    jobs: NewJob[],
    { delays, wakes }: { delays: (number | undefined)[]; wakes: Wake[] },
  ): Promise<void> {
    const parked = new Set(jobs.filter((_job, i) => delays[i] === undefined).map((job) => job.endpointId));
    await wakeJobs(this.queue, wakes);
    if (parked.size > 0) await wakeJobs(this.queue, await this.lanes.kick([...parked]));
  }

  /** Not added (Redis failed mid-way): the lanes must not wait for jobs that never come. */
  private async withdraw(jobs: NewJob[]): Promise<void> {
    for (const { jobId, endpointId } of jobs) {
      if (await this.queue.getJob(jobId).catch(() => true)) continue;
      await wakeJobs(
        this.queue,
        await this.lanes.withdraw(endpointId, jobId, undefined, false).catch(() => []),
      );
    }
  }

  /**
   * A delivery's event again, now, as one attempt, for the API request `requestId`; null when the
   * delivery is unknown (or expired).
   */
  async retry(
    tenantId: string,
    endpointId: string,
    deliveryId: string,
    requestId?: string,
  ): Promise<GatewayEvent | null> {
    if (!isDeliveryId(deliveryId)) return null;
    const body = await this.redis.hget(this.keys.delivery(tenantId, endpointId, deliveryId), 'body');
    if (body === null) return null;
    const event = JSON.parse(body) as GatewayEvent;
    await this.enqueue(tenantId, [endpointId], event, { manual: true, requestId });
    return event;
  }

  /**
   * Drops the delivery jobs of a removed endpoint that are not running, then its lane; a running one
   * finds the endpoint gone.
   */
  async drop(endpointId: string, jobIds: string[]): Promise<void> {
    await Promise.all(jobIds.map((id) => this.queue.remove(id).catch(() => 0)));
    await this.lanes.forget(endpointId, { forGood: true });
  }

  /** Appends an attempt to the endpoint's history (newest kept), in `write` (a MULTI of the tenant's keys). */
  record(write: ChainableCommander, tenantId: string, endpointId: string, attempt: DeliveryAttempt) {
    return write.xadd(
      this.keys.attempts(tenantId, endpointId),
      'MAXLEN',
      '~',
      MAX_ATTEMPTS_KEPT,
      '*',
      'a',
      JSON.stringify(attempt),
    );
  }

  /** Attempts newest first, older than `cursor` (a stream id), optionally of one status. */
  async attempts(
    tenantId: string,
    endpointId: string,
    options: {
      cursor?: string;
      status?: string;
      /** Only these accounts' attempts (a scoped key's); absent: every attempt. */
      accounts?: readonly string[] | undefined;
      limit: number;
    },
  ): Promise<{ attempts: DeliveryAttempt[]; nextCursor: string | null }> {
    const key = this.keys.attempts(tenantId, endpointId);
    const page = await readStream(
      (from, count) => this.redis.xrevrange(key, from, '-', 'COUNT', count),
      options.cursor === undefined ? '+' : `(${options.cursor}`,
      'a',
      options.limit,
      (attempt: DeliveryAttempt) =>
        (options.status === undefined || attempt.status === options.status) &&
        (options.accounts === undefined ||
          (typeof attempt.accountId === 'string' && options.accounts.includes(attempt.accountId))),
    );
    return { attempts: page.items, nextCursor: page.nextCursor };
  }

  close(): Promise<void> {
    return this.queue.close();
  }
}

/** Entries a page reads at most while filtering (the rest is the next page's, by its cursor). */
const MAX_SCANNED = 5_000;

/**
 * A page of `limit` entries of a stream, read in `read`'s order from `from` (exclusive bound given
 * as `(id`), keeping those `keep` accepts. `nextCursor` is the last entry looked at, null at the end.
 */
export async function readStream<T>(
  read: (from: string, count: number) => Promise<[string, string[]][]>,
  from: string,
  field: string,
  limit: number,
  keep: (item: T) => boolean,
): Promise<{ items: T[]; nextCursor: string | null }> {
  const items: T[] = [];
  let start = from;
  let scanned = 0;
  const batch = Math.min(Math.max(limit * 2, 100), 1_000);
  while (scanned < MAX_SCANNED) {
    const entries = await read(start, batch);
    for (const [id, fields] of entries) {
      scanned++;
      const at = fields.indexOf(field);
      const item = JSON.parse(fields[at + 1] ?? 'null') as T;
      if (!keep(item)) continue;
      items.push(item);
      if (items.length === limit) {
        // More after this one? Only a look ahead tells.
        const more = await read(`(${id}`, 1);
        return { items, nextCursor: more.length > 0 ? id : null };
      }
    }
    if (entries.length < batch) return { items, nextCursor: null };
    start = `(${entries[entries.length - 1]?.[0]}`;
  }
  return { items, nextCursor: start.slice(1) };
}
