import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { type CounterFamily, FAMILIES, type GaugeFamily, type HistogramFamily } from './families';

/**
 * One process's metrics: the families it reports (families.ts), in a registry of its own with Node's
 * process metrics (`process_*`, `nodejs_*`). A registry per process object rather than prom-client's
 * global one, so that the test stack's API, worker and listener in one Node process do not mix.
 * Built only when `METRICS_ENABLED` is true: a process without metrics builds none and installs no
 * hook, so switching them off costs nothing.
 */
abstract class ProcessMetrics {
  readonly registry = new Registry();
  /** Reads done when scraped (Redis), before the registry is rendered. */
  private readonly refreshers: (() => Promise<void>)[] = [];
  /** The reads under way: scrapes that overlap share them, so each fill happens once. */
  private refreshing: Promise<void> | undefined;

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The Prometheus text of every family, after the reads done when scraped. */
  async render(): Promise<string> {
    this.refreshing ??= Promise.all(this.refreshers.map((refresh) => refresh()))
      .then(() => undefined)
      .finally(() => {
        this.refreshing = undefined;
      });
    await this.refreshing;
    return this.registry.metrics();
  }

  protected onScrape(refresh: () => Promise<void>): void {
    this.refreshers.push(refresh);
  }

  protected counter(family: CounterFamily): Counter {
    return new Counter({ ...family, labelNames: [...family.labelNames], registers: [this.registry] });
  }

  protected gauge(family: GaugeFamily): Gauge {
    return new Gauge({ ...family, labelNames: [...family.labelNames], registers: [this.registry] });
  }

  protected histogram(family: HistogramFamily): Histogram {
    return new Histogram({
      ...family,
      labelNames: [...family.labelNames],
      buckets: [...family.buckets],
      registers: [this.registry],
    });
  }
}

/** A platform call as the platform client reports it (`PlatformClientOptions.onCall`). */
export interface PlatformCallReport {
  /** The endpoint map's name of the call (`CallName`), never its path or parameters. */
  endpoint: string;
  /** ok, rate_limited, http_4xx, http_5xx, refused, timeout, network, proxy, bad_response, error */
  outcome: string;
  durationMs: number;
}

/** What the API reads from Redis when scraped (packages/queue `QueueStats.snapshot`). */
export interface QueueSnapshot {
  /** Jobs of each queue by state. */
  queues: { queue: string; counts: Record<string, number> }[];
  /** Platform accounts paused by a 429 now. */
  pausedAccounts: number;
  /** The backlog of each account with requests waiting. */
  backlogs: number[];
}

/** Labels of one HTTP answer, made once per route, method and status and reused. */
interface HttpLabels {
  answered: { route: string; method: string; status: string };
  timed: { route: string; method: string };
}

/** The API's route label of a request no route matched (404s, scans): one series, not one per path. */
export const UNMATCHED_ROUTE = 'unmatched';

/** The API process: HTTP requests, and the queues and lanes read from Redis when scraped. */
export class ApiMetrics extends ProcessMetrics {
  private readonly requests = this.counter(FAMILIES.httpRequests);
  private readonly durations = this.histogram(FAMILIES.httpDuration);
  private readonly queueJobs = this.gauge(FAMILIES.queueJobs);
  private readonly paused = this.gauge(FAMILIES.lanePausedAccounts);
  private readonly backlog = this.histogram(FAMILIES.laneBacklog);
  private readonly labels = new Map<string, HttpLabels>();

  /**
   * One answered request. `route` is the matched route's pattern (`/api/fansly/:account_id/me`),
   * undefined when none matched. Called for every request: label objects are made once and reused.
   */
  request(route: string | undefined, method: string, status: number, durationMs: number): void {
    const pattern = route ?? UNMATCHED_ROUTE;
    const key = `${method} ${status} ${pattern}`;
    let labels = this.labels.get(key);
    if (labels === undefined) {
      labels = {
        answered: { route: pattern, method, status: String(status) },
        timed: { route: pattern, method },
      };
      this.labels.set(key, labels);
    }
    this.requests.inc(labels.answered);
    this.durations.observe(labels.timed, durationMs / 1000);
  }

  /**
   * Reads the queues and lanes from `read` at each scrape, bounded by `timeoutMs`: while Redis is
   * away, the scrape still answers (HTTP and process metrics) and these families are left out rather
   * than reported stale.
   */
  readQueues(read: () => Promise<QueueSnapshot>, timeoutMs: number): void {
    this.onScrape(async () => {
      this.queueJobs.reset();
      this.paused.reset();
      this.backlog.reset();
      const snapshot = await withTimeout(read(), timeoutMs).catch(() => undefined);
      if (snapshot === undefined) {
        // A family without labels has a series even after `reset` (at 0): removed, so that an
        // outage does not read as "nothing paused, no backlog".
        this.paused.remove();
        this.backlog.remove();
        return;
      }
      for (const { queue, counts } of snapshot.queues)
        for (const [state, count] of Object.entries(counts)) this.queueJobs.set({ queue, state }, count);
      this.paused.set(snapshot.pausedAccounts);
      for (const size of snapshot.backlogs) this.backlog.observe(size);
    });
  }
}

/** Platform calls, shared by the worker and the listener (both call the platform). */
class PlatformCallMetrics {
  private readonly calls: Counter;
  private readonly durations: Histogram;
  private readonly labels = new Map<string, { counted: object; timed: object }>();

  constructor(calls: Counter, durations: Histogram) {
    this.calls = calls;
    this.durations = durations;
  }

  record({ endpoint, outcome, durationMs }: PlatformCallReport): void {
    const key = `${endpoint} ${outcome}`;
    let labels = this.labels.get(key);
    if (labels === undefined) {
      labels = { counted: { endpoint, outcome }, timed: { endpoint } };
      this.labels.set(key, labels);
    }
    this.calls.inc(labels.counted);
    this.durations.observe(labels.timed, durationMs / 1000);
  }
}

/** The worker process: platform calls, queue wait, retries, outcome-unknown writes, 429 pauses. */
export class WorkerMetrics extends ProcessMetrics {
  private readonly platform = new PlatformCallMetrics(
    this.counter(FAMILIES.platformCalls),
    this.histogram(FAMILIES.platformDuration),
  );
  private readonly wait = this.histogram(FAMILIES.queueWait).labels({ queue: 'operations' });
  private readonly retries = this.counter(FAMILIES.jobRetries);
  private readonly unknown = this.counter(FAMILIES.outcomeUnknown);
  private readonly pauses = this.counter(FAMILIES.lanePauses);

  platformCall(report: PlatformCallReport): void {
    this.platform.record(report);
  }

  /** A request started, `ms` after it was queued (the queue's `RunObserver`, as are the three below). */
  started(ms: number): void {
    this.wait.observe(Math.max(0, ms) / 1000);
  }

  retried(op: string): void {
    this.retries.inc({ op });
  }

  outcomeUnknown(op: string): void {
    this.unknown.inc({ op });
  }

  paused(): void {
    this.pauses.inc();
  }
}

/** The listener process: realtime connections held, and its platform calls (session renewals). */
export class ListenerMetrics extends ProcessMetrics {
  private readonly platform = new PlatformCallMetrics(
    this.counter(FAMILIES.platformCalls),
    this.histogram(FAMILIES.platformDuration),
  );
  private readonly connections = this.gauge(FAMILIES.realtimeConnections);

  platformCall(report: PlatformCallReport): void {
    this.platform.record(report);
  }

  connectionOpened(): void {
    this.connections.inc();
  }

  connectionClosed(): void {
    this.connections.dec();
  }
}

/** What a webhook delivery attempt came to (packages/events `DeliveryAttempt.status`). */
export type DeliveryOutcome = 'delivered' | 'retrying' | 'failed';

/** The webhooks process: delivery attempts, and how long deliveries waited in their queue. */
export class WebhooksMetrics extends ProcessMetrics {
  private readonly deliveries = this.counter(FAMILIES.webhookDeliveries);
  private readonly durations = this.histogram(FAMILIES.webhookDuration);
  private readonly wait = this.histogram(FAMILIES.queueWait).labels({ queue: 'webhooks' });

  constructor() {
    super();
    // Every outcome shows from the start at 0, so that a rate over it is defined before the first.
    for (const outcome of ['delivered', 'retrying', 'failed'] satisfies DeliveryOutcome[])
      this.deliveries.inc({ outcome }, 0);
  }

  /** An attempt ended (packages/events `DeliveryObserver`, as is `started`). */
  attempted(outcome: DeliveryOutcome, durationMs: number): void {
    this.deliveries.inc({ outcome });
    this.durations.observe(durationMs / 1000);
  }

  /** A delivery's first attempt started, `ms` after its event was queued for it. */
  started(ms: number): void {
    this.wait.observe(Math.max(0, ms) / 1000);
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    timer.unref();
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
