import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Events, eventId } from '@cg/events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, sleep } from '../support/processes';
import { gw, stackEvents, startStack, type TestStack } from '../support/stack';

// Two endpoints of one tenant, each in its own lane (WEBHOOK_ENDPOINT_CONCURRENCY 2, the default),
// the delivery process in-process: a flooded endpoint's backlog is not in the way of the other's
// deliveries. A loose bound, not a timing benchmark (`pnpm bench S7` measures).
const BACKLOG = 3_000;
/** The flooded endpoint's receiver answers after this long: 2 at a time, the backlog takes seconds. */
const FLOODED_ANSWER_MS = 5;
const BOUND_MS = 1_000;

let stack: TestStack;
let events: Events;
let receiver: Server;
let base: string;
/** When each event id reached each path. */
const arrived = new Map<string, number>();
let flooded = 0;

beforeAll(async () => {
  receiver = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      if (request.url === '/flooded') {
        flooded += 1;
        setTimeout(() => response.writeHead(204).end(), FLOODED_ANSWER_MS);
        return;
      }
      arrived.set(String(request.headers['webhook-id']), Date.now());
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  stack = await startStack({ worker: false, webhooks: true, env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
  events = stackEvents(stack);
});
afterAll(async () => {
  await events?.close();
  await stack?.stop();
  receiver?.closeAllConnections();
  await new Promise((done) => receiver?.close(done));
});

async function createEndpoint(path: string, event: string): Promise<void> {
  const created = await gw(stack, 'POST', '/webhooks', { body: { url: `${base}${path}`, events: [event] } });
  expect(created.status).toBe(201);
}

describe('endpoints of one tenant', () => {
  it(`a backlog of ${BACKLOG} on one endpoint does not delay another's deliveries`, async () => {
    await createEndpoint('/flooded', 'tips.received');
    await createEndpoint('/beside', 'messages.received');
    for (let n = 0; n < BACKLOG; n += 100)
      await Promise.all(
        Array.from({ length: 100 }, (_unused, k) =>
          events.publishEvent('t1', {
            id: eventId(['fairness', 'flooded', n + k]),
            event: 'tips.received',
            accountId: null,
            data: { n: n + k },
          }),
        ),
      );
    const waited: number[] = [];
    for (let n = 0; n < 10; n++) {
      const id = eventId(['fairness', 'beside', n]);
      const published = Date.now();
      await events.publishEvent('t1', { id, event: 'messages.received', accountId: null, data: { n } });
      waited.push(
        (await eventually(async () => arrived.get(id), 10_000, `delivery ${n} beside`)) - published,
      );
      await sleep(100);
    }
    // The backlog was still there all along.
    expect(flooded).toBeLessThan(BACKLOG);
    expect(Math.max(...waited), `waited ${waited.join(', ')} ms`).toBeLessThan(BOUND_MS);
  }, 180_000);
});
