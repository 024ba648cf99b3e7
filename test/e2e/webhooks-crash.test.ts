import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Events, eventId, eventKeys, WEBHOOKS_QUEUE } from '@cg/events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, spawnApp } from '../support/processes';
import { gw, stackEvents, startStack, type TestStack } from '../support/stack';

/**
 * One endpoint's backlog drained through its lane (WEBHOOK_ENDPOINT_CONCURRENCY 2) by delivery
 * processes of their own, one of them SIGKILLed mid-drain. The receiver notes each POST of each
 * event id with when it started and ended (answered, or cut by the kill), so the drills can say what
 * the endpoint saw: every event, never one POST of an event beside another, never more than two at
 * once, and a second POST only where at least once asks for it.
 */

const CONCURRENCY = 2;
/** The receiver answers each POST after this long. */
const ANSWER_MS = 20;
/** A failed attempt is retried after this long (the first attempt at once). */
const BACKOFF_MS = 1_500;

interface Post {
  path: string;
  id: string;
  start: number;
  end?: number;
  status?: number;
}
const posts: Post[] = [];
/**
 * POSTs open now, per endpoint (path) and per delivery (`<path> <event id>`); the most at once per
 * endpoint; how often a POST started while another of its delivery was open.
 */
const open = new Map<string, number>();
const mostOpen = new Map<string, number>();
const openByDelivery = new Map<string, number>();
let overlaps = 0;
/** `<path> <event id>` of the POSTs to answer 500 once (then 204). */
const failFirst = new Set<string>();

let receiver: Server;
let base: string;
let stack: TestStack;
let events: Events;
const deliverers: ReturnType<typeof spawnApp>[] = [];

function receive(request: IncomingMessage, response: ServerResponse): void {
  const id = String(request.headers['webhook-id']);
  const post: Post = { path: request.url ?? '', id, start: Date.now() };
  posts.push(post);
  const now = (open.get(post.path) ?? 0) + 1;
  open.set(post.path, now);
  mostOpen.set(post.path, Math.max(mostOpen.get(post.path) ?? 0, now));
  const delivery = `${post.path} ${id}`;
  const ofDelivery = (openByDelivery.get(delivery) ?? 0) + 1;
  openByDelivery.set(delivery, ofDelivery);
  if (ofDelivery > 1) overlaps += 1;
  // Answered, or its connection cut (the delivery process killed): either way the POST is over.
  response.on('close', () => {
    post.end = Date.now();
    open.set(post.path, (open.get(post.path) ?? 1) - 1);
    openByDelivery.set(delivery, (openByDelivery.get(delivery) ?? 1) - 1);
  });
  request.resume();
  request.on('end', () => {
    const fail = failFirst.delete(delivery);
    setTimeout(() => {
      post.status = fail ? 500 : 204;
      response.writeHead(post.status).end();
    }, ANSWER_MS);
  });
}

beforeAll(async () => {
  receiver = createServer(receive);
  await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  stack = await startStack({
    worker: false,
    env: {
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_ENDPOINT_CONCURRENCY: String(CONCURRENCY),
      // A dead delivery process's jobs are taken over after 2 s.
      WORKER_LOCK_MS: '2000',
      WEBHOOK_TIMEOUT_MS: '2000',
      WEBHOOK_RETRY_SCHEDULE: `0,${BACKOFF_MS},${BACKOFF_MS}`,
    },
  });
  events = stackEvents(stack);
});
afterAll(async () => {
  for (const deliverer of deliverers) deliverer.child.kill('SIGKILL');
  await Promise.all(deliverers.map((deliverer) => deliverer.exited));
  await events?.close();
  await stack?.stop();
  receiver?.closeAllConnections();
  await new Promise((done) => receiver?.close(done));
});

async function createEndpoint(path: string): Promise<string> {
  const created = await gw(stack, 'POST', '/webhooks', { body: { url: `${base}${path}` } });
  expect(created.status).toBe(201);
  return created.body.data.id as string;
}

const idsOf = (tag: string, count: number) =>
  Array.from({ length: count }, (_unused, n) => eventId(['crash-drill', tag, n]));

/** Publishes `count` events (as a listener does), a hundred at a time, and answers their ids. */
async function publish(tag: string, count: number): Promise<string[]> {
  const ids = idsOf(tag, count);
  for (let n = 0; n < count; n += 100)
    await Promise.all(
      ids
        .slice(n, n + 100)
        .map((id) =>
          events.publishEvent('t1', { id, event: 'messages.received', accountId: null, data: { tag } }),
        ),
    );
  return ids;
}

const postsOf = (path: string, id: string) => posts.filter((p) => p.path === path && p.id === id);
const delivered = (path: string, id: string) => postsOf(path, id).some((p) => p.status === 204 && p.end);

describe('an endpoint backlog drained by delivery processes', () => {
  it('SIGKILLed mid-drain: nothing lost, no POST beside another of its event, at most 2 at once', async () => {
    const path = '/crash';
    const endpointId = await createEndpoint(path);
    // The whole backlog waits in the endpoint's lane before any delivery process runs.
    const ids = await publish('crash', 300);
    const first = spawnApp('webhooks', stack.env);
    deliverers.push(first);
    await eventually(
      async () => (ids.filter((id) => delivered(path, id)).length >= 60 ? true : undefined),
      // A delivery process of its own starts in seconds, or a minute on a busy machine.
      120_000,
      'a fifth of the backlog delivered',
    );
    first.child.kill('SIGKILL');
    await first.exited;
    // The attempts in flight at the kill: BullMQ's active jobs, until another process takes them over.
    const keys = eventKeys(stack.prefix);
    const active = await stack.redis.lrange(`${keys.bullmqPrefix}:${WEBHOOKS_QUEUE}:active`, 0, -1);
    const inFlight = new Set(
      await Promise.all(
        active.map(async (jobId) => {
          const job = await stack.redis.hget(`${keys.bullmqPrefix}:${WEBHOOKS_QUEUE}:${jobId}`, 'data');
          const { deliveryId } = JSON.parse(job ?? '{}') as { deliveryId: string };
          return stack.redis.hget(keys.delivery('t1', endpointId, deliveryId), 'eventId');
        }),
      ),
    );
    expect(inFlight.size).toBeGreaterThan(0);
    expect(inFlight.size).toBeLessThanOrEqual(CONCURRENCY);
    const undelivered = ids.filter((id) => !delivered(path, id));
    expect(undelivered.length).toBeGreaterThan(0);

    deliverers.push(spawnApp('webhooks', stack.env));
    await eventually(
      async () => (ids.every((id) => delivered(path, id)) ? true : undefined),
      120_000,
      'every event delivered after the takeover',
    );
    expect(overlaps).toBe(0);
    expect(mostOpen.get(path)).toBe(CONCURRENCY);
    const repeated = ids.filter((id) => postsOf(path, id).length > 1);
    for (const id of repeated) expect(inFlight.has(id), `${id} POSTed again`).toBe(true);
  }, 300_000);

  it('a failed attempt is retried after its backoff, whatever slots free meanwhile', async () => {
    const path = '/retry';
    await createEndpoint(path);
    const [failing] = idsOf('retry-first', 1) as [string];
    failFirst.add(`${path} ${failing}`);
    await publish('retry-first', 1);
    // Deliveries keep ending (and slots freeing) for longer than the backoff.
    const backlog = await publish('retry-backlog', 250);
    await eventually(
      async () => (delivered(path, failing) && backlog.every((id) => delivered(path, id)) ? true : undefined),
      60_000,
      'the retry and the backlog delivered',
    );
    const [failed, retried] = postsOf(path, failing);
    expect(failed?.status).toBe(500);
    expect(retried!.start - failed!.end!).toBeGreaterThanOrEqual(BACKOFF_MS);
    // It came back while the backlog still drained: its wait for a slot was the lane's.
    expect(backlog.some((id) => postsOf(path, id)[0]!.start > retried!.start)).toBe(true);
    expect(overlaps).toBe(0);
    expect(mostOpen.get(path)).toBe(CONCURRENCY);
  }, 120_000);
});
