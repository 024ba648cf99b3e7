import { connect, type Socket } from 'node:net';
import { type Events, eventId, type PublishResult } from '@cg/events';
import { createClient, type StreamedEvent } from '@cg/sdk';
import { ApiKeyStore, storeKeys } from '@cg/store';
import { Agent, fetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectAccount } from '../support/common';
import { eventually, spawnApi } from '../support/processes';
import { gw, stackEvents, startStack, type TestStack } from '../support/stack';

// GET /events/stream: the event log as Server-Sent Events, live and resumed by id, on the in-process
// API and on API processes of their own (one SIGKILLed). Events are published into the log
// directly, as the listener and the API's own routes do.
const HEARTBEAT_MS = 200;
const MAX_BUFFER = 128 * 1024;

let stack: TestStack;
let events: Events;
let accountA: string;
let accountB: string;
const opened: Stream[] = [];

beforeAll(async () => {
  stack = await startStack({
    env: {
      EVENT_STREAM_HEARTBEAT_MS: String(HEARTBEAT_MS),
      EVENT_STREAM_MAX_BUFFER_BYTES: String(MAX_BUFFER),
    },
  });
  events = stackEvents(stack);
  accountA = await connectAccount(stack, 'creator_demo');
  accountB = await connectAccount(stack, 'creator_2fa');
});
afterAll(async () => {
  for (const stream of opened) stream.close();
  await events?.close();
  await stack?.stop();
});

let serial = 0;
/** Publishes one event into tenant t1's log (or `tenant`'s), as a listener would. */
function publish(
  options: { event?: string; accountId?: string | null; tenant?: string; data?: unknown } = {},
): Promise<PublishResult> {
  const { event = 'messages.received', accountId = accountA, tenant = 't1' } = options;
  serial += 1;
  return events.publishEvent(tenant, {
    id: eventId(['stream-test', tenant, String(accountId), event, serial, Date.now()]),
    event,
    accountId,
    data: options.data ?? { n: serial },
  });
}

interface Frame {
  id: string;
  event: string;
  data: any;
  at: number;
}

/** A stream read with fetch: its frames as they come, its comments counted. */
interface Stream {
  status: number;
  headers: Headers;
  frames: Frame[];
  pings: number;
  ended: boolean;
  /** Waits until `n` frames in all have come, and answers them. */
  until(n: number, what?: string): Promise<Frame[]>;
  close(): void;
}

async function openStream(
  query = '',
  options: { key?: string; headers?: Record<string, string>; apiUrl?: string } = {},
): Promise<Stream> {
  // A connection of its own, closed with it (an aborted fetch can leave the shared pool a connection
  // that never sends a request, which the API's close then waits on).
  const agent = new Agent();
  const response = await fetch(`${options.apiUrl ?? stack.apiUrl}/api/fansly/events/stream${query}`, {
    headers: { 'x-api-key': options.key ?? stack.keys.t1, ...options.headers },
    dispatcher: agent,
  });
  const stream: Stream = {
    status: response.status,
    headers: response.headers,
    frames: [],
    pings: 0,
    ended: false,
    until: (n, what = `${n} frames`) =>
      eventually(async () => (stream.frames.length >= n ? stream.frames : undefined), 10_000, what),
    close: () => void agent.destroy(),
  };
  opened.push(stream);
  if (response.status !== 200 || !response.body) return stream;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  void (async () => {
    let text = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        text += value;
        let end = text.indexOf('\n\n');
        while (end !== -1) {
          const block = text.slice(0, end);
          text = text.slice(end + 2);
          end = text.indexOf('\n\n');
          if (block === ': ping') stream.pings += 1;
          const field = (name: string) =>
            block
              .split('\n')
              .find((line) => line.startsWith(`${name}: `))
              ?.slice(name.length + 2);
          const data = field('data');
          if (data !== undefined)
            stream.frames.push({
              id: field('id') ?? '',
              event: field('event') ?? '',
              data: JSON.parse(data),
              at: Date.now(),
            });
        }
      }
    } catch {
      // aborted
    }
    stream.ended = true;
  })();
  return stream;
}

/** Waits until a stream is held by the API (its first ping has come: it is registered with the feed). */
const held = (stream: Stream) =>
  eventually(async () => (stream.pings > 0 ? true : undefined), 10_000, 'a first ping');

describe('GET /events/stream', () => {
  it('sends an event published while connected within 1 s, as GET /events lists it, its id the log’s', async () => {
    const stream = await openStream();
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(stream.headers.get('x-request-id')).toMatch(/^req_/);
    await held(stream);
    const started = Date.now();
    const published = await publish({ event: 'tips.received' });
    const [frame] = await stream.until(1);
    expect((frame?.at ?? Number.POSITIVE_INFINITY) - started).toBeLessThan(1_000);
    expect(frame).toMatchObject({ id: published.streamId, event: 'tips.received', data: published.event });
    const listed = await gw(stack, 'GET', `/events?limit=100`);
    expect(listed.body.data.events.at(-1)).toEqual(frame?.data);
    stream.close();
  });

  it('is in the OpenAPI document as a text/event-stream answer', async () => {
    const doc = (await (await fetch(`${stack.apiUrl}/openapi.json`)).json()) as any;
    const route = doc.paths['/api/fansly/events/stream'].get;
    expect(route.operationId).toBe('events-stream');
    expect(route.responses['200'].content['text/event-stream']).toBeDefined();
    expect(route.responses['200'].description).toMatch(/Server-Sent Events/);
    expect(route.parameters.map((p: { name: string }) => p.name).sort()).toEqual(
      ['accountId', 'after', 'events', 'last-event-id'].sort(),
    );
  });

  it('sends comment pings while nothing happens', async () => {
    const stream = await openStream();
    await eventually(async () => (stream.pings >= 3 ? true : undefined), 10_000, 'three pings');
    expect(stream.frames).toEqual([]);
    stream.close();
  });

  it('resumes after Last-Event-ID (or ?after=) with every missed event once, in order, then live', async () => {
    const first = await openStream();
    await held(first);
    const seen = await publish();
    await first.until(1);
    first.close();
    const missed: PublishResult[] = [];
    for (let n = 0; n < 5; n++)
      missed.push(await publish({ event: n % 2 ? 'tips.received' : 'messages.received' }));

    const resumed = await openStream('', { headers: { 'last-event-id': seen.streamId } });
    const byQuery = await openStream(`?after=${seen.streamId}`);
    // The header wins over the query.
    const both = await openStream(`?after=${missed[2]?.streamId}`, {
      headers: { 'last-event-id': seen.streamId },
    });
    for (const stream of [resumed, byQuery, both]) await stream.until(5);
    const live = await publish();
    for (const stream of [resumed, byQuery, both]) {
      await stream.until(6);
      expect(stream.frames.map((frame) => frame.id)).toEqual([...missed, live].map((p) => p.streamId));
      expect(stream.frames.map((frame) => frame.data)).toEqual([...missed, live].map((p) => p.event));
      stream.close();
    }
  });

  it('starts from now without an id, and refuses an id it never sent', async () => {
    await publish();
    const stream = await openStream();
    await held(stream);
    const next = await publish();
    await stream.until(1);
    expect(stream.frames.map((frame) => frame.id)).toEqual([next.streamId]);
    stream.close();
    for (const [query, headers] of [
      ['?after=abc', {}],
      ['', { 'last-event-id': '1-2-3' }],
      ['', { 'last-event-id': '99999999999999999999-0' }],
    ] as const) {
      const refused = await gw(stack, 'GET', `/events/stream${query}`, { headers });
      expect(refused.status, `${query} ${JSON.stringify(headers)}`).toBe(400);
      expect(refused.body.code).toBe('BAD_REQUEST');
    }
  });

  it('filters by events= and accountId=, and names unknown events (400)', async () => {
    const tips = await openStream('?events=tips.received,messages.read');
    const ofB = await openStream(`?accountId=${accountB}`);
    const tipsOfB = await openStream(`?events=tips.received&accountId=${accountB}`);
    for (const stream of [tips, ofB, tipsOfB]) await held(stream);
    const published = [
      await publish({ event: 'tips.received', accountId: accountA }),
      await publish({ event: 'messages.received', accountId: accountB }),
      await publish({ event: 'messages.read', accountId: accountB }),
      await publish({ event: 'tips.received', accountId: accountB }),
      await publish({ event: 'tips.received', accountId: null }),
    ];
    const ids = (...n: number[]) => n.map((i) => published[i]?.streamId);
    await tips.until(4);
    await ofB.until(3);
    await tipsOfB.until(1);
    // The last event reaches every stream that takes it: nothing else is still on its way.
    await eventually(async () =>
      tips.frames.some((frame) => frame.id === published[4]?.streamId) ? true : undefined,
    );
    expect(tips.frames.map((frame) => frame.id)).toEqual(ids(0, 2, 3, 4));
    expect(ofB.frames.map((frame) => frame.id)).toEqual(ids(1, 2, 3));
    expect(tipsOfB.frames.map((frame) => frame.id)).toEqual(ids(3));

    const unknown = await gw(stack, 'GET', '/events/stream?events=tips.received,nope.never');
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ code: 'BAD_REQUEST' });
    expect(unknown.body.message).toMatch(/^unknown event nope\.never; known events: /);
    const two = await gw(stack, 'GET', '/events/stream?events=a.b,c.d');
    expect(two.body.message).toMatch(/^unknown events: a\.b, c\.d; /);
    const none = await gw(stack, 'GET', '/events/stream?events=,');
    expect(none.status).toBe(400);
    expect(none.body.message).toMatch(/^events names no event; known events: /);
    for (const stream of [tips, ofB, tipsOfB]) stream.close();
  });

  it('gives a key of some accounts only their events; another account is 404 as another tenant’s', async () => {
    const apiKeys = new ApiKeyStore(stack.redis, storeKeys(stack.prefix));
    const scoped = (await apiKeys.create('t1', { access: 'read', accounts: [accountA] })).key;
    const stream = await openStream('', { key: scoped });
    const everything = await openStream();
    for (const s of [stream, everything]) await held(s);
    const published = [
      await publish({ accountId: accountB }),
      await publish({ accountId: null, event: 'webhooks.test' }),
      await publish({ accountId: accountA }),
      await publish({ accountId: accountB }),
      await publish({ accountId: accountA, event: 'tips.received' }),
    ];
    await everything.until(5);
    await stream.until(2);
    expect(stream.frames.map((frame) => frame.id)).toEqual(
      [published[2], published[4]].map((p) => p?.streamId),
    );
    // Resumed from the start of these five: the same two.
    const resumed = await openStream('', {
      key: scoped,
      headers: { 'last-event-id': everything.frames[0]?.id ?? '' },
    });
    await resumed.until(2);
    expect(resumed.frames.map((frame) => frame.id)).toEqual(
      [published[2], published[4]].map((p) => p?.streamId),
    );

    const outside = await gw(stack, 'GET', `/events/stream?accountId=${accountB}`, { key: scoped });
    const foreign = await gw(stack, 'GET', `/events/stream?accountId=${accountA}`, { key: stack.keys.t2 });
    const unknown = await gw(stack, 'GET', '/events/stream?accountId=acct_unknown0', { key: stack.keys.t1 });
    for (const [answer, id] of [
      [outside, accountB],
      [foreign, accountA],
      [unknown, 'acct_unknown0'],
    ] as const) {
      expect(answer.status).toBe(404);
      expect(answer.body).toMatchObject({ code: 'NOT_FOUND', message: `account ${id} not found` });
    }
    expect((await gw(stack, 'GET', '/events/stream', { key: null })).status).toBe(401);
    for (const s of [stream, everything, resumed]) s.close();
  });

  it('counts a stream in its key’s usage once, as answered', async () => {
    const apiKeys = new ApiKeyStore(stack.redis, storeKeys(stack.prefix));
    const { key, info } = await apiKeys.create('t1', { access: 'read' });
    const stream = await openStream('', { key });
    expect(stream.status).toBe(200);
    await eventually(async () => {
      const answer = await gw(stack, 'GET', '/usage?groupBy=key&bucket=hour');
      const rows = (answer.body?.data?.rows ?? []).filter((row: { id: string }) => row.id === info.keyId);
      return rows.length === 1 && rows[0].requests2xx === 1 ? true : undefined;
    });
    stream.close();
  });

  it('never sends another tenant’s events', async () => {
    const t2 = await openStream('', { key: stack.keys.t2 });
    const t1 = await openStream();
    for (const s of [t1, t2]) await held(s);
    await publish({ tenant: 't2' });
    const mine = await publish();
    await t1.until(1);
    await t2.until(1);
    expect(t1.frames.map((frame) => frame.id)).toEqual([mine.streamId]);
    expect(t2.frames.map((frame) => frame.event)).toEqual(['messages.received']);
    expect(t2.frames[0]?.data.accountId).toBe(accountA);
    expect(t2.frames[0]?.id).not.toBe(mine.streamId);
    for (const s of [t1, t2]) s.close();
  });

  it('ends a stream at the next ping once its key is revoked', async () => {
    const apiKeys = new ApiKeyStore(stack.redis, storeKeys(stack.prefix));
    const { key, info } = await apiKeys.create('t1', { access: 'read' });
    const stream = await openStream('', { key });
    await held(stream);
    await apiKeys.revoke(info.keyId);
    await eventually(async () => (stream.ended ? true : undefined), 10_000, 'the stream ended');
  });

  it('drops a client that stops reading, while another keeps receiving every event', async () => {
    const healthy = await openStream();
    const stalled = await stalledClient(stack.apiUrl);
    await held(healthy);
    // About 8 MB: more than the kernel's buffers of a loopback connection hold (4 MB or so), then the
    // API's bound (128 KiB): the stalled client must be dropped before the last ones.
    const filler = 'x'.repeat(64 * 1024);
    const published: PublishResult[] = [];
    for (let n = 0; n < 128; n++) published.push(await publish({ data: { n, filler } }));
    const last = published.at(-1);
    const frames = await healthy.until(128, 'every event at the reading client');
    expect(frames.map((frame) => frame.id)).toEqual(published.map((p) => p.streamId));
    const got = await stalled.readAll();
    expect(got.ended).toBe(true);
    expect(got.text.includes(`id: ${published[0]?.streamId}\n`)).toBe(true);
    expect(got.text.includes(`id: ${last?.streamId}\n`)).toBe(false);
    healthy.close();
  });
});

/**
 * A client that sends its request and then reads nothing until `readAll`, which reads what is there
 * until the connection ends (or it has been quiet for 2 s: `ended` false).
 */
async function stalledClient(apiUrl: string) {
  const url = new URL(apiUrl);
  const socket: Socket = connect(Number(url.port), url.hostname);
  await new Promise<void>((done) => socket.once('connect', () => done()));
  socket.write(
    `GET /api/fansly/events/stream HTTP/1.1\r\nhost: ${url.host}\r\nx-api-key: ${stack.keys.t1}\r\n\r\n`,
  );
  socket.pause();
  return {
    readAll: () =>
      new Promise<{ text: string; ended: boolean }>((done) => {
        let text = '';
        let quiet: NodeJS.Timeout | undefined;
        const finish = (ended: boolean) => {
          clearTimeout(quiet);
          socket.destroy();
          done({ text, ended });
        };
        const idle = () => {
          clearTimeout(quiet);
          quiet = setTimeout(() => finish(false), 2_000);
        };
        socket.on('data', (chunk) => {
          text += chunk.toString();
          idle();
        });
        socket.once('end', () => finish(true));
        socket.once('error', () => finish(true));
        socket.once('close', () => finish(true));
        idle();
        socket.resume();
      }),
  };
}

describe('GET /events/stream across API processes', () => {
  it('resumes on another process, exactly, after the one it was reading from is SIGKILLed', async () => {
    const api = await spawnApi({ ...stack.env, EVENT_STREAM_HEARTBEAT_MS: String(HEARTBEAT_MS) });
    try {
      const stream = await openStream('', { apiUrl: api.url });
      await held(stream);
      const before = [await publish(), await publish()];
      await stream.until(2);
      api.child.kill('SIGKILL');
      await api.exited;
      const missed: PublishResult[] = [];
      for (let n = 0; n < 4; n++) missed.push(await publish());
      const lastSeen = stream.frames.at(-1)?.id ?? '';
      expect(lastSeen).toBe(before[1]?.streamId);
      const resumed = await openStream('', { headers: { 'last-event-id': lastSeen } });
      await resumed.until(4);
      const live = await publish();
      await resumed.until(5);
      expect(resumed.frames.map((frame) => frame.id)).toEqual([...missed, live].map((p) => p.streamId));
      resumed.close();
    } finally {
      api.child.kill('SIGKILL');
    }
  });

  it('lets the SDK’s events.stream() resume by itself on another process after a SIGKILL', async () => {
    const api = await spawnApi({ ...stack.env, EVENT_STREAM_HEARTBEAT_MS: String(HEARTBEAT_MS) });
    // The SDK calls the killed process's URL; from the kill on, its requests go to the stack's API,
    // as a load balancer would send them.
    let origin = api.url;
    const agent = new Agent();
    const client = createClient({
      baseUrl: `${api.url}/api/fansly`,
      apiKey: stack.keys.t1,
      fetch: ((input: string, init: RequestInit) =>
        fetch(String(input).replace(api.url, origin), { ...init, dispatcher: agent } as never)) as never,
    });
    try {
      const got: StreamedEvent[] = [];
      const published: PublishResult[] = [];
      const reading = (async () => {
        for await (const item of client.events.stream({ reconnect: { minDelayMs: 50, maxDelayMs: 200 } })) {
          got.push(item);
          if (got.length === 6) break;
        }
      })();
      // The stream is open once an event published arrives; those published before it opened are
      // not sent (it starts from now).
      await eventually(async () => {
        if (got.length === 0) published.push(await publish());
        return got.length > 0 ? true : undefined;
      });
      published.splice(
        0,
        published.findIndex((p) => p.streamId === got[0]?.cursor),
      );
      published.push(await publish());
      await eventually(async () => (got.length === published.length ? true : undefined));
      api.child.kill('SIGKILL');
      await api.exited;
      origin = stack.apiUrl;
      while (published.length < 6) published.push(await publish());
      await reading;
      expect(got.map((item) => item.cursor)).toEqual(published.map((p) => p.streamId));
      expect(got.map((item) => item.event)).toEqual(published.map((p) => p.event));
    } finally {
      api.child.kill('SIGKILL');
      await agent.destroy();
    }
  });

  it('ends its streams when the process is told to stop (SIGTERM), and exits', async () => {
    const api = await spawnApi(stack.env);
    try {
      const stream = await openStream('', { apiUrl: api.url });
      expect(stream.status).toBe(200);
      await eventually(async () => ((await publish()) && stream.frames.length > 0 ? true : undefined));
      api.child.kill('SIGTERM');
      expect(await api.exited).toBe(0);
      await eventually(async () => (stream.ended ? true : undefined), 5_000, 'the stream ended');
    } finally {
      api.child.kill('SIGKILL');
    }
  });
});
