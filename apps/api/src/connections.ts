import type { IncomingMessage, ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import type { Duplex } from 'node:stream';
import { ConfigError } from '@cg/config';
import { errorBody, GatewayError, STATUS_NAMES } from '@cg/contract';
import type { FastifyInstance } from 'fastify';
import type { ApiConfig } from './context';
import { newRequestId, type RouteMethods } from './errors';
import { requestIdOf } from './request-id';

/**
 * How often Node looks for requests past `HEADERS_TIMEOUT_MS` / `REQUEST_TIMEOUT_MS` (its default is
 * 30 s, which would let a stalled request outlive its bound by that much).
 */
const TIMEOUT_CHECK_MS = 1_000;

/**
 * The bounds on a request's arrival, for `Fastify({...})`. Three, because one cannot serve both a
 * slow attacker and a 500 MB upload:
 * - `HEADERS_TIMEOUT_MS` (15 s): the request line and headers, a few KB, must all be there by then
 *   (slowloris);
 * - `REQUEST_TIMEOUT_MS` (15 min): the whole request, body included: a backstop for a body that
 *   trickles a byte now and then; long enough for the largest upload on a slow line;
 * - `BODY_IDLE_TIMEOUT_MS` (15 s, `installBodyIdleTimeout`): a body from which nothing arrives that
 *   long is given up. This is what closes a stalled body (`content-length: 5000`, 100 bytes sent)
 *   within 30 s, while an upload that keeps moving, however long it takes, is not cut.
 * The time a request then waits for its answer (a synchronous job, up to `SYNC_WAIT_MS`) is not
 * bounded here: the request has arrived.
 */
export function arrivalTimeouts(config: ApiConfig): {
  requestTimeout: number;
  http: { headersTimeout: number; connectionsCheckingInterval: number };
} {
  const request = config.REQUEST_TIMEOUT_MS;
  return {
    requestTimeout: request,
    http: {
      // Node refuses a headers bound past the whole request's.
      headersTimeout: request > 0 ? Math.min(config.HEADERS_TIMEOUT_MS, request) : config.HEADERS_TIMEOUT_MS,
      connectionsCheckingInterval: TIMEOUT_CHECK_MS,
    },
  };
}

/** proxy-addr's names for address ranges, which `TRUST_PROXY` may use besides addresses and CIDRs. */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * `TRUST_PROXY`, for Fastify's `trustProxy`: the load balancers whose `X-Forwarded-For`, `-Proto` and
 * `-Host` are believed, so that `request.ip` (failed authentications are counted per address) is the
 * client's and job status links keep the caller's scheme and host. Only a peer in the list is
 * believed, and only up to the first address not in it, so a client cannot name itself another
 * address. Unset: no header is believed, the peer is the client.
 */
export function trustedProxies(config: Pick<ApiConfig, 'TRUST_PROXY'>): string[] | undefined {
  if (config.TRUST_PROXY === undefined) return undefined;
  const entries = config.TRUST_PROXY.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    if (!isProxyEntry(entry))
      throw new ConfigError(
        `invalid environment variable TRUST_PROXY: "${entry}" is not an address, a CIDR or one of ${[...PROXY_RANGE_NAMES].join(', ')}`,
      );
  }
  return entries;
}

function isProxyEntry(entry: string): boolean {
  if (PROXY_RANGE_NAMES.has(entry)) return true;
  const [address = '', bits, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (bits === undefined) return true;
  return /^[0-9]{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}

/**
 * `BODY_IDLE_TIMEOUT_MS`: while a request's body is arriving, its socket may be silent that long at
 * most; then it is answered 408 (if nothing was answered yet) and closed. The socket's own inactivity
 * timer does it: Node refreshes it on every read and, on expiry, asks the unfinished request first
 * (its `timeout` event) before destroying the socket. Set only while a body is due, and lifted when
 * it has all arrived: a request waiting for its answer is silent by design. Set on the HTTP server's
 * `request` event, not in a Fastify hook, so that it holds for every request, those a hook or the
 * router answers before any route runs included.
 */
export function installBodyIdleTimeout(app: FastifyInstance, idleMs: number): void {
  app.server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    if (request.complete || !expectsBody(request)) return;
    const socket = request.socket;
    socket.setTimeout(idleMs);
    // Back to what Node would have set: its keep-alive bound once the answer is out, else none.
    request.once('end', () =>
      socket.setTimeout(response.writableFinished ? app.server.keepAliveTimeout : app.server.timeout),
    );
    request.once('timeout', () => {
      const requestId = requestIdOf(request);
      app.log.info(
        { requestId, idleMs, method: request.method },
        'request body stalled; closing the connection',
      );
      if (response.headersSent) socket.destroy();
      else
        answerAndClose(
          socket,
          new GatewayError('REQUEST_TIMEOUT', 'the request body stopped arriving'),
          {},
          requestId,
        );
    });
  });
}

/** How long a connection answered before its body arrived stays open after its answer, at most. */
const EARLY_ANSWER_LINGER_MS = 1_000;

/**
 * An answer sent before the request's body has all arrived (a 401 before an upload is read, a 413
 * as an upload passes `MEDIA_MAX_BYTES`) closes the connection, whatever the body's framing: the
 * answer says `Connection: close`, the rest of the body is not read, the socket is ended (FIN) once
 * the answer is written and destroyed a second later, the answer read by then. Node would otherwise
 * read such a body to its end to reuse the connection: all of a 50 MB chunked upload, or, for one
 * that never ends, until `REQUEST_TIMEOUT_MS`.
 */
export function closeEarlyAnswers(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply) => {
    if (!request.raw.complete) reply.header('connection', 'close');
  });
  app.server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    if (request.complete) return;
    response.once('finish', () => {
      if (!request.complete) closeUnread(request);
    });
  });
}

/**
 * Stops reading a request whose answer is out, and closes its connection. Runs after Node's own
 * `finish` listener, which has ended a `Connection: close` socket and would destroy it as soon as
 * the FIN is out, resetting a peer still sending before it has read the answer: that destroy waits
 * for `EARLY_ANSWER_LINGER_MS` instead.
 */
function closeUnread(request: IncomingMessage): void {
  const socket = request.socket;
  request.unpipe();
  request.pause();
  socket.pause();
  socket.removeListener('finish', socket.destroy);
  if (socket.writable) socket.end();
  setTimeout(() => socket.destroy(), EARLY_ANSWER_LINGER_MS).unref();
}

function expectsBody(request: IncomingMessage): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * `CONNECT` (a proxy tunnel): Node hands it to the server's `connect` event, never to Fastify, and
 * without a listener drops the connection unanswered. The gateway is no proxy: 405 in the error shape,
 * with the methods the path takes when it is one of the gateway's paths, then the connection closes.
 */
export function refuseConnect(app: FastifyInstance, methods: RouteMethods): void {
  app.server.on('connect', (request: IncomingMessage, socket: Duplex) => {
    const target = request.url ?? '';
    const allow = target.startsWith('/') ? methods.allowed(target.split('?')[0] ?? '') : [];
    answerAndClose(
      socket,
      new GatewayError('METHOD_NOT_ALLOWED', 'the gateway does not take CONNECT: it is not a proxy'),
      { Allow: allow.join(', ') },
    );
  });
}

/** A whole answer written on the socket itself (no Fastify reply exists), then the socket closes. */
function answerAndClose(
  socket: Duplex,
  error: GatewayError,
  headers: Record<string, string> = {},
  requestId = newRequestId(),
): void {
  const body = JSON.stringify(errorBody(error, requestId));
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  if (socket.writable) {
    const status = error.statusCode;
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_NAMES[status]}\r\nContent-Type: application/json\r\n` +
        `X-Request-Id: ${requestId}\r\n${extra}` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  // Ended rather than destroyed at once, so the answer is not cut; destroyed if the peer never reads.
  setTimeout(() => socket.destroy(), 1_000).unref();
}
