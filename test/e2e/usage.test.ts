import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApi } from '@cg/api';
import { loadGatewayConfig } from '@cg/config';
import { ApiKeyStore, storeKeys } from '@cg/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectBadRequest } from '../support/assert';
import { connectAccount } from '../support/common';
import { testLogger } from '../support/logs';
import { eventually, spawnApi, type spawnApp } from '../support/processes';
import { injectFault, simJson } from '../support/sim';
import { finished, gw, startStack, type TestStack } from '../support/stack';

// Usage as GET /usage answers it, once the processes (the API here and one of its own, the worker,
// the webhooks process) have written what they counted: each writes about once a second, so the
// test polls until the figures it expects are there, with a key of its own that it never counts on.

const COUNTERS = [
  'requests2xx',
  'requests4xx',
  'requests429',
  'requests5xx',
  'platformCalls',
  'platformErrors',
  'outcomeUnknown',
  'eventsPublished',
  'webhooksDelivered',
  'webhooksFailed',
  'mediaBytesUp',
  'mediaBytesDown',
] as const;
type Counts = Record<(typeof COUNTERS)[number], number>;

let stack: TestStack;
let receiver: Server;
let base: string;
let accountA: string;
let accountB: string;
let apiKeys: ApiKeyStore;
/** An admin key of every account that only polls: its own row is never looked at. */
let observer: string;
let writer: { key: string; id: string };
let scoped: { key: string; id: string };
const child: ReturnType<typeof spawnApp>[] = [];

/** 1 KiB and a bit of a PNG: an upload's bytes. */
const PNG = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), Buffer.alloc(1_100, 7)]);

beforeAll(async () => {
  receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(req.url === '/ok' ? 200 : 500);
      res.end();
    });
  });
  await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  stack = await startStack({
    webhooks: true,
    // One attempt per delivery: a failed one is one failed attempt.
    env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE: '0', JOB_ATTEMPTS: '2' },
  });
  apiKeys = new ApiKeyStore(stack.redis, storeKeys(stack.prefix));
  accountA = await connectAccount(stack, 'creator_demo');
  accountB = await connectAccount(stack, 'creator_2fa');
  observer = (await apiKeys.create('t1', { label: 'observer' })).key;
  const made = await apiKeys.create('t1', { label: 'writer', access: 'write' });
  writer = { key: made.key, id: made.info.keyId };
  const limited = await apiKeys.create('t1', { label: 'scoped', access: 'read', accounts: [accountA] });
  scoped = { key: limited.key, id: limited.info.keyId };
}, 90_000);
afterAll(async () => {
  for (const { child: process, exited } of child) {
    process.kill('SIGKILL');
    await exited;
  }
  await stack?.stop();
  receiver?.close();
});

const usage = (query: string, key = observer) => gw(stack, 'GET', `/usage?${query}`, { key });

/** Each id's counts, summed over the buckets of an answer. */
function byId(rows: any[]): Map<string | null, Counts> {
  const sums = new Map<string | null, Counts>();
  for (const row of rows) {
    const sum = sums.get(row.id) ?? (Object.fromEntries(COUNTERS.map((name) => [name, 0])) as Counts);
    for (const name of COUNTERS) sum[name] += row[name];
    sums.set(row.id, sum);
  }
  return sums;
}

/** Polls until `id`'s counts (groupBy, bucket) include `expected`, and answers them all. */
async function countsOf(
  groupBy: 'key' | 'account',
  id: string | null,
  expected: Partial<Counts>,
  bucket: 'hour' | 'day' = 'hour',
): Promise<Counts> {
  let last: Counts | undefined;
  try {
    return await eventually(
      async () => {
        const answer = await usage(`groupBy=${groupBy}&bucket=${bucket}`);
        expect(answer.status).toBe(200);
        last = byId(answer.body.data.rows).get(id);
        const reached = Object.entries(expected).every(
          ([name, value]) => last?.[name as keyof Counts] === value,
        );
        return reached ? last : undefined;
      },
      20_000,
      `usage of ${groupBy} ${id}`,
    );
  } catch (error) {
    throw new Error(
      `${(error as Error).message}: last ${JSON.stringify(last)}, expected ${JSON.stringify(expected)}`,
    );
  }
}

describe('GET /usage', () => {
  it('counts what the test sent, by class, across two API processes, with the jobs and webhooks', async () => {
    // The jobs' end is told to two endpoints: one answers 200, the other 500.
    for (const path of ['/ok', '/fail'])
      expect(
        (
          await gw(stack, 'POST', '/webhooks', {
            body: { url: `${base}${path}`, events: ['jobs.completed'] },
          })
        ).status,
      ).toBe(201);
    const other = await spawnApi(stack.env);
    child.push(other);
    await simJson(stack, '/_sim/observations/reset', { method: 'POST' });

    // 3 answered 200 here and 3 at the other process, 2 unknown accounts (404), one 202 (its job's end
    // an event, delivered once and failed once), one upload (201, its bytes), one platform failure (5xx).
    for (let i = 0; i < 3; i++)
      expect((await gw(stack, 'GET', `/${accountA}/me`, { key: writer.key })).status).toBe(200);
    for (let i = 0; i < 3; i++) {
      const answer = await fetch(`${other.url}/api/fansly/${accountA}/me`, {
        headers: { 'x-api-key': writer.key },
      });
      expect(answer.status).toBe(200);
    }
    for (const unknown of ['acct_nobody1', 'acct_nobody2'])
      expect((await gw(stack, 'GET', `/${unknown}/me`, { key: writer.key })).status).toBe(404);
    const accepted = await gw(stack, 'GET', `/${accountA}/chats`, {
      key: writer.key,
      headers: { prefer: 'respond-async' },
    });
    expect(accepted.status).toBe(202);
    expect((await finished(accepted.body.data.statusUrl, observer)).status).toBe(200);
    const form = new FormData();
    form.append('file', new Blob([PNG], { type: 'image/png' }), 'pixel.png');
    const uploaded = await fetch(`${stack.apiUrl}/api/fansly/${accountA}/media/upload`, {
      method: 'POST',
      headers: { 'x-api-key': writer.key },
      body: form,
    });
    expect(uploaded.status).toBe(201);
    const { jobId } = ((await uploaded.json()) as any).data;
    await eventually(async () => {
      const state = (await gw(stack, 'GET', `/media/upload/${jobId}/status`, { key: observer })).body.data
        .state;
      return state === 'completed' || state === 'failed' ? state : undefined;
    }, 30_000);
    await simJson(stack, '/_sim/faults', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'error', status: 500, account: 'creator_demo' }),
    });
    const failed = await gw(stack, 'GET', `/${accountA}/me`, { key: writer.key });
    await simJson(stack, '/_sim/faults', { method: 'DELETE' });
    expect(failed.status).toBeGreaterThanOrEqual(500);

    const writerCounts = await countsOf('key', writer.id, {
      requests2xx: 8,
      requests4xx: 2,
      requests429: 0,
      requests5xx: 1,
      eventsPublished: 1,
      mediaBytesUp: PNG.length,
      mediaBytesDown: 0,
      webhooksDelivered: 0,
    });
    // Every call the sandbox saw from creator_demo since the reset was one of the writer's jobs'.
    const seen = (await simJson(stack, '/_sim/observations')).accounts;
    const demo = Object.values(seen as Record<string, any>).find((a) => a.username === 'creator_demo');
    const served500 = demo.responses['500'] ?? 0;
    expect(served500).toBeGreaterThan(0);
    const calls = await countsOf('key', writer.id, {
      platformCalls: demo.totalRequests,
      platformErrors: served500,
    });
    expect(calls.platformCalls).toBeGreaterThanOrEqual(6);
    expect(writerCounts.outcomeUnknown).toBe(0);
    // The same under its account, and the deliveries (no key) under the event's account.
    await countsOf('account', accountA, {
      platformCalls: demo.totalRequests,
      platformErrors: served500,
      webhooksDelivered: 1,
      webhooksFailed: 1,
    });
    await countsOf('key', null, { webhooksDelivered: 1, webhooksFailed: 1 });
    // Requests of no account (the 404s) are counted under none.
    const none = await countsOf('account', null, {});
    expect(none.requests4xx).toBeGreaterThanOrEqual(2);
  }, 90_000);

  it('groups by day as by hour', async () => {
    const hours = await usage('groupBy=key&bucket=hour');
    const days = await usage('groupBy=key&bucket=day');
    expect(days.status).toBe(200);
    expect(days.body.data).toMatchObject({ groupBy: 'key', bucket: 'day' });
    for (const row of days.body.data.rows) expect(row.start).toMatch(/T00:00:00\.000Z$/);
    for (const row of hours.body.data.rows) expect(row.start).toMatch(/T\d\d:00:00\.000Z$/);
    // The observer's own polls move its row between the two reads: the others are the same.
    const [byHour, byDay] = [byId(hours.body.data.rows), byId(days.body.data.rows)];
    expect(byDay.get(writer.id)).toEqual(byHour.get(writer.id));
    expect(byDay.get(null)).toEqual(byHour.get(null));
    const totals = days.body.data.totals;
    for (const name of COUNTERS)
      expect(totals[name]).toBe(days.body.data.rows.reduce((sum: number, row: any) => sum + row[name], 0));
  });

  it('counts a write that ended outcome unknown, and its failed call, under its key', async () => {
    const { key, info } = await apiKeys.create('t1', { label: 'unlucky', access: 'write' });
    await injectFault(stack, {
      account: 'creator_demo',
      path: '/api/v1/lists',
      method: 'POST',
      kind: 'resetAfterApply',
      count: 1,
    });
    const answer = await gw(stack, 'POST', `/${accountA}/lists/create`, {
      key,
      body: { name: 'lost answer' },
    });
    expect(answer.body.code).toBe('UPSTREAM_OUTCOME_UNKNOWN');
    await countsOf('key', info.keyId, {
      requests5xx: 1,
      outcomeUnknown: 1,
      platformCalls: 1,
      platformErrors: 1,
    });
  });

  it('counts a 429 in 4xx and on its own', async () => {
    const { key, info } = await apiKeys.create('t1', { label: 'tiny', rpm: 1 });
    // Both within one clock minute.
    const left = 60_000 - (Date.now() % 60_000);
    if (left < 5_000) await new Promise((done) => setTimeout(done, left + 100));
    expect((await gw(stack, 'GET', '/accounts', { key })).status).toBe(200);
    expect((await gw(stack, 'GET', '/accounts', { key })).status).toBe(429);
    await countsOf('key', info.keyId, { requests2xx: 1, requests4xx: 1, requests429: 1 });
  });

  it('shows a key its own row and its accounts only', async () => {
    // The scoped key (read, account A only) and the writer (write, every account).
    for (const key of [scoped.key, writer.key])
      expect((await gw(stack, 'GET', '/accounts', { key })).status).toBe(200);
    await countsOf('key', scoped.id, { requests2xx: 1 });
    const ids = async (query: string, key: string) => {
      const answer = await usage(query, key);
      expect(answer.status).toBe(200);
      return [...new Set(answer.body.data.rows.map((row: any) => row.id))].sort();
    };
    expect(await ids('groupBy=key', scoped.key)).toEqual([scoped.id]);
    expect(await ids('groupBy=account', scoped.key)).toEqual([accountA]);
    expect(await ids('groupBy=key', writer.key)).toEqual([writer.id]);
    const everyAccount = await ids('groupBy=account', writer.key);
    expect(everyAccount).toEqual(expect.arrayContaining([accountA, accountB, null]));
    // An admin key of every account sees every key's row.
    expect(await ids('groupBy=key', observer)).toEqual(
      expect.arrayContaining([writer.id, scoped.id, null].sort()),
    );
  });

  it('refuses bad ranges and groupings with 400 in the error shape', async () => {
    const now = Date.now();
    const iso = (ms: number) => new Date(ms).toISOString();
    expectBadRequest(await usage(`from=${iso(now)}&to=${iso(now - 3_600_000)}`), 'from must not be after to');
    expectBadRequest(await usage(`from=${iso(now - 36 * 86_400_000)}`), 'more than 35 days back');
    expectBadRequest(await usage('bucket=week'), 'bucket');
    expectBadRequest(await usage('groupBy=tenant'), 'groupBy');
    expectBadRequest(await usage('from=yesterday'), 'from');
    // 35 days back is taken.
    expect((await usage(`from=${iso(now - 35 * 86_400_000 + 60_000)}&bucket=day`)).status).toBe(200);
  });

  it('counts nothing in a process with USAGE_ENABLED=false', async () => {
    const config = loadGatewayConfig({ ...stack.env, USAGE_ENABLED: 'false' });
    const api = await createApi(config, testLogger(config.LOG_LEVEL));
    const { key, info } = await apiKeys.create('t1', { label: 'uncounted' });
    try {
      const url = await api.listen({ port: 0, host: '127.0.0.1' });
      const answer = await fetch(`${url}/api/fansly/accounts`, { headers: { 'x-api-key': key } });
      expect(answer.status).toBe(200);
    } finally {
      // Closing writes what a process counted: this one counted nothing.
      await api.close();
    }
    await gw(stack, 'GET', '/accounts', { key });
    // The stack's own API counts its one request; the other's never arrives.
    const counted = await countsOf('key', info.keyId, { requests2xx: 1 });
    expect(counted.requests2xx).toBe(1);
  });
});
