import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SimCore } from '../core';
import { ErrorCode, rateLimited, SimError } from '../errors';
import type { Query } from '../params';
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
  const path = queryAt < 0 ? request.url : request.url.slice(0, queryAt);
  let creator = attribute(core, route, request, now);
  const observations = core.observations;
  observations.requests += 1;
  let resetAfter = false;
  let previousMediaOfferAt: number | null = null;

  const observation = creator >= 0 ? core.observationOf(creator) : null;
  const traffic = creator >= 0 ? core.trafficOf(creator) : null;
  reply.raw.once('close', () => {
    const status = reply.raw.writableFinished ? String(reply.raw.statusCode) : 'reset';
    if (status === '429') observations.served429 += 1;
    if (status === 'reset') observations.resets += 1;
    observation?.response(status);
  });

  try {
    if (observation && traffic) {
      observation.request(`${route.method} ${path}`, request.ip);
      traffic.inFlight += 1;
      observation.maxInFlight = Math.max(observation.maxInFlight, traffic.inFlight);
      reply.raw.once('close', () => {
        traffic.inFlight -= 1;
      });
      if (route.write) {
        const body = JSON.stringify(request.body ?? null);
        if (observation.write(route.method, path, body, now, core.config.duplicateWindowMs))
          observations.duplicates += 1;
      }
      if (route.mediaOffer) {
        observation.mediaOfferCall(now);
        previousMediaOfferAt = traffic.lastMediaOfferAt;
        traffic.lastMediaOfferAt = now;
      }
      if (traffic.inFlight > core.config.maxInFlightPerAccount) throw rateLimited(1);
      const wait = traffic.minute.tryAdd(now, core.config.maxRequestsPerMinutePerAccount);
      if (wait > 0) throw rateLimited(wait);
    } else {
      observations.unattributedRequests += 1;
    }

    const outcome = core.faults.match(creator >= 0 ? creator : null, route.method, path, now);
    observations.faultsApplied += outcome.applied;
    if (outcome.latencyMs > 0) {
      await sleep(outcome.latencyMs);
      // While it waited the world may have been reset or the session expired: a request is
      // authenticated when it is handled, as the platform would.
      if (route.auth === 'session' && attribute(core, route, request, Date.now()) !== creator) creator = -1;
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
    if (effect?.kind === 'resetBeforeApply') return resetConnection(request, reply);
    resetAfter = effect?.kind === 'resetAfterApply';

    if (route.auth === 'session') {
      if (!header(request, 'authorization')) {
        throw new SimError(400, ErrorCode.missingSession, 'missing parameter "sessionToken"');
      }
      for (const name of REQUIRED_CLIENT_HEADERS) {
        if (!header(request, name))
          throw new SimError(400, ErrorCode.missingHeader, `missing header "${name}"`);
      }
      if (creator < 0) throw new SimError(401, ErrorCode.invalidSession, 'invalid session');
    }

    const ctx: ApiContext = {
      core,
      creator,
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
