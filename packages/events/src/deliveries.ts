import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { GatewayEvent } from './catalog';
import { deliveryId as deliveryIdOf, isDeliveryId } from './ids';
import { type EventKeys, WEBHOOKS_QUEUE } from './keys';

/** What a delivery job carries: references only (no secret, no body). */
export interface DeliveryJob {
  tenantId: string;
  endpointId: string;
  deliveryId: string;
  /** The API request whose end the event tells (`PublishInput.requestId`), for log lines. */
  requestId?: string | undefined;
}

/** One attempt of a delivery, as `GET /webhooks/{id}/deliveries` lists it. */
export interface DeliveryAttempt {
  deliveryId: string;
  eventId: string;
  event: string;
  attempt: number;
  /** delivered (2xx); retrying (failed, another attempt is due at `nextRetryAt`); failed (no more attempts). */
  status: 'delivered' | 'retrying' | 'failed';
  httpStatus: number | null;
  error: string | null;
  durationMs: number;
  nextRetryAt: string | null;
  at: string;
  /** The response body, truncated to 1 KiB. */
  response: string;
}

/** Attempts kept per endpoint (newest). */
const MAX_ATTEMPTS_KEPT = 1_000;

export interface DeliverySettings {
  retentionHours: number;
  /** Delay before each attempt, ms: the first is the delivery's, then one per retry. */
  retrySchedule: number[];
}

/**
 * The delivery queue's producing side and the delivery records: a delivery is one (endpoint, event),
 * `dlv_…` derived from both, a BullMQ job of that id (so a repeated fan-out adds nothing), and a hash
 * holding the body to send. Attempts are appended to the endpoint's attempts stream.
 */
export class Deliveries {
  readonly queue: Queue<DeliveryJob>;

  constructor(
    private readonly redis: Redis,
    private readonly keys: EventKeys,
    private readonly settings: DeliverySettings,
  ) {
    this.queue = new Queue<DeliveryJob>(WEBHOOKS_QUEUE, { connection: redis, prefix: keys.bullmqPrefix });
    this.queue.on('error', () => undefined); // Redis away: reported once by the process (`watchRedis`)
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
    const body = JSON.stringify(event);
    const records = this.redis.pipeline();
    const jobs = endpointIds.map((endpointId) => {
      const deliveryId = deliveryIdOf(endpointId, event.id);
      const jobId = manual
        ? `${deliveryId}-m${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`
        : deliveryId;
      const key = this.keys.delivery(tenantId, endpointId, deliveryId);
      records
        .hset(key, { eventId: event.id, event: event.event, body })
        .pexpire(key, this.retentionMs)
        .sadd(this.keys.pending(tenantId, endpointId), jobId);
      return { deliveryId, jobId, endpointId };
    });
    await records.exec();
    const schedule = this.settings.retrySchedule;
    const keep = { age: Math.ceil(this.retentionMs / 1000) };
    await this.queue.addBulk(
      jobs.map(({ deliveryId, jobId, endpointId }) => ({
        name: 'deliver',
        data: { tenantId, endpointId, deliveryId, requestId },
        opts: {
          jobId,
          attempts: manual ? 1 : schedule.length,
          delay: manual ? 0 : (schedule[0] ?? 0),
          backoff: { type: 'webhook' },
          removeOnComplete: keep,
          removeOnFail: keep,
        },
      })),
    );
    return jobs.map((job) => job.deliveryId);
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

  /** Drops delivery jobs that have not run (an endpoint removed); a running one finds it gone. */
  async drop(jobIds: string[]): Promise<void> {
    await Promise.all(jobIds.map((id) => this.queue.remove(id).catch(() => 0)));
  }

  /** Appends an attempt to the endpoint's history (newest kept). */
  record(tenantId: string, endpointId: string, attempt: DeliveryAttempt) {
    return this.redis.xadd(
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
    options: { cursor?: string; status?: string; limit: number },
  ): Promise<{ attempts: DeliveryAttempt[]; nextCursor: string | null }> {
    const key = this.keys.attempts(tenantId, endpointId);
    const page = await readStream(
      (from, count) => this.redis.xrevrange(key, from, '-', 'COUNT', count),
      options.cursor === undefined ? '+' : `(${options.cursor}`,
      'a',
      options.limit,
      (attempt: DeliveryAttempt) => options.status === undefined || attempt.status === options.status,
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
