/**
 * Every metric family of the gateway, defined once: name, help, labels, buckets. A process builds the
 * families it reports into a registry of its own (metrics.ts); the dashboard (deploy/grafana) and the
 * docs (docs/deployment.md, "Metrics") read these names.
 *
 * Labels take values from small fixed sets only: route patterns, methods, status codes, queue and job
 * states, operation and endpoint names, outcome words. Never a tenant, account, job or key id: a label
 * per account would make a series per account (hundreds of creators, each a thousand series), and
 * would put ids where every dashboard viewer reads them. Per-account questions are answered by
 * distributions (`cg_lane_backlog`) instead.
 */

/** Latency of HTTP requests and platform calls (s): a synchronous wait may take `SYNC_WAIT_MS` (25 s). */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 60];
/** Time a request waits in its queue before it starts (s): from at once to an account's long backlog. */
const WAIT_BUCKETS = [0.005, 0.025, 0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600];
/** Unfinished requests of one account; `ACCOUNT_MAX_BACKLOG` is 1,000 by default. */
const BACKLOG_BUCKETS = [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 10000];

interface FamilyBase {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
}
export interface CounterFamily extends FamilyBase {
  readonly kind: 'counter';
}
export interface GaugeFamily extends FamilyBase {
  readonly kind: 'gauge';
}
export interface HistogramFamily extends FamilyBase {
  readonly kind: 'histogram';
  readonly buckets: readonly number[];
}
export type Family = CounterFamily | GaugeFamily | HistogramFamily;

const counter = (name: string, help: string, labelNames: readonly string[] = []): CounterFamily => ({
  kind: 'counter',
  name,
  help,
  labelNames,
});
const gauge = (name: string, help: string, labelNames: readonly string[] = []): GaugeFamily => ({
  kind: 'gauge',
  name,
  help,
  labelNames,
});
const histogram = (
  name: string,
  help: string,
  buckets: readonly number[],
  labelNames: readonly string[] = [],
): HistogramFamily => ({ kind: 'histogram', name, help, labelNames, buckets });

export const FAMILIES = {
  // The API.
  httpRequests: counter(
    'cg_http_requests_total',
    'HTTP requests answered by the API, by route pattern (unmatched: no route), method and status',
    ['route', 'method', 'status'],
  ),
  httpDuration: histogram(
    'cg_http_request_duration_seconds',
    'Time from a request arriving to its answer being sent, by route pattern and method',
    LATENCY_BUCKETS,
    ['route', 'method'],
  ),
  // Queues: read from Redis when scraped (the API).
  queueJobs: gauge(
    'cg_queue_jobs',
    'Jobs in each queue by state, read from Redis when scraped (operations: a batch of reads counts once)',
    ['queue', 'state'],
  ),
  queueWait: histogram(
    'cg_queue_wait_seconds',
    "Time from a request being queued to its start (operations: its first platform call, the account's pacing included)",
    WAIT_BUCKETS,
    ['queue'],
  ),
  // Lanes: per-account scheduling.
  lanePausedAccounts: gauge(
    'cg_lane_paused_accounts',
    'Platform accounts whose calls are paused by a platform 429 now, read from Redis when scraped',
  ),
  lanePauses: counter('cg_lane_pauses_total', 'Pauses of an account after a platform 429'),
  laneBacklog: histogram(
    'cg_lane_backlog',
    'Unfinished requests per platform account with requests waiting, a distribution read from Redis when scraped (a snapshot: no rate() needed)',
    BACKLOG_BUCKETS,
  ),
  // Platform calls (worker, listener).
  platformCalls: counter(
    'cg_platform_calls_total',
    'Calls to the platform by endpoint and outcome (ok, rate_limited, http_4xx, http_5xx, refused, timeout, network, proxy, bad_response, error)',
    ['endpoint', 'outcome'],
  ),
  platformDuration: histogram(
    'cg_platform_call_duration_seconds',
    'Time a platform call took, to its answer (the body of a JSON answer included; a CDN file to its headers), by endpoint',
    LATENCY_BUCKETS,
    ['endpoint'],
  ),
  // What failed attempts became (worker).
  jobRetries: counter(
    'cg_job_retries_total',
    'Attempts that failed retryable and are tried again, by operation',
    ['op'],
  ),
  outcomeUnknown: counter(
    'cg_writes_outcome_unknown_total',
    'Writes that ended UPSTREAM_OUTCOME_UNKNOWN (maybe applied, never repeated), by operation',
    ['op'],
  ),
  // Webhooks.
  webhookDeliveries: counter(
    'cg_webhook_deliveries_total',
    'Webhook delivery attempts by outcome (delivered; retrying: failed, tried again; failed: given up or endpoint disabled)',
    ['outcome'],
  ),
  webhookDuration: histogram(
    'cg_webhook_delivery_duration_seconds',
    'Time a webhook delivery attempt took, until its answer or its failure',
    LATENCY_BUCKETS,
  ),
  // Realtime (listener).
  realtimeConnections: gauge(
    'cg_realtime_connections',
    'Realtime connections to the platform this listener holds open (one per account it holds)',
  ),
} as const satisfies Record<string, Family>;

export type FamilyName = keyof typeof FAMILIES;
