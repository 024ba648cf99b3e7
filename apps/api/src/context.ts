import type { EgressPlan, GatewayConfig, Logger } from '@cg/config';
import type { Events } from '@cg/events';
import type { OperationsQueue } from '@cg/queue';
import type { Keyring } from '@cg/secrets';
import type { Redis, Store } from '@cg/store';
import type { ApiMetricsSetup } from './metrics';

export type ApiConfig = Pick<
  GatewayConfig,
  | 'PLATFORM_SLUG'
  | 'SYNC_WAIT_MS'
  | 'PUBLIC_URL'
  | 'ADMIN_USER'
  | 'ADMIN_PASSWORD'
  | 'LOG_LEVEL'
  | 'API_KEY_CACHE_MS'
  | 'API_KEY_RPM_DEFAULT'
  | 'AUTH_FAILURE_THRESHOLD'
  | 'AUTH_FAILURE_WINDOW_MS'
  | 'AUTH_FAILURE_MAX_DELAY_MS'
  | 'TRUST_PROXY'
  | 'HEADERS_TIMEOUT_MS'
  | 'BODY_IDLE_TIMEOUT_MS'
  | 'REQUEST_TIMEOUT_MS'
  | 'ACCOUNT_CACHE_MS'
  | 'WEBHOOK_ALLOW_PRIVATE'
  | 'MEDIA_SPOOL_DIR'
  | 'MEDIA_MAX_BYTES'
  | 'MEDIA_CDN_URLS'
>;

/** Everything the API's routes need, built once by `createApi`. */
export interface ApiContext {
  config: ApiConfig;
  redis: Redis;
  store: Store;
  queue: OperationsQueue;
  /** The event log, the webhook endpoints and the delivery queue. */
  events: Events;
  keyring: Keyring;
  logger: Logger;
  /** The egress proxies (null: direct), for the countries a login may name. */
  egress: EgressPlan | null;
  /** The metrics (metrics.ts); none when `METRICS_ENABLED` is false. */
  metrics?: ApiMetricsSetup;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The tenant of the caller's API key, set by the auth hook. */
    tenantId: string;
  }
}
