import type { OutgoingHttpHeaders } from 'node:http';
import { ErrorBodySchema, GatewayError } from '@cg/contract';
import {
  EVENT_NAMES,
  type FeedEndReason,
  type FeedSink,
  type GatewayEvent,
  isEventName,
  isStreamId,
} from '@cg/events';
import type { ApiKeyInfo, Store } from '@cg/store';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { requireReach } from '../../scope';
import type { ApiRoute } from '../route';
import { routeSchema } from '../schema';

/** What a browser's EventSource would wait before reconnecting (the SDK's first backoff too). */
const RETRY_MS = 1_000;
const LAST_EVENT_ID = 'last-event-id';

const StreamId = (description: string) =>
  Type.String({ maxLength: 64, pattern: '^\\d{1,20}-\\d{1,20}$', description });

/**
 * `GET /events/stream`: the tenant's events as Server-Sent Events, as they are stored (each frame's
 * `id:` the log's stream id, `data:` the envelope `GET /events` lists), resumed after `Last-Event-ID`
 * (or `?after=`). This process's `EventFeed` (packages/events) reads the log once for all its
 * streams; this file is the HTTP side: checks, headers, the socket as the feed's sink.
 */
export const streamEvents: ApiRoute = {
  name: 'events-stream',
  method: 'GET',
  url: '/events/stream',
  access: 'read',
  schema: ({ context: { config } }) =>
    routeSchema('The tenant’s events as they happen (Server-Sent Events)', 'events', {
      description:
        'A `text/event-stream` that stays open (docs/api.md “Live events”). Each event is one frame: ' +
        '`id:` its position in the event log (a stream id, also a `GET /events` cursor), `event:` its ' +
        'name, `data:` the envelope `GET /events` lists. Send the last `id:` as `Last-Event-ID` (or ' +
        '`?after=`) to resume: what was stored after it comes first, once and in order, from any API ' +
        'process; without, the stream starts now. ' +
        `A comment \`: ping\` comes every ${config.EVENT_STREAM_HEARTBEAT_MS / 1000} s (\`EVENT_STREAM_HEARTBEAT_MS\`). ` +
        `A client with more than ${config.EVENT_STREAM_MAX_BUFFER_BYTES} bytes unread (\`EVENT_STREAM_MAX_BUFFER_BYTES\`) ` +
        'is disconnected, as are all when the process stops or the key is revoked: reconnect with ' +
        '`Last-Event-ID`, nothing is lost. A key of some accounts receives only their events.',
      querystring: Type.Object({
        events: Type.Optional(
          Type.String({
            minLength: 1,
            maxLength: 2_000,
            description: 'comma-separated event names: only these; default every event',
          }),
        ),
        accountId: Type.Optional(
          Type.String({ minLength: 1, maxLength: 100, description: 'only this account’s events' }),
        ),
        after: Type.Optional(StreamId('resume after this id (a frame’s `id:`); `Last-Event-ID` wins')),
      }),
      headers: Type.Object({
        [LAST_EVENT_ID]: Type.Optional(StreamId('the last `id:` received: resume after it')),
      }),
      response: {
        200: {
          description:
            'Server-Sent Events: `id:` (stream id), `event:` (name) and `data:` (the event envelope) per event; `: ping` comments',
          content: { 'text/event-stream': { schema: { type: 'string' } } },
        },
        '4xx': ErrorBodySchema,
        '5xx': ErrorBodySchema,
      },
    }),
  async handler(request, reply, { context }) {
    const query = request.query as { events?: string; accountId?: string; after?: string };
    const names = query.events === undefined ? undefined : eventNames(query.events);
    if (query.accountId !== undefined) {
      requireReach(request, query.accountId);
      if (!(await context.store.accounts.get(request.tenantId, query.accountId)))
        throw new GatewayError('NOT_FOUND', `account ${query.accountId} not found`);
    }
    const header = request.headers[LAST_EVENT_ID];
    const after = typeof header === 'string' ? header : query.after;
    if (after !== undefined && !isStreamId(after))
      throw new GatewayError(
        'BAD_REQUEST',
        `${typeof header === 'string' ? 'Last-Event-ID' : 'after'} is not an id this stream sent`,
      );
    const accepts = acceptance(request.apiKey, names, query.accountId);
    const key = request.headers['x-api-key'] as string;
    const scope = scopeOf(request.apiKey);

    const raw = reply.raw;
    const stream = new SseAnswer(request, reply);
    const subscription = context.events.feed.subscribe(request.tenantId, stream, {
      after,
      accepts,
      // A revoked key, or one whose scope changed, ends its streams at the next ping.
      onPing: () =>
        void checkKey(context.store, key).then(
          (info) => {
            if (info === null || scopeOf(info) !== scope) stream.end('closing');
          },
          () => undefined,
        ),
    });
    raw.once('close', () => subscription.close());
    // Answered once it has its place in the log: what is stored after the answer's head is sent.
    await subscription.ready.catch(() => {
      throw new GatewayError('SERVICE_UNAVAILABLE', 'the event log cannot be read now: try again', 1);
    });
    stream.open();
    // Counted once, as answered: a stream's answer never ends, so no `onResponse` hook counts it.
    context.usage?.add(request.tenantId, request.apiKey.keyId, query.accountId ?? null, 'requests2xx');
    return reply;
  },
};

/** The names of `events=`, each known (else 400 naming the unknown ones). */
function eventNames(list: string): Set<string> {
  const names = list
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const unknown = names.filter((name) => !isEventName(name));
  const known = `known events: ${EVENT_NAMES.join(', ')}`;
  if (names.length === 0) throw new GatewayError('BAD_REQUEST', `events names no event; ${known}`);
  if (unknown.length > 0)
    throw new GatewayError(
      'BAD_REQUEST',
      `${unknown.length === 1 ? `unknown event ${unknown[0]}` : `unknown events: ${unknown.join(', ')}`}; ${known}`,
    );
  return new Set(names);
}

/** Which events a stream sends: the filters', within the key's accounts (none of no account for a scoped key). */
function acceptance(
  key: ApiKeyInfo,
  names: Set<string> | undefined,
  accountId: string | undefined,
): (event: GatewayEvent) => boolean {
  const accounts = key.accounts === null ? null : new Set(key.accounts);
  return (event) =>
    (names === undefined || names.has(event.event)) &&
    (accountId === undefined || event.accountId === accountId) &&
    (accounts === null || (event.accountId !== null && accounts.has(event.accountId)));
}

/** How long one look-up of a key answers for all its streams' pings. */
const KEY_CHECK_MS = 1_000;
const keyChecks = new Map<string, { at: number; info: Promise<ApiKeyInfo | null> }>();

/** The key as the store has it now, looked up once a second at most however many streams it holds. */
function checkKey(store: Store, key: string, now = Date.now()): Promise<ApiKeyInfo | null> {
  const known = keyChecks.get(key);
  if (known && now - known.at < KEY_CHECK_MS) return known.info;
  if (keyChecks.size >= 10_000) keyChecks.clear();
  const info = store.apiKeys.resolve(key);
  keyChecks.set(key, { at: now, info });
  return info;
}

const scopeOf = (key: ApiKeyInfo) =>
  JSON.stringify([key.tenantId, key.access, key.accounts === null ? null : [...key.accounts].sort()]);

/**
 * The answer as the feed's sink: its head sent when it opens (with the headers the hooks set: request
 * id, rate limit), then the frames on its socket. A dropped client's socket is destroyed, its buffer
 * not waited for.
 */
class SseAnswer implements FeedSink {
  private opened = false;
  private readonly raw: FastifyReply['raw'];

  constructor(
    private readonly request: FastifyRequest,
    private readonly reply: FastifyReply,
  ) {
    this.raw = reply.raw;
  }

  open(): void {
    if (this.opened) return;
    this.opened = true;
    this.reply.hijack();
    this.raw.writeHead(200, {
      ...(this.reply.getHeaders() as OutgoingHttpHeaders),
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      // Proxies that buffer answers (nginx) pass this one on as it comes.
      'x-accel-buffering': 'no',
    });
    this.raw.socket?.setNoDelay(true);
    this.raw.write(`retry: ${RETRY_MS}\n\n`);
  }

  write(text: string): void {
    this.open();
    if (!this.raw.destroyed) this.raw.write(text);
  }

  /** The answer's own buffer and its socket's (a ServerResponse counts both). */
  buffered(): number {
    return this.raw.writableLength;
  }

  drained(): Promise<void> {
    return new Promise((done) => {
      const finish = () => {
        this.raw.off('drain', finish);
        this.raw.off('close', finish);
        done();
      };
      this.raw.once('drain', finish);
      this.raw.once('close', finish);
    });
  }

  end(reason: FeedEndReason): void {
    if (reason === 'slow') {
      this.request.log.info(
        { buffered: this.raw.writableLength },
        'event stream client too slow; disconnected',
      );
      this.raw.destroy();
      return;
    }
    // Its connection goes too: a stopping server closes only the connections idle when it starts to.
    this.raw.end(() => this.raw.socket?.end());
  }
}
