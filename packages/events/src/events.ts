import type { LookupFunction } from 'node:net';
import type { Keyring } from '@cg/secrets';
import type { UsageRecorder } from '@cg/store';
import type { Redis } from 'ioredis';
import { Deliveries } from './deliveries';
import { WebhookStore } from './endpoints';
import { EventFeed, type FeedSettings } from './feed';
import { eventKeys } from './keys';
import { EventLog, type PublishInput, type PublishResult } from './log';

/** The webhook and event-log settings (packages/config `webhookSettings`). */
export interface WebhookSettings {
  /** Events (and delivery records) are kept this long. */
  retentionHours: number;
  /** A 2xx must come within this long. */
  timeoutMs: number;
  /** Delay before each attempt (ms): the first attempt's, then one per retry. */
  retrySchedule: number[];
  /** An endpoint whose every attempt failed for this long is disabled. */
  disableAfterHours: number;
  /** http and private destinations allowed (the local stack). */
  allowPrivate: boolean;
  /** Resolves the endpoints' host names for the deliveries (default `dns.lookup`; a test's stub). */
  lookup?: LookupFunction | undefined;
  /** Deliveries one process runs at once. */
  concurrency: number;
  /** Deliveries of one endpoint in flight at once, across all processes. */
  endpointConcurrency: number;
  /** A delivery whose process stops renewing its lock this long is taken over by another. */
  lockMs: number;
  /** The live event streams' heartbeat and drop bound (`EventFeed`); default 15 s and 1 MiB. */
  stream?: FeedSettings | undefined;
}

const DEFAULT_STREAM: FeedSettings = { heartbeatMs: 15_000, maxBufferedBytes: 1_048_576 };

/** Where a process that makes events puts them (`Events.publishEvent`). */
export type PublishEvent = (tenantId: string, event: PublishInput) => Promise<unknown>;

/** The event log, the endpoints and the delivery queue of one gateway prefix. */
export interface Events {
  keys: ReturnType<typeof eventKeys>;
  log: EventLog;
  webhooks: WebhookStore;
  deliveries: Deliveries;
  /**
   * The live streams of the tenants' logs in this process (`GET /events/stream`): no Redis
   * connection of its own until a first subscriber comes.
   */
  feed: EventFeed;
  /** Stores `event` in the tenant's log once per id and queues its deliveries. */
  publishEvent(tenantId: string, event: PublishInput): Promise<PublishResult>;
  close(): Promise<void>;
}

/** `usage`: where the events this process publishes are counted (none: not counted). */
export function createEvents(
  redis: Redis,
  prefix: string,
  keyring: Keyring,
  settings: WebhookSettings,
  usage?: UsageRecorder,
): Events {
  const keys = eventKeys(prefix);
  const webhooks = new WebhookStore(redis, keys, keyring);
  const deliveries = new Deliveries(redis, keys, settings);
  const log = new EventLog(redis, keys, webhooks, deliveries, settings.retentionHours, usage);
  const feed = new EventFeed(redis, keys, settings.stream ?? DEFAULT_STREAM);
  return {
    keys,
    log,
    webhooks,
    deliveries,
    feed,
    publishEvent: (tenantId, event) => log.publish(tenantId, event),
    close: async () => {
      feed.close();
      await deliveries.close();
    },
  };
}
