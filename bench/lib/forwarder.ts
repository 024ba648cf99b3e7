/**
 * S6's baseline and receivers, all in the bench process: sandbox logins, a forwarder that holds one
 * realtime websocket per account and POSTs each message frame (5,1) straight to a receiver (no
 * queue, no log, no retry; signed like a Standard Webhooks delivery so both paths pay an HMAC), and
 * the receiver that times each message's arrival.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SANDBOX_PASSWORD, SANDBOX_TWOFA_CODE } from '@cg/platform-sim';
import { Pool, WebSocket } from 'undici';

/** POSTs the forwarder has in flight at most (S6 gives the gateway's endpoint as many). */
export const FORWARD_IN_FLIGHT = 128;

const CLIENT_HEADERS = {
  'fansly-client-id': '1',
  'fansly-client-check': 'bench',
  'content-type': 'application/json',
};
/** What the listener sends as its websocket's Origin. */
const ORIGIN = 'https://fansly.com';
const PING_MS = 20_000;

export interface SandboxSession {
  username: string;
  token: string;
}

/** Runs `task` over `items`, `parallel` at a time, results in order. */
export async function eachLimited<T, R>(
  items: T[],
  parallel: number,
  task: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(parallel, items.length) }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await task(items[index] as T);
      }
    }),
  );
  return results;
}

/** The parts of the sandbox's answers read here: a login's, and `/message/unread`'s. */
interface SandboxAnswer {
  twofa?: { token?: string };
  session?: { token?: unknown };
  token?: unknown;
  total?: number;
}

/** The sandbox's platform API (`/api/v1`) for the bench's own sessions. */
export class SandboxApi {
  private readonly pool: Pool;

  constructor(origin: string, connections = 32) {
    this.pool = new Pool(origin, { connections });
  }

  private async call(
    method: 'GET' | 'POST',
    path: string,
    token?: string,
    body?: unknown,
  ): Promise<SandboxAnswer | undefined> {
    const response = await this.pool.request({
      method,
      path: `/api/v1${path}`,
      headers: {
        ...CLIENT_HEADERS,
        'fansly-client-ts': String(Date.now()),
        ...(token ? { authorization: token } : {}),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.body.text();
    const parsed = (text ? JSON.parse(text) : undefined) as
      | { success?: boolean; response?: SandboxAnswer }
      | undefined;
    if (response.statusCode !== 200 || parsed?.success !== true)
      throw new Error(`sandbox ${method} ${path}: ${response.statusCode} ${text.slice(0, 200)}`);
    return parsed.response;
  }

  /** A fresh session of a sandbox creator (the second factor answered when asked). */
  async login(username: string): Promise<SandboxSession> {
    const login = await this.call('POST', '/login', undefined, {
      username,
      password: SANDBOX_PASSWORD,
      deviceId: '1',
    });
    const session = login?.twofa
      ? await this.call('POST', '/login/twofa', undefined, {
          token: login.twofa.token,
          code: SANDBOX_TWOFA_CODE,
        })
      : login?.session;
    if (typeof session?.token !== 'string') throw new Error(`sandbox login of ${username} failed`);
    return { username, token: session.token };
  }

  /** Messages received and still unread over `sessions`: their rise is how many the sandbox created. */
  async unreadTotal(sessions: SandboxSession[]): Promise<number> {
    const totals = await eachLimited(sessions, 32, async (session) => {
      const unread = await this.call('GET', '/message/unread?limit=1', session.token);
      return Number(unread?.total ?? 0);
    });
    return totals.reduce((sum, n) => sum + n, 0);
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

/** Signs like a Standard Webhooks sender: `v1,<base64 HMAC-SHA256 of id.timestamp.body>`. */
function signature(key: Buffer, id: string, timestamp: string, body: string): string {
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** The `(serviceId, type, object)` of a service-event frame's `d`, or null. */
function messageOf(text: string): Record<string, unknown> | null {
  const frame = JSON.parse(text) as { t?: number; d?: string };
  if (frame.t !== 10000 || typeof frame.d !== 'string') return null;
  const outer = JSON.parse(frame.d) as { serviceId?: number; event?: unknown };
  if (outer.serviceId !== 5) return null;
  const event = (typeof outer.event === 'string' ? JSON.parse(outer.event) : outer.event) as {
    type?: number;
    message?: Record<string, unknown>;
  };
  return event?.type === 1 && event.message ? event.message : null;
}

/**
 * The baseline: one websocket per session to the sandbox; each message frame becomes one POST to
 * `receiverUrl` at once, with the gateway's envelope and Standard Webhooks headers.
 */
export class Forwarder {
  private readonly sockets: WebSocket[] = [];
  private readonly pool: Pool;
  private readonly key = randomBytes(32);
  private pinger: NodeJS.Timeout | undefined;
  forwarded = 0;
  failed = 0;

  constructor(
    private readonly wsUrl: string,
    private readonly receiverUrl: string,
  ) {
    this.pool = new Pool(new URL(receiverUrl).origin, { connections: FORWARD_IN_FLIGHT, pipelining: 1 });
  }

  /** Opens and authenticates every session's socket, `parallel` at a time. */
  async open(sessions: SandboxSession[], parallel = 50): Promise<void> {
    await eachLimited(sessions, parallel, (session) => this.openOne(session));
    this.pinger = setInterval(() => {
      for (const socket of this.sockets) if (socket.readyState === WebSocket.OPEN) socket.send('p');
    }, PING_MS);
  }

  private openOne(session: SandboxSession): Promise<void> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(this.wsUrl, {
        headers: { origin: ORIGIN },
      } as ConstructorParameters<typeof WebSocket>[1]);
      this.sockets.push(socket);
      let authenticated = false;
      socket.onopen = () =>
        socket.send(JSON.stringify({ t: 1, d: JSON.stringify({ token: session.token, v: 3 }) }));
      socket.onerror = () => undefined;
      socket.onclose = () => {
        if (!authenticated)
          reject(new Error(`realtime connection of ${session.username} closed before auth`));
      };
      socket.onmessage = (message) => {
        const text = String(message.data);
        if (!authenticated) {
          if (text.startsWith('{"t":1,')) {
            authenticated = true;
            resolve();
          }
          return;
        }
        const found = text.startsWith('{"t":10000') ? messageOf(text) : null;
        if (found) this.forward(session.username, found);
      };
    });
  }

  private forward(accountId: string, message: Record<string, unknown>): void {
    const id = `evt_${String(message.id)}`;
    const timestamp = String(Math.floor(Date.now() / 1000));
    const body = JSON.stringify({
      id,
      event: 'messages.received',
      accountId,
      timestamp: new Date().toISOString(),
      data: message,
    });
    this.pool
      .request({
        method: 'POST',
        path: new URL(this.receiverUrl).pathname,
        headers: {
          'content-type': 'application/json',
          'webhook-id': id,
          'webhook-timestamp': timestamp,
          'webhook-signature': signature(this.key, id, timestamp, body),
        },
        body,
      })
      .then(
        async (response) => {
          await response.body.dump();
          if (response.statusCode < 300) this.forwarded++;
          else this.failed++;
        },
        () => this.failed++,
      );
  }

  /** Closes every socket and waits (a while) for the closes. */
  async close(): Promise<void> {
    if (this.pool.closed) return;
    clearInterval(this.pinger);
    await Promise.all(
      this.sockets.splice(0).map(
        (socket) =>
          new Promise<void>((resolve) => {
            if (socket.readyState === WebSocket.CLOSED) return resolve();
            const timer = setTimeout(resolve, 5_000);
            socket.addEventListener('close', () => {
              clearTimeout(timer);
              resolve();
            });
            socket.close();
          }),
      ),
    );
    await this.pool.close();
  }
}

/** One message as it arrived: when (ms) and when the sandbox created it (ms). */
export interface Arrival {
  at: number;
  createdAt: number;
}

/**
 * A loopback HTTP receiver: records the first arrival of each `messages.received` event by message
 * id (deliveries may come twice), with the message's `createdAt`, and answers 204.
 */
export class Receiver {
  readonly arrivals = new Map<string, Arrival>();
  posts = 0;
  lastPostAt = 0;
  private server: Server | undefined;

  async start(): Promise<string> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const at = Date.now();
        this.posts++;
        this.lastPostAt = at;
        try {
          const envelope = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
            event?: string;
            data?: { id?: unknown; createdAt?: unknown };
          };
          const id = envelope.data?.id;
          if (envelope.event === 'messages.received' && id !== undefined && !this.arrivals.has(String(id)))
            this.arrivals.set(String(id), { at, createdAt: Number(envelope.data?.createdAt) * 1000 });
        } catch {
          // not JSON: counted as a post only
        }
        response.writeHead(204).end();
      });
    });
    this.server.keepAliveTimeout = 60_000;
    const server = this.server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  }

  /** Arrivals of the messages created in [from, to] (ms). */
  between(from: number, to: number): Arrival[] {
    const found: Arrival[] = [];
    for (const arrival of this.arrivals.values())
      if (arrival.createdAt >= from && arrival.createdAt <= to) found.push(arrival);
    return found;
  }

  close(): Promise<void> {
    const server = this.server;
    if (!server) return Promise.resolve();
    server.closeAllConnections();
    return new Promise((resolve) => server.close(() => resolve()));
  }
}
