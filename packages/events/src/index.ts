import type { Keyring } from '@cg/secrets';
import type { Redis } from 'ioredis';
import { Deliveries } from './deliveries';
import { WebhookStore } from './endpoints';
import { eventKeys } from './keys';
import { EventLog, type PublishInput, type PublishResult } from './log';

export { type AccountEventName, accountEvent } from './account-events';
export { EVENT_NAMES, type EventName, type GatewayEvent, isEventName, TEST_EVENT } from './catalog';
export type { DeliveryAttempt, DeliveryJob } from './deliveries';
export { isPrivateAddress, urlProblem } from './destination';
export {
  type DeliveryCounters,
  type EndpointInput,
  type EndpointPatch,
  ROTATION_OVERLAP_MS,
  type WebhookEndpoint,
} from './endpoints';
export { eventId, isEndpointId } from './ids';
export { type EventKeys, eventKeys, WEBHOOKS_QUEUE } from './keys';
export { type EventPage, isEventCursor, type PublishInput, type PublishResult } from './log';
export { SIGNATURE_TOLERANCE_S, signatureHeader, verifyWebhook, webhookHeaders } from './signing';
export { type DeliveryObserver, type DeliveryWorker, startDeliveryWorker } from './worker';

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
  /** Deliveries one process runs at once. */
  concurrency: number;
  /** Deliveries of one endpoint in flight at once, across all processes. */
  endpointConcurrency: number;
  /** A delivery whose process stops renewing its lock this long is taken over by another. */
  lockMs: number;
}

/** Where a process that makes events puts them (`Events.publishEvent`). */
export type PublishEvent = (tenantId: string, event: PublishInput) => Promise<unknown>;

/** The event log, the endpoints and the delivery queue of one gateway prefix. */
export interface Events {
  keys: ReturnType<typeof eventKeys>;
  log: EventLog;
  webhooks: WebhookStore;
  deliveries: Deliveries;
  /** Stores `event` in the tenant's log once per id and queues its deliveries. */
  publishEvent(tenantId: string, event: PublishInput): Promise<PublishResult>;
  close(): Promise<void>;
}

export function createEvents(
  redis: Redis,
  prefix: string,
  keyring: Keyring,
  settings: WebhookSettings,
): Events {
  const keys = eventKeys(prefix);
  const webhooks = new WebhookStore(redis, keys, keyring);
  const deliveries = new Deliveries(redis, keys, settings);
  const log = new EventLog(redis, keys, webhooks, deliveries, settings.retentionHours);
  return {
    keys,
    log,
    webhooks,
    deliveries,
    publishEvent: (tenantId, event) => log.publish(tenantId, event),
    close: () => deliveries.close(),
  };
}
