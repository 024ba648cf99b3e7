import { type Claim, PARK_MS, SettlingWorker, stalledOut, WorkerLanes } from '@cg/queue';
import { DelayedError, type Job, UnrecoverableError } from 'bullmq';
import type { Redis } from 'ioredis';
import type { DeliveryJob } from './deliveries';
import type { DeliveryTarget } from './endpoints';
import type { Events, WebhookSettings } from './events';
import { eventId } from './ids';
import { WEBHOOKS_QUEUE } from './keys';
import { postWebhook } from './post';
import type { DeliveryAttempt } from './records';
import { webhookHeaders } from './signing';

/**
 * How often the lanes are swept for slots a dead process held, once their leases ended (crash
 * recovery, not scheduling).
 */
const SWEEP_EVERY_MS = 5_000;

/** What the webhooks process's metrics learn of deliveries (plain callbacks: no metrics library here). */
export interface DeliveryObserver {
  /** A delivery's first attempt is being sent, `waitedMs` after it was queued. */
  started?(waitedMs: number): void;
  /**
   * An attempt ended: delivered, failed and retried later, or failed for good (given up, disabled);
   * `delivery` says whose (the event's account, `null` for none; an old record's: unknown).
   */
  attempted?(
    status: DeliveryAttempt['status'],
    durationMs: number,
    delivery: { tenantId: string; accountId: string | null },
  ): void;
}

export interface DeliveryWorker {
  worker: SettlingWorker<DeliveryJob, string>;
  /** Takes deliveries, and sweeps the endpoints' lanes for slots a dead process held, until closed. */
  run(): Promise<void>;
  close(force?: boolean): Promise<void>;
}

/**
 * The delivery process: BullMQ's worker of the `webhooks` queue. A job POSTs its event to its endpoint,
 * signed with the endpoint's live secrets; any failure but a 410 is retried on the schedule (BullMQ's
 * attempts and backoff), so a job is kept until delivered or given up, and a job whose process died
 * is taken over by another (stalled-job recovery, in the slot it held): at least once.
 *
 * At most `endpointConcurrency` deliveries of one endpoint run at once across all processes: each
 * attempt runs in a slot of its endpoint's lane (`Deliveries`). A delivery that finds none (a retry
 * after its backoff, a first attempt after its delay) parks: it waits in BullMQ's delayed set, holding
 * nothing of a process, until a release wakes it; so a slow or flooded endpoint holds up no other.
 */
export function startDeliveryWorker(
  redis: Redis,
  events: Events,
  settings: WebhookSettings,
  log: DeliveryLog,
  observer?: DeliveryObserver,
): DeliveryWorker {
  const delivering = new Delivering(redis, events, settings, log, observer);
  const { worker, lanes } = delivering;
  return { worker, ...lanes.running(worker, SWEEP_EVERY_MS) };
}

type DeliveryLog = { warn: (fields: object, message: string) => void };

/** What one attempt's answer comes to. */
interface Verdict {
  delivered: boolean;
  /** The endpoint answered 410: it is disabled. */
  gone: boolean;
  /** Every attempt failed for `disableAfterHours`: the endpoint is disabled. */
  failingTooLong: boolean;
  /** Failed, and another attempt follows on the schedule. */
  retrying: boolean;
}

/** The worker and what its attempts do: claim a slot, POST, record the attempt, give the slot back. */
class Delivering {
  readonly lanes: WorkerLanes;
  readonly worker: SettlingWorker<DeliveryJob, string>;

  constructor(
    private readonly redis: Redis,
    private readonly events: Events,
    private readonly settings: WebhookSettings,
    private readonly log: DeliveryLog,
    private readonly observer: DeliveryObserver | undefined,
  ) {
    const { deliveries, keys } = events;
    this.lanes = new WorkerLanes(deliveries.lanes, deliveries.queue, (error) => {
      this.worker.emit('error', error);
    });
    const schedule = settings.retrySchedule;
    this.worker = new SettlingWorker<DeliveryJob, string>(
      WEBHOOKS_QUEUE,
      (job, token) => this.deliver(job, token),
      {
        connection: redis,
        prefix: keys.bullmqPrefix,
        concurrency: settings.concurrency,
        autorun: false,
        settings: {
          backoffStrategy: (attemptsMade: number) => schedule[attemptsMade] ?? schedule.at(-1) ?? 0,
        },
        // A process that died mid-delivery: its jobs are taken over after the lock (at least once).
        lockDuration: settings.lockMs,
        stalledInterval: Math.max(500, Math.floor(settings.lockMs / 2)),
        maxStalledCount: 10,
      },
    );
    // BullMQ fails a job taken back from dead processes too often without running it: its slot is
    // given back now rather than when its lease runs out.
    this.worker.on('failed', (job, error) => {
      if (job?.id !== undefined && stalledOut(error))
        void this.lanes.release({ lane: job.data.endpointId, jobId: job.id, final: true });
    });
  }

  /**
   * One attempt: its lane's claim beside the reads, then the POST in the slot, given back with what
   * the attempt came to. A delivery that will run again (a retry) waits for its release, so that its
   * next attempt never meets a late one freeing the slot it holds then; a last one's goes out after
   * the run (WorkerLanes).
   */
  private async deliver(job: Job<DeliveryJob>, token?: string): Promise<string> {
    const { tenantId, endpointId, deliveryId } = job.data;
    const jobId = job.id ?? deliveryId;
    const claimed = this.lanes.claim([{ lane: endpointId, jobId, gapped: false }]);
    const reads = Promise.all([
      this.events.webhooks.target(tenantId, endpointId),
      this.redis.hgetall(this.events.keys.delivery(tenantId, endpointId, deliveryId)),
    ]);
    // Awaited in the slot, or not at all when the delivery waits (or its claim failed).
    reads.catch(() => undefined);
    const [claim] = await claimed;
    if (claim?.kind !== 'run') return this.wait(job, token, claim);
    let ends = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    try {
      const [target, record] = await reads;
      const result = await this.send(job, jobId, target, record);
      ends = true;
      return result;
    } catch (error) {
      if (error instanceof UnrecoverableError) ends = true;
      throw error;
    } finally {
      await this.lanes.release({ lane: endpointId, jobId, final: ends });
    }
  }

  /**
   * No slot now: the job waits in BullMQ's delayed set, which costs no attempt (`DelayedError`).
   * Parked, it is queued in its lane again only once this worker is done with this run
   * (`SettlingWorker`); its id is then at the front of the lane's wait list, and the next release
   * wakes it. (Deliveries are never cancelled, and a lane without pacing grants no later start.)
   */
  private async wait(
    job: Job<DeliveryJob>,
    token: string | undefined,
    claim: Claim | undefined,
  ): Promise<never> {
    await job.moveToDelayed(Date.now() + (claim?.kind === 'delay' ? claim.delayMs : PARK_MS), token);
    if (claim?.kind === 'park') {
      const { endpointId } = job.data;
      this.worker.afterRun(job, () => this.lanes.requeue(endpointId, job.id ?? '', false));
    }
    throw new DelayedError();
  }

  /** POSTs the delivery and records the attempt; throws when it failed (retried, unless it ended). */
  private async send(
    job: Job<DeliveryJob>,
    jobId: string,
    target: DeliveryTarget | null,
    record: Record<string, string>,
  ): Promise<string> {
    const { tenantId, endpointId } = job.data;
    if (!target?.endpoint.enabled || !record.body || !record.eventId) {
      await this.redis.srem(this.events.keys.pending(tenantId, endpointId), jobId);
      return 'dropped';
    }
    const now = Date.now();
    if (job.attemptsMade === 0) this.observer?.started?.(now - job.timestamp);
    const result = await postWebhook(
      target.endpoint.url,
      record.body,
      webhookHeaders(target.secrets, record.eventId, record.body),
      this.settings,
    );
    const verdict = this.judge(job, result.status, target.failingSince ?? now);
    const attempt = await this.recordAttempt(job, jobId, record, result, verdict, now);
    if (attempt === undefined) return 'dropped';
    if (verdict.delivered) return 'delivered';
    if (verdict.gone || verdict.failingTooLong) await this.disable(job, verdict.gone, now);
    throw new Error(attempt.error ?? 'delivery failed');
  }

  /** What an answer of `status` comes to for this job, its endpoint failing since `failingSince`. */
  private judge(job: Job<DeliveryJob>, status: number | null, failingSince: number): Verdict {
    const delivered = status !== null && status >= 200 && status < 300;
    const gone = status === 410;
    const failingTooLong =
      !delivered && Date.now() - failingSince >= this.settings.disableAfterHours * 3_600_000;
    const attemptsLeft = (job.opts.attempts ?? 1) - job.attemptsMade - 1;
    return {
      delivered,
      gone,
      failingTooLong,
      retrying: !delivered && !gone && !failingTooLong && attemptsLeft > 0,
    };
  }

  /**
   * Writes the attempt and the endpoint's counters in one MULTI; undefined, writing nothing, when the
   * endpoint was removed meanwhile.
   */
  private async recordAttempt(
    job: Job<DeliveryJob>,
    jobId: string,
    record: Record<string, string>,
    result: Awaited<ReturnType<typeof postWebhook>>,
    { delivered, retrying }: Verdict,
    now: number,
  ): Promise<DeliveryAttempt | undefined> {
    const { tenantId, endpointId, deliveryId } = job.data;
    const { keys, deliveries } = this.events;
    const endpointKey = keys.endpoint(tenantId, endpointId);
    const [number, present] = await Promise.all([
      this.redis.hincrby(keys.delivery(tenantId, endpointId, deliveryId), 'attempts', 1),
      this.redis.exists(endpointKey),
    ]);
    const schedule = this.settings.retrySchedule;
    const attempt: DeliveryAttempt = {
      deliveryId,
      eventId: record.eventId ?? '',
      event: record.event ?? '',
      accountId: record.accountId || null,
      attempt: number,
      status: delivered ? 'delivered' : retrying ? 'retrying' : 'failed',
      httpStatus: result.status,
      error: result.error ?? (delivered ? null : `HTTP ${result.status}`),
      durationMs: result.durationMs,
      nextRetryAt: retrying
        ? new Date(Date.now() + (schedule[job.attemptsMade + 1] ?? 0)).toISOString()
        : null,
      at: new Date(now).toISOString(),
      response: result.response,
    };
    this.observer?.attempted?.(attempt.status, result.durationMs, {
      tenantId,
      accountId: attempt.accountId,
    });
    if (present === 0) return undefined;
    const counters = deliveries.record(this.redis.multi(), tenantId, endpointId, attempt);
    if (delivered) counters.hincrby(endpointKey, 'delivered', 1).hdel(endpointKey, 'failingSince');
    else counters.hincrby(endpointKey, 'failedAttempts', 1).hsetnx(endpointKey, 'failingSince', String(now));
    if (!retrying) counters.srem(keys.pending(tenantId, endpointId), jobId);
    if (!delivered && !retrying) counters.hincrby(endpointKey, 'givenUp', 1);
    await counters.exec();
    return attempt;
  }

  /** Disables the endpoint (410 Gone, or failing too long), says so in the log and as an event. */
  private async disable(job: Job<DeliveryJob>, gone: boolean, now: number): Promise<never> {
    const { tenantId, endpointId, requestId } = job.data;
    const reason = gone
      ? 'the endpoint answered 410 Gone'
      : `every attempt failed for ${this.settings.disableAfterHours} h`;
    await this.events.webhooks.disable(tenantId, endpointId, reason);
    this.log.warn({ endpointId, tenantId, requestId }, `webhook endpoint disabled: ${reason}`);
    // Said in the log too (and to the tenant's other endpoints that take it).
    await this.events.publishEvent(tenantId, {
      id: eventId(['webhooks.disabled', endpointId, now]),
      event: 'webhooks.disabled',
      accountId: null,
      data: { endpointId, reason },
    });
    throw new UnrecoverableError(reason);
  }
}
