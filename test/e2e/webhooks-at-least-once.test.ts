import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Events, eventId, eventKeys } from '@cg/events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, spawnApp } from '../support/processes';
import { gw, stackEvents, startStack, type TestStack } from '../support/stack';

/**
 * At least once, against the two ways a delivery goes wrong: the delivery process SIGKILLed while a
 * POST is in flight, and a receiver that is down for a while. Each drill counts the event ids the
 * receiver acknowledged: every published event is there.
 */

type Mode = 'ok' | 'fail' | 'hang';
let mode: Mode = 'ok';
/** Event ids the receiver answered 2xx, and every POST it saw (retries included). */
const acknowledged = new Set<string>();
let seen = 0;
const hanging: ServerResponse[] = [];
let receiver: Server;
let url: string;
let stack: TestStack;
let events: Events;
const deliverers: ReturnType<typeof spawnApp>[] = [];

beforeAll(async () => {
  receiver = createServer((request: IncomingMessage, response: ServerResponse) => {
    request.resume();
    request.on('end', () => {
      seen += 1;
      if (mode === 'hang') return void hanging.push(response);
      if (mode === 'fail') return void response.writeHead(503).end();
      acknowledged.add(String(request.headers['webhook-id']));
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  stack = await startStack({
    env: {
      WEBHOOK_ALLOW_PRIVATE: 'true',
      // A dead delivery process's jobs are taken over after 2 s; failed attempts come back fast.
      WORKER_LOCK_MS: '2000',
      WEBHOOK_TIMEOUT_MS: '30000',
      WEBHOOK_RETRY_SCHEDULE: '0,200,200,200,200,200,200,200,200,200,200,200',
    },
  });
  events = stackEvents(stack);
  const created = await gw(stack, 'POST', '/webhooks', { body: { url } });
  expect(created.status).toBe(201);
});
afterAll(async () => {
  for (const deliverer of deliverers) deliverer.child.kill('SIGKILL');
  await Promise.all(deliverers.map((deliverer) => deliverer.exited));
  for (const response of hanging) response.destroy();
  await events?.close();
  await stack?.stop();
  await new Promise((done) => receiver.close(done));
});

/** Publishes `count` events (as a listener would) and answers their ids. */
async function publish(tag: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let n = 0; n < count; n++) {
    const id = eventId(['drill', tag, n]);
    await events.publishEvent('t1', { id, event: 'messages.received', accountId: null, data: { tag, n } });
    ids.push(id);
  }
  return ids;
}

const allAcknowledged = (ids: string[], what: string) =>
  eventually(async () => (ids.every((id) => acknowledged.has(id)) ? true : undefined), 20_000, what);

describe('webhook delivery, at least once', () => {
  it('a delivery process SIGKILLed mid-POST: another delivers everything, at least once', async () => {
    const env = { ...stack.env };
    mode = 'hang';
    const first = spawnApp('webhooks', env);
    deliverers.push(first);
    const ids = await publish('crash', 5);
    await eventually(async () => (hanging.length > 0 ? true : undefined), 15_000, 'a POST in flight');
    first.child.kill('SIGKILL');
    await first.exited;
    mode = 'ok';
    for (const response of hanging.splice(0)) response.destroy();
    deliverers.push(spawnApp('webhooks', env));
    await allAcknowledged(ids, 'every event after the takeover');
  });

  it('disables an endpoint whose every attempt failed for WEBHOOK_DISABLE_AFTER_HOURS', async () => {
    mode = 'fail';
    const created = await gw(stack, 'POST', '/webhooks', { body: { url: `${url}/failing` } });
    const id = created.body.data.id as string;
    // Failing for 73 h already (the default limit is 72): as if the hours had passed.
    await stack.redis.hset(
      eventKeys(stack.prefix).endpoint('t1', id),
      'failingSince',
      Date.now() - 73 * 3_600_000,
    );
    await publish('long-failure', 1);
    const endpoint = await eventually(
      async () => {
        const read = (await gw(stack, 'GET', `/webhooks/${id}`)).body.data;
        return read.enabled === false ? read : undefined;
      },
      15_000,
      'the endpoint disabled',
    );
    expect(endpoint.disabledReason).toMatch(/failed/);
    mode = 'ok';
    // The tenant's other endpoint is still served.
    await allAcknowledged(await publish('after-disable', 1), 'the other endpoint still served');
    expect((await gw(stack, 'DELETE', `/webhooks/${id}`)).status).toBe(200);
  });

  it('a receiver down for a while: everything arrives once it is back', async () => {
    mode = 'fail';
    const before = seen;
    const ids = await publish('outage', 5);
    // Failed attempts, each retried on the (shortened) schedule.
    await eventually(async () => (seen - before >= 10 ? true : undefined), 15_000, 'attempts while down');
    expect(ids.some((id) => acknowledged.has(id))).toBe(false);
    mode = 'ok';
    await allAcknowledged(ids, 'every event once the receiver is back');
  });
});
