import type { LookupFunction } from 'node:net';
import type { EgressPlan, GatewayConfig, Logger } from '@cg/config';
import type { Events } from '@cg/events';
import type { ProxyHealth } from '@cg/platform-access';
import type { OperationsQueue } from '@cg/queue';
import type { Keyring } from '@cg/secrets';
import type { ApiKeyInfo, Redis, Store, UsageCounter } from '@cg/store';
import type { AuditTrail } from './audit';
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
  | 'EVENT_STREAM_HEARTBEAT_MS'
  | 'EVENT_STREAM_MAX_BUFFER_BYTES'
  | 'MEDIA_SPOOL_DIR'
  | 'MEDIA_MAX_BYTES'
  | 'MEDIA_CDN_URLS'
  | 'REDIS_PREFIX'
  | 'USAGE_ENABLED'
  | 'AUDIT_ENABLED'
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
  /** Which of them are down. */
  proxies: ProxyHealth;
  /** The metrics (metrics.ts); none when `METRICS_ENABLED` is false. */
  metrics?: ApiMetricsSetup;
  /** Where this process counts usage (usage.ts); none when `USAGE_ENABLED` is false. */
  usage?: UsageCounter;
  /** Where this process writes the audit log (audit.ts); none when `AUDIT_ENABLED` is false. */
  audit?: AuditTrail;
  /** Resolves webhook URLs' host names when they are stored (default `dns.lookup`; a test's stub). */
  webhookLookup?: LookupFunction | undefined;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The tenant of the caller's API key, set by the auth hook. */
    tenantId: string;
    /** The caller's API key (never the key itself: its id, label and scope), set by the auth hook. */
    apiKey: ApiKeyInfo;
    /** The service account the request acts on, once resolved (submit.ts); for usage and the audit log. */
    accountId: string | null;
    /** The job that answers the request, once there is one (answers.ts); for the audit log. */
    jobId: string | null;
  }
}
