import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '@cg/config';
import { eventId, type PublishInput } from '@cg/events';
import type { AccountSessions, Egress, Route } from '@cg/platform-access';
import type { AccountRecord, Store } from '@cg/store';
import type WebSocket from 'ws';
import { notificationOccurrences, type Occurrence, occurrences } from './catalog';
import { authFrame, decodeFrames, type Frame, PING } from './frames';
import { openSocket } from './socket';
import type { AccountWatch } from './watch';

/** Reconnect backoff (upstream-extended.md 2.3): 1.5 s, doubling, at most 15 s. */
const BACKOFF_BASE_MS = 1_500;
const BACKOFF_MAX_MS = 15_000;
/**
 * A backfill tells what happened since the account's realtime mark (or its connection, before any
 * mark), less this margin (the platform's clock and ours may disagree by a little; a frame may be on
 * its way): what came before is published already, or the caller's history, not a gap.
 */
const BACKFILL_MARGIN_MS = 60_000;

/** The answer of `realtime-backfill` (packages/operations). */
export interface Backfill {
  /** Unread messages from fans and notifications, oldest first. */
  items: { kind: 'message' | 'notification'; object: Record<string, unknown> }[];
  /** The notifications' records. */
  aggregationData: Record<string, unknown>;
  /** `since`, unless a list stopped at its page limit: what came before this may be missing. */
  coveredFrom: number;
}

export interface ConnectionDeps {
  wsUrl: string;
  store: Store;
  sessions: AccountSessions;
  egress: Egress;
  /** Bounds the proxy's tunnel and the websocket's handshake. */
  timeoutMs: number;
  publish(tenantId: string, input: PublishInput): Promise<unknown>;
  /** Closes a connection whose account is disconnected or waits for a new login. */
  watch: AccountWatch;
  /** What a gap may have hidden (`realtime-backfill`, queued on the account's lane). */
  backfill(account: AccountRecord, since: number): Promise<Backfill>;
  pingMs: number;
  /**
   * How long a connection handed to another listener (a rotation, a process stopping) may take to
   * open again and still count as open since it first opened (the account's status).
   */
  handoverMs: number;
  log: Logger;
  /** Counts the connections held open (the listener's metrics). */
  metrics?: { connectionOpened(): void; connectionClosed(): void };
}

/** How one websocket's life ended. */
type Ended = 'closed' | 'gone';

/**
 * One account's realtime connection, held until `signal` aborts or the account is gone: open through
 * its egress, authenticate with its session, ping, turn frames into events, reconnect with backoff;
 * after each (re)connection, backfill what may have been missed.
 */
export async function holdAccount(
  deps: ConnectionDeps,
  tenantId: string,
  accountId: string,
  signal: AbortSignal,
  stillOwned: () => Promise<boolean>,
): Promise<void> {
  const log = deps.log.child({ tenantId, accountId });
  let backoff = BACKOFF_BASE_MS;
  while (!signal.aborted) {
    const account = await deps.store.accounts.get(tenantId, accountId);
    if (account?.status !== 'connected' || !(await stillOwned())) return;
    const started = Date.now();
    try {
      if ((await connectOnce(deps, account, signal, log)) === 'gone') return;
    } catch (error) {
      log.warn({ err: error }, 'realtime connection failed');
      noteRealtime(deps, account, 'failed', log);
    }
    if (signal.aborted) return;
    // A connection that lived a while had a good session: the next attempt starts from the base.
    if (Date.now() - started > 4 * deps.pingMs) backoff = BACKOFF_BASE_MS;
    await sleep(backoff * (0.8 + Math.random() * 0.4), undefined, { signal }).catch(() => undefined);
    backoff = Math.min(backoff * 2, BACKOFF_MAX_MS);
  }
}

async function connectOnce(
  deps: ConnectionDeps,
  account: AccountRecord,
  signal: AbortSignal,
  log: Logger,
): Promise<Ended> {
  const { tenantId, accountId } = account;
  const session = await deps.store.accounts.session(tenantId, accountId);
  if (!session) return 'gone';
  const route = await deps.egress.ofAccount(tenantId, account);
  const socket = await openSocket(deps.wsUrl, deps.egress.proxyUrlOf(route), deps.timeoutMs);
  const events = new EventPipe(deps, account, log);
  return new Promise<Ended>((resolve) => {
    let lastSeen = Date.now();
    let ended: Ended = 'closed';
    let pinger: NodeJS.Timeout | undefined;
    const unwatch = deps.watch.watch(tenantId, accountId, () => {
      ended = 'gone';
      socket.close();
    });
    /** The socket opened: it counts as held until it closes. */
    let held = false;
    const finish = () => {
      if (held) deps.metrics?.connectionClosed();
      // Handed over (`rotate`, `closing`, `lost`: ownership.ts), or closed as `ended` says.
      noteRealtime(deps, account, signal.aborted ? String(signal.reason) : ended, log);
      clearInterval(pinger);
      unwatch();
      signal.removeEventListener('abort', stop);
      // What came before the close is published (or given up) before the hold moves on.
      void events.drained().then(() => resolve(ended));
    };
    const stop = () => socket.close();
    signal.addEventListener('abort', stop, { once: true });
    socket.once('open', () => {
      held = true;
      deps.metrics?.connectionOpened();
      socket.send(authFrame(session.token));
    });
    socket.once('close', finish);
    socket.on('error', () => undefined);
    const link: Link = {
      events,
      route,
      log,
      authenticated: () => {
        pinger = keepAlive(socket, deps.pingMs, () => lastSeen, events);
        events.backfill();
        noteRealtime(deps, account, 'up', log);
      },
    };
    socket.on('message', (data) => {
      lastSeen = Date.now();
      for (const frame of decodeFrames(data.toString())) {
        const next = onFrame(frame, link);
        if (next) {
          ended = next;
          socket.close();
        }
      }
    });
  });
}

/**
 * Notes the connection's state for the account's status (packages/store `AccountHealthStore`): `up`
 * once authenticated, else how it closed or failed. One write per change, not waited for.
 */
function noteRealtime(deps: ConnectionDeps, account: AccountRecord, state: string, log: Logger): void {
  const { tenantId, accountId } = account;
  const { health } = deps.store;
  const noted =
    state === 'up'
      ? health.realtimeUp(tenantId, accountId, deps.handoverMs)
      : health.realtimeDown(tenantId, accountId, state);
  noted.catch((error: unknown) => log.debug({ err: error }, 'realtime state not noted'));
}

/**
 * Pings every `pingMs`. Any inbound frame is liveness; without one for 1.2 pings, the socket is
 * reset. Each ping moves the realtime mark to the last frame received: every one before it is
 * published.
 */
function keepAlive(socket: WebSocket, pingMs: number, lastSeen: () => number, events: EventPipe) {
  return setInterval(() => {
    if (Date.now() - lastSeen() > 1.2 * pingMs + pingMs) socket.close();
    else {
      socket.send(PING);
      events.mark(lastSeen());
    }
  }, pingMs);
}

/** What a connection's frames act on. */
interface Link {
  events: EventPipe;
  route: Route;
  log: Logger;
  /** The platform took the session: keep the connection alive, backfill the gap. */
  authenticated(): void;
}

/** What one frame does: undefined to go on, or how the connection ends. */
function onFrame(frame: Frame, link: Link): Ended | undefined {
  switch (frame.kind) {
    case 'session':
      link.log.debug('realtime connection authenticated');
      link.authenticated();
      return undefined;
    case 'error':
      // The session was ended: renew it as any call would (or mark the account), then reconnect.
      if (frame.code === 401) link.events.renew(link.route);
      else link.log.warn({ code: frame.code }, 'realtime error frame');
      return 'closed';
    case 'event':
      link.events.live(frame.event);
      return undefined;
    default:
      return undefined;
  }
}

/**
 * The events of one connection, published in the order they came (live frames and backfill alike);
 * their ids come from the occurrences, so what a backfill finds again is not emitted twice.
 */
class EventPipe {
  private tail: Promise<unknown> = Promise.resolve();
  /** Whether this connection's backfill is published (so the realtime mark may move). */
  private backfilled = false;

  constructor(
    private readonly deps: ConnectionDeps,
    private readonly account: AccountRecord,
    private readonly log: Logger,
  ) {}

  live(event: Parameters<typeof occurrences>[0]): void {
    for (const occurrence of occurrences(event, this.account.platformAccountId)) this.emit(occurrence);
  }

  renew(route: Route): void {
    this.enqueue(async () => {
      await this.deps.sessions.call(this.account.tenantId, this.account.accountId, route, 'accountMe');
    });
  }

  /**
   * What a gap may have hidden, read on the account's lane by a worker (`realtime-backfill`) from
   * the realtime mark on: the fans' unread messages and the notifications, as the events they stand
   * for, oldest first. Once published, this connection moves the mark.
   */
  backfill(): void {
    this.enqueue(async () => {
      const { tenantId, accountId, createdAt } = this.account;
      const mark = await this.deps.store.accounts.realtimeMark(tenantId, accountId);
      const since = Math.max(createdAt, mark) - BACKFILL_MARGIN_MS;
      const found = await this.deps.backfill(this.account, since);
      if (found.coveredFrom > since)
        this.log.warn(
          { since, coveredFrom: found.coveredFrom, items: found.items.length },
          'realtime backfill stopped at its page limit: what the gap held before coveredFrom is not published',
        );
      for (const item of found.items)
        for (const occurrence of this.occurrencesOf(item, found.aggregationData))
          await this.publish(occurrence);
      this.backfilled = true;
    });
  }

  /**
   * Every frame received until `lastSeen` was taken before this: once those are published, the
   * account's realtime mark moves there. Not before this connection's backfill is published (a
   * failed one leaves the gap to the next connection's).
   */
  mark(lastSeen: number): void {
    this.enqueue(async () => {
      if (!this.backfilled) return;
      await this.deps.store.accounts.moveRealtimeMark(
        this.account.tenantId,
        this.account.accountId,
        lastSeen,
      );
    });
  }

  /** The occurrences a backfilled message or notification makes (those its frame would have). */
  private occurrencesOf(
    item: Backfill['items'][number],
    aggregationData: Record<string, unknown>,
  ): Occurrence[] {
    if (item.kind === 'message')
      return [{ event: 'messages.received', identity: [String(item.object.id)], data: item.object }];
    return notificationOccurrences(item.object, aggregationData, this.account.platformAccountId);
  }

  private emit(occurrence: Occurrence): void {
    this.enqueue(() => this.publish(occurrence));
  }

  private publish(occurrence: Occurrence): Promise<unknown> {
    const { tenantId, accountId } = this.account;
    return this.deps.publish(tenantId, {
      id: eventId([accountId, occurrence.event, ...occurrence.identity]),
      event: occurrence.event,
      accountId,
      data: occurrence.data,
    });
  }

  /** Resolves once every event taken so far is published (or failed). */
  drained(): Promise<void> {
    return this.tail.then(() => undefined);
  }

  private enqueue(task: () => Promise<unknown>): void {
    this.tail = this.tail
      .then(task)
      .catch((error: unknown) => this.log.warn({ err: error }, 'realtime event not handled'));
  }
}
