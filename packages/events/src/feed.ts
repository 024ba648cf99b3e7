import type { Redis } from 'ioredis';
import type { EventKeys } from './keys';
import type { GatewayEvent } from './records';

/** How a process's live streams behave (packages/config `webhookSettings().stream`). */
export interface FeedSettings {
  /** Every stream gets a comment (`: ping`) this often, so that idle connections stay open. */
  heartbeatMs: number;
  /**
   * A live stream whose bytes not yet taken by its client pass this is dropped; a stream catching
   * up from the log waits for its client instead, up to `heartbeatMs` without progress.
   */
  maxBufferedBytes: number;
}

/** Where a subscription's events go: a live HTTP answer (apps/api `GET /events/stream`), or a test's. */
export interface FeedSink {
  /** Sends text as it is (SSE frames and comments). */
  write(text: string): void;
  /** Bytes written and not yet taken by the client (the process's buffers, the socket's). */
  buffered(): number;
  /** Resolves when what is buffered has gone out (or the client went away). */
  drained(): Promise<void>;
  /**
   * The feed ends the subscription: `slow` (its client did not read: close at once), `closing`
   * (the process stops), `failed` (its log could not be read).
   */
  end(reason: FeedEndReason): void;
}
export type FeedEndReason = 'slow' | 'closing' | 'failed';

export interface SubscribeOptions {
  /** Resume after this stream id (an SSE id, a `GET /events` cursor); absent: from now on. */
  after?: string | undefined;
  /** Which events this subscriber receives (its filters and its key's accounts). */
  accepts(event: GatewayEvent): boolean;
  /** Called after each heartbeat (the API checks the caller's key is still good). */
  onPing?: () => void;
}

export interface FeedSubscription {
  /**
   * Resolves once the subscription has its position in the log (its "now", or `after`): an event
   * stored from then on reaches it. Nothing is written to the sink before. Rejects when it ended first
   * (the feed closing, the log unreadable).
   */
  ready: Promise<void>;
  /** The subscriber went away: nothing more is written to its sink. */
  close(): void;
}

/** One entry of a tenant's log: its stream id (the SSE `id`), its event, its SSE frame. */
export class FeedEntry {
  private sse: string | undefined;

  constructor(
    readonly streamId: string,
    readonly event: GatewayEvent,
    private readonly json: string,
  ) {}

  /** `id`, `event` and `data` (the envelope, as stored: one line of JSON), made once for all clients. */
  get frame(): string {
    this.sse ??= `id: ${this.streamId}\nevent: ${this.event.event}\ndata: ${this.json}\n\n`;
    return this.sse;
  }
}

/** The comment every stream gets each heartbeat. */
export const PING = ': ping\n\n';
/** Entries a catch-up reads from the log at a time. */
const PAGE = 200;
/** Entries of the live tail kept for a subscriber while it catches up; past it, it reads the log again. */
const PENDING_LIMIT = 10_000;
/** How long one blocking read waits for an entry before it asks again. */
const BLOCK_MS = 5_000;
/** Entries one blocking read takes at most. */
const READ_COUNT = 1_000;
/** A failed blocking read is tried again after this long. */
const RETRY_MS = 500;
/**
 * Socket writes a tail causes per ms at most, about: with many subscribers it waits between reads
 * (up to `MAX_GAP_MS`), so that what comes meanwhile goes out in one write per subscriber. Each write
 * is a system call, and 500 subscribers of 200 events a second would be 100,000 of them a second,
 * more than the API's one thread has; one subscriber waits 0.05 ms, 500 wait 25 ms.
 */
const WRITES_PER_MS = 20;
const MAX_GAP_MS = 100;

const STREAM_ID = /^(\d{1,20})-(\d{1,20})$/;
const MAX_ID_PART = 2n ** 64n - 1n;

/** Whether `id` is a Redis stream id (`<ms>-<seq>`, each part a 64-bit unsigned number). */
export function isStreamId(id: string): boolean {
  const parts = STREAM_ID.exec(id);
  return parts !== null && BigInt(parts[1] ?? '') <= MAX_ID_PART && BigInt(parts[2] ?? '') <= MAX_ID_PART;
}

/** `id` without leading zeros (`007-01` → `7-1`): the form Redis writes, which `isAfter` compares. */
export function normalStreamId(id: string): string {
  const [ms = '0', seq = '0'] = id.split('-');
  return `${BigInt(ms)}-${BigInt(seq)}`;
}

/** Whether stream id `a` comes after `b` (both as Redis writes them: `normalStreamId`). */
export function isAfter(a: string, b: string): boolean {
  const at = a.indexOf('-');
  const bt = b.indexOf('-');
  const ms = compareDigits(a.slice(0, at), b.slice(0, bt));
  return ms > 0 || (ms === 0 && compareDigits(a.slice(at + 1), b.slice(bt + 1)) > 0);
}

/** Two numbers written in digits without leading zeros, compared exactly whatever their size. */
const compareDigits = (x: string, y: string) => x.length - y.length || (x < y ? -1 : x > y ? 1 : 0);

function entryOf([streamId, fields]: [string, string[]]): FeedEntry | undefined {
  const at = fields.indexOf('e');
  const json = at === -1 ? undefined : fields[at + 1];
  if (json === undefined) return undefined;
  try {
    return new FeedEntry(streamId, JSON.parse(json) as GatewayEvent, json);
  } catch {
    return undefined;
  }
}

const entriesOf = (raw: [string, string[]][]) =>
  raw.map(entryOf).filter((entry): entry is FeedEntry => entry !== undefined);

class Subscriber {
  /** The stream id of the last entry looked at (sent or filtered out). */
  last = '0-0';
  /** Caught up: the tail writes to it directly. */
  live = false;
  /** The tail's entries while it catches up; null once more came than `PENDING_LIMIT`. */
  pending: FeedEntry[] | null = [];
  closed = false;
  /** Has its position: written to from now on. */
  positioned = false;
  readonly ready: Promise<void>;
  private settle: { resolve(): void; reject(error: Error): void } | undefined;

  constructor(
    readonly tail: TenantTail,
    readonly sink: FeedSink,
    readonly options: SubscribeOptions,
  ) {
    this.ready = new Promise((resolve, reject) => {
      this.settle = { resolve, reject };
    });
    // A subscriber whose caller stopped waiting (gone) is no unhandled rejection.
    this.ready.catch(() => undefined);
  }

  position(last: string): void {
    this.last = last;
    this.positioned = true;
    this.settle?.resolve();
  }

  ended(reason: FeedEndReason): void {
    this.settle?.reject(new Error(`event stream ended before it started: ${reason}`));
  }

  /** Writes the entries after `last` that it accepts, in one write. */
  send(entries: readonly FeedEntry[]): void {
    let text = '';
    for (const entry of entries) {
      if (!isAfter(entry.streamId, this.last)) continue;
      this.last = entry.streamId;
      if (this.options.accepts(entry.event)) text += entry.frame;
    }
    if (text !== '') this.sink.write(text);
  }
}

/**
 * The live tail of one tenant's log in this process: one blocking XREAD on a connection of its own,
 * from the last entry it read, handed to every subscriber of the tenant. Its key holds the tenant's
 * hash tag, so on a Redis Cluster the read goes to the one node that holds the stream.
 */
class TenantTail {
  readonly subscribers = new Set<Subscriber>();
  /** The last entry read (or the stream's last when the tail started): the subscribers' "now". */
  position = '0-0';
  readonly ready: Promise<void>;
  private stopped = false;
  private readonly connection: Redis;

  constructor(
    private readonly redis: Redis,
    readonly key: string,
    private readonly feed: EventFeed,
  ) {
    this.connection = redis.duplicate();
    // Redis away: reported once by the process (`watchRedis`); the read is tried again.
    this.connection.on('error', () => undefined);
    this.ready = this.start();
  }

  private async start(): Promise<void> {
    const [last] = await this.redis.xrevrange(this.key, '+', '-', 'COUNT', 1);
    if (last) this.position = last[0];
    void this.read();
  }

  private async read(): Promise<void> {
    while (!this.stopped) {
      let reply: [string, [string, string[]][]][] | null;
      try {
        reply = (await this.connection.xread(
          'COUNT',
          READ_COUNT,
          'BLOCK',
          BLOCK_MS,
          'STREAMS',
          this.key,
          this.position,
        )) as [string, [string, string[]][]][] | null;
      } catch {
        if (this.stopped) return;
        await new Promise((done) => setTimeout(done, RETRY_MS));
        continue;
      }
      const raw = reply?.[0]?.[1] ?? [];
      if (this.stopped || raw.length === 0) continue;
      this.position = raw[raw.length - 1]?.[0] ?? this.position;
      this.feed.dispatch(this, entriesOf(raw));
      const gap = Math.min(MAX_GAP_MS, this.subscribers.size / WRITES_PER_MS);
      if (gap >= 1) await new Promise((done) => setTimeout(done, gap));
    }
  }

  stop(): void {
    this.stopped = true;
    this.connection.disconnect();
  }
}

/**
 * Every live event stream of one process (apps/api `GET /events/stream`): the log is read once per
 * tenant with subscribers, however many they are (one `TenantTail` each), and each entry is written
 * to every subscriber that accepts it. A subscriber resuming from an id first reads what it missed
 * from the log, while the tail's new entries wait for it; then it is handed the tail's. Ids are the
 * log's stream ids, so a subscriber resumes on any process exactly where it left off.
 *
 * A live subscriber is never waited for: one whose unsent bytes pass `maxBufferedBytes` is dropped
 * (it reconnects and resumes from its last id, losing nothing), so the others never slow down.
 */
export class EventFeed {
  private readonly tails = new Map<string, TenantTail>();
  private heartbeat: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly redis: Redis,
    private readonly keys: EventKeys,
    private readonly settings: FeedSettings,
  ) {}

  subscribe(tenantId: string, sink: FeedSink, options: SubscribeOptions): FeedSubscription {
    if (this.closed) return { ready: Promise.reject(new Error('the event feed is closed')), close: () => {} };
    const key = this.keys.stream(tenantId);
    let tail = this.tails.get(key);
    if (!tail) {
      tail = new TenantTail(this.redis, key, this);
      this.tails.set(key, tail);
    }
    const subscriber = new Subscriber(tail, sink, {
      ...options,
      after: options.after === undefined ? undefined : normalStreamId(options.after),
    });
    tail.subscribers.add(subscriber);
    this.beat();
    void this.catchUp(tail, subscriber).catch(() => this.drop(subscriber, 'failed'));
    return { ready: subscriber.ready, close: () => this.remove(subscriber) };
  }

  /**
   * Sends a subscriber what the log holds after its position, page by page, as fast as its client
   * takes it; then what the tail read meanwhile; from then on the tail writes to it.
   */
  private async catchUp(tail: TenantTail, subscriber: Subscriber): Promise<void> {
    await tail.ready;
    subscriber.position(subscriber.options.after ?? tail.position);
    while (!subscriber.closed) {
      const page = await this.redis.xrange(tail.key, `(${subscriber.last}`, '+', 'COUNT', PAGE);
      if (subscriber.closed) return;
      if (page.length > 0) {
        subscriber.send(entriesOf(page));
        subscriber.last = page[page.length - 1]?.[0] ?? subscriber.last;
        await this.paced(subscriber);
        continue;
      }
      // Up to date with the log as of that read: what the tail read since is in `pending`, unless
      // too much came, which the log still holds: read it again.
      if (subscriber.pending === null) {
        subscriber.pending = [];
        continue;
      }
      const pending = subscriber.pending;
      subscriber.pending = null;
      subscriber.live = true;
      return this.guarded(subscriber, () => subscriber.send(pending));
    }
  }

  /**
   * While catching up: once more than `maxBufferedBytes` wait to go out, waits for the client to take
   * them; a client that takes nothing for a heartbeat is dropped.
   */
  private async paced(subscriber: Subscriber): Promise<void> {
    let before = subscriber.sink.buffered();
    while (!subscriber.closed && before > this.settings.maxBufferedBytes) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        subscriber.sink.drained(),
        new Promise((done) => {
          timer = setTimeout(done, this.settings.heartbeatMs);
        }),
      ]);
      clearTimeout(timer);
      const now = subscriber.sink.buffered();
      if (now > this.settings.maxBufferedBytes && now >= before) return this.drop(subscriber, 'slow');
      before = now;
    }
  }

  /** (The tails') `entries` were read: written to each live subscriber, kept for those catching up. */
  dispatch(tail: TenantTail, entries: FeedEntry[]): void {
    for (const subscriber of [...tail.subscribers]) {
      if (subscriber.live) this.guarded(subscriber, () => subscriber.send(entries));
      else if (subscriber.pending !== null) {
        if (subscriber.pending.length + entries.length > PENDING_LIMIT) subscriber.pending = null;
        else subscriber.pending.push(...entries);
      }
    }
  }

  /** Writes to a live subscriber, dropped when it is over its bound; a sink that throws, too. */
  private guarded(subscriber: Subscriber, write: () => void): void {
    try {
      write();
    } catch {
      this.drop(subscriber, 'failed');
      return;
    }
    this.checkBuffered(subscriber);
  }

  private checkBuffered(subscriber: Subscriber): void {
    if (subscriber.live && subscriber.sink.buffered() > this.settings.maxBufferedBytes)
      this.drop(subscriber, 'slow');
  }

  /** One timer for every subscriber: a comment each, then their `onPing`. */
  private beat(): void {
    if (this.heartbeat) return;
    this.heartbeat = setInterval(() => {
      for (const tail of [...this.tails.values()])
        for (const subscriber of [...tail.subscribers]) {
          if (!subscriber.positioned) continue;
          this.guarded(subscriber, () => subscriber.sink.write(PING));
          if (!subscriber.closed) subscriber.options.onPing?.();
        }
    }, this.settings.heartbeatMs);
    this.heartbeat.unref();
  }

  private drop(subscriber: Subscriber, reason: FeedEndReason): void {
    if (subscriber.closed) return;
    this.remove(subscriber);
    if (subscriber.positioned) subscriber.sink.end(reason);
    else subscriber.ended(reason);
  }

  private remove(subscriber: Subscriber): void {
    if (subscriber.closed) return;
    subscriber.closed = true;
    const { tail } = subscriber;
    tail.subscribers.delete(subscriber);
    if (tail.subscribers.size === 0 && this.tails.get(tail.key) === tail) {
      tail.stop();
      this.tails.delete(tail.key);
    }
    if (this.tails.size === 0 && this.heartbeat) {
      clearInterval(this.heartbeat);
      this.heartbeat = undefined;
    }
  }

  /** Ends every subscription (`closing`) and stops the reads; later subscriptions end at once. */
  close(): void {
    this.closed = true;
    for (const tail of [...this.tails.values()])
      for (const subscriber of [...tail.subscribers]) this.drop(subscriber, 'closing');
  }
}
