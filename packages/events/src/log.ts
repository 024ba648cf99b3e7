import type { Redis } from 'ioredis';
import type { GatewayEvent } from './catalog';
import { type Deliveries, readStream } from './deliveries';
import { receives, type WebhookStore } from './endpoints';
import { isEventId } from './ids';
import type { EventKeys } from './keys';

/**
 * Stores an event once per id: appends it to the tenant's stream (trimmed to the retention by MINID)
 * and marks its id, both in one script (one slot: the tenant's tag). Returns [1, streamId] when
 * stored now, [0, mark] when the id was seen (the mark: the stream id, with `|f` once fanned out).
 */
const PUBLISH = `
local seen = redis.call('GET', KEYS[2])
if seen then return {0, seen} end
local id = redis.call('XADD', KEYS[1], 'MINID', '~', ARGV[3], '*', 'e', ARGV[1])
redis.call('SET', KEYS[2], id, 'PX', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return {1, id}
`;

export interface PublishInput {
  /** `eventId(parts)`: deterministic from the occurrence's identity. */
  id: string;
  event: string;
  accountId: string | null;
  /** ISO-8601; default now. */
  timestamp?: string;
  data: unknown;
  /**
   * The API request whose end the event tells (`jobs.*`): its deliveries' log lines name it. Never
   * part of the event, stored or sent.
   */
  requestId?: string | undefined;
}

export interface PublishResult {
  event: GatewayEvent;
  /** False when the id was published before: nothing stored, nothing delivered again. */
  stored: boolean;
  /** Where the event is in the tenant's log: `GET /events?cursor=` of the entry before it. */
  streamId: string;
}

export interface EventPage {
  events: GatewayEvent[];
  nextCursor: string | null;
}

/** The tenants' event logs: publish (store once, fan out to endpoints) and read back by cursor. */
export class EventLog {
  constructor(
    private readonly redis: Redis,
    private readonly keys: EventKeys,
    private readonly webhooks: WebhookStore,
    private readonly deliveries: Deliveries,
    private readonly retentionHours: number,
  ) {}

  /**
   * Appends the event to the tenant's log, once per id, and adds one delivery job per enabled
   * endpoint it matches. A repeat of an id whose fan-out did not finish (a crash in between) fans
   * out again: deliveries have derived job ids, so what was added already is not added twice.
   */
  async publish(tenantId: string, input: PublishInput): Promise<PublishResult> {
    if (!isEventId(input.id)) throw new Error(`not an event id: ${input.id} (use eventId(parts))`);
    const event: GatewayEvent = {
      id: input.id,
      event: input.event,
      accountId: input.accountId,
      timestamp: input.timestamp ?? new Date().toISOString(),
      data: input.data,
    };
    const retentionMs = this.retentionHours * 3_600_000;
    const seenKey = this.keys.seen(tenantId, event.id);
    const streamKey = this.keys.stream(tenantId);
    const [fresh, mark] = (await this.redis.eval(
      PUBLISH,
      2,
      streamKey,
      seenKey,
      JSON.stringify(event),
      retentionMs,
      Date.now() - retentionMs,
    )) as [number, string];
    const streamId = mark.replace(/\|f$/, '');
    if (fresh === 0) {
      const stored = await this.read(streamKey, streamId);
      if (!mark.endsWith('|f') && stored)
        await this.fanOut(tenantId, stored, seenKey, streamId, input.requestId);
      return { event: stored ?? event, stored: false, streamId };
    }
    await this.fanOut(tenantId, event, seenKey, streamId, input.requestId);
    return { event, stored: true, streamId };
  }

  private async fanOut(
    tenantId: string,
    event: GatewayEvent,
    seenKey: string,
    streamId: string,
    requestId: string | undefined,
  ): Promise<void> {
    const endpoints = await this.webhooks.list(tenantId);
    const targets = endpoints.filter((endpoint) => receives(endpoint, event.event, event.accountId));
    await this.deliveries.enqueue(
      tenantId,
      targets.map((endpoint) => endpoint.id),
      event,
      { requestId },
    );
    await this.redis.set(seenKey, `${streamId}|f`, 'KEEPTTL', 'XX');
  }

  private async read(streamKey: string, streamId: string): Promise<GatewayEvent | null> {
    const [entry] = await this.redis.xrange(streamKey, streamId, streamId);
    const at = entry?.[1].indexOf('e') ?? -1;
    return at === -1 ? null : (JSON.parse(entry?.[1][at + 1] ?? 'null') as GatewayEvent);
  }

  /** The tenant's events oldest first after `cursor` (a stream id; absent: from the oldest kept). */
  async page(
    tenantId: string,
    options: { cursor?: string; event?: string; accountId?: string; limit: number },
  ): Promise<EventPage> {
    const key = this.keys.stream(tenantId);
    const page = await readStream(
      (from, count) => this.redis.xrange(key, from, '+', 'COUNT', count),
      options.cursor === undefined ? '-' : `(${options.cursor}`,
      'e',
      options.limit,
      (event: GatewayEvent) =>
        (options.event === undefined || event.event === options.event) &&
        (options.accountId === undefined || event.accountId === options.accountId),
    );
    return { events: page.items, nextCursor: page.nextCursor };
  }
}

/** Whether `cursor` is one `page` answered: a stream id. */
export const isEventCursor = (cursor: string) => /^\d{1,20}-\d{1,20}$/.test(cursor);
