import { Agent, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { createApi } from '@cg/api';
import { loadGatewayConfig } from '@cg/config';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectAccount } from '../support/common';
import { testLogger } from '../support/logs';
import { sleep } from '../support/processes';
import { clearFaults, sawRequests, simRequests, slowDown } from '../support/sim';
import { finished, startStack, type TestStack } from '../support/stack';

// An API process stopping (SIGTERM runs `app.close()`): what its callers see, and how long it takes.
const GRACE_MS = 1_000;
let stack: TestStack;
let accountId: string;

beforeAll(async () => {
  stack = await startStack();
  accountId = await connectAccount(stack, 'creator_demo');
});
afterAll(async () => {
  await clearFaults(stack);
  await stack?.stop();
});

/** A request on a keep-alive agent's sockets (fetch hides which socket it uses). */
function get(agent: Agent, url: string, key: string) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: any }>((resolve, reject) => {
    const req = httpRequest(url, { agent, headers: { 'x-api-key': key } }, (res) => {
      let text = '';
      res.on('data', (chunk) => {
        text += chunk;
      });
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text) }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

describe('an API process that stops', () => {
  let api: FastifyInstance;
  let base: string;

  beforeAll(async () => {
    const config = loadGatewayConfig({ ...stack.env, SHUTDOWN_GRACE_MS: String(GRACE_MS) });
    api = await createApi(config, testLogger());
    base = `${await api.listen({ port: 0, host: '127.0.0.1' })}/api/fansly`;
  });

  it('refuses new work in the error shape, answers its waits 202 at the grace, and is gone right after', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 2 });
    // Keep-alive connections, open before the stop: an idle one is closed by the stop, the busy one
    // once its answer is sent (it used to stay open, idle, for the 72 s keep-alive timeout).
    await Promise.all([0, 1].map(() => get(agent, `${base}/accounts`, stack.keys.t1)));
    await slowDown(stack, 'creator_demo', '/api/v1/account/me', 3_000);
    const before = (await simRequests(stack, 'creator_demo'))['GET /api/v1/account/me'] ?? 0;
    const waiting = get(agent, `${base}/${accountId}/me`, stack.keys.t1);
    // Queued and at the platform (held there 3 s) before the stop.
    await sawRequests(stack, 'creator_demo', 'GET /api/v1/account/me', before + 1);

    // A request whose headers are half sent when the stop begins.
    const partial = connect(Number(new URL(base).port), '127.0.0.1');
    let partialText = '';
    const partialAnswer = new Promise<string>((resolve) => {
      partial.on('data', (chunk) => {
        partialText += chunk;
      });
      partial.on('close', () => resolve(partialText));
    });
    await new Promise<void>((resolve) =>
      partial.write('GET /api/fansly/accounts HTTP/1.1\r\nhost: 127.0.0.1\r\n', () => resolve()),
    );
    await sleep(100);

    const stopped = Date.now();
    const closing = api.close();
    await sleep(100);
    // A request already arriving on an open connection still reaches the process: it is refused in
    // the error shape, and its connection closed.
    await new Promise<void>((resolve) => partial.write('x-api-key: x\r\n\r\n', () => resolve()));
    const refused = await partialAnswer;
    expect(refused).toMatch(/^HTTP\/1\.1 503/);
    expect(refused).toMatch(/\r\nretry-after: 1\r\n/i);
    expect(refused).toMatch(/\r\nconnection: close\r\n/i);
    expect(JSON.parse(refused.slice(refused.indexOf('\r\n\r\n') + 4))).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      requestId: expect.stringMatching(/^req_/),
    });

    // The wait in flight ends at the grace with its job's status URL; the job goes on.
    const answer = await waiting;
    expect(answer.status).toBe(202);
    expect(answer.headers.connection).toBe('close');
    await closing;
    const took = Date.now() - stopped;
    expect(took).toBeGreaterThanOrEqual(GRACE_MS - 50);
    // Not the 72 s a keep-alive connection could hold it, nor the 3 s the platform holds the call.
    expect(took).toBeLessThan(GRACE_MS + 1_800);
    agent.destroy();

    const statusUrl = String(answer.body.data.statusUrl).replace(base, `${stack.apiUrl}/api/fansly`);
    const done = await finished(statusUrl, stack.keys.t1);
    expect(done.status).toBe(200);
  });
});
