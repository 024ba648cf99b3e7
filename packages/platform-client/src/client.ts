import type { Readable } from 'node:stream';
import { Agent, type Dispatcher, Pool, ProxyAgent } from 'undici';
import {
  API_PREFIX,
  type AuthEndpointName,
  type EndpointDef,
  type EndpointName,
  endpoints,
} from './endpoints';
import { type CallName, classify, type Failure, networkPhase, PlatformError } from './errors';
import { type CallReport, observed } from './outcome';
import { ClientTimestamp, clientCheck, sessionIdFromToken } from './signing';

/**
 * The check key is disputed between public sources: `oybZy8-fySzis-bubayf` (older clients) and
 * `necvac-govry3-tybkYz` (reported later to match recorded traffic). Public reports also say the server
 * does not enforce the check per path. The deployment should configure the key it has verified; this
 * default only keeps a missing setting from sending an empty one.
 */
export const DEFAULT_CHECK_KEY = 'oybZy8-fySzis-bubayf';

/** A current desktop Chrome, because the platform's web API is built for (and watched for) browsers. */
export const DEFAULT_USER_AGENT =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

const WEB_ORIGIN = 'https://fansly.com';

/** No answer of the platform's protocol comes near it: its pages hold at most 100 records. */
export const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

/** The code of a body not whole within `bodyDeadlineMs`: the request was sent (its headers came). */
export const BODY_DEADLINE_CODE = 'UND_ERR_BODY_DEADLINE';
const TOO_LARGE_CODE = 'UND_ERR_RES_EXCEEDED_MAX_SIZE';

/** `details` can be any text the platform chose; keep error messages short and single-line. */
const MAX_DETAILS_CHARS = 200;

// Device ids are snowflakes; anything else would also be refused by undici as a header value.
const DEVICE_ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;

export interface PlatformClientOptions {
  /** Origin of the platform, e.g. `https://apiv3.fansly.com` or the sandbox `http://127.0.0.1:4010`. */
  baseUrl: string;
  /** Origin of its media host (uploads), e.g. `https://mediav2.fansly.com`. @defaultValue baseUrl */
  mediaBaseUrl?: string;
  /** Key of the `fansly-client-check` signature. @defaultValue {@link DEFAULT_CHECK_KEY} */
  checkKey?: string;
  /** @defaultValue {@link DEFAULT_USER_AGENT} */
  userAgent?: string;
  /**
   * Bounds each phase of a request separately: connecting, waiting for the response headers, and each
   * pause in the response body. Separate timers (rather than one deadline) keep the phase visible in the
   * error code, which is what tells a write that never left from one that may have been applied.
   * @defaultValue 15000
   */
  timeoutMs?: number;
  /**
   * Bounds the whole body, from the headers to its last byte, which the pause timer alone does not:
   * a body that trickles a byte at a time never pauses long enough. @defaultValue timeoutMs
   */
  bodyDeadlineMs?: number;
  /**
   * Largest response body read; a larger one is refused (a 2xx as an unreadable answer) rather than
   * held in memory. @defaultValue {@link DEFAULT_MAX_RESPONSE_BYTES}
   */
  maxResponseBytes?: number;
  /** Most sockets open to the platform at once; more requests wait in the pool. @defaultValue 256 */
  connections?: number;
  /**
   * Told of every request sent, endpoint calls and file transfers alike: its name, what it came to
   * and how long it took (the gateway's metrics). Never its path, parameters or body. Keeps the
   * client free of any metrics library; must be cheap, and what it throws is ignored.
   */
  onCall?: (report: CallReport) => void;
}

/** The session object of a successful login (the gateway's "Connection session"). */
export interface UpstreamSession {
  id: string;
  token: string;
  accountId: string;
  deviceId: string | null;
  status: number | null;
  ip: string | null;
  metadata: unknown;
  checkToken: unknown;
  /** The platform sends more fields than the gateway uses; they are kept as received. */
  [field: string]: unknown;
}

export type LoginOutcome =
  | { kind: 'session'; session: UpstreamSession }
  /** A second factor is needed: `token` goes to `loginTwofa`, `email` is masked by the platform. */
  | { kind: 'twofa'; token: string; email: string };

export interface SessionAuth {
  token: string;
  deviceId: string;
}

export interface CallArgs {
  /** Values for the `:name` segments of the endpoint's path. */
  params?: Record<string, string>;
  /** Undefined values are left out. */
  query?: Record<string, string | number | boolean | undefined>;
  /** Sent as JSON. */
  body?: unknown;
}

/** Who a request is signed for: nothing for the device id, a device for login, a session after it. */
type Signer = { deviceId: string } | { deviceId: string; token: string; sessionId: string };

type Envelope = { success: true; response: unknown } | { success: false; code?: number; details?: string };

/**
 * The only code that talks to the platform over HTTP. It never retries and never logs: every failure is
 * a {@link PlatformError} whose `retry` verdict the worker acts on, because only the worker knows the
 * account's pacing and how many attempts are left.
 */
export class PlatformClient {
  readonly #routes: Routes;
  readonly #dispatcher: Dispatcher;
  /** The proxy this view sends through (its URL), or null for direct. */
  readonly #proxy: string | null;
  readonly #origin: string;
  readonly #mediaOrigin: string;
  /** File transfers (part uploads, CDN downloads): no response size cap; made on first use. */
  #transfers: Dispatcher | undefined;
  readonly #options: PlatformClientOptions;
  readonly #checkKey: string;
  readonly #bodyDeadlineMs: number;
  readonly #maxResponseBytes: number;
  readonly #userAgent: string;
  readonly #timestamps: ClientTimestamp;

  constructor(options: PlatformClientOptions);
  /** @internal A view of `parent` sending through another route (`through`). */
  constructor(options: PlatformClientOptions, parent: PlatformClient, proxy: string);
  constructor(options: PlatformClientOptions, parent?: PlatformClient, proxy?: string) {
    const base = new URL(options.baseUrl);
    // Request paths and the signature both start at /api/v1, so a base path would be signed wrongly.
    if (base.pathname !== '/' || base.search !== '' || base.hash !== '') {
      throw new TypeError('PlatformClient baseUrl must be an origin without a path, query or fragment');
    }
    const timeoutMs = options.timeoutMs ?? 15_000;
    this.#bodyDeadlineMs = options.bodyDeadlineMs ?? timeoutMs;
    this.#maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.#checkKey = options.checkKey ?? DEFAULT_CHECK_KEY;
    this.#userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
    // undici would refuse it on every request, which would look like a transport failure.
    if (!/^[\x20-\x7e]+$/.test(this.#userAgent)) throw new TypeError('userAgent must be printable ASCII');
    this.#proxy = proxy ?? null;
    this.#origin = base.origin;
    this.#mediaOrigin = originOf(options.mediaBaseUrl ?? options.baseUrl, 'mediaBaseUrl');
    this.#options = options;
    if (parent !== undefined && proxy !== undefined) {
      this.#routes = parent.#routes;
      this.#timestamps = parent.#timestamps;
      this.#dispatcher = proxyDispatcher(proxy, options, this.#maxResponseBytes);
    } else {
      this.#routes = { options, direct: this, views: new Map() };
      this.#timestamps = new ClientTimestamp();
      this.#dispatcher = directDispatcher(options, this.#maxResponseBytes);
    }
  }

  /**
   * The same client sending through an HTTP proxy (`http://user:pass@host:port`; null: direct).
   * Views share the signing clock; each proxy has its own sockets, opened once and kept.
   */
  through(proxy: string | null): PlatformClient {
    const { direct, views, options } = this.#routes;
    if (proxy === null) return direct;
    let view = views.get(proxy);
    if (view === undefined) {
      view = new PlatformClient(options, direct, proxy);
      views.set(proxy, view);
    }
    return view;
  }

  /** A fresh device id; the web client asks again every 180 minutes. */
  async getDeviceId(): Promise<string> {
    const response = await this.#send('deviceId', {}, undefined);
    if (typeof response !== 'string' || !DEVICE_ID_PATTERN.test(response)) {
      throw badResponse('deviceId', 'device id is not a string id');
    }
    return response;
  }

  async login(input: { username: string; password: string; deviceId: string }): Promise<LoginOutcome> {
    const { username, password, deviceId } = input;
    const response = await this.#send(
      'login',
      { body: { username, password, deviceId } },
      { deviceId: checkedDeviceId(deviceId) },
    );
    if (!isRecord(response)) throw badResponse('login', 'login response is not an object');
    // The second-factor branch is looked at first: public clients branch on the presence of `twofa`.
    const twofa = response.twofa;
    if (isRecord(twofa) && typeof twofa.token === 'string' && twofa.token !== '') {
      return { kind: 'twofa', token: twofa.token, email: typeof twofa.email === 'string' ? twofa.email : '' };
    }
    return { kind: 'session', session: readSession('login', response.session) };
  }

  async loginTwofa(input: { token: string; code: string; deviceId: string }): Promise<UpstreamSession> {
    const response = await this.#send(
      'loginTwofa',
      { body: { token: input.token, code: input.code } },
      { deviceId: checkedDeviceId(input.deviceId) },
    );
    // Public clients read the session either as `response` itself or under `response.session`.
    const session = isRecord(response) && isRecord(response.session) ? response.session : response;
    return readSession('loginTwofa', session);
  }

  /** One authenticated call; resolves with the envelope's `response`, or rejects with a PlatformError. */
  async call<T = unknown>(auth: SessionAuth, endpoint: AuthEndpointName, args: CallArgs = {}): Promise<T> {
    const sessionId = sessionIdFromToken(auth.token);
    if (sessionId === undefined) {
      // Not worth sending: the platform could only refuse it, and the caller's remedy is a new login.
      throw new PlatformError({
        kind: 'unauthorized',
        retry: 'permanent',
        endpoint,
        message: `${endpoint}: session token is not in the expected format`,
      });
    }
    const signer = { deviceId: checkedDeviceId(auth.deviceId), token: auth.token, sessionId };
    // The caller names the payload type per endpoint; the client checks the envelope and that the
    // response is the endpoint's kind of container, so a `response: null` is not read as empty.
    const response = await this.#send(endpoint, args, signer);
    const expected = endpoints[endpoint].response;
    const shaped =
      expected === 'array' ? Array.isArray(response) : expected === undefined || isRecord(response);
    if (!shaped)
      throw badResponse(endpoint, `response is not ${expected === 'array' ? 'an array' : 'an object'}`);
    return response as T;
  }

  /** A transport failure, the body's deadline included; an answer too large to read is a bad response. */
  #failure(name: CallName, def: EndpointDef, err: unknown): PlatformError {
    const code = errorCode(err);
    const refused = this.#proxy === null ? undefined : proxyRefusal(err, code);
    if (refused !== undefined) return proxyFailed(name, this.#proxy ?? '', refused, code);
    if (code === TOO_LARGE_CODE)
      return badResponse(name, `answer larger than ${this.#maxResponseBytes} bytes`, def);
    if (code === BODY_DEADLINE_CODE)
      return networkError(name, def, err, `no whole body within ${this.#bodyDeadlineMs} ms of the headers`);
    return networkError(name, def, err);
  }

  /** Waits for requests in flight, then closes every socket, of every route. */
  async close(): Promise<void> {
    const { direct, views } = this.#routes;
    await Promise.all(
      [direct, ...views.values()].flatMap((client) => [
        client.#dispatcher.close(),
        client.#transfers?.close(),
      ]),
    );
  }

  /**
   * Uploads one part of a file to a presigned URL the platform handed out (its media host's
   * storage): the raw bytes, no platform header, answered with the part's `ETag`, quotes included.
   * A write: once the bytes may have left, a failure is never retryable.
   */
  async putPart(url: string, body: Readable, length: number): Promise<string> {
    const res = await this.#transfer('uploadPart', TRANSFER_WRITE, url, {
      method: 'PUT',
      headers: { 'content-length': String(length), 'user-agent': this.#userAgent },
      body,
    });
    await res.body.dump();
    const eTag = headerValue(res.headers.etag);
    if (res.statusCode >= 300)
      throw httpError(
        'uploadPart',
        TRANSFER_WRITE,
        { type: 'http', status: res.statusCode },
        'the part upload was refused',
      );
    if (eTag === undefined || eTag === '')
      throw badResponse('uploadPart', 'part upload answered without an ETag', TRANSFER_WRITE);
    return eTag;
  }

  /**
   * Fetches a file from the platform's CDN, as its web client does: a browser's user agent, origin
   * and referer, no session. The caller reads the body; an error status comes back as it is, with
   * its body dumped.
   */
  async fetchFile(url: string): Promise<{ status: number; contentType: string | undefined; body: Readable }> {
    const res = await this.#transfer('cdnFile', TRANSFER_READ, url, {
      method: 'GET',
      headers: { origin: WEB_ORIGIN, referer: `${WEB_ORIGIN}/`, 'user-agent': this.#userAgent },
    });
    if (res.statusCode >= 300) await res.body.dump();
    return { status: res.statusCode, contentType: headerValue(res.headers['content-type']), body: res.body };
  }

  /**
   * One request of a file transfer to an absolute URL, on this route's transfer sockets (no response
   * size cap; made on first use); a transport failure is classified as `def` says.
   */
  async #transfer(
    name: CallName,
    def: EndpointDef,
    url: string,
    request: Pick<Dispatcher.RequestOptions, 'method' | 'headers' | 'body'>,
  ): Promise<Dispatcher.ResponseData> {
    this.#transfers ??=
      this.#proxy === null
        ? directDispatcher(this.#options, undefined)
        : proxyDispatcher(this.#proxy, this.#options, undefined);
    const transfers = this.#transfers;
    const target = new URL(url);
    const send = async () => {
      try {
        return await transfers.request({
          ...request,
          origin: target.origin,
          path: `${target.pathname}${target.search}`,
        });
      } catch (err) {
        throw this.#failure(name, def, err);
      }
    };
    const { onCall } = this.#options;
    return onCall === undefined ? send() : observed(name, onCall, send, (res) => res.statusCode);
  }

  /** `#exchange`, told to `onCall` when there is one. */
  #send(name: EndpointName, args: CallArgs, signer: Signer | undefined): Promise<unknown> {
    const { onCall } = this.#options;
    const send = () => this.#exchange(name, args, signer);
    return onCall === undefined ? send() : observed(name, onCall, send);
  }

  async #exchange(name: EndpointName, args: CallArgs, signer: Signer | undefined): Promise<unknown> {
    const def: EndpointDef = endpoints[name];
    const pathname = API_PREFIX + fillPath(def.path, args.params ?? {});
    const headers: Record<string, string> = {
      accept: 'application/json, text/plain, */*',
      origin: WEB_ORIGIN,
      referer: `${WEB_ORIGIN}/`,
      'user-agent': this.#userAgent,
    };
    if (signer !== undefined) {
      headers['fansly-client-id'] = signer.deviceId;
      headers['fansly-client-ts'] = String(this.#timestamps.next());
      headers['fansly-client-check'] = clientCheck(this.#checkKey, pathname, signer.deviceId);
      if ('token' in signer) {
        headers.authorization = signer.token;
        headers['fansly-session-id'] = signer.sessionId;
      }
    }
    let body: string | undefined;
    if (args.body !== undefined) {
      body = JSON.stringify(args.body);
      headers['content-type'] = 'application/json';
    }
    const path = `${pathname}?${buildQuery(args.query)}`;

    // Connecting and the headers have undici's timers; the body as a whole has this one.
    const deadline = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    let res: Dispatcher.ResponseData;
    let text: string;
    try {
      try {
        const origin = def.host === 'media' ? this.#mediaOrigin : this.#origin;
        const request = { origin, method: def.method, path, headers, signal: deadline.signal };
        res = await this.#dispatcher.request(body === undefined ? request : { ...request, body });
      } catch (err) {
        throw this.#failure(name, def, err);
      }
      timer = setTimeout(() => deadline.abort(new BodyDeadlineError()), this.#bodyDeadlineMs);
      try {
        text = await res.body.text();
      } catch (err) {
        // An error status already says what happened; only a lost success body leaves the outcome open.
        if (res.statusCode >= 300) {
          const retryAfter = headerValue(res.headers['retry-after']);
          throw httpError(name, def, { type: 'http', status: res.statusCode, retryAfter }, undefined);
        }
        throw this.#failure(name, def, err);
      }
    } finally {
      clearTimeout(timer);
    }

    const { statusCode } = res;
    const retryAfter = headerValue(res.headers['retry-after']);

    const envelope = parseEnvelope(text);
    if (statusCode >= 200 && statusCode < 300) {
      if (envelope?.success === true) return envelope.response;
      if (envelope === undefined)
        throw badResponse(name, `HTTP ${statusCode} without a readable envelope`, def);
    }
    const code = envelope?.success === false ? envelope.code : undefined;
    const details = envelope?.success === false ? envelope.details : undefined;
    throw httpError(name, def, { type: 'http', status: statusCode, upstreamCode: code, retryAfter }, details);
  }
}

/** What a file transfer counts as, for the failure's verdict (`classify`). */
const TRANSFER_WRITE: EndpointDef = { method: 'POST', path: '', auth: false, write: true };
const TRANSFER_READ: EndpointDef = { method: 'GET', path: '', auth: false, write: false };

/** Sockets straight to the platform's hosts (its API and its media host), bounded like a proxy's. */
function directDispatcher(options: PlatformClientOptions, maxResponseSize: number | undefined): Dispatcher {
  const timeoutMs = options.timeoutMs ?? 15_000;
  return new Agent({
    connections: options.connections ?? 256,
    connect: { timeout: timeoutMs },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    maxResponseSize: maxResponseSize ?? -1,
  });
}

/** An origin setting: an origin without a path, query or fragment (paths are signed from /api/v1). */
function originOf(url: string, name: string): string {
  const parsed = new URL(url);
  if (parsed.pathname !== '/' || parsed.search !== '' || parsed.hash !== '')
    throw new TypeError(`PlatformClient ${name} must be an origin without a path, query or fragment`);
  return parsed.origin;
}

/** Every route of one client: the direct one and a view per proxy (`through`). */
interface Routes {
  readonly options: PlatformClientOptions;
  readonly direct: PlatformClient;
  readonly views: Map<string, PlatformClient>;
}

/**
 * An HTTP proxy's dispatcher: plain forwarding for an http platform, a CONNECT tunnel for https,
 * with the direct pool's bounds on every hop (connecting to the proxy, its CONNECT answer, the
 * platform's headers and body).
 */
function proxyDispatcher(
  proxy: string,
  options: PlatformClientOptions,
  maxResponse: number | undefined,
): Dispatcher {
  const timeoutMs = options.timeoutMs ?? 15_000;
  // undici's "no limit".
  const maxResponseSize = maxResponse ?? -1;
  const bounds = { headersTimeout: timeoutMs, bodyTimeout: timeoutMs };
  return new ProxyAgent({
    uri: proxy,
    proxyTunnel: false,
    connections: options.connections ?? 256,
    ...bounds,
    maxResponseSize,
    proxyTls: { timeout: timeoutMs },
    // The pool to the proxy (plain forwarding) or through the tunnel: `opts.connect` is undici's.
    factory: (origin, opts) => new Pool(origin, { ...bounds, maxResponseSize, ...opts }),
    clientFactory: (origin, opts) => new Pool(origin, { ...bounds, ...opts }),
  });
}

/**
 * Why the proxy, not the platform, failed a request, when that is certain: it could not be reached,
 * it refused the CONNECT tunnel (407 among others), or it asked for credentials instead of
 * forwarding. Then the platform never saw the request. Undefined for anything else.
 */
function proxyRefusal(err: unknown, code: string | undefined): string | undefined {
  // A pool closed under the request (the process stopping) says nothing of the proxy.
  if (code !== 'UND_ERR_CLOSED' && networkPhase(code) === 'not_sent') return `unreachable (${code})`;
  const message = err instanceof Error ? err.message : '';
  const tunnel = /^Proxy response \((\d{3})\) !== 200 when HTTP Tunneling/.exec(message);
  if (tunnel) return `refused the tunnel (HTTP ${tunnel[1]})`;
  if (message === 'Proxy Authentication Required (407)') return 'refused the credentials (HTTP 407)';
  return undefined;
}

/** A request the proxy failed before forwarding it: retryable, even a write. Never shows the URL. */
function proxyFailed(endpoint: CallName, proxy: string, why: string, code: string | undefined) {
  const { host } = new URL(proxy);
  return new PlatformError({
    kind: 'proxy_failed',
    retry: 'retryable',
    endpoint,
    networkCode: code,
    message: `${endpoint}: egress proxy ${host} ${why}; the request was not sent`,
  });
}

/** Why the body's deadline aborted a request; its code counts as "maybe sent" (`networkPhase`). */
class BodyDeadlineError extends Error {
  readonly code = BODY_DEADLINE_CODE;
}

function fillPath(template: string, params: Record<string, string>): string {
  return template.replace(/:([A-Za-z]+)/g, (_segment, key: string) => {
    const value = params[key];
    if (value === undefined || value === '') throw new TypeError(`missing path parameter "${key}"`);
    return encodeURIComponent(value);
  });
}

function buildQuery(query: CallArgs['query']): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined) search.set(key, String(value));
  }
  // Every web client request carries it, so the platform's service worker cache is bypassed.
  search.set('ngsw-bypass', 'true');
  return search.toString();
}

function checkedDeviceId(deviceId: string): string {
  if (!DEVICE_ID_PATTERN.test(deviceId)) throw new TypeError('deviceId must be a platform device id');
  return deviceId;
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseEnvelope(text: string): Envelope | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(parsed)) return undefined;
  if (parsed.success === true) return { success: true, response: parsed.response };
  if (parsed.success !== false) return undefined;
  const error = isRecord(parsed.error) ? parsed.error : {};
  const code = typeof error.code === 'string' && /^\d+$/.test(error.code) ? Number(error.code) : error.code;
  // Some errors carry `message` instead of `details` (upstream-protocol.md).
  const details = typeof error.details === 'string' ? error.details : error.message;
  const envelope: Envelope = { success: false };
  if (typeof code === 'number' && Number.isInteger(code)) envelope.code = code;
  if (typeof details === 'string') envelope.details = safeDetails(details);
  return envelope;
}

function safeDetails(details: string): string {
  const flat = details.replace(/[\p{Cc}\s]+/gu, ' ').trim();
  return flat.length > MAX_DETAILS_CHARS ? `${flat.slice(0, MAX_DETAILS_CHARS)}…` : flat;
}

function readSession(endpoint: EndpointName, value: unknown): UpstreamSession {
  if (
    !isRecord(value) ||
    typeof value.id !== 'string' ||
    typeof value.token !== 'string' ||
    typeof value.accountId !== 'string' ||
    sessionIdFromToken(value.token) === undefined
  ) {
    throw badResponse(endpoint, 'session is missing id, token or accountId');
  }
  return {
    ...value,
    id: value.id,
    token: value.token,
    accountId: value.accountId,
    deviceId: typeof value.deviceId === 'string' ? value.deviceId : null,
    status: typeof value.status === 'number' ? value.status : null,
    ip: typeof value.ip === 'string' ? value.ip : null,
    metadata: value.metadata ?? null,
    checkToken: value.checkToken ?? null,
  };
}

function errorCode(err: unknown, depth = 0): string | undefined {
  if (typeof err !== 'object' || err === null || depth > 3) return undefined;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  // Happy-eyeballs connects report every address tried in an AggregateError.
  if (err instanceof AggregateError) {
    for (const inner of err.errors) {
      const found = errorCode(inner, depth + 1);
      if (found !== undefined) return found;
    }
  }
  return errorCode((err as { cause?: unknown }).cause, depth + 1);
}

function networkError(endpoint: CallName, def: EndpointDef, err: unknown, what?: string): PlatformError {
  const code = errorCode(err);
  const verdict = classify({ failure: { type: 'network', code }, write: def.write, nowMs: Date.now() });
  const where =
    networkPhase(code) === 'not_sent' ? 'before the request was sent' : 'after the request was sent';
  return new PlatformError({
    kind: verdict.kind,
    retry: verdict.retry,
    endpoint,
    networkCode: code,
    message: `${endpoint}: ${what ?? code ?? 'network failure'} ${where}`,
  });
}

function httpError(
  endpoint: CallName,
  def: EndpointDef,
  failure: Extract<Failure, { type: 'http' }>,
  details: string | undefined,
): PlatformError {
  const verdict = classify({ failure, write: def.write, nowMs: Date.now() });
  const code = failure.upstreamCode === undefined ? '' : ` code ${failure.upstreamCode}`;
  return new PlatformError({
    kind: verdict.kind,
    retry: verdict.retry,
    endpoint,
    status: failure.status,
    upstreamCode: failure.upstreamCode,
    retryAfterMs: verdict.retry === 'retryable' ? verdict.waitMs : undefined,
    message: `${endpoint}: HTTP ${failure.status}${code}${details === undefined ? '' : `: ${details}`}`,
  });
}

function badResponse(
  endpoint: CallName,
  reason: string,
  def: EndpointDef = endpoints[endpoint as EndpointName],
): PlatformError {
  const verdict = classify({ failure: { type: 'bad_response' }, write: def.write, nowMs: Date.now() });
  return new PlatformError({
    kind: verdict.kind,
    retry: verdict.retry,
    endpoint,
    message: `${endpoint}: ${reason}`,
  });
}
