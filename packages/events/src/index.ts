export { type AccountEventName, accountEvent } from './account-events';
export { EVENT_NAMES, type EventName, isEventName, TEST_EVENT } from './catalog';
export type { DeliveryJob } from './deliveries';
export { destinationProblem } from './destination';
export {
  type DeliveryCounters,
  type EndpointInput,
  type EndpointPatch,
  ROTATION_OVERLAP_MS,
} from './endpoints';
export { createEvents, type Events, type PublishEvent, type WebhookSettings } from './events';
export {
  EventFeed,
  type FeedEndReason,
  type FeedSettings,
  type FeedSink,
  type FeedSubscription,
  isStreamId,
  type SubscribeOptions,
} from './feed';
export { eventId, isEndpointId } from './ids';
export { type EventKeys, eventKeys, WEBHOOKS_QUEUE } from './keys';
export type { EventPage, PublishInput, PublishResult } from './log';
export { DeliveryAttempt, GatewayEvent, WebhookEndpoint } from './records';
export { SIGNATURE_TOLERANCE_S, signatureHeader, verifyWebhook, webhookHeaders } from './signing';
export { type DeliveryObserver, type DeliveryWorker, startDeliveryWorker } from './worker';
