import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApi } from '@cg/api';
import { loadGatewayConfig } from '@cg/config';
import { FAMILIES } from '@cg/metrics';
import { createGatewayWorker } from '@cg/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/lib/redis';
import { connectAccount } from '../support/common';
import { testLogger } from '../support/logs';
import { eventually, spawnApp } from '../support/processes';
import { type MetricFamily, parsePrometheus, sampleSum } from '../support/prometheus';
import { injectFault, simJson } from '../support/sim';
import { account, gw, startStack, type TestStack } from '../support/stack';

// The metrics of every process, as Prometheus scrapes them: the API in-process (its /metrics), the
// worker, the listener and the webhook delivery each in a process of its own with its own
// METRICS_PORT, all behind a METRICS_TOKEN. Each family must move when its event happens, parse as
// strict Prometheus text, and carry no id.

const TOKEN = 'metrics-token-for-the-tests';
const auth = { authorization: `Bearer ${TOKEN}` };

let stack: TestStack;
let receiver: Server;
let receiverUrl: string;
const ports = { worker: 0, listener: 0, webhooks: 0 };
const children: ReturnType<typeof spawnApp>[] = [];
let demo: string;
let twofa: string;

type Families = Map<string, MetricFamily>;
const scrapeUrl = (process: keyof typeof ports | 'api') =>
  process === 'api' ? `${stack.apiUrl}/metrics` : `http://127.0.0.1:${ports[process]}/metrics`;

/** One scrape of a process, parsed strictly. */
async function scrape(process: keyof typeof ports | 'api'): Promise<Families> {
  const response = await fetch(scrapeUrl(process), { headers: auth });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parsePrometheus(await response.text());
}

/** Polls `process`'s metrics until `check` holds (a worker's event lands just after the answer). */
function until(process: keyof typeof ports | 'api', check: (families: Families) => boolean, what: string) {
  return eventually(async () => ((await check(await scrape(process))) ? true : undefined), 20_000, what);
}

beforeAll(async () => {
  // A webhook receiver: `/ok` answers 200, anything else 500.
  receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(req.url === '/ok' ? 200 : 500);
      res.end();
    });
  });
  await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  stack = await startStack({
    worker: false,
    env: {
      METRICS_TOKEN: TOKEN,
      WEBHOOK_ALLOW_PRIVATE: 'true',
      // A failed delivery's retry comes long after this file ends: it stays "retrying".
      WEBHOOK_RETRY_SCHEDULE: '0,600000',
    },
  });
  for (const name of ['worker', 'listener', 'webhooks'] as const) {
    ports[name] = await freePort();
    children.push(spawnApp(name, { ...stack.env, METRICS_PORT: String(ports[name]) }));
  }
  for (const name of ['worker', 'listener', 'webhooks'] as const)
    await eventually(
      () =>
        fetch(scrapeUrl(name), { headers: auth }).then(
          (r) => (r.ok ? true : undefined),
          () => undefined,
        ),
      45_000,
      `${name} metrics port`,
    );
  demo = await connectAccount(stack, 'creator_demo');
  twofa = await connectAccount(stack, 'creator_2fa');
}, 120_000);

afterAll(async () => {
  for (const { child, exited } of children) {
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((done) => setTimeout(done, 15_000))]);
    child.kill('SIGKILL');
  }
  await stack?.stop();
  receiver?.close();
}, 60_000);

describe('GET /metrics on the API', () => {
  it('asks for the token, in the error shape', async () => {
    const refused = await fetch(`${stack.apiUrl}/metrics`);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe('Bearer');
    expect(await refused.json()).toMatchObject({
      statusCode: 401,
      code: 'UNAUTHORIZED',
      error: 'Unauthorized',
    });
    const wrong = await fetch(`${stack.apiUrl}/metrics`, {
      headers: { authorization: 'Bearer not-the-token' },
    });
    expect(wrong.status).toBe(401);
  });

  it('counts requests by route pattern, method and status, and times them', async () => {
    const before = await scrape('api');
    const route = '/api/fansly/:accountId/me';
    expect((await gw(stack, 'GET', `/${demo}/me`)).status).toBe(200);
    expect((await gw(stack, 'GET', '/accounts')).status).toBe(200);
    expect((await fetch(`${stack.apiUrl}/nowhere/${demo}`)).status).toBe(404);
    const after = await scrape('api');
    const moved = (labels: Record<string, string>, name = 'cg_http_requests_total') =>
      sampleSum(after, name, labels) - sampleSum(before, name, labels);
    expect(moved({ route, method: 'GET', status: '200' })).toBe(1);
    expect(moved({ route: '/api/fansly/accounts', method: 'GET', status: '200' })).toBe(1);
    // No route: one series whatever the path, so ids in paths never become labels.
    expect(moved({ route: 'unmatched', method: 'GET', status: '404' })).toBe(1);
    expect(moved({ route, method: 'GET' }, 'cg_http_request_duration_seconds_count')).toBe(1);
    expect(after.get('process_resident_memory_bytes')?.type).toBe('gauge');
  });

  it('reads the queues by state, the listen queue included', async () => {
    const families = await scrape('api');
    for (const queue of ['operations', 'listen', 'webhooks'])
      for (const state of ['waiting', 'active', 'delayed', 'failed', 'completed'])
        expect(
          families
            .get('cg_queue_jobs')
            ?.samples.some((s) => s.labels.queue === queue && s.labels.state === state),
        ).toBe(true);
    expect(sampleSum(families, 'cg_queue_jobs', { queue: 'operations', state: 'completed' })).toBeGreaterThan(
      0,
    );
  });

  it('is not served with METRICS_ENABLED=false, nor is a worker’s port', async () => {
    const config = loadGatewayConfig({ ...stack.env, METRICS_ENABLED: 'false', METRICS_PORT: '0' });
    const logger = testLogger();
    const api = await createApi(config, logger);
    const url = await api.listen({ port: 0, host: '127.0.0.1' });
    try {
      expect((await fetch(`${url}/metrics`, { headers: auth })).status).toBe(404);
    } finally {
      await api.close();
    }
    const port = await freePort();
    const worker = await createGatewayWorker({ ...config, METRICS_PORT: port }, logger);
    try {
      await expect(fetch(`http://127.0.0.1:${port}/metrics`)).rejects.toThrow();
    } finally {
      await worker.close();
    }
  });
});

describe('the worker’s metrics', () => {
  it('count platform calls by endpoint and outcome, and the queue wait', async () => {
    const before = await scrape('worker');
    expect((await gw(stack, 'GET', `/${demo}/me`)).status).toBe(200);
    await until(
      'worker',
      (after) =>
        sampleSum(after, 'cg_platform_calls_total', { endpoint: 'accountMe', outcome: 'ok' }) >
          sampleSum(before, 'cg_platform_calls_total', { endpoint: 'accountMe', outcome: 'ok' }) &&
        sampleSum(after, 'cg_queue_wait_seconds_count', { queue: 'operations' }) >
          sampleSum(before, 'cg_queue_wait_seconds_count', { queue: 'operations' }) &&
        sampleSum(after, 'cg_platform_call_duration_seconds_count', { endpoint: 'accountMe' }) >
          sampleSum(before, 'cg_platform_call_duration_seconds_count', { endpoint: 'accountMe' }),
      'an ok call and a queue wait',
    );
  });

  it('count a failed platform call and its retry', async () => {
    const before = await scrape('worker');
    await injectFault(stack, {
      account: 'creator_demo',
      path: '/api/v1/account/me',
      kind: 'error',
      status: 503,
      count: 1,
    });
    expect((await gw(stack, 'GET', `/${demo}/me`)).status).toBe(200);
    const after = await until(
      'worker',
      (now) =>
        sampleSum(now, 'cg_platform_calls_total', { endpoint: 'accountMe', outcome: 'http_5xx' }) >
        sampleSum(before, 'cg_platform_calls_total', { endpoint: 'accountMe', outcome: 'http_5xx' }),
      'a failed call',
    ).then(() => scrape('worker'));
    expect(
      sampleSum(after, 'cg_job_retries_total', { op: 'me' }) -
        sampleSum(before, 'cg_job_retries_total', { op: 'me' }),
    ).toBe(1);
  });

  it('count a write whose outcome is unknown', async () => {
    const before = await scrape('worker');
    await injectFault(stack, {
      account: 'creator_demo',
      path: '/api/v1/lists',
      method: 'POST',
      kind: 'resetAfterApply',
      count: 1,
    });
    const answer = await gw(stack, 'POST', `/${demo}/lists/create`, { body: { name: 'metrics: unknown' } });
    expect(answer.body.code).toBe('UPSTREAM_OUTCOME_UNKNOWN');
    await until(
      'worker',
      (after) =>
        sampleSum(after, 'cg_writes_outcome_unknown_total', { op: 'lists-create' }) -
          sampleSum(before, 'cg_writes_outcome_unknown_total', { op: 'lists-create' }) ===
          1 &&
        sampleSum(after, 'cg_platform_calls_total', { endpoint: 'listCreate', outcome: 'network' }) >
          sampleSum(before, 'cg_platform_calls_total', { endpoint: 'listCreate', outcome: 'network' }),
      'an outcome-unknown write',
    );
  });

  it('count a 429 pause, which the API shows as a paused account with a backlog', async () => {
    const before = await scrape('worker');
    // A long pause on the second account only: the other tests' account keeps flowing.
    await injectFault(stack, {
      account: 'creator_2fa',
      path: '/api/v1/account/me',
      kind: 'rateLimit',
      retryAfterSeconds: 60,
      count: 1,
    });
    const async = { headers: { prefer: 'respond-async' } };
    expect((await gw(stack, 'GET', `/${twofa}/me`, async)).status).toBe(202);
    await until(
      'worker',
      (after) =>
        sampleSum(after, 'cg_lane_pauses_total') - sampleSum(before, 'cg_lane_pauses_total') === 1 &&
        sampleSum(after, 'cg_platform_calls_total', { outcome: 'rate_limited' }) >
          sampleSum(before, 'cg_platform_calls_total', { outcome: 'rate_limited' }),
      'a pause',
    );
    // Requests queue behind the pause: the account's backlog grows to 6.
    for (let i = 0; i < 5; i++) expect((await gw(stack, 'GET', `/${twofa}/me`, async)).status).toBe(202);
    const api = await until(
      'api',
      (now) =>
        sampleSum(now, 'cg_lane_paused_accounts') === 1 &&
        sampleSum(now, 'cg_lane_backlog_bucket', { le: '5' }) < sampleSum(now, 'cg_lane_backlog_count'),
      'a paused account with a backlog over 5',
    ).then(() => scrape('api'));
    expect(sampleSum(api, 'cg_lane_backlog_bucket', { le: '10' })).toBe(
      sampleSum(api, 'cg_lane_backlog_count'),
    );
    expect(sampleSum(api, 'cg_queue_jobs', { queue: 'operations', state: 'delayed' })).toBeGreaterThanOrEqual(
      1,
    );
  });
});

describe('the listener’s metrics', () => {
  it('count the realtime connections held', async () => {
    // Both connected accounts are held by the one listener.
    await until('listener', (now) => sampleSum(now, 'cg_realtime_connections') === 2, 'two connections');
    const api = await scrape('api');
    expect(sampleSum(api, 'cg_queue_jobs', { queue: 'listen', state: 'active' })).toBe(2);
  });
});

describe('the webhook delivery’s metrics', () => {
  it('count deliveries by outcome, and their queue wait', async () => {
    const before = await scrape('webhooks');
    const endpoints: string[] = [];
    for (const path of ['/ok', '/fails']) {
      const endpoint = await gw(stack, 'POST', '/webhooks', {
        body: { url: `${receiverUrl}${path}`, events: ['messages.received'] },
      });
      expect(endpoint.status).toBe(201);
      endpoints.push(endpoint.body.data.id);
    }
    // A fan's message, through the listener: delivered to one endpoint, retried later for the other.
    await simJson(stack, '/_sim/activity', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'message', creator: 'creator_demo', content: 'metrics!' }),
    });
    // A test event is sent once: failing, it is given up at once.
    expect((await gw(stack, 'POST', `/webhooks/${endpoints[1]}/test`)).status).toBeLessThan(300);
    const moved = (after: Families, name: string, labels: Record<string, string> = {}) =>
      sampleSum(after, name, labels) - sampleSum(before, name, labels);
    await until(
      'webhooks',
      (after) =>
        moved(after, 'cg_webhook_deliveries_total', { outcome: 'delivered' }) === 1 &&
        moved(after, 'cg_webhook_deliveries_total', { outcome: 'retrying' }) === 1 &&
        moved(after, 'cg_webhook_deliveries_total', { outcome: 'failed' }) === 1 &&
        moved(after, 'cg_webhook_delivery_duration_seconds_count') === 3 &&
        moved(after, 'cg_queue_wait_seconds_count', { queue: 'webhooks' }) === 3,
      'a delivered, a retried and a failed delivery',
    );
  });
});

describe('every process', () => {
  it('reports each of its families, and no id in any label', async () => {
    const scraped = await Promise.all((['api', 'worker', 'listener', 'webhooks'] as const).map(scrape));
    const names = new Set(scraped.flatMap((families) => [...families.keys()]));
    for (const family of Object.values(FAMILIES)) expect(names).toContain(family.name);
    const tenants = ['t1', 't2'];
    const ids = [
      demo,
      twofa,
      stack.keys.t1,
      stack.keys.t2,
      account(stack, 'creator_demo').platformAccountId,
      account(stack, 'creator_2fa').platformAccountId,
      stack.prefix,
    ];
    for (const families of scraped)
      for (const family of families.values())
        for (const sample of family.samples)
          for (const value of Object.values(sample.labels)) {
            for (const id of ids) expect(value).not.toContain(id);
            expect(tenants).not.toContain(value);
            expect(value).not.toMatch(/(acct|job|key)_[A-Za-z0-9]/);
          }
  });
});
