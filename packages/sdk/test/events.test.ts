import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../src/client';
import { GatewayApiError } from '../src/errors';
import { SseParser, type StreamedEvent } from '../src/events';

// `client.events.stream()` against a scripted server: the wire format, reconnecting with
// Last-Event-ID, which answers it retries and which it throws. test/e2e/events-stream.test.ts runs
// it against the stack.

describe('SseParser', () => {
  it('reads frames split anywhere, with CR, LF or CRLF line ends, comments, multi-line data', () => {
    const parser = new SseParser();
    const text =
      'retry: 1000\r\n\r\n: ping\n\nid: 1-0\nevent: tips.received\ndata: {"a":\ndata: 1}\n\r' +
      'data:no space\r\rid: 2-0\r\ndata: x\r\n\r\n';
    const messages = [];
    // One character at a time: a CR at a chunk's end may be half of a CRLF.
    for (const character of text) messages.push(...parser.push(character));
    expect(messages).toEqual([
      { id: undefined, event: 'message', data: undefined, retry: 1000 },
      { id: '1-0', event: 'tips.received', data: '{"a":\n1}', retry: undefined },
      // The id persists until the stream sets another.
      { id: '1-0', event: 'message', data: 'no space', retry: undefined },
      { id: '2-0', event: 'message', data: 'x', retry: undefined },
    ]);
    expect(parser.comments).toBe(1);
  });

  it('ignores an id holding NUL, and a block without data', () => {
    const parser = new SseParser();
    expect(parser.push('id: 5-0\n\nid: a\0b\ndata: y\n\nevent: e\n\n')).toEqual([
      { id: '5-0', event: 'message', data: 'y', retry: undefined },
    ]);
  });
});

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

const handlers: Handler[] = [];
const requests: IncomingMessage[] = [];
const server = createServer((request, response) => {
  requests.push(request);
  const handler = handlers.shift();
  if (handler) handler(request, response);
  else response.writeHead(500).end('script ended');
});
let base = '';
beforeAll(async () => {
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const envelope = (n: number) => ({
  id: `evt_${n}`,
  event: 'tips.received',
  accountId: 'acct_1',
  timestamp: '2026-12-02T00:00:00.000Z',
  data: { n },
});
const frame = (n: number) => `id: ${n}-0\nevent: tips.received\ndata: ${JSON.stringify(envelope(n))}\n\n`;

/** A stream that sends these frames, then ends (`end`) or stays open. */
const sse =
  (frames: number[], end = true): Handler =>
  (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.write('retry: 5\n\n');
    for (const n of frames) response.write(frame(n));
    if (end) response.end();
  };
const refuse =
  (status: number, code: string, headers: Record<string, string> = {}): Handler =>
  (_request, response) =>
    response
      .writeHead(status, { 'content-type': 'application/json', ...headers })
      .end(JSON.stringify({ statusCode: status, message: code, error: 'x', code, requestId: 'req_1' }));

function script(...steps: Handler[]) {
  handlers.length = 0;
  handlers.push(...steps);
  requests.length = 0;
}

const client = () => createClient({ baseUrl: `${base}/api/fansly`, apiKey: 'key_secret' });

async function take(stream: AsyncIterableIterator<StreamedEvent>, n: number): Promise<StreamedEvent[]> {
  const got: StreamedEvent[] = [];
  for await (const item of stream) {
    got.push(item);
    if (got.length === n) break;
  }
  return got;
}

describe('client.events.stream', () => {
  it('yields each event with its cursor, and reconnects with Last-Event-ID after the stream ends', async () => {
    script(
      sse([1, 2]),
      refuse(503, 'SERVICE_UNAVAILABLE', { 'retry-after': '0' }),
      sse([3]),
      sse([4], false),
    );
    const got = await take(
      client().events.stream({ events: ['tips.received', 'messages.read'], accountId: 'acct_1' }),
      4,
    );
    expect(got).toEqual([1, 2, 3, 4].map((n) => ({ cursor: `${n}-0`, event: envelope(n) })));
    expect(requests.map((request) => request.url)).toEqual(
      Array(4).fill('/api/fansly/events/stream?events=tips.received%2Cmessages.read&accountId=acct_1'),
    );
    expect(requests.map((request) => request.headers['last-event-id'])).toEqual([
      undefined,
      '2-0',
      '2-0',
      '3-0',
    ]);
    expect(requests[0]?.headers['x-api-key']).toBe('key_secret');
    expect(requests[0]?.headers.accept).toBe('text/event-stream');
  });

  it('starts after `after`, and closes its connection when the loop breaks', async () => {
    let closed: Promise<void> = Promise.resolve();
    script((request, response) => {
      closed = new Promise((done) => response.once('close', () => done()));
      sse([8, 9], false)(request, response);
    });
    const got = await take(client().events.stream({ after: '7-0' }), 1);
    expect(got.map((item) => item.cursor)).toEqual(['8-0']);
    expect(requests[0]?.headers['last-event-id']).toBe('7-0');
    await closed;
  });

  it('throws a refusal that is not worth repeating (400, 401, 404) as GatewayApiError', async () => {
    for (const [status, code] of [
      [400, 'BAD_REQUEST'],
      [401, 'UNAUTHORIZED'],
      [404, 'NOT_FOUND'],
    ] as const) {
      script(refuse(status, code));
      const error = await take(client().events.stream(), 1).catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(GatewayApiError);
      expect(error).toMatchObject({ statusCode: status, code, operation: 'events-stream' });
      expect(requests).toHaveLength(1);
    }
  });

  it('reconnects when nothing arrives for idleTimeoutMs, and stops when its signal aborts', async () => {
    const abort = new AbortController();
    script(sse([], false), (request, response) => {
      sse([1], false)(request, response);
    });
    const stream = client().events.stream({ idleTimeoutMs: 200, signal: abort.signal });
    const [first] = await take(stream, 1);
    expect(first?.cursor).toBe('1-0');
    expect(requests).toHaveLength(2);

    script(sse([2], false));
    const iterator = client().events.stream({ signal: abort.signal });
    await iterator.next();
    const next = iterator.next();
    abort.abort(new Error('enough'));
    await expect(next).rejects.toThrow('enough');
  });
});
