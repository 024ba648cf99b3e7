import { setTimeout as sleep } from 'node:timers/promises';
import { errorBody, GatewayError } from '@cg/contract';
import { type ApiKeyInfo, type RateLimitVerdict, sha256 } from '@cg/store';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ApiContext } from './context';
import { sendError } from './errors';
import { TtlCache } from './ttl-cache';

/** The first wait of a failure past the threshold; it doubles with each further failure. */
const FIRST_FAILURE_DELAY_MS = 250;

/**
 * Every route below `/api/{platform}` needs `x-api-key`. The key's tenant becomes `request.tenantId`;
 * a missing or unknown key is 401 before anything else is looked at, and a known key is then held to
 * its requests a minute (`X-RateLimit-*` on the answer; 429 past it).
 */
export function installApiKeyAuth(app: FastifyInstance, context: ApiContext): void {
  const { store, config } = context;
  const resolve = cachedResolver((key) => store.apiKeys.resolve(key), config.API_KEY_CACHE_MS);
  const refuse = failedAuthentication(context);
  app.decorateRequest('tenantId', '');
  app.decorateRequest('apiKey', null as unknown as ApiKeyInfo);
  app.addHook('onRequest', async (request, reply) => {
    const key = request.headers['x-api-key'];
    const info = typeof key === 'string' && key.length > 0 && key.length < 200 ? await resolve(key) : null;
    if (!info) return refuse(request, reply, key);
    request.tenantId = info.tenantId;
    request.apiKey = info;
    const rpm = info.rpm ?? config.API_KEY_RPM_DEFAULT;
    if (rpm === 0) return undefined;
    const verdict = await store.rateLimits.take(info.keyId, rpm);
    setRateLimitHeaders(reply, verdict);
    if (verdict.allowed) return undefined;
    const wait = secondsUntilReset(verdict);
    return sendError(
      reply,
      request,
      new GatewayError(
        'RATE_LIMITED',
        `this API key's limit of ${rpm} requests a minute is used up: try again in ${wait} s`,
        wait,
      ),
    );
  });
}

/**
 * `X-RateLimit-Limit` (requests a minute), `X-RateLimit-Remaining` (after this one) and
 * `X-RateLimit-Reset`: seconds until the clock minute ends and the key's count starts again.
 */
function setRateLimitHeaders(reply: FastifyReply, verdict: RateLimitVerdict): void {
  reply.header('x-ratelimit-limit', String(verdict.limit));
  reply.header('x-ratelimit-remaining', String(verdict.remaining));
  reply.header('x-ratelimit-reset', String(secondsUntilReset(verdict)));
}

/** Whole seconds, rounded up so that a client waiting this long finds room; at least 1. */
const secondsUntilReset = (verdict: RateLimitVerdict) => Math.max(1, Math.ceil(verdict.resetMs / 1000));

/**
 * A failed authentication: counted per source address across the API processes, logged (never the
 * key: only the first characters of one shaped like a key), and answered 401 — after a wait once the
 * address has failed `AUTH_FAILURE_THRESHOLD` times in `AUTH_FAILURE_WINDOW_MS`, doubling from 250 ms
 * per further failure up to `AUTH_FAILURE_MAX_DELAY_MS`.
 *
 * Slowed rather than refused with 429: the answer stays the true one (a client with a mistyped key
 * sees 401, not a limit it would retry), an address guessing keys gets one answer per wait on each
 * connection, and valid keys from the same address (a shared NAT) are never counted nor slowed.
 * Past the threshold the log keeps one line per threshold's worth of failures, so that a flood of
 * bad keys does not flood the log.
 */
function failedAuthentication({ store, config }: ApiContext) {
  const threshold = config.AUTH_FAILURE_THRESHOLD;
  return async (request: FastifyRequest, reply: FastifyReply, key: string | string[] | undefined) => {
    const failures = await store.rateLimits.failedAuth(request.ip, config.AUTH_FAILURE_WINDOW_MS);
    if (failures <= threshold || failures % threshold === 0) {
      request.log.warn(
        { address: request.ip, keyPrefix: keyPrefix(key), failures, path: request.routeOptions.url },
        key === undefined ? 'authentication failed: no API key' : 'authentication failed: unknown API key',
      );
    }
    const delay = failureDelay(failures, threshold, config.AUTH_FAILURE_MAX_DELAY_MS);
    if (delay > 0) await sleep(delay);
    const message = key === undefined ? 'the x-api-key header is missing' : 'the API key is not valid';
    return reply.status(401).send(errorBody(new GatewayError('UNAUTHORIZED', message), request.id));
  };
}

/** The wait before the 401 of an address's `failures`-th failure in the window. */
export function failureDelay(failures: number, threshold: number, maxMs: number): number {
  if (failures <= threshold) return 0;
  return Math.min(maxMs, FIRST_FAILURE_DELAY_MS * 2 ** Math.min(failures - threshold - 1, 20));
}

/**
 * What the log may say of a refused key: the first 8 characters of one as long as the gateway's keys
 * (`cgk_` and 4 random characters: nothing to guess from), else only its length, since a string
 * that is not shaped like a key may be a password pasted into the wrong header.
 */
export function keyPrefix(key: string | string[] | undefined): string | null {
  if (typeof key !== 'string') return null;
  return key.length >= 32 ? `${key.slice(0, 8)}…` : `(${key.length} characters)`;
}

/**
 * Valid keys are remembered for `ttlMs`; unknown keys are not, so a new key works at once and a wrong
 * one costs a lookup each time. The cache is keyed by the key's hash, never the key.
 */
function cachedResolver(
  lookup: (key: string) => Promise<ApiKeyInfo | null>,
  ttlMs: number,
): (key: string) => Promise<ApiKeyInfo | null> {
  const cache = new TtlCache<ApiKeyInfo>(ttlMs);
  return async (key) => {
    const id = sha256(key);
    const hit = cache.get(id);
    if (hit) return hit;
    const info = await lookup(key);
    if (info) cache.set(id, info);
    return info;
  };
}
