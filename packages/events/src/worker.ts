import { DelayedError, type Job, UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { DeliveryAttempt, DeliveryJob } from './deliveries';
import { eventId } from './ids';
import type { Events, WebhookSettings } from './index';
import { WEBHOOKS_QUEUE } from './keys';
import { postWebhook } from './post';
import { webhookHeaders } from './signing';

/**
 * Takes a slot of an endpoint's in-flight deliveries (a lease: a crashed process's slot comes back
 * when it ends). KEYS: inflight ZSET. ARGV: now, lease end, limit, job id. 1 taken, 0 full.
 */
const ACQUIRE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZSCORE', KEYS[1], ARGV[4]) or redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[3]) then
  redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
  redis.call('PEXPIREAT', KEYS[1], ARGV[2])
  return 1
end
return 0
`;

/** How long a delivery whose endpoint is busy waits before it looks again (plus jitter). */
const BUSY_DELAY_MS = 200;

/** What the webhooks process's metrics learn of deliveries (plain callbacks: no metrics library here). */
export interface DeliveryObserver {
  /** A delivery's first attempt is being sent, `waitedMs` after it was queued. */
  started?(waitedMs: number): void;
  /** An attempt ended: delivered, failed and retried later, or failed for good (given up, disabled). */
  attempted?(status: DeliveryAttempt['status'], durationMs: number): void;
}

export interface DeliveryWorker {
  worker: Worker<DeliveryJob>;
  close(force?: boolean): Promise<void>;
}

/**
 * The delivery process: BullMQ's worker of the `webhooks` queue. A job POSTs its event to its endpoint,
 * signed with the endpoint's live secrets; any failure but a 410 is retried on the schedule (BullMQ's
 * attempts and backoff), so a job is kept until delivered or given up, and a job whose process died
 * is taken over by another (stalled-job recovery): at least once. At most `endpointConcurrency`
 * deliveries of one endpoint run at once across all processes; a job over it waits in BullMQ's
 * delayed set without holding a slot of the process, so a slow endpoint does not hold up others.
 */
export function startDeliveryWorker(
  redis: Redis,
  events: Events,
  settings: WebhookSettings,
  log: { warn: (fields: object, message: string) => void },
  observer?: DeliveryObserver,
): DeliveryWorker {
  const { keys, webhooks, deliveries } = events;
  const schedule = settings.retrySchedule;
  const leaseMs = settings.timeoutMs + 5_000;

  const process = async (job: Job<DeliveryJob>, token?: string): Promise<string> => {
    const { tenantId, endpointId, deliveryId } = job.data;
    const jobId = job.id ?? deliveryId;
    const pending = keys.pending(tenantId, endpointId);
    const target = await webhooks.target(tenantId, endpointId);
    const record = await redis.hgetall(keys.delivery(tenantId, endpointId, deliveryId));
    if (!target?.endpoint.enabled || !record.body || !record.eventId) {
      await redis.srem(pending, jobId);
      return 'dropped';
    }
    const now = Date.now();
    const inflight = keys.inflight(tenantId, endpointId);
    const taken = await redis.eval(
      ACQUIRE,
      1,
      inflight,
      now,
      now + leaseMs,
      settings.endpointConcurrency,
      jobId,
    );
    if (taken !== 1) {
      await job.moveToDelayed(now + BUSY_DELAY_MS + Math.floor(Math.random() * BUSY_DELAY_MS), token);
      throw new DelayedError();
    }
    if (job.attemptsMade === 0) observer?.started?.(now - job.timestamp);
    const result = await postWebhook(
      target.endpoint.url,
      record.body,
      webhookHeaders(target.secrets, record.eventId, record.body),
      settings,
    ).finally(() => redis.zrem(inflight, jobId));

    const delivered = result.status !== null && result.status >= 200 && result.status < 300;
    const gone = result.status === 410;
    const failingSince = delivered ? null : (target.failingSince ?? now);
    const failingTooLong =
      failingSince !== null && Date.now() - failingSince >= settings.disableAfterHours * 3_600_000;
    const attemptsLeft = (job.opts.attempts ?? 1) - job.attemptsMade - 1;
    const retrying = !delivered && !gone && !failingTooLong && attemptsLeft > 0;
    const attempt: DeliveryAttempt = {
      deliveryId,
      eventId: record.eventId,
      event: record.event ?? '',
      attempt: await redis.hincrby(keys.delivery(tenantId, endpointId, deliveryId), 'attempts', 1),
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
    observer?.attempted?.(attempt.status, result.durationMs);
    const endpointKey = keys.endpoint(tenantId, endpointId);
    // The endpoint may have been removed meanwhile: nothing of it is written again.
    if ((await redis.exists(endpointKey)) === 0) return 'dropped';
    await deliveries.record(tenantId, endpointId, attempt);
    const counters = redis.multi();
    if (delivered) counters.hincrby(endpointKey, 'delivered', 1).hdel(endpointKey, 'failingSince');
    else counters.hincrby(endpointKey, 'failedAttempts', 1).hsetnx(endpointKey, 'failingSince', String(now));
    if (!retrying) counters.srem(pending, jobId);
    if (!delivered && !retrying) counters.hincrby(endpointKey, 'givenUp', 1);
    await counters.exec();
    if (delivered) return 'delivered';
    if (gone || failingTooLong) {
      const reason = gone
        ? 'the endpoint answered 410 Gone'
        : `every attempt failed for ${settings.disableAfterHours} h`;
      await webhooks.disable(tenantId, endpointId, reason);
      log.warn(
        { endpointId, tenantId, requestId: job.data.requestId },
        `webhook endpoint disabled: ${reason}`,
      );
      // Said in the log too (and to the tenant's other endpoints that take it).
      await events.publishEvent(tenantId, {
        id: eventId(['webhooks.disabled', endpointId, now]),
        event: 'webhooks.disabled',
        accountId: null,
        data: { endpointId, reason },
      });
      throw new UnrecoverableError(reason);
    }
    throw new Error(attempt.error ?? 'delivery failed');
  };

  const worker = new Worker<DeliveryJob>(WEBHOOKS_QUEUE, process, {
    connection: redis,
    prefix: keys.bullmqPrefix,
    concurrency: settings.concurrency,
    autorun: false,
    settings: { backoffStrategy: (attemptsMade: number) => schedule[attemptsMade] ?? schedule.at(-1) ?? 0 },
    // A process that died mid-delivery: its jobs are taken over after the lock (at least once).
    lockDuration: settings.lockMs,
    stalledInterval: Math.max(500, Math.floor(settings.lockMs / 2)),
    maxStalledCount: 10,
  });
  return {
    worker,
    close: async (force = false) => {
      await worker.close(force);
    },
  };
}
