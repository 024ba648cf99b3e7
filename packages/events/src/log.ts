import { defineScripts, type Scripted, type UsageRecorder } from '@cg/store';
import type { Redis } from 'ioredis';
import { type Deliveries, readStream } from './deliveries';
import { receives, type WebhookStore } from './endpoints';
import { isEventId } from './ids';
import type { EventKeys } from './keys';
import type { GatewayEvent } from './records';

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
  /**
   * The id of the API key whose request the event tells (a job's end, a connection, a disconnection),
   * for the usage counted; never part of the event. Absent (the listener's events): counted under
   * the event's account only.
   */
  keyId?: string | undefined;
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
  private readonly scripts: Scripted<'event_publish'>;

  constructor(
    private readonly redis: Redis,
    private readonly keys: EventKeys,
    private readonly webhooks: WebhookStore,
    private readonly deliveries: Deliveries,
    private readonly retentionHours: number,
    private readonly usage?: UsageRecorder,
  ) {
    this.scripts = defineScripts(redis, new URL('./lua/', import.meta.url), { 'event-publish': 2 });
  }

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
    const [fresh, mark] = (await this.scripts.event_publish(
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
    // Counted once per event stored: a repeat of its id (a listener's backfill, a retry) is not.
    this.usage?.add(tenantId, input.keyId, event.accountId, 'eventsPublished');
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
    options: {
      cursor?: string;
      event?: string;
      accountId?: string;
      /** Only these accounts' events (a scoped key's); absent: every event. */
      accounts?: readonly string[] | undefined;
      limit: number;
    },
  ): Promise<EventPage> {
    const key = this.keys.stream(tenantId);
    const page = await readStream(
      (from, count) => this.redis.xrange(key, from, '+', 'COUNT', count),
      options.cursor === undefined ? '-' : `(${options.cursor}`,
      'e',
      options.limit,
      (event: GatewayEvent) =>
        (options.event === undefined || event.event === options.event) &&
        (options.accountId === undefined || event.accountId === options.accountId) &&
        (options.accounts === undefined ||
          (event.accountId !== null && options.accounts.includes(event.accountId))),
    );
    return { events: page.items, nextCursor: page.nextCursor };
  }
}
