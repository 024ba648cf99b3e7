import type { EndpointName } from './endpoints';

/** What a failure names: an endpoint, or a file transfer (a part upload, a CDN download). */
export type CallName = EndpointName | 'uploadPart' | 'cdnFile';

export type PlatformErrorKind =
  | 'invalid_credentials'
  | 'invalid_twofa_code'
  | 'twofa_token_expired'
  | 'twofa_required'
  | 'session_missing'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'bad_request'
  | 'rate_limited'
  | 'unavailable'
  | 'network_not_sent'
  /** The account's egress proxy failed before forwarding the request (`PlatformClient.through`). */
  | 'proxy_failed'
  | 'outcome_unknown'
  | 'bad_response';

/**
 * What the caller (the worker) may do next:
 * - `retryable`: the platform did not act on the request; send it again, after `waitMs` when the platform
 *   said how long (Retry-After), otherwise after the caller's own backoff.
 * - `permanent`: sending the same request again gives the same answer.
 * - `outcome_unknown`: a write may or may not have been applied; never repeat it blindly.
 */
export type Retry = 'retryable' | 'permanent' | 'outcome_unknown';

/** Where a transport failure happened, which decides whether the platform could have acted on it. */
export type NetworkPhase = 'not_sent' | 'maybe_sent';

export type Failure =
  /** The platform answered with an HTTP status (2xx only when its envelope said `success: false`). */
  | {
      readonly type: 'http';
      readonly status: number;
      readonly upstreamCode?: number | undefined;
      /** The raw `Retry-After` header: delay-seconds or an HTTP date. */
      readonly retryAfter?: string | undefined;
    }
  /** No HTTP answer: `code` is the undici or Node error code (`err.code`). */
  | { readonly type: 'network'; readonly code: string | undefined }
  /** A 2xx answer whose body is not the expected envelope or payload. */
  | { readonly type: 'bad_response' };

export interface ClassifyInput {
  readonly failure: Failure;
  /** `EndpointDef.write` of the endpoint called. */
  readonly write: boolean;
  /** Clock for an HTTP-date Retry-After; passed in so `classify` stays pure. */
  readonly nowMs: number;
}

export type Classification =
  | { readonly kind: PlatformErrorKind; readonly retry: 'retryable'; readonly waitMs?: number }
  | { readonly kind: PlatformErrorKind; readonly retry: 'permanent' | 'outcome_unknown' };

// Codes that can only come from before a byte of the request went out: DNS, the TCP connect and a request
// queued on a client already closed. The platform cannot have seen the request, so even a write is safe
// to send again.
const NOT_SENT_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED', // nothing listens on the port
  'ENOTFOUND', // DNS: no such host
  'EAI_AGAIN', // DNS: resolver temporarily failing
  'UND_ERR_CONNECT_TIMEOUT', // undici's connect timer: the socket never connected
  'EHOSTUNREACH', // no route while connecting
  'ENETUNREACH', // no network while connecting
  'EADDRNOTAVAIL', // no local port left to connect from
  'UND_ERR_CLOSED', // dispatched on a pool already closed: never written
]);
// Everything else counts as maybe sent, deliberately: UND_ERR_SOCKET and ECONNRESET (the peer closed or
// reset the socket, usually after our request was written; a reset during the TLS handshake cannot be told
// apart by its code), EPIPE (we were writing), UND_ERR_HEADERS_TIMEOUT (the request went out and no answer
// came), UND_ERR_BODY_TIMEOUT and response parse errors (an answer had started, so the platform acted),
// ETIMEDOUT (a kernel timeout on an established socket; undici's own connect timer fires long before the
// kernel's) and any code not listed. Calling an unknown failure "not sent" could repeat a write, calling
// it "maybe sent" costs at most a retry of a read.

export function networkPhase(code: string | undefined): NetworkPhase {
  return code !== undefined && NOT_SENT_CODES.has(code) ? 'not_sent' : 'maybe_sent';
}

// Error codes inside the envelope that refine a 400 (docs/upstream-decisions.md, "Errors").
const CODE_KINDS: ReadonlyMap<number, PlatformErrorKind> = new Map<number, PlatformErrorKind>([
  [1, 'invalid_credentials'],
  [2, 'invalid_twofa_code'],
  [3, 'twofa_token_expired'],
  [4, 'twofa_required'],
  [10, 'bad_request'],
  // A missing fansly-* header is our bug; sending the same request again cannot fix it.
  [98, 'bad_request'],
  // No session token at all: the caller decides whether to log in again.
  [99, 'session_missing'],
]);

/**
 * The longest wait a Retry-After may ask for. The account's calls all wait for it, so a platform's
 * slip (or a date years ahead) would stop the account for good; after an hour its calls start again
 * at its pace, and a platform that still means it answers 429 again.
 */
export const MAX_RETRY_AFTER_MS = 3_600_000;

/**
 * Retry-After as milliseconds from `nowMs`, at most `MAX_RETRY_AFTER_MS`: delay-seconds or an HTTP
 * date (RFC 9110 §10.2.3). A date in the past gives 0; anything unreadable gives undefined, leaving
 * the wait to the caller.
 */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  const waitMs = retryAfterMs(value, nowMs);
  return waitMs === undefined ? undefined : Math.min(waitMs, MAX_RETRY_AFTER_MS);
}

function retryAfterMs(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // Date.parse also reads bare numbers and ISO strings; only accept what looks like an IMF-fixdate or
  // its obsolete forms, all of which name a weekday.
  if (!/^[A-Za-z]{3}/.test(trimmed)) return undefined;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}

function retryable(kind: PlatformErrorKind, waitMs: number | undefined): Classification {
  return waitMs === undefined ? { kind, retry: 'retryable' } : { kind, retry: 'retryable', waitMs };
}

/**
 * The one place that decides what an upstream failure means and whether it may be repeated. The worker
 * owns retries and pacing; this only tells it which ones are safe.
 */
export function classify(input: ClassifyInput): Classification {
  const { failure, write } = input;

  if (failure.type === 'network') {
    if (networkPhase(failure.code) === 'not_sent') return { kind: 'network_not_sent', retry: 'retryable' };
    // The request may have reached the platform: a read can simply be asked again, a write may have been
    // applied already.
    return write
      ? { kind: 'outcome_unknown', retry: 'outcome_unknown' }
      : retryable('unavailable', undefined);
  }

  if (failure.type === 'bad_response') {
    // A 2xx means the platform accepted the request, so a write most likely took effect even though we
    // cannot read the answer. For a read, the same answer would come back: the protocol map is wrong.
    return write
      ? { kind: 'bad_response', retry: 'outcome_unknown' }
      : { kind: 'bad_response', retry: 'permanent' };
  }

  const { status, upstreamCode } = failure;
  const waitMs = parseRetryAfter(failure.retryAfter, input.nowMs);

  // Throttling: the platform refused before doing anything. Public clients treat 418 like 429.
  if (status === 429 || status === 418) return retryable('rate_limited', waitMs);
  // 503: the platform said it is unavailable and did not process the request. 408: the server gave up
  // waiting for our request, so it never ran it.
  if (status === 503 || status === 408) return retryable('unavailable', waitMs);
  if (status >= 500) {
    // 500, 502, 504 and the rest say nothing about whether the handler ran (502: the edge may have lost the
    // origin's answer after it had the request; 504: the edge stopped waiting for an origin that had it),
    // so a write may have been applied.
    return write ? { kind: 'outcome_unknown', retry: 'outcome_unknown' } : retryable('unavailable', waitMs);
  }
  if (status === 401) return { kind: 'unauthorized', retry: 'permanent' };
  if (status === 403) return { kind: 'forbidden', retry: 'permanent' };
  // 410: gone, which is not found to the caller.
  if (status === 404 || status === 410) return { kind: 'not_found', retry: 'permanent' };
  if (status === 409) return { kind: 'conflict', retry: 'permanent' };
  if (status >= 400) {
    const kind =
      (status === 400 && upstreamCode !== undefined && CODE_KINDS.get(upstreamCode)) || 'bad_request';
    return { kind, retry: 'permanent' };
  }
  // A 2xx envelope with success false (nothing was done, the code says why), or a 1xx/3xx nobody expects.
  const kind = (upstreamCode !== undefined && CODE_KINDS.get(upstreamCode)) || 'bad_response';
  return { kind, retry: 'permanent' };
}

export interface PlatformErrorInit {
  readonly kind: PlatformErrorKind;
  readonly retry: Retry;
  readonly endpoint: CallName;
  readonly message: string;
  readonly status?: number | undefined;
  readonly upstreamCode?: number | undefined;
  readonly retryAfterMs?: number | undefined;
  readonly networkCode?: string | undefined;
}

/**
 * The only error the client throws for upstream trouble. Its message is safe to log and to show: it holds
 * at most the platform's short `details` text, never a token, password, code or raw body.
 */
export class PlatformError extends Error {
  override readonly name = 'PlatformError';
  readonly kind: PlatformErrorKind;
  readonly retry: Retry;
  readonly endpoint: CallName;
  // `declare`: with ES2022 class fields a plain optional field would exist as undefined on every
  // instance; absent means absent, which keeps `'status' in err` and serialised errors honest.
  declare readonly status?: number;
  declare readonly upstreamCode?: number;
  /** Set only when `retry` is 'retryable' and the platform said how long to wait. */
  declare readonly retryAfterMs?: number;
  /** The undici or Node error code of a transport failure. */
  declare readonly networkCode?: string;

  constructor(init: PlatformErrorInit) {
    super(init.message);
    this.kind = init.kind;
    this.retry = init.retry;
    this.endpoint = init.endpoint;
    if (init.status !== undefined) this.status = init.status;
    if (init.upstreamCode !== undefined) this.upstreamCode = init.upstreamCode;
    if (init.retryAfterMs !== undefined) this.retryAfterMs = init.retryAfterMs;
    if (init.networkCode !== undefined) this.networkCode = init.networkCode;
  }
}
