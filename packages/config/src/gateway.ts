import { type Static, Type } from 'typebox';
import { Int, parseEnv } from './env';

/** About now, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
const DEFAULT_RETRY_SCHEDULE = '0,5000,300000,1800000,7200000,18000000,36000000,36000000';

/**
 * Every setting of the gateway's processes (API and worker), with its default. This is the only
 * place that names environment variables; apps call `loadGatewayConfig(process.env)` once at start.
 */
export const GatewayEnv = Type.Object({
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((level) => Type.Literal(level)),
    { default: 'info', description: 'pino level' },
  ),
  LOG_PRETTY: Type.Boolean({
    default: false,
    description: 'true: log lines as text for people (pino-pretty, development); false: JSON lines',
  }),
  HOST: Type.String({
    default: '127.0.0.1',
    description: 'bind address of the API, and of METRICS_PORT in the other processes',
  }),
  PORT: Int(3000, 'API port', 0, 65_535),
  PUBLIC_URL: Type.Optional(
    Type.String({ description: 'base URL used in job status links; default from the request' }),
  ),
  REDIS_URL: Type.String({ default: 'redis://127.0.0.1:6379' }),
  REDIS_CLUSTER_NODES: Type.Optional(
    Type.String({
      description:
        'comma-separated seeds of a Redis Cluster (host:port, or redis://user:password@host:port for all nodes); set: REDIS_URL is not used',
    }),
  ),
  REDIS_PREFIX: Type.String({
    default: 'cg',
    pattern: '^[A-Za-z0-9_-]+$',
    description: 'namespace of every Redis key (queue keys are hash-tagged for Cluster)',
  }),
  PLATFORM_SLUG: Type.String({
    default: 'fansly',
    pattern: '^[a-z0-9-]+$',
    description: 'path word /api/{slug}',
  }),
  PLATFORM_URL: Type.String({
    default: 'http://127.0.0.1:4010',
    description: 'platform (or sandbox) base URL',
  }),
  PLATFORM_MEDIA_URL: Type.Optional(
    Type.String({
      description: "the platform's media upload host (https://mediav2.fansly.com); unset = PLATFORM_URL",
    }),
  ),
  MEDIA_CDN_URLS: Type.String({
    default: 'https://cdn*.fansly.com/',
    description:
      "comma-separated URL prefixes POST /media/download may fetch (the platform's CDN); * stands for any letters or digits in a host name",
  }),
  MEDIA_SPOOL_DIR: Type.String({
    default: '/tmp/creator-gateway-spool',
    description: 'folder media uploads and downloads pass through; the API and the workers must share it',
  }),
  MEDIA_MAX_BYTES: Int(
    524_288_000,
    'largest media upload or download (bytes); an upload is answered 413 as it passes it, sent chunked or not, and its connection closed',
    1,
  ),
  MEDIA_SPOOL_SWEEP_MS: Int(30_000, 'how often a worker removes spool files whose job has ended', 100),
  PLATFORM_CHECK_KEY: Type.Optional(
    Type.String({ description: 'fansly-client-check key; client default if unset' }),
  ),
  PLATFORM_TIMEOUT_MS: Int(15_000, 'per upstream request', 100),
  PLATFORM_CONNECTIONS: Int(
    256,
    'sockets one worker process may open to the platform (keep >= WORKER_CONCURRENCY)',
    1,
  ),
  ENCRYPTION_KEY: Type.String({
    minLength: 1,
    description: 'base64 32-byte AES-256-GCM key; or a keyring "kid:base64,kid2:base64" (first one encrypts)',
  }),
  ADMIN_USER: Type.String({ default: 'admin' }),
  ADMIN_PASSWORD: Type.Optional(
    Type.String({ minLength: 8, description: 'Bull Board at /admin/queues; unset = off' }),
  ),
  GATEWAY_BOOTSTRAP_API_KEY: Type.Optional(
    // Stored as an unsalted hash like every key: it must be random, not a word a person picked.
    Type.String({ minLength: 32, description: 'random, 32 characters or more' }),
  ),
  GATEWAY_BOOTSTRAP_TENANT: Type.String({ default: 'default' }),
  API_KEY_CACHE_MS: Int(
    1_000,
    'how long the API trusts a key it looked up: a revocation or a change of scope takes effect within it (at most 1 s)',
    0,
    1_000,
  ),
  API_KEY_RPM_DEFAULT: Int(
    0,
    'requests a minute an API key may make (each clock minute, across all API processes) when made without --rpm, and for keys made before limits existed; 0 = unlimited',
  ),
  AUTH_FAILURE_THRESHOLD: Int(
    10,
    'failed authentications one source address may make within AUTH_FAILURE_WINDOW_MS before its further failures are slowed',
    1,
  ),
  AUTH_FAILURE_WINDOW_MS: Int(
    60_000,
    'the window failed authentications are counted in, per source address',
    1_000,
  ),
  AUTH_FAILURE_MAX_DELAY_MS: Int(
    5_000,
    'the longest a failed authentication past the threshold waits before its 401 (the wait doubles per failure from 250 ms)',
  ),
  TRUST_PROXY: Type.Optional(
    Type.String({
      description:
        'the load balancers in front of the API, whose X-Forwarded-For/-Proto/-Host are believed (comma-separated addresses or CIDRs, or loopback, linklocal, uniquelocal); unset: the peer is the client',
    }),
  ),
  HEADERS_TIMEOUT_MS: Int(
    15_000,
    'a request whose line and headers have not all arrived this long is closed (408)',
    1_000,
  ),
  BODY_IDLE_TIMEOUT_MS: Int(
    15_000,
    'a request body from which no byte arrives this long is closed (408); a slow but moving upload is not',
    1_000,
  ),
  REQUEST_TIMEOUT_MS: Int(
    900_000,
    'the longest a whole request (headers and body, e.g. a media upload) may take to arrive; 0 = no bound',
  ),
  READY_DRAIN_MS: Int(
    0,
    'SIGTERM: how long the API keeps serving with /readyz at 503 before it stops taking connections (let load balancers see it)',
  ),
  ACCOUNT_CACHE_MS: Int(5_000, 'how long the API trusts that an account it looked up is connected'),
  SYNC_WAIT_MS: Int(25_000, 'how long a request waits for its job before answering 202'),
  JOB_RETENTION_SECONDS: Int(86_400, 'finished jobs stay readable at /jobs/{id} this long', 60),
  WORKER_CONCURRENCY: Int(64, 'jobs one worker process runs at once', 1),
  JOB_ATTEMPTS: Int(4, 'attempts for retryable failures (first try included)', 1),
  JOB_BACKOFF_MS: Int(500, 'base of the exponential backoff', 10),
  SHUTDOWN_GRACE_MS: Int(
    10_000,
    'SIGTERM: how long in-flight jobs (worker) and synchronous waits (API, then 202) may take to finish',
  ),
  WORKER_LOCK_MS: Int(
    4_000,
    'a job whose worker stops renewing its lock this long is taken over by another (a killed worker: within about 1.5 × this)',
    1_000,
  ),
  ACCOUNT_CONCURRENCY: Int(2, 'platform calls in flight per connected account, across all workers', 1),
  ACCOUNT_RATE_PER_MINUTE: Int(300, 'platform calls started per account per minute, evenly spaced', 1),
  MEDIA_STATS_GAP_MS: Int(60_000, 'least time between two chat media-stats calls of one account'),
  ACCOUNT_MAX_BACKLOG: Int(1_000, 'unfinished requests one account may have queued; beyond: 429', 1),
  EGRESS_PROXIES: Type.Optional(
    Type.String({
      description:
        'JSON {"US": ["http://user:pass@host:port", ...], ...}: the proxies of each country; unset = direct',
    }),
  ),
  EGRESS_PROXIES_FILE: Type.Optional(
    Type.String({ description: 'a file holding the EGRESS_PROXIES JSON, read at start' }),
  ),
  EGRESS_FALLBACK: Type.Union([Type.Literal('none'), Type.Literal('direct')], {
    default: 'none',
    description: "when a country's proxies are all down: none = wait (503), direct = go direct",
  }),
  EGRESS_FAILURES: Int(3, 'proxy-layer failures within the window that mark a proxy down', 1),
  EGRESS_FAILURE_WINDOW_MS: Int(30_000, 'the window those failures are counted in', 1),
  EGRESS_COOLDOWN_MS: Int(60_000, 'how long a proxy marked down is left out', 1),
  EVENT_RETENTION_HOURS: Int(
    72,
    'events stay readable at GET /events (and deliveries retryable) this long',
    1,
  ),
  EVENT_STREAM_HEARTBEAT_MS: Int(
    15_000,
    'GET /events/stream: every open stream gets a comment line (`: ping`) this often, so that idle connections stay open and a dead one is noticed',
    100,
  ),
  EVENT_STREAM_MAX_BUFFER_BYTES: Int(
    1_048_576,
    'GET /events/stream: a client that stops reading is disconnected once this many bytes wait for it in the API process (it resumes from its last id on reconnecting)',
    1_024,
  ),
  WEBHOOK_TIMEOUT_MS: Int(10_000, 'a delivery counts when a 2xx arrives within this long', 100),
  WEBHOOK_RETRY_SCHEDULE: Type.String({
    default: DEFAULT_RETRY_SCHEDULE,
    pattern: '^\\s*\\d{1,10}(\\s*,\\s*\\d{1,10}){0,49}\\s*$',
    description:
      'delay before each delivery attempt, comma-separated ms: the first attempt, then one per retry; then given up',
  }),
  WEBHOOK_DISABLE_AFTER_HOURS: Int(72, 'an endpoint whose every attempt failed this long is disabled', 1),
  WEBHOOK_ALLOW_PRIVATE: Type.Boolean({
    default: false,
    description: 'true: webhook URLs may be http and private, loopback or link-local (local stacks only)',
  }),
  WEBHOOK_CONCURRENCY: Int(32, 'deliveries one webhooks process sends at once', 1),
  WEBHOOK_ENDPOINT_CONCURRENCY: Int(
    2,
    'deliveries of one endpoint in flight at once, across all processes',
    1,
  ),
  PLATFORM_WS_URL: Type.String({
    default: 'wss://wsv3.fansly.com/?v=3',
    description: "the platform's realtime websocket (the local stack: the sandbox's)",
  }),
  LISTENER_FAILOVER_MS: Int(
    15_000,
    'an account whose listener died is held again by another within this long',
    1_500,
  ),
  LISTENER_CAPACITY: Int(2_000, 'realtime connections one listener process holds at most', 1),
  LISTENER_ROTATE_MS: Int(
    600_000,
    'a connection is handed back to any listener this often (rebalancing)',
    1_000,
  ),
  LISTENER_PING_MS: Int(20_000, 'keepalive ping interval of a realtime connection', 100),
  LISTENER_BACKFILL_PAGE: Int(
    100,
    'items one backfill page asks the platform for; a backfill reads 25 pages at most of each list (README “Webhooks and events”)',
    1,
    100,
  ),
  METRICS_ENABLED: Type.Boolean({
    default: true,
    description: 'false: no metrics at all (no /metrics, no METRICS_PORT, nothing measured)',
  }),
  METRICS_PORT: Int(
    0,
    'worker, listener and webhooks processes: port of their own GET /metrics (0 = none); the API serves /metrics on PORT',
    0,
    65_535,
  ),
  METRICS_TOKEN: Type.Optional(
    Type.String({
      minLength: 16,
      description:
        'set: GET /metrics asks for it as a bearer token (Authorization: Bearer …), API and METRICS_PORT',
    }),
  ),
  USAGE_ENABLED: Type.Boolean({
    default: true,
    description:
      'false: this process counts no usage (GET /usage still answers what was counted); each process counts in memory and writes about once a second, so one that dies loses at most its last second',
  }),
  AUDIT_ENABLED: Type.Boolean({
    default: true,
    description:
      'false: the API writes no audit entries (GET /audit still answers those kept); on, every answered write and admin action is one entry, kept 90 days',
  }),
});
export type GatewayConfig = Static<typeof GatewayEnv>;

/** The per-account scheduling settings (packages/queue `LaneSettings`) from the configuration. */
export function laneSettings(config: GatewayConfig) {
  return {
    concurrency: config.ACCOUNT_CONCURRENCY,
    intervalMs: Math.ceil(60_000 / config.ACCOUNT_RATE_PER_MINUTE),
    gapMs: config.MEDIA_STATS_GAP_MS,
    maxBacklog: config.ACCOUNT_MAX_BACKLOG,
  };
}

/** What the operations queue is built with (packages/queue `QueueOptions`), besides Redis and ids. */
export function queueSettings(config: GatewayConfig) {
  return {
    prefix: config.REDIS_PREFIX,
    retentionSeconds: config.JOB_RETENTION_SECONDS,
    attempts: config.JOB_ATTEMPTS,
    backoffMs: config.JOB_BACKOFF_MS,
    lanes: laneSettings(config),
  };
}

/** The event log's and the webhooks' settings (packages/events `WebhookSettings`) from the configuration. */
export function webhookSettings(config: GatewayConfig) {
  return {
    retentionHours: config.EVENT_RETENTION_HOURS,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    retrySchedule: config.WEBHOOK_RETRY_SCHEDULE.split(',').map((ms) => Number(ms.trim())),
    disableAfterHours: config.WEBHOOK_DISABLE_AFTER_HOURS,
    allowPrivate: config.WEBHOOK_ALLOW_PRIVATE,
    concurrency: config.WEBHOOK_CONCURRENCY,
    endpointConcurrency: config.WEBHOOK_ENDPOINT_CONCURRENCY,
    lockMs: config.WORKER_LOCK_MS,
    stream: {
      heartbeatMs: config.EVENT_STREAM_HEARTBEAT_MS,
      maxBufferedBytes: config.EVENT_STREAM_MAX_BUFFER_BYTES,
    },
  };
}

export function loadGatewayConfig(env: Record<string, string | undefined>): GatewayConfig {
  return parseEnv(GatewayEnv, env);
}
