import { type CallName, PlatformError } from './errors';

/**
 * What a request to the platform came to, in a word, for metrics: `ok`, `rate_limited` (429),
 * `http_4xx`, `http_5xx`, `refused` (another status, or a 2xx whose envelope said no), `timeout`
 * (connecting, the headers or the body took too long), `network` (any other transport failure),
 * `proxy` (the egress proxy failed before forwarding), `bad_response` (an answer the client cannot
 * read) or `error` (a failure before anything was sent, a bug).
 */
export type CallOutcome =
  | 'ok'
  | 'rate_limited'
  | 'http_4xx'
  | 'http_5xx'
  | 'refused'
  | 'timeout'
  | 'network'
  | 'proxy'
  | 'bad_response'
  | 'error';

/** One request the client sent (`PlatformClientOptions.onCall`): never its path, parameters or body. */
export interface CallReport {
  endpoint: CallName;
  outcome: CallOutcome;
  durationMs: number;
}

const TIMEOUT_CODES: ReadonlySet<string> = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  // client.ts `BODY_DEADLINE_CODE` (spelled here: client.ts imports this module).
  'UND_ERR_BODY_DEADLINE',
  'ETIMEDOUT',
]);

/** The outcome of an HTTP status the platform (or its CDN, its storage) answered with. */
export function statusOutcome(status: number): CallOutcome {
  if (status >= 200 && status < 300) return 'ok';
  if (status === 429) return 'rate_limited';
  if (status >= 400 && status < 500) return 'http_4xx';
  if (status >= 500) return 'http_5xx';
  return 'refused';
}

/** The outcome of a request that failed with `error`. */
export function failureOutcome(error: unknown): CallOutcome {
  if (!(error instanceof PlatformError)) return 'error';
  if (error.kind === 'proxy_failed') return 'proxy';
  // A 2xx whose envelope said `success: false`: the platform refused it.
  if (error.status !== undefined) return error.status < 300 ? 'refused' : statusOutcome(error.status);
  if (error.networkCode !== undefined) return TIMEOUT_CODES.has(error.networkCode) ? 'timeout' : 'network';
  return error.kind === 'bad_response' ? 'bad_response' : 'network';
}

/**
 * Runs one request and tells `onCall` what it came to; `statusOf` reads the outcome of a request
 * that resolves with an HTTP status of its own (file transfers). A throwing `onCall` is ignored: the
 * metrics must never fail a call.
 */
export async function observed<T>(
  endpoint: CallName,
  onCall: (report: CallReport) => void,
  send: () => Promise<T>,
  statusOf?: (result: T) => number,
): Promise<T> {
  const started = performance.now();
  const report = (outcome: CallOutcome) => {
    try {
      onCall({ endpoint, outcome, durationMs: performance.now() - started });
    } catch {
      // metrics only
    }
  };
  try {
    const result = await send();
    report(statusOf === undefined ? 'ok' : statusOutcome(statusOf(result)));
    return result;
  } catch (error) {
    report(failureOutcome(error));
    throw error;
  }
}
