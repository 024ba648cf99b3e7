import type { FastifyInstance } from 'fastify';
import { type ActivityRequest, applyActivity, parseActivity } from './activity';
import type { SimCore } from './core';
import { ControlError } from './errors';
import { describeFault } from './faults';
import { fixtures } from './fixtures';
import { RUNTIME_OPTION_KEYS, type RuntimeConfig, validateRuntimeConfig } from './options';
import { type Query, queryCsv, queryString } from './params';
import type { StreamRequest } from './streams';
import { uploadView } from './uploads';
import { Posts } from './world/posts';

export const CONTROL_PREFIX = '/_sim';

function creatorOf(core: SimCore, account: string): number {
  const scope = core.resolveCreator(account);
  if (!scope) throw new ControlError(404, `unknown sandbox account "${account}"`);
  return scope.creator;
}

const MAX_STREAM_PER_SECOND = 1000;
const MAX_STREAM_SECONDS = 3600;

function positiveNumber(body: Record<string, unknown>, name: string, max: number): number {
  const value = body[name];
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > max)
    throw new ControlError(400, `"${name}" must be a number > 0 and <= ${max}`);
  return value;
}

/** Activities one POST /_sim/activity/batch applies at most. */
const MAX_BATCH = 5000;

/** `{activities: [<a POST /_sim/activity body>, …]}` of POST /_sim/activity/batch, each checked. */
function parseBatch(core: SimCore, body: unknown): ActivityRequest[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new ControlError(400, 'body must be a JSON object');
  const { activities, ...others } = body as Record<string, unknown>;
  const unknown = Object.keys(others)[0];
  if (unknown !== undefined) throw new ControlError(400, `unknown field "${unknown}" (allowed: activities)`);
  if (!Array.isArray(activities) || activities.length === 0 || activities.length > MAX_BATCH)
    throw new ControlError(400, `"activities" must be a list of 1 to ${MAX_BATCH} activities`);
  return activities.map((activity, n) => atIndex(n, () => parseActivity(core, activity)));
}

/** `apply`, its control error naming the batch's item `n`. */
function atIndex<T>(n: number, apply: () => T): T {
  try {
    return apply();
  } catch (error) {
    if (error instanceof ControlError)
      throw new ControlError(error.status, `activities[${n}]: ${error.message}`);
    throw error;
  }
}

/** `{perSecond, seconds, creators?}` of POST /_sim/activity/stream. */
function parseStream(core: SimCore, body: unknown): StreamRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new ControlError(400, 'body must be a JSON object');
  const fields = body as Record<string, unknown>;
  const unknown = Object.keys(fields).filter(
    (field) => !['perSecond', 'seconds', 'creators'].includes(field),
  );
  if (unknown.length > 0)
    throw new ControlError(400, `unknown field "${unknown[0]}" (allowed: perSecond, seconds, creators)`);
  const creators = fields.creators;
  if (creators !== undefined && (!Array.isArray(creators) || creators.length === 0 || creators.length > 100))
    throw new ControlError(400, '"creators" must be a list of 1 to 100 sandbox usernames');
  return {
    perSecond: positiveNumber(fields, 'perSecond', MAX_STREAM_PER_SECOND),
    seconds: positiveNumber(fields, 'seconds', MAX_STREAM_SECONDS),
    creators: creators === undefined ? null : creators.map((account) => creatorOf(core, String(account))),
  };
}

/** The control surface (never under /api): fixtures, observations, faults, config, activity, reset. */
export function registerControl(app: FastifyInstance, core: SimCore): void {
  registerReads(app, core, Date.now());
  registerFaults(app, core);
  registerConfig(app, core);
  registerActivity(app, core);
  app.post(`${CONTROL_PREFIX}/reset`, async () => {
    core.reset();
    return { ok: true };
  });
}

/** What the sandbox holds and saw: health, fixtures, observations, broadcasts, uploads, posts. */
function registerReads(app: FastifyInstance, core: SimCore, startedAt: number): void {
  app.get(`${CONTROL_PREFIX}/health`, async () => ({
    status: 'ok',
    creators: core.world.directory.count,
    uptimeMs: Date.now() - startedAt,
  }));

  app.get(`${CONTROL_PREFIX}/fixtures`, async (request) => {
    const accounts = queryCsv(request.query as Query, 'accounts');
    if (accounts.length > 100) throw new ControlError(400, 'at most 100 accounts per fixtures request');
    return fixtures(core, accounts.length > 0 ? accounts.map((account) => creatorOf(core, account)) : null);
  });

  app.get(`${CONTROL_PREFIX}/observations`, async (request) => {
    const account = queryString(request.query as Query, 'account');
    const accountId = account === undefined ? null : core.world.identity(creatorOf(core, account)).accountId;
    return core.observations.toJSON(accountId);
  });

  // What decides a broadcast's audience, fan by fan, and whom each sent broadcast reached.
  app.get(`${CONTROL_PREFIX}/broadcasts`, async (request) => {
    const account = queryString(request.query as Query, 'account');
    if (account === undefined) throw new ControlError(400, 'account is required');
    const broadcasts = core.world.broadcasts(creatorOf(core, account));
    broadcasts.deliverDue(Date.now());
    return { fans: broadcasts.everyFan(), sent: broadcasts.sentLog() };
  });

  // Every upload of one account: its status and the media it made (at most one each).
  app.get(`${CONTROL_PREFIX}/uploads`, async (request) => {
    const { account } = request.query as { account?: string };
    const creator = creatorOf(core, account ?? '');
    return {
      uploads: core.uploads.of(creator).map(uploadView),
      media: core.world.creator(creator).uploaded.map((info) => info.id),
    };
  });

  // Every post of a creator as the sandbox holds it (deleted and cancelled ones too), with its state.
  app.get(`${CONTROL_PREFIX}/posts`, async (request) => {
    const account = queryString(request.query as Query, 'account');
    if (account === undefined) throw new ControlError(400, 'account is required');
    const creator = creatorOf(core, account);
    const posts = new Posts(core.world.creator(creator), core.world.state(creator)).publishDue(Date.now());
    return {
      posts: [...core.world.state(creator).posts.values()].map((post) => ({
        ...post,
        status: posts.status(post),
      })),
    };
  });

  app.post(`${CONTROL_PREFIX}/observations/reset`, async () => {
    core.resetObservations();
    return { ok: true };
  });
}

/** Injected faults: list, add (a session expiry and ws_drop act at once), clear. */
function registerFaults(app: FastifyInstance, core: SimCore): void {
  app.get(`${CONTROL_PREFIX}/faults`, async () => ({ faults: core.faults.list().map(describeFault) }));

  app.post(`${CONTROL_PREFIX}/faults`, async (request) => {
    const fault = core.faults.parse(request.body, (account) => core.resolveCreator(account));
    if (fault.effect.kind === 'sessionExpiry') {
      // Acts at once: every current token of the account (or of all accounts) stops working.
      const revokedSessions = core.sessions.expire(fault.scope ? fault.scope.creator : null);
      return { id: fault.id, revokedSessions };
    }
    core.faults.add(fault);
    // ws_drop acts at once on the connections open now, then refuses new ones while in effect.
    if (fault.effect.kind === 'ws_drop')
      return { id: fault.id, droppedConnections: core.realtime.drop(fault.scope) };
    return { id: fault.id };
  });

  app.delete(`${CONTROL_PREFIX}/faults`, async () => {
    const cleared = core.faults.size;
    core.faults.clear();
    return { cleared };
  });

  app.delete(`${CONTROL_PREFIX}/faults/:id`, async (request) => {
    const { id } = request.params as { id: string };
    if (!core.faults.remove(id)) throw new ControlError(404, `no fault "${id}"`);
    return { cleared: 1 };
  });
}

/** The runtime options: read, and changed by a body naming only runtime keys. */
function registerConfig(app: FastifyInstance, core: SimCore): void {
  app.get(`${CONTROL_PREFIX}/config`, async () => core.config);

  app.post(`${CONTROL_PREFIX}/config`, async (request) => {
    core.config = changedConfig(core.config, request.body);
    core.streams.sync();
    return core.config;
  });
}

/** The config with a body's changes, checked whole: a key not changeable at run time is a 400. */
function changedConfig(config: RuntimeConfig, body: unknown): RuntimeConfig {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ControlError(400, 'body must be a JSON object');
  }
  const next: Record<string, unknown> = { ...config };
  for (const [key, value] of Object.entries(body)) {
    if (!(RUNTIME_OPTION_KEYS as readonly string[]).includes(key)) {
      throw new ControlError(
        400,
        `"${key}" cannot be changed at run time (allowed: ${RUNTIME_OPTION_KEYS.join(', ')})`,
      );
    }
    next[key] = value;
  }
  const problems = validateRuntimeConfig(next as unknown as RuntimeConfig);
  if (problems.length > 0) throw new ControlError(400, problems.join('; '));
  return next as unknown as RuntimeConfig;
}

/** Activity of fans: one, a batch, or streams over time. */
function registerActivity(app: FastifyInstance, core: SimCore): void {
  // A fan does something on a creator's account: the world changes and the realtime event is pushed.
  app.post(`${CONTROL_PREFIX}/activity`, async (request, reply) => {
    const body = applyActivity(core, parseActivity(core, request.body));
    return reply.code(201).send(body);
  });

  // Many at once, in order (a test's burst): all are checked before any is applied.
  app.post(`${CONTROL_PREFIX}/activity/batch`, async (request, reply) => {
    const requests = parseBatch(core, request.body);
    const results = requests.map((activity, n) => atIndex(n, () => applyActivity(core, activity)));
    return reply.code(201).send({ results });
  });

  app.post(`${CONTROL_PREFIX}/activity/stream`, async (request, reply) => {
    const stream = core.streams.start(parseStream(core, request.body));
    return reply.code(202).send(core.streams.describe(stream));
  });

  app.delete(`${CONTROL_PREFIX}/activity/stream`, async () => ({ stopped: core.streams.stopAll() }));
}
