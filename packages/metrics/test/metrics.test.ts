import { describe, expect, it } from 'vitest';
import { parsePrometheus, sampleSum } from '../../../test/support/prometheus';
import {
  ApiMetrics,
  FAMILIES,
  ListenerMetrics,
  openMetricsPort,
  type QueueSnapshot,
  scrapeAllowed,
  serveMetrics,
  WebhooksMetrics,
  WorkerMetrics,
} from '../src/index';

/** Label names a family may have: small fixed sets of values only, never an id (families.ts). */
const ALLOWED_LABELS = new Set(['route', 'method', 'status', 'queue', 'state', 'endpoint', 'outcome', 'op']);

const families = async (metrics: { render(): Promise<string> }) => parsePrometheus(await metrics.render());
const ours = (names: Iterable<string>) => [...names].filter((name) => name.startsWith('cg_')).sort();

describe('the families', () => {
  it('are named cg_*, labelled only with bounded sets, counters ending _total', () => {
    for (const family of Object.values(FAMILIES)) {
      expect(family.name).toMatch(/^cg_[a-z_]+$/);
      for (const label of family.labelNames) expect(ALLOWED_LABELS).toContain(label);
      expect(family.name.endsWith('_total')).toBe(family.kind === 'counter');
    }
  });

  it('each process reports its own, with Node’s process metrics', async () => {
    const names = (keys: (keyof typeof FAMILIES)[]) => keys.map((key) => FAMILIES[key].name).sort();
    const api = new ApiMetrics();
    api.readQueues(async () => ({ queues: [], pausedAccounts: 0, backlogs: [] }), 1_000);
    const apiText = await families(api);
    expect(ours(apiText.keys())).toEqual(
      names(['httpRequests', 'httpDuration', 'queueJobs', 'lanePausedAccounts', 'laneBacklog']),
    );
    expect(apiText.has('process_cpu_user_seconds_total')).toBe(true);
    expect(apiText.has('nodejs_eventloop_lag_seconds')).toBe(true);
    expect(ours((await families(new WorkerMetrics())).keys())).toEqual(
      names(['platformCalls', 'platformDuration', 'queueWait', 'jobRetries', 'outcomeUnknown', 'lanePauses']),
    );
    expect(ours((await families(new ListenerMetrics())).keys())).toEqual(
      names(['platformCalls', 'platformDuration', 'realtimeConnections']),
    );
    expect(ours((await families(new WebhooksMetrics())).keys())).toEqual(
      names(['webhookDeliveries', 'webhookDuration', 'queueWait']),
    );
  });
});

describe('ApiMetrics', () => {
  it('counts answers by route pattern, method and status, and times them', async () => {
    const api = new ApiMetrics();
    api.request('/api/fansly/:account_id/me', 'GET', 200, 12);
    api.request('/api/fansly/:account_id/me', 'GET', 200, 30);
    api.request('/api/fansly/:account_id/me', 'GET', 404, 2);
    api.request(undefined, 'GET', 404, 1);
    const text = await families(api);
    const route = '/api/fansly/:account_id/me';
    expect(sampleSum(text, 'cg_http_requests_total', { route, method: 'GET', status: '200' })).toBe(2);
    expect(sampleSum(text, 'cg_http_requests_total', { route, status: '404' })).toBe(1);
    expect(sampleSum(text, 'cg_http_requests_total', { route: 'unmatched', status: '404' })).toBe(1);
    expect(sampleSum(text, 'cg_http_request_duration_seconds_count', { route })).toBe(3);
    expect(sampleSum(text, 'cg_http_request_duration_seconds_sum', { route })).toBeCloseTo(0.044, 6);
    expect(sampleSum(text, 'cg_http_request_duration_seconds_bucket', { route, le: '0.025' })).toBe(2);
  });

  it('reads the queues and lanes at each scrape, a distribution of backlogs, none when Redis fails', async () => {
    const api = new ApiMetrics();
    let snapshot: QueueSnapshot | Error = {
      queues: [{ queue: 'operations', counts: { waiting: 3, delayed: 7 } }],
      pausedAccounts: 2,
      backlogs: [1, 4, 40, 900],
    };
    api.readQueues(async () => {
      if (snapshot instanceof Error) throw snapshot;
      return snapshot;
    }, 200);
    let text = await families(api);
    expect(sampleSum(text, 'cg_queue_jobs', { queue: 'operations', state: 'delayed' })).toBe(7);
    expect(sampleSum(text, 'cg_lane_paused_accounts')).toBe(2);
    expect(sampleSum(text, 'cg_lane_backlog_count')).toBe(4);
    expect(sampleSum(text, 'cg_lane_backlog_bucket', { le: '5' })).toBe(2);
    expect(sampleSum(text, 'cg_lane_backlog_bucket', { le: '1000' })).toBe(4);
    // A snapshot, not a running total: the next scrape shows the lanes as they are then.
    snapshot = { queues: [], pausedAccounts: 0, backlogs: [3] };
    text = await families(api);
    expect(sampleSum(text, 'cg_lane_backlog_count')).toBe(1);
    expect(sampleSum(text, 'cg_lane_paused_accounts')).toBe(0);
    expect(text.get('cg_queue_jobs')?.samples).toEqual([]);
    // Redis failing, or too slow: the scrape answers without them (nothing stale).
    snapshot = new Error('redis away');
    text = await families(api);
    expect(text.get('cg_lane_paused_accounts')?.samples).toEqual([]);
    expect(text.get('cg_lane_backlog')?.samples).toEqual([]);
    api.readQueues(() => new Promise<QueueSnapshot>(() => undefined), 200);
    const started = Date.now();
    await api.render();
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('lets scrapes that overlap share one read of Redis and one fill', async () => {
    const api = new ApiMetrics();
    let reads = 0;
    api.readQueues(async () => {
      reads += 1;
      await new Promise((done) => setTimeout(done, 20));
      return { queues: [], pausedAccounts: 0, backlogs: [1, 2, 3] };
    }, 1_000);
    const [first, second] = await Promise.all([families(api), families(api)]);
    expect(reads).toBe(1);
    expect(sampleSum(first, 'cg_lane_backlog_count')).toBe(3);
    expect(sampleSum(second, 'cg_lane_backlog_count')).toBe(3);
  });
});

describe('WorkerMetrics, ListenerMetrics, WebhooksMetrics', () => {
  it('move with their events', async () => {
    const worker = new WorkerMetrics();
    worker.platformCall({ endpoint: 'accountMe', outcome: 'ok', durationMs: 40 });
    worker.platformCall({ endpoint: 'accountMe', outcome: 'http_5xx', durationMs: 5 });
    worker.started(1_500);
    worker.retried('me');
    worker.outcomeUnknown('lists-create');
    worker.paused();
    let text = await families(worker);
    expect(sampleSum(text, 'cg_platform_calls_total', { endpoint: 'accountMe', outcome: 'ok' })).toBe(1);
    expect(sampleSum(text, 'cg_platform_calls_total', { outcome: 'http_5xx' })).toBe(1);
    expect(sampleSum(text, 'cg_platform_call_duration_seconds_count', { endpoint: 'accountMe' })).toBe(2);
    expect(sampleSum(text, 'cg_queue_wait_seconds_sum', { queue: 'operations' })).toBe(1.5);
    expect(sampleSum(text, 'cg_job_retries_total', { op: 'me' })).toBe(1);
    expect(sampleSum(text, 'cg_writes_outcome_unknown_total', { op: 'lists-create' })).toBe(1);
    expect(sampleSum(text, 'cg_lane_pauses_total')).toBe(1);

    const listener = new ListenerMetrics();
    listener.connectionOpened();
    listener.connectionOpened();
    listener.connectionClosed();
    text = await families(listener);
    expect(sampleSum(text, 'cg_realtime_connections')).toBe(1);

    const webhooks = new WebhooksMetrics();
    text = await families(webhooks);
    // Every outcome is there from the start, at 0.
    expect(
      text
        .get('cg_webhook_deliveries_total')
        ?.samples.map((s) => s.labels.outcome)
        .sort(),
    ).toEqual(['delivered', 'failed', 'retrying']);
    webhooks.attempted('delivered', 120);
    webhooks.attempted('retrying', 10_000);
    webhooks.started(50);
    text = await families(webhooks);
    expect(sampleSum(text, 'cg_webhook_deliveries_total', { outcome: 'delivered' })).toBe(1);
    expect(sampleSum(text, 'cg_webhook_deliveries_total', { outcome: 'retrying' })).toBe(1);
    expect(sampleSum(text, 'cg_webhook_delivery_duration_seconds_count')).toBe(2);
    expect(sampleSum(text, 'cg_queue_wait_seconds_count', { queue: 'webhooks' })).toBe(1);
  });
});

describe('the metrics port', () => {
  it('serves GET /metrics, 404 elsewhere, 405 for other methods, in the error shape', async () => {
    const worker = new WorkerMetrics();
    worker.paused();
    const server = await serveMetrics(worker, { port: 0, host: '127.0.0.1' });
    try {
      const base = `http://127.0.0.1:${server.port}`;
      const scrape = await fetch(`${base}/metrics`);
      expect(scrape.status).toBe(200);
      expect(scrape.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      expect(sampleSum(parsePrometheus(await scrape.text()), 'cg_lane_pauses_total')).toBe(1);
      const other = await fetch(`${base}/other`);
      expect(other.status).toBe(404);
      expect(await other.json()).toMatchObject({ statusCode: 404, error: 'Not Found', code: 'NOT_FOUND' });
      const post = await fetch(`${base}/metrics`, { method: 'POST' });
      expect(post.status).toBe(405);
      expect(post.headers.get('allow')).toBe('GET, HEAD');
    } finally {
      await server.close();
    }
  });

  it('asks for the token when one is set', async () => {
    const token = 'scrape-token-0123456789';
    const server = await serveMetrics(new WorkerMetrics(), { port: 0, host: '127.0.0.1', token });
    try {
      const url = `http://127.0.0.1:${server.port}/metrics`;
      for (const authorization of [undefined, 'Bearer wrong-token-0123456789', `Basic ${token}`, 'Bearer ']) {
        const refused = await fetch(url, { headers: authorization ? { authorization } : {} });
        expect(refused.status).toBe(401);
        expect(refused.headers.get('www-authenticate')).toBe('Bearer');
        expect(((await refused.json()) as { code: string }).code).toBe('UNAUTHORIZED');
      }
      expect((await fetch(url, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    } finally {
      await server.close();
    }
    expect(scrapeAllowed(undefined, undefined)).toBe(true);
  });

  it('is not opened for port 0 or a process without metrics, and a taken port fails the start', async () => {
    expect(await openMetricsPort(new WorkerMetrics(), { port: 0, host: '127.0.0.1' })).toBeUndefined();
    expect(await openMetricsPort(undefined, { port: 9, host: '127.0.0.1' })).toBeUndefined();
    const first = await serveMetrics(new WorkerMetrics(), { port: 0, host: '127.0.0.1' });
    try {
      await expect(
        openMetricsPort(new WorkerMetrics(), { port: first.port, host: '127.0.0.1' }),
      ).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await first.close();
    }
  });
});
