import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep } from '../support/processes';
import { answers } from '../support/raw-http';
import { startStack, type TestStack } from '../support/stack';

/** What a raw socket saw: the bytes the server wrote, and when (ms after connecting) it closed. */
interface Exchange {
  answer: string;
  closedAfterMs: number;
}

/**
 * Opens a socket to the API, writes `first`, then each of `drip` (`everyMs` apart) while the socket
 * is open; never ends its side (a client that stalls, not one that hangs up). Resolves when the
 * server closes the socket; a socket still open after `giveUpMs` is a failure.
 */
function exchange(
  stack: TestStack,
  first: string,
  options: { drip?: string[]; everyMs?: number; giveUpMs?: number } = {},
): Promise<Exchange> {
  const { hostname, port } = new URL(stack.apiUrl);
  const { drip = [], everyMs = 0, giveUpMs = 10_000 } = options;
  return new Promise((resolve, reject) => {
    const started = Date.now();
    let answer = '';
    const socket = connect(Number(port), hostname, async () => {
      socket.write(first);
      for (const bytes of drip) {
        await sleep(everyMs);
        if (socket.destroyed) return;
        socket.write(bytes);
      }
    });
    const giveUp = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server held the socket open for ${giveUpMs} ms`));
    }, giveUpMs);
    socket.on('data', (chunk) => {
      answer += chunk.toString();
    });
    socket.on('error', () => undefined); // a reset is a close too
    socket.on('close', () => {
      clearTimeout(giveUp);
      resolve({ answer, closedAfterMs: Date.now() - started });
    });
  });
}

const post = (path: string, length: number, headers = '') =>
  `POST /api/fansly${path} HTTP/1.1\r\nHost: gateway\r\nContent-Type: application/json\r\n` +
  `Content-Length: ${length}\r\n${headers}\r\n`;

describe('slow and stalled requests (BODY_IDLE_TIMEOUT_MS and HEADERS_TIMEOUT_MS at 1 s)', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startStack({
      worker: false,
      env: { BODY_IDLE_TIMEOUT_MS: '1000', HEADERS_TIMEOUT_MS: '1000' },
    });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('answers 408 and closes a request whose body stops arriving (content-length 5000, 100 bytes sent)', async () => {
    const seen = await exchange(
      stack,
      `${post('/connect', 5000, `x-api-key: ${stack.keys.t1}\r\n`)}{"username":"${'a'.repeat(86)}`,
    );
    expect(seen.closedAfterMs).toBeGreaterThanOrEqual(900);
    expect(seen.closedAfterMs).toBeLessThan(4_000);
    const [answer] = answers(seen.answer);
    expect(answer?.status).toBe(408);
    expect(answer?.body).toMatchObject({
      statusCode: 408,
      code: 'REQUEST_TIMEOUT',
      error: 'Request Timeout',
    });
    expect(answer?.body.requestId).toMatch(/^req_/);
  });

  it("names the caller's X-Request-Id in that 408", async () => {
    const seen = await exchange(
      stack,
      `${post('/connect', 5000, `x-api-key: ${stack.keys.t1}\r\nx-request-id: stalled-body-1\r\n`)}{"username":"`,
    );
    const [answer] = answers(seen.answer);
    expect(answer?.status).toBe(408);
    expect(answer?.body.requestId).toBe('stalled-body-1');
    expect(answer?.headers['x-request-id']).toBe('stalled-body-1');
  });

  it('closes a stalled body that was already refused (401 before the body) within the bound', async () => {
    const seen = await exchange(stack, `${post('/connect', 5000)}{"username":"`);
    expect(seen.closedAfterMs).toBeLessThan(4_000);
    const [answer] = answers(seen.answer);
    expect(answer?.status).toBe(401);
  });

  it('does not cut a body that keeps arriving, however slowly (3 s at a byte every 250 ms)', async () => {
    const body = '{"username": 1}'; // refused by validation once it has all arrived
    const seen = await exchange(
      stack,
      post('/connect', body.length, `x-api-key: ${stack.keys.t1}\r\nConnection: close\r\n`),
      {
        drip: [...body],
        everyMs: 250,
      },
    );
    expect(seen.closedAfterMs).toBeGreaterThan(3_000);
    const [answer] = answers(seen.answer);
    expect(answer?.status).toBe(400);
    expect(answer?.body.code).toBe('BAD_REQUEST');
  });

  it('answers 408 and closes a request whose headers never finish', async () => {
    const seen = await exchange(stack, 'GET /healthz HTTP/1.1\r\nHost: gateway\r\n', {
      drip: ['X', '-', 'S', 'l', 'o', 'w', ':', ' ', '1'],
      everyMs: 400,
    });
    // HEADERS_TIMEOUT_MS, plus up to a second until Node's next check.
    expect(seen.closedAfterMs).toBeLessThan(3_500);
    const [answer] = answers(seen.answer);
    expect(answer?.status).toBe(408);
    expect(answer?.body.code).toBe('REQUEST_TIMEOUT');
  });

  it('answers CONNECT 405 in the error shape and closes the connection', async () => {
    const seen = await exchange(stack, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n', {
      giveUpMs: 3_000,
    });
    const [answer] = answers(seen.answer);
    expect(answer?.status).toBe(405);
    expect(answer?.headers.allow).toBe('');
    expect(answer?.body).toEqual({
      statusCode: 405,
      error: 'Method Not Allowed',
      code: 'METHOD_NOT_ALLOWED',
      message: expect.stringContaining('CONNECT'),
      requestId: expect.stringMatching(/^req_/),
    });
  });

  it('names the methods a gateway path takes when CONNECT asks for it', async () => {
    const seen = await exchange(stack, 'CONNECT /api/fansly/accounts HTTP/1.1\r\nHost: gateway\r\n\r\n', {
      giveUpMs: 3_000,
    });
    const [answer] = answers(seen.answer);
    expect(answer?.status).toBe(405);
    expect(answer?.headers.allow).toContain('GET');
    expect(answer?.body.code).toBe('METHOD_NOT_ALLOWED');
  });
});

describe('a stalled body under the default settings', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startStack({ worker: false });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('is closed within 30 s', { timeout: 45_000 }, async () => {
    const seen = await exchange(stack, `${post('/connect', 5000, `x-api-key: ${stack.keys.t1}\r\n`)}{"user`, {
      giveUpMs: 35_000,
    });
    expect(seen.closedAfterMs).toBeLessThanOrEqual(30_000);
    expect(answers(seen.answer)[0]?.status).toBe(408);
  });
});
