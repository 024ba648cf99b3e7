/**
 * `client.events.stream()`: the tenant's events as they happen, from `GET /events/stream`
 * (Server-Sent Events), as an async iterator that reconnects by itself and resumes where it left off.
 * fetch and a ReadableStream only (no EventSource: the API key goes in a header), so it runs in Node
 * ≥ 20.19 and in browsers alike.
 */
import { GatewayApiError } from './errors.js';
import { sleep } from './sleep.js';
import type { WebhookEvent } from './webhooks.js';

export interface EventStreamOptions {
  /** Only these event names (`events=`); default every event the key may see. */
  events?: readonly string[];
  /** Only this account's events (`accountId=`). */
  accountId?: string;
  /**
   * Resume after this position: the `cursor` of the last event handled (kept from an earlier
   * stream), or a `GET /events` page's `nextCursor`. Absent: from now on.
   */
  after?: string;
  /** Ends the iteration (it throws the signal's reason). */
  signal?: AbortSignal;
  /** The wait before reconnecting, doubled after each failed try up to `maxDelayMs`. */
  reconnect?: { minDelayMs?: number; maxDelayMs?: number };
  /**
   * Nothing at all (an event or the gateway's ping, every 15 s by default) for this long: the
   * connection is taken as dead and opened again. @defaultValue 45000
   */
  idleTimeoutMs?: number;
  /** Headers added to the stream's requests. */
  headers?: Record<string, string>;
}

/** One event of the stream, and its position: pass it as `after` to resume after it. */
export interface StreamedEvent {
  cursor: string;
  event: WebhookEvent;
}

/** What the stream needs of the client: where to ask, with what, how to read a refusal. */
export interface StreamConnection {
  /** The URL of `GET /events/stream` with these query parameters. */
  url(query: URLSearchParams): string;
  fetch: typeof fetch;
  headers: Record<string, string>;
  failure(response: Response): Promise<{ body: unknown; retryAfter: number | undefined }>;
}

const DEFAULT_MIN_DELAY_MS = 1_000;
const DEFAULT_MAX_DELAY_MS = 30_000;
const DEFAULT_IDLE_TIMEOUT_MS = 45_000;

/**
 * Every event of the stream, in the log's order, once: after a dropped connection (the network, the
 * gateway process stopping or restarting, a client too slow to keep up), it reconnects after a
 * backoff with `Last-Event-ID` set to the last event it yielded, and the gateway sends what was
 * missed first. A 429 or 5xx answer is retried (after `Retry-After` where given); any other refusal
 * (a bad filter 400, a wrong key 401, an unknown account 404) throws `GatewayApiError`.
 */
export async function* streamEvents(
  connection: StreamConnection,
  options: EventStreamOptions = {},
): AsyncGenerator<StreamedEvent, void, undefined> {
  const { signal } = options;
  const query = new URLSearchParams();
  if (options.events !== undefined) query.set('events', options.events.join(','));
  if (options.accountId !== undefined) query.set('accountId', options.accountId);
  const url = connection.url(query);
  const minDelay = options.reconnect?.minDelayMs;
  const maxDelay = options.reconnect?.maxDelayMs ?? DEFAULT_MAX_DELAY_MS;
  const idleMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  let last = options.after;
  /** The gateway's `retry:` hint, the first wait unless `minDelayMs` says. */
  let hinted = DEFAULT_MIN_DELAY_MS;
  let failures = 0;
  const backoff = () =>
    Math.min(maxDelay, (minDelay ?? hinted) * 2 ** Math.min(failures, 16)) * (0.5 + Math.random() / 2);

  for (;;) {
    signal?.throwIfAborted();
    const attempt = new AbortController();
    const abort = () => attempt.abort(signal?.reason);
    signal?.addEventListener('abort', abort, { once: true });
    let idle: ReturnType<typeof setTimeout> | undefined;
    const stillAlive = () => {
      clearTimeout(idle);
      idle = setTimeout(() => attempt.abort(new Error('event stream idle')), idleMs);
    };
    let wait: number | undefined;
    try {
      stillAlive();
      const response = await connection.fetch(url, {
        headers: {
          ...connection.headers,
          ...options.headers,
          accept: 'text/event-stream',
          ...(last === undefined ? {} : { 'last-event-id': last }),
        },
        // The gateway never redirects; following one would send the API key to its target.
        redirect: 'error',
        signal: attempt.signal,
      });
      if (response.status === 200 && response.body !== null) {
        const parser = new SseParser();
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        try {
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            for (const message of parser.push(value)) {
              if (message.retry !== undefined) hinted = message.retry;
              const event = message.data === undefined ? undefined : parsed(message.data);
              if (event === undefined) continue;
              failures = 0;
              // Its position is the resume point, whatever the consumer does with the event.
              last = message.id ?? last;
              // A consumer taking its time is not an idle connection.
              clearTimeout(idle);
              yield { cursor: message.id ?? '', event };
            }
            if (parser.comments > 0) failures = 0;
            stillAlive();
          }
        } finally {
          await reader.cancel().catch(() => undefined);
        }
      } else {
        const { body, retryAfter } = await connection.failure(response);
        if (response.status !== 429 && response.status < 500)
          throw new GatewayApiError('events-stream', response.status, body, retryAfter);
        if (retryAfter !== undefined) wait = retryAfter * 1000;
      }
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (error instanceof GatewayApiError) throw error;
      // The network, an idle connection, a stream cut: connect again.
    } finally {
      clearTimeout(idle);
      signal?.removeEventListener('abort', abort);
      attempt.abort();
    }
    await sleep(wait ?? backoff(), signal);
    failures += 1;
  }
}

function parsed(data: string): WebhookEvent | undefined {
  try {
    return JSON.parse(data) as WebhookEvent;
  } catch {
    return undefined;
  }
}

/** One dispatched Server-Sent Event (or a field that matters without data: `retry`). */
export interface SseMessage {
  /** The last event id seen on the stream so far (the spec's "last event ID"), if any. */
  id: string | undefined;
  event: string;
  /** Undefined for a block without data (a `retry:` alone). */
  data: string | undefined;
  retry: number | undefined;
}

/**
 * The Server-Sent Events wire format (WHATWG HTML "Interpreting an event stream"), fed text as it
 * arrives in any pieces: lines end in CR, LF or CRLF; a blank line dispatches; `:` starts a comment
 * (counted in `comments`); `id` persists until changed (one holding NUL is ignored); `data` lines
 * join with LF.
 */
export class SseParser {
  comments = 0;
  private buffer = '';
  private lastId: string | undefined;
  private data: string[] = [];
  private event = '';
  private retry: number | undefined;

  push(text: string): SseMessage[] {
    this.buffer += text;
    const messages: SseMessage[] = [];
    let start = 0;
    for (;;) {
      const cr = this.buffer.indexOf('\r', start);
      const lf = this.buffer.indexOf('\n', start);
      const end = cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf);
      if (end === -1) break;
      // A CR as the last character may be the first half of a CRLF: wait for what follows.
      if (end === cr && cr === this.buffer.length - 1) break;
      const line = this.buffer.slice(start, end);
      start = end + (end === cr && this.buffer[cr + 1] === '\n' ? 2 : 1);
      const message = this.line(line);
      if (message) messages.push(message);
    }
    this.buffer = this.buffer.slice(start);
    return messages;
  }

  private line(line: string): SseMessage | undefined {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) {
      this.comments += 1;
      return undefined;
    }
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
    else if (field === 'id' && !value.includes('\0')) this.lastId = value;
    else if (field === 'retry' && /^\d+$/.test(value)) this.retry = Number(value);
    return undefined;
  }

  private dispatch(): SseMessage | undefined {
    const message: SseMessage = {
      id: this.lastId === '' ? undefined : this.lastId,
      event: this.event === '' ? 'message' : this.event,
      data: this.data.length === 0 ? undefined : this.data.join('\n'),
      retry: this.retry,
    };
    this.data = [];
    this.event = '';
    this.retry = undefined;
    return message.data === undefined && message.retry === undefined ? undefined : message;
  }
}
