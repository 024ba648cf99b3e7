export {
  type AsyncOperationName,
  type CallOptions,
  type ClientOptions,
  createClient,
  type GatewayClient,
  type Job,
  type PageItem,
  type PollOptions,
  type RetryOptions,
  retryAfterSeconds,
} from './client.js';
export {
  GatewayApiError,
  JobTimeoutError,
  type WebhookRejection,
  WebhookVerificationError,
} from './errors.js';
export {
  type EventStreamOptions,
  type SseMessage,
  SseParser,
  type StreamedEvent,
} from './events.js';
export { idempotencyKey } from './idempotency.js';
export { OPERATIONS, type OperationName } from './operations.js';
export { PAGINATION, type PagedOperationName } from './pagination.js';
export type { components, operations, paths } from './schema.js';
export type { AcceptedAnswer, ErrorBody, ErrorCode, OperationAnswer, OperationArgs } from './types.js';
export {
  isValidWebhook,
  verifyWebhook,
  WEBHOOK_TOLERANCE_SECONDS,
  type WebhookEvent,
  type WebhookHeaders,
} from './webhooks.js';
