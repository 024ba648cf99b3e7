import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Events, eventId } from '@cg/events';
import { ApiKeyStore, storeKeys } from '@cg/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../support/assert';
import { connectAccount } from '../support/common';
import { eventually, sleep } from '../support/processes';
import { gw, redisText, scanKeys, stackEvents, startStack, type TestStack } from '../support/stack';

// The delivery process runs in-process (startStack `webhooks`), against a receiver on loopback: the
// stack allows private destinations, and retries on a shortened schedule (3 attempts).
let stack: TestStack;
let events: Events;
let receiver: Server;
let base: string;
let accountId: string;

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}
const received: Received[] = [];
const at = (path: string) => received.filter((r) => r.path === path);
/** Requests of each path being answered now, and the most at once. */
const open = new Map<string, { now: number; most: number }>();

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const path = req.url ?? '';
      received.push({ path, headers: req.headers, body, at: Date.now() });
      // `/r/<name>/<status>[/<delay ms>]` answers that status, after that delay.
      const [, , , status, delay] = path.split('/');
      const count = open.get(path) ?? { now: 0, most: 0 };
      count.now++;
      count.most = Math.max(count.most, count.now);
      open.set(path, count);
      setTimeout(
        () => {
          count.now--;
          res.writeHead(Number(status ?? 200), { 'content-type': 'text/plain' });
          res.end(`answer of ${path} ${'x'.repeat(2_000)}`);
        },
        Number(delay ?? 0),
      );
    });
  });
  await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  stack = await startStack({
    webhooks: true,
    env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE: '0,150,150' },
  });
  events = stackEvents(stack);
  accountId = await connectAccount(stack);
});
afterAll(async () => {
  await events?.close();
  await stack?.stop();
  receiver?.close();
});

const secrets: string[] = [];
async function createEndpoint(
  name: string,
  status: number | string = 200,
  more: Record<string, unknown> = {},
) {
  const response = await gw(stack, 'POST', '/webhooks', {
    body: { url: `${base}/r/${name}/${status}`, ...more },
  });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  secrets.push(response.body.data.secret);
  return response.body.data as { id: string; secret: string; url: string };
}

let n = 0;
function publish(
  event = 'messages.received',
  account: string | null = accountId,
  id = eventId([`e${n++}`, Math.random()]),
) {
  return events.publishEvent('t1', { id, event, accountId: account, data: { id: '123', content: 'hi' } });
}

/** The receiver's check, with node:crypto only: each `v1,` signature against each secret. */
function verify(request: Received, secret: string): boolean {
  const content = `${request.headers['webhook-id']}.${request.headers['webhook-timestamp']}.${request.body}`;
  const expected = createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64'))
    .update(content)
    .digest();
  return String(request.headers['webhook-signature'])
    .split(' ')
    .some((part) => {
      const [version, signature] = part.split(',');
      const given = Buffer.from(signature ?? '', 'base64');
      return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
    });
}

describe('webhook endpoints', () => {
  it('create shows the secret once; list and get never do; patch and delete', async () => {
    const created = await createEndpoint('crud', 200, { description: 'CRM', events: ['tips.received'] });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(created.secret.slice(6), 'base64').length).toBeGreaterThanOrEqual(24);
    expect(created).toMatchObject({
      description: 'CRM',
      events: ['tips.received'],
      accountIds: null,
      enabled: true,
    });

    const list = await gw(stack, 'GET', '/webhooks');
    expect(list.body.data.webhooks.map((w: { id: string }) => w.id)).toContain(created.id);
    const one = await gw(stack, 'GET', `/webhooks/${created.id}`);
    expect(one.body.data).toMatchObject({
      id: created.id,
      deliveries: { delivered: 0, givenUp: 0, pending: 0 },
    });
    expect(JSON.stringify([list.body, one.body])).not.toContain('whsec_');

    const patched = await gw(stack, 'PATCH', `/webhooks/${created.id}`, {
      body: { description: 'CRM 2', events: null, accountIds: [accountId], enabled: false },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({
      description: 'CRM 2',
      events: null,
      accountIds: [accountId],
      enabled: false,
    });
    expect(JSON.stringify(patched.body)).not.toContain('whsec_');

    expect((await gw(stack, 'DELETE', `/webhooks/${created.id}`)).body.data).toEqual({
      id: created.id,
      deleted: true,
    });
    expect((await gw(stack, 'GET', `/webhooks/${created.id}`)).status).toBe(404);
    expect((await gw(stack, 'DELETE', `/webhooks/${created.id}`)).status).toBe(404);
  });

  it('refuses unknown events (listing the known ones), other tenants’ accounts and bad URLs', async () => {
    const unknown = await gw(stack, 'POST', '/webhooks', {
      body: { url: `${base}/x`, events: ['tips.received', 'nope.never'] },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toContain('nope.never');
    expect(unknown.body.message).toContain('messages.received');
    const foreign = await gw(stack, 'POST', '/webhooks', {
      body: { url: `${base}/x`, accountIds: ['acct_other'] },
    });
    expect(foreign.status).toBe(400);
    expect(foreign.body.message).toContain('acct_other');
    // The account is t1's: t2 may not name it.
    const notTheirs = await gw(stack, 'POST', '/webhooks', {
      key: stack.keys.t2,
      body: { url: `${base}/x`, accountIds: [accountId] },
    });
    expect(notTheirs.status).toBe(400);
    expect((await gw(stack, 'POST', '/webhooks', { body: { url: 'ftp://example.com/x' } })).status).toBe(400);
    expect((await gw(stack, 'POST', '/webhooks', { body: {} })).status).toBe(400);
  });
});

describe('deliveries', () => {
  it('POSTs the event within 2 s, signed per Standard Webhooks, in the contract’s envelope', async () => {
    const endpoint = await createEndpoint('basic');
    const started = Date.now();
    const { event } = await publish('tips.received');
    const [request] = await eventually(
      async () => (at('/r/basic/200').length ? at('/r/basic/200') : undefined),
      2_000,
      'delivery',
    );
    expect(request!.at - started).toBeLessThan(2_000);
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers['webhook-id']).toBe(event.id);
    expect(Math.abs(Number(request!.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(10);
    expect(request!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(verify(request!, endpoint.secret)).toBe(true);
    expect(verify({ ...request!, body: `${request!.body} ` }, endpoint.secret)).toBe(false);
    const body = JSON.parse(request!.body);
    expect(body).toEqual({
      id: event.id,
      event: 'tips.received',
      accountId,
      timestamp: event.timestamp,
      data: { id: '123', content: 'hi' },
    });

    const page = await eventually(async () => {
      const r = await gw(stack, 'GET', `/webhooks/${endpoint.id}/deliveries`);
      return r.body.data.deliveries.length ? r : undefined;
    }, 2_000);
    expect(page.body.data.deliveries[0]).toMatchObject({
      eventId: event.id,
      attempt: 1,
      status: 'delivered',
      httpStatus: 200,
      nextRetryAt: null,
    });
    expect(page.body.data.deliveries[0].response.length).toBeLessThanOrEqual(1_024);
    const counters = await gw(stack, 'GET', `/webhooks/${endpoint.id}`);
    expect(counters.body.data.deliveries).toMatchObject({ delivered: 1, failedAttempts: 0, pending: 0 });
  });

  it('follows the events and accountIds filters, and skips disabled endpoints', async () => {
    await createEndpoint('tips-only', 200, { events: ['tips.received'] });
    await createEndpoint('this-account', 200, { accountIds: [accountId] });
    const off = await createEndpoint('off');
    await gw(stack, 'PATCH', `/webhooks/${off.id}`, { body: { enabled: false } });
    await publish('messages.received', 'acct_elsewhere');
    await publish('tips.received', accountId);
    await eventually(
      async () =>
        at('/r/this-account/200').length === 1 && at('/r/tips-only/200').length === 1 ? true : undefined,
      2_000,
    );
    await sleep(400);
    expect(at('/r/tips-only/200').map((r) => JSON.parse(r.body).event)).toEqual(['tips.received']);
    expect(at('/r/this-account/200').map((r) => JSON.parse(r.body).accountId)).toEqual([accountId]);
    expect(at('/r/off/200')).toHaveLength(0);
  });

  it('shows a key of some accounts only the endpoints and deliveries of those accounts', async () => {
    const all = await createEndpoint('every-account');
    const mine = await createEndpoint('mine', 200, { accountIds: [accountId] });
    await publish('messages.received', accountId);
    await publish('messages.received', null);
    await eventually(async () => (at('/r/every-account/200').length >= 2 ? true : undefined), 2_000);
    const { key } = await new ApiKeyStore(stack.redis, storeKeys(stack.prefix)).create('t1', {
      access: 'read',
      accounts: [accountId],
    });
    const listed = (await gw(stack, 'GET', '/webhooks', { key })).body.data.webhooks.map(
      (w: { id: string }) => w.id,
    );
    expect(listed).toContain(mine.id);
    expect(listed).not.toContain(all.id);
    expect((await gw(stack, 'GET', `/webhooks/${all.id}`, { key })).status).toBe(404);
    expect((await gw(stack, 'GET', `/webhooks/${all.id}/deliveries`, { key })).status).toBe(404);
    const everyAttempt = (await gw(stack, 'GET', `/webhooks/${all.id}/deliveries`)).body.data.deliveries;
    expect(everyAttempt.map((d: { accountId: string | null }) => d.accountId)).toEqual(
      expect.arrayContaining([accountId, null]),
    );
    await eventually(async () => (at('/r/mine/200').length >= 1 ? true : undefined), 2_000);
    const own = (await gw(stack, 'GET', `/webhooks/${mine.id}/deliveries`, { key })).body.data.deliveries;
    expect(own.length).toBeGreaterThan(0);
    expect(own.every((d: { accountId: string | null }) => d.accountId === accountId)).toBe(true);
    expectError(
      await gw(stack, 'PATCH', `/webhooks/${mine.id}`, { key, body: { enabled: false } }),
      403,
      'FORBIDDEN',
      'needs admin access',
    );
  });

  it('stores and delivers an event id published twice once', async () => {
    await createEndpoint('dedupe');
    const id = eventId(['dedupe', accountId]);
    const first = await publish('followers.new', accountId, id);
    const second = await publish('followers.new', accountId, id);
    expect([first.stored, second.stored]).toEqual([true, false]);
    await eventually(async () => (at('/r/dedupe/200').length ? true : undefined), 2_000);
    await sleep(400);
    expect(at('/r/dedupe/200')).toHaveLength(1);
    const log = await gw(stack, 'GET', '/events?event=followers.new&limit=100');
    expect(log.body.data.events.filter((e: { id: string }) => e.id === id)).toHaveLength(1);
  });

  it('signs with both secrets after a rotation, each verifiable', async () => {
    const endpoint = await createEndpoint('rotate');
    const rotated = await gw(stack, 'POST', `/webhooks/${endpoint.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.data.secret as string;
    secrets.push(fresh);
    expect(fresh).toMatch(/^whsec_/);
    expect(fresh).not.toBe(endpoint.secret);
    await publish();
    const [request] = await eventually(
      async () => (at('/r/rotate/200').length ? at('/r/rotate/200') : undefined),
      2_000,
    );
    expect(String(request!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verify(request!, fresh)).toBe(true);
    expect(verify(request!, endpoint.secret)).toBe(true);
    expect(verify(request!, secrets[0]!)).toBe(false);
  });

  it('test delivers a webhooks.test event now; retry delivers a delivery again', async () => {
    const endpoint = await createEndpoint('manual');
    const test = await gw(stack, 'POST', `/webhooks/${endpoint.id}/test`);
    expect(test.status).toBe(200);
    const [request] = await eventually(
      async () => (at('/r/manual/200').length ? at('/r/manual/200') : undefined),
      2_000,
    );
    expect(JSON.parse(request!.body)).toMatchObject({
      id: test.body.data.eventId,
      event: 'webhooks.test',
      accountId: null,
    });
    expect(verify(request!, endpoint.secret)).toBe(true);

    const retry = await gw(
      stack,
      'POST',
      `/webhooks/${endpoint.id}/deliveries/${test.body.data.deliveryId}/retry`,
    );
    expect(retry.status).toBe(200);
    await eventually(async () => (at('/r/manual/200').length === 2 ? true : undefined), 2_000);
    expect(at('/r/manual/200')[1]!.headers['webhook-id']).toBe(test.body.data.eventId);
    const attempts = await eventually(async () => {
      const r = await gw(stack, 'GET', `/webhooks/${endpoint.id}/deliveries`);
      return r.body.data.deliveries.length === 2 ? r.body.data.deliveries : undefined;
    }, 2_000);
    expect(attempts.map((a: { attempt: number }) => a.attempt)).toEqual([2, 1]);
    expect((await gw(stack, 'POST', `/webhooks/${endpoint.id}/deliveries/dlv_unknown/retry`)).status).toBe(
      404,
    );
  });

  it('retries a failing endpoint on the schedule, then gives up; pages attempts by cursor and status', async () => {
    const endpoint = await createEndpoint('failing', 500);
    await publish();
    await eventually(
      async () => (at('/r/failing/500').length === 3 ? true : undefined),
      5_000,
      'three attempts',
    );
    await sleep(500);
    expect(at('/r/failing/500')).toHaveLength(3);
    const stamps = at('/r/failing/500').map((r) => r.at);
    expect(stamps[1]! - stamps[0]!).toBeGreaterThanOrEqual(100);
    const all = await eventually(async () => {
      const r = await gw(stack, 'GET', `/webhooks/${endpoint.id}/deliveries`);
      return r.body.data.deliveries.length === 3 ? r.body.data.deliveries : undefined;
    }, 2_000);
    expect(all.map((a: { status: string }) => a.status)).toEqual(['failed', 'retrying', 'retrying']);
    expect(all.map((a: { attempt: number }) => a.attempt)).toEqual([3, 2, 1]);
    expect(all[1]).toMatchObject({ httpStatus: 500, error: 'HTTP 500' });
    expect(all[1].nextRetryAt).not.toBeNull();
    expect(all[0].response.length).toBeLessThanOrEqual(1_024);
    const first = await gw(stack, 'GET', `/webhooks/${endpoint.id}/deliveries?limit=2`);
    expect(first.body.data.deliveries).toHaveLength(2);
    const rest = await gw(
      stack,
      'GET',
      `/webhooks/${endpoint.id}/deliveries?limit=2&cursor=${first.body.data.nextCursor}`,
    );
    expect(rest.body.data).toMatchObject({ deliveries: [{ attempt: 1 }], nextCursor: null });
    const failed = await gw(stack, 'GET', `/webhooks/${endpoint.id}/deliveries?status=failed`);
    expect(failed.body.data.deliveries.map((a: { attempt: number }) => a.attempt)).toEqual([3]);
    const counters = (await gw(stack, 'GET', `/webhooks/${endpoint.id}`)).body.data.deliveries;
    expect(counters).toMatchObject({ delivered: 0, failedAttempts: 3, givenUp: 1, pending: 0 });
  });

  it('disables an endpoint that answers 410 Gone, without retrying', async () => {
    const endpoint = await createEndpoint('gone', 410);
    await publish();
    await eventually(async () => {
      const r = await gw(stack, 'GET', `/webhooks/${endpoint.id}`);
      return r.body.data.enabled === false ? r : undefined;
    }, 2_000);
    await sleep(400);
    expect(at('/r/gone/410')).toHaveLength(1);
    expect((await gw(stack, 'GET', `/webhooks/${endpoint.id}`)).body.data.disabledReason).toMatch(/410/);
    const said = await gw(stack, 'GET', '/events?event=webhooks.disabled');
    expect(said.body.data.events).toMatchObject([{ accountId: null, data: { endpointId: endpoint.id } }]);
  });

  it('keeps another tenant’s endpoints and deliveries out of reach (404)', async () => {
    const endpoint = await createEndpoint('private');
    const test = await gw(stack, 'POST', `/webhooks/${endpoint.id}/test`);
    const t2 = { key: stack.keys.t2 };
    for (const [method, path] of [
      ['GET', `/webhooks/${endpoint.id}`],
      ['PATCH', `/webhooks/${endpoint.id}`],
      ['DELETE', `/webhooks/${endpoint.id}`],
      ['POST', `/webhooks/${endpoint.id}/rotate-secret`],
      ['POST', `/webhooks/${endpoint.id}/test`],
      ['GET', `/webhooks/${endpoint.id}/deliveries`],
      ['POST', `/webhooks/${endpoint.id}/deliveries/${test.body.data.deliveryId}/retry`],
    ] as const) {
      const response = await gw(stack, method, path, {
        ...t2,
        ...(method === 'PATCH' ? { body: { description: 'x' } } : {}),
      });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.body.code).toBe('NOT_FOUND');
    }
    expect((await gw(stack, 'GET', '/webhooks', t2)).body.data.webhooks).toEqual([]);
    expect((await gw(stack, 'GET', '/webhooks', { key: null })).status).toBe(401);
  });

  it('drops the pending deliveries of a deleted endpoint', async () => {
    const endpoint = await createEndpoint('deleted', 500);
    await publish();
    // After its first attempt the delivery waits for its retry (150 ms): the delete drops it.
    await eventually(async () => (at('/r/deleted/500').length ? true : undefined), 2_000);
    expect((await gw(stack, 'DELETE', `/webhooks/${endpoint.id}`)).status).toBe(200);
    await sleep(700);
    const attempts = at('/r/deleted/500').length;
    expect(attempts).toBeLessThan(3);
    await sleep(300);
    expect(at('/r/deleted/500')).toHaveLength(attempts);
    // Its lane went with it, state and all.
    const laneKeys = (await scanKeys(stack.redis, stack.prefix)).filter((key) =>
      key.includes(`webhooks-lane:${endpoint.id}:`),
    );
    expect(laneKeys).toEqual([]);
  });

  it('a slow endpoint holds at most its own slots and never delays another endpoint', async () => {
    await createEndpoint('slow', '200/800', { events: ['posts.liked'] });
    await createEndpoint('fast', 200, { events: ['media.liked'] });
    for (let i = 0; i < 6; i++) await publish('posts.liked');
    const started = Date.now();
    await publish('media.liked');
    await eventually(async () => (at('/r/fast/200').length ? true : undefined), 2_000, 'the fast delivery');
    expect(Date.now() - started).toBeLessThan(700);
    expect(at('/r/slow/200/800').length).toBeLessThan(6);
    await eventually(
      async () => (at('/r/slow/200/800').length === 6 ? true : undefined),
      5_000,
      'the slow ones',
    );
    // WEBHOOK_ENDPOINT_CONCURRENCY (2): never more in flight to one endpoint.
    expect(open.get('/r/slow/200/800')?.most).toBe(2);
  });

  it('keeps no secret in Redis in plaintext', async () => {
    const haystack = (await redisText(stack)).join('\n');
    expect(secrets.length).toBeGreaterThan(5);
    for (const secret of secrets) {
      expect(haystack).not.toContain(secret);
      expect(haystack).not.toContain(secret.slice('whsec_'.length));
    }
  });
});
