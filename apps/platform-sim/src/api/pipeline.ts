import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SimCore } from '../core';
import { ErrorCode, rateLimited, SimError } from '../errors';
import type { Query } from '../params';
import type { AccountObservation, AccountTraffic } from '../traffic';
import { apiRoutes } from './routes';
import type { ApiContext, ApiRoute } from './types';

export const API_PREFIX = '/api/v1';

/** Headers every authenticated call must carry (values are not checked, like the platform's). */
export const REQUIRED_CLIENT_HEADERS = [
  'fansly-client-id',
  'fansly-client-ts',
  'fansly-client-check',
] as const;

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined || first === '' ? undefined : first;
}

function bodyField(body: unknown, name: string): unknown {
  return typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
}

/** Which creator a request belongs to, before any check: the session, or the login's username/token. */
function attribute(core: SimCore, route: ApiRoute, request: FastifyRequest, now: number): number {
  switch (route.auth) {
    case 'session': {
      const token = header(request, 'authorization');
      return token ? (core.sessions.lookup(token, now, core.config.sessionTtlMs)?.creator ?? -1) : -1;
    }
    case 'login': {
      const username = bodyField(request.body, 'username');
      return typeof username === 'string' ? core.world.directory.indexOf(username) : -1;
    }
    case 'twofa': {
      const token = bodyField(request.body, 'token');
      return typeof token === 'string' ? (core.sessions.twofaCreator(token) ?? -1) : -1;
    }
    case 'none':
      return -1;
  }
}

function resetConnection(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  reply.hijack();
  request.raw.socket.destroy();
  return reply;
}

/** Counts the answer once it went: its status, or a reset when the connection closed before it. */
function watchResponse(core: SimCore, reply: FastifyReply, observation: AccountObservation | null): void {
  const observations = core.observations;
  reply.raw.once('close', () => {
    const status = reply.raw.writableFinished ? String(reply.raw.statusCode) : 'reset';
    if (status === '429') observations.served429 += 1;
    if (status === 'reset') observations.resets += 1;
    observation?.response(status);
  });
}

/**
 * Observes an attributed request (in flight, duplicate writes, media-offer gaps) and applies the
 * account's own limits (429). Answers when the account's previous media-offer call arrived.
 */
function admit(
  core: SimCore,
  route: ApiRoute,
  request: FastifyRequest,
  reply: FastifyReply,
  at: { path: string; now: number },
  observation: AccountObservation,
  traffic: AccountTraffic,
): number | null {
  const { path, now } = at;
  let previousMediaOfferAt: number | null = null;
  observation.request(`${route.method} ${path}`, request.ip);
  traffic.inFlight += 1;
  observation.maxInFlight = Math.max(observation.maxInFlight, traffic.inFlight);
  reply.raw.once('close', () => {
    traffic.inFlight -= 1;
  });
  if (route.write) {
    const body = JSON.stringify(request.body ?? null);
    if (observation.write(route.method, path, body, now, core.config.duplicateWindowMs))
      core.observations.duplicates += 1;
  }
  if (route.mediaOffer) {
    observation.mediaOfferCall(now);
    previousMediaOfferAt = traffic.lastMediaOfferAt;
    traffic.lastMediaOfferAt = now;
  }
  if (traffic.inFlight > core.config.maxInFlightPerAccount) throw rateLimited(1);
  const wait = traffic.minute.tryAdd(now, core.config.maxRequestsPerMinutePerAccount);
  if (wait > 0) throw rateLimited(wait);
  return previousMediaOfferAt;
}

/**
 * The injected faults that match: their latency, then an error or 429 thrown, or a reset of the
 * connection before or after the handler. Answers the caller as authenticated after the wait.
 */
async function applyFaults(
  core: SimCore,
  route: ApiRoute,
  request: FastifyRequest,
  at: { path: string; now: number },
  creator: number,
  traffic: AccountTraffic | null,
): Promise<{ creator: number; reset: 'before' | 'after' | null }> {
  const { path, now } = at;
  const outcome = core.faults.match(creator >= 0 ? creator : null, route.method, path, now);
  core.observations.faultsApplied += outcome.applied;
  let caller = creator;
  if (outcome.latencyMs > 0) {
    await sleep(outcome.latencyMs);
    // While it waited the world may have been reset or the session expired: a request is
    // authenticated when it is handled, as the platform would.
    if (route.auth === 'session' && attribute(core, route, request, Date.now()) !== creator) caller = -1;
  }
  const effect = outcome.terminal?.effect;
  // An injected 429 or error is not a request the platform accepted: it leaves the minute's count.
  if (effect?.kind === 'error' || effect?.kind === 'rateLimit') traffic?.minute.untake(now);
  if (effect?.kind === 'error') {
    throw new SimError(
      effect.status,
      effect.status >= 500 ? ErrorCode.serverFailure : effect.status,
      'Injected fault.',
    );
  }
  if (effect?.kind === 'rateLimit') throw rateLimited(effect.retryAfterSeconds);
  if (effect?.kind === 'resetBeforeApply') return { creator: caller, reset: 'before' };
  return { creator: caller, reset: effect?.kind === 'resetAfterApply' ? 'after' : null };
}

/** A session route needs the token, the client headers and a live session (400, 400, 401). */
function authenticate(route: ApiRoute, request: FastifyRequest, creator: number): void {
  if (route.auth !== 'session') return;
  if (!header(request, 'authorization')) {
    throw new SimError(400, ErrorCode.missingSession, 'missing parameter "sessionToken"');
  }
  for (const name of REQUIRED_CLIENT_HEADERS) {
    if (!header(request, name)) throw new SimError(400, ErrorCode.missingHeader, `missing header "${name}"`);
  }
  if (creator < 0) throw new SimError(401, ErrorCode.invalidSession, 'invalid session');
}

/**
 * One request through the platform: attribute → observe → own limits (429) → injected faults →
 * authentication → handler. Errors become the platform envelope with their status.
 */
async function handle(
  core: SimCore,
  route: ApiRoute,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<unknown> {
  const now = Date.now();
  const queryAt = request.url.indexOf('?');
  const at = { path: queryAt < 0 ? request.url : request.url.slice(0, queryAt), now };
  const attributed = attribute(core, route, request, now);
  core.observations.requests += 1;
  let resetAfter = false;
  const observation = attributed >= 0 ? core.observationOf(attributed) : null;
  const traffic = attributed >= 0 ? core.trafficOf(attributed) : null;
  watchResponse(core, reply, observation);

  try {
    let previousMediaOfferAt: number | null = null;
    if (observation && traffic)
      previousMediaOfferAt = admit(core, route, request, reply, at, observation, traffic);
    else core.observations.unattributedRequests += 1;
    const faulted = await applyFaults(core, route, request, at, attributed, traffic);
    if (faulted.reset === 'before') return resetConnection(request, reply);
    resetAfter = faulted.reset === 'after';
    authenticate(route, request, faulted.creator);
    const ctx: ApiContext = {
      core,
      creator: faulted.creator,
      query: request.query as Query,
      params: request.params as Record<string, string>,
      body: request.body,
      ip: request.ip,
      now,
      previousMediaOfferAt,
    };
    const response = await route.handler(ctx);
    if (resetAfter) return resetConnection(request, reply);
    return { success: true, response };
  } catch (error) {
    if (!(error instanceof SimError)) throw error;
    if (resetAfter) return resetConnection(request, reply);
    reply.code(error.status);
    if (error.retryAfterSeconds !== null) reply.header('retry-after', String(error.retryAfterSeconds));
    return { success: false, error: { code: error.code, details: error.details } };
  }
}

export function registerApi(app: FastifyInstance, core: SimCore): void {
  for (const route of apiRoutes) {
    app.route({
      method: route.method,
      url: `${API_PREFIX}${route.path}`,
      handler: (request, reply) => handle(core, route, request, reply),
    });
  }
}
