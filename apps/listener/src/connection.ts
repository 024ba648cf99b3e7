import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '@cg/config';
import { eventId, type PublishInput } from '@cg/events';
import type { AccountRecord, Store } from '@cg/store';
import type { AccountSessions, Egress, Route } from '@cg/worker';
import { notificationEvent, type Occurrence, occurrences } from './catalog';
import { authFrame, decodeFrames, type Frame, PING } from './frames';
import { openSocket } from './socket';
import type { AccountWatch } from './watch';

/** Reconnect backoff (upstream-extended.md 2.3): 1.5 s, doubling, at most 15 s. */
const BACKOFF_BASE_MS = 1_500;
const BACKOFF_MAX_MS = 15_000;
/**
 * A backfill tells what happened since the account was connected, less this margin (the platform's
 * clock and ours may disagree by a little): older unread messages are the caller's history, not a gap.
 */
const BACKFILL_MARGIN_MS = 60_000;

/** The answer of `realtime-backfill` (packages/operations). */
export interface Backfill {
  messages: Record<string, unknown>[];
  notifications: Record<string, unknown>[];
  aggregationData: Record<string, unknown>;
}

export interface ConnectionDeps {
  wsUrl: string;
  store: Store;
  sessions: AccountSessions;
  egress: Egress;
  /** The URL of the proxy a route leaves through; undefined: direct. */
  proxyOf(route: Route): string | undefined;
  /** Bounds the proxy's tunnel and the websocket's handshake. */
  timeoutMs: number;
  publish(tenantId: string, input: PublishInput): Promise<unknown>;
  /** Closes a connection whose account is disconnected or waits for a new login. */
  watch: AccountWatch;
  /** What a gap may have hidden (`realtime-backfill`, queued on the account's lane). */
  backfill(account: AccountRecord, since: number): Promise<Backfill>;
  pingMs: number;
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
  const socket = await openSocket(deps.wsUrl, deps.proxyOf(route), deps.timeoutMs);
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
    socket.on('message', (data) => {
      lastSeen = Date.now();
      for (const frame of decodeFrames(data.toString())) {
        const next = onFrame(frame);
        if (next) {
          ended = next;
          socket.close();
        }
      }
    });
    const onFrame = (frame: Frame): Ended | undefined => {
      switch (frame.kind) {
        case 'session':
          log.debug('realtime connection authenticated');
          // Any inbound frame is liveness; without one for 1.2 pings, the socket is reset.
          pinger = setInterval(() => {
            if (Date.now() - lastSeen > 1.2 * deps.pingMs + deps.pingMs) socket.close();
            else socket.send(PING);
          }, deps.pingMs);
          events.backfill();
          return undefined;
        case 'error':
          if (frame.code === 401) {
            // The session was ended: renew it as any call would (or mark the account), then reconnect.
            events.renew(route);
            return 'closed';
          }
          log.warn({ code: frame.code }, 'realtime error frame');
          return 'closed';
        case 'event':
          events.live(frame.event);
          return undefined;
        default:
          return undefined;
      }
    };
  });
}

/**
 * The events of one connection, published in the order they came (live frames and backfill alike);
 * their ids come from the occurrences, so what a backfill finds again is not emitted twice.
 */
class EventPipe {
  private tail: Promise<unknown> = Promise.resolve();

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
   * What a gap may have hidden, read on the account's lane by a worker (`realtime-backfill`): the
   * fans' unread messages, oldest first, then the latest notifications as the events they stand for.
   */
  backfill(): void {
    this.enqueue(async () => {
      // Only what happened since the account was connected: what came before is no gap of ours.
      const found = await this.deps.backfill(this.account, this.account.createdAt - BACKFILL_MARGIN_MS);
      for (const message of found.messages)
        await this.publish({ event: 'messages.received', identity: [String(message.id)], data: message });
      for (const notification of [...found.notifications].reverse()) {
        const event = notificationEvent(notification, found.aggregationData);
        if (event)
          for (const occurrence of occurrences(event, this.account.platformAccountId))
            await this.publish(occurrence);
      }
    });
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
