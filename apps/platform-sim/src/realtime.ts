import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { type RawData, WebSocket, WebSocketServer } from 'ws';
import type { FaultScope, Faults } from './faults';
import { Kind } from './ids';
import type { RuntimeConfig } from './options';
import type { Session } from './records';
import type { Sessions } from './sessions';
import type { AccountObservation, Observations } from './traffic';
import type { World } from './world/world';

/**
 * The platform's realtime websocket (upstream-extended.md section 2), on the sandbox's own port at
 * `/` (`ws://host:port/?v=3`; wss with TLS). Frames are `{t, d}` with `d` a JSON string: t=1 auth
 * (client `{token, v?}`, server `{session}`), t=0 error `{code}`, t=2 ping reply `{lastPing}`,
 * t=10000 a service event `{serviceId, event: "<JSON {type, <key>: object}>"}`. The bare string
 * `"p"` is a ping.
 */

export const REALTIME_PATH = '/';
export const FRAME = { error: 0, session: 1, ping: 2, event: 10000 } as const;
/** Close codes: a refused token or ended session, a ws_drop refusal, a silent connection. */
export const CLOSE = { unauthorized: 4001, unavailable: 4003, idle: 4000 } as const;
const MAX_FRAME_BYTES = 64 * 1024;

interface Connection {
  socket: WebSocket;
  /** The address the connection came from (an egress proxy's, through one). */
  remoteAddress: string;
  /** Creator index once authenticated; -1 before. */
  creator: number;
  token: string | null;
  idle: NodeJS.Timeout | null;
}

/** `{t, d}` with `d` JSON-encoded, as the platform frames everything. */
function frame(t: number, d: unknown): string {
  return JSON.stringify({ t, d: JSON.stringify(d) });
}

/** The auth frame's token: `d` is a JSON string (objects are accepted too); `v` is optional. */
function authToken(d: unknown): string | null {
  let payload = d;
  if (typeof d === 'string') {
    try {
      payload = JSON.parse(d);
    } catch {
      return null;
    }
  }
  const token = (payload as { token?: unknown } | null)?.token;
  return typeof token === 'string' && token !== '' ? token : null;
}

/** What the realtime server uses of the sandbox (core.ts `SimCore` is the one there is). */
export interface RealtimeHost {
  readonly world: World;
  readonly sessions: Sessions;
  readonly faults: Faults;
  readonly observations: Observations;
  readonly config: RuntimeConfig;
  observationOf(creator: number): AccountObservation;
  resolveCreator(account: string): FaultScope | null;
}

export class Realtime {
  private readonly server = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  private readonly byCreator = new Map<number, Set<Connection>>();
  private readonly connections = new Set<Connection>();

  constructor(private readonly core: RealtimeHost) {
    core.sessions.onEnd((token) => this.sessionEnded(token));
    core.observations.realtimeCurrent = (accountId) => this.liveOfAccount(accountId);
  }

  /** The HTTP server's `upgrade`: the realtime path becomes a websocket, anything else a 404. */
  upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    const path = (request.url ?? '/').split('?')[0];
    if (path !== REALTIME_PATH) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    this.server.handleUpgrade(request, socket, head, (ws) =>
      this.accept(ws, request.socket.remoteAddress ?? ''),
    );
  }

  private accept(socket: WebSocket, remoteAddress: string): void {
    const connection: Connection = { socket, remoteAddress, creator: -1, token: null, idle: null };
    this.connections.add(connection);
    this.touch(connection);
    socket.on('message', (data, isBinary) => this.receive(connection, data, isBinary));
    socket.on('close', () => this.forget(connection));
    socket.on('error', () => socket.terminate());
  }

  /** Any inbound frame is liveness; silence for realtimeIdleTimeoutMs closes the connection. */
  private touch(connection: Connection): void {
    if (connection.idle) clearTimeout(connection.idle);
    connection.idle = setTimeout(
      () => connection.socket.close(CLOSE.idle, 'idle'),
      this.core.config.realtimeIdleTimeoutMs,
    );
    connection.idle.unref();
  }

  private receive(connection: Connection, data: RawData, isBinary: boolean): void {
    this.touch(connection);
    const text = isBinary ? '' : data.toString();
    if (text === 'p') {
      this.ping(connection);
      return;
    }
    let message: { t?: unknown; d?: unknown };
    try {
      message = JSON.parse(text);
    } catch {
      this.send(connection, frame(FRAME.error, { code: 400 }));
      return;
    }
    if (message?.t === FRAME.session) this.authenticate(connection, message.d);
    // Before authentication only auth and ping are understood; afterwards other frames are ignored.
    else if (connection.creator < 0) this.send(connection, frame(FRAME.error, { code: 401 }));
  }

  private ping(connection: Connection): void {
    // A session that ended meanwhile (sessionTtlMs) is found out at the next ping.
    if (connection.token !== null && !this.session(connection.token)) {
      this.unauthorized(connection);
      return;
    }
    this.send(connection, frame(FRAME.ping, { lastPing: Date.now() }));
  }

  private session(token: string): { session: Session; creator: number } | null {
    return this.core.sessions.lookup(token, Date.now(), this.core.config.sessionTtlMs);
  }

  private authenticate(connection: Connection, d: unknown): void {
    const token = authToken(d);
    const entry = token === null ? null : this.session(token);
    if (!entry || token === null) {
      this.unauthorized(connection);
      return;
    }
    if (this.core.faults.refusesRealtime(entry.creator, Date.now())) {
      this.core.observationOf(entry.creator).realtime.refused += 1;
      this.send(connection, frame(FRAME.error, { code: 503 }));
      connection.socket.close(CLOSE.unavailable, 'unavailable');
      return;
    }
    this.detach(connection);
    connection.creator = entry.creator;
    connection.token = token;
    let live = this.byCreator.get(entry.creator);
    if (!live) {
      live = new Set();
      this.byCreator.set(entry.creator, live);
    }
    live.add(connection);
    const observed = this.core.observationOf(entry.creator).realtime;
    observed.opened += 1;
    observed.addresses[connection.remoteAddress] = (observed.addresses[connection.remoteAddress] ?? 0) + 1;
    observed.maxAtOnce = Math.max(observed.maxAtOnce, live.size);
    const { session } = entry;
    this.send(
      connection,
      frame(FRAME.session, {
        session: {
          id: session.id,
          token: session.token,
          accountId: session.accountId,
          deviceId: session.deviceId,
          status: session.status,
          websocketSessionId: this.core.world.ids.next(Kind.websocketSession),
          lastUsed: session.lastUsedAt,
          createdAt: session.createdAt,
        },
      }),
    );
  }

  /** t=0 401, then closed: what a client sees for a bad token or an ended session. */
  private unauthorized(connection: Connection): void {
    this.send(connection, frame(FRAME.error, { code: 401 }));
    connection.socket.close(CLOSE.unauthorized, 'unauthorized');
    this.detach(connection);
  }

  private send(connection: Connection, text: string): void {
    if (connection.socket.readyState !== WebSocket.OPEN) return;
    connection.socket.send(text);
    if (connection.creator >= 0) this.core.observationOf(connection.creator).realtime.framesSent += 1;
  }

  /** Pushes one service event to every live connection of a creator; answers how many got it. */
  publish(creator: number, serviceId: number, type: number, key: string, object: unknown): number {
    const live = this.byCreator.get(creator);
    if (!live || live.size === 0) return 0;
    const text = frame(FRAME.event, { serviceId, event: JSON.stringify({ type, [key]: object }) });
    const observed = this.core.observationOf(creator).realtime;
    for (const connection of live) {
      this.send(connection, text);
      observed.eventsSent += 1;
    }
    return live.size;
  }

  /** ws_drop: the scoped connections go at once, without a close frame (like a network drop). */
  drop(scope: FaultScope | null): number {
    let dropped = 0;
    for (const connection of [...this.connections]) {
      if (scope !== null && connection.creator !== scope.creator) continue;
      connection.socket.terminate();
      this.forget(connection);
      dropped += 1;
    }
    return dropped;
  }

  private sessionEnded(token: string): void {
    for (const connection of [...this.connections])
      if (connection.token === token) this.unauthorized(connection);
  }

  /** Live authenticated connections of a creator. */
  live(creator: number): number {
    return this.byCreator.get(creator)?.size ?? 0;
  }

  /** Creators with at least one live connection. */
  liveCreators(): number[] {
    return [...this.byCreator].filter(([, live]) => live.size > 0).map(([creator]) => creator);
  }

  private liveOfAccount(accountId: string): number {
    const scope = this.core.resolveCreator(accountId);
    return scope ? this.live(scope.creator) : 0;
  }

  private detach(connection: Connection): void {
    if (connection.creator >= 0) this.byCreator.get(connection.creator)?.delete(connection);
    connection.creator = -1;
    connection.token = null;
  }

  private forget(connection: Connection): void {
    if (connection.idle) clearTimeout(connection.idle);
    this.detach(connection);
    this.connections.delete(connection);
  }

  /** The sandbox closing: every connection goes, so the server can close. */
  close(): void {
    for (const connection of [...this.connections]) {
      connection.socket.terminate();
      this.forget(connection);
    }
    this.server.close();
  }
}
