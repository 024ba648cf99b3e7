import { ERROR_STATUS, ErrorBodySchema, errorBody, GatewayError } from '@cg/contract';
import { HEARTBEAT_STALE_MS } from '@cg/store';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { ApiContext } from './context';

/** A health check must answer: Redis commands wait while it is away, so each check gives up after this. */
const CHECK_TIMEOUT_MS = 1_000;

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * SIGTERM's first step (apps/api main.ts): `/readyz` answers 503 and every answer closes its
     * connection, while requests are still served, so that load balancers stop sending here before
     * the process stops taking connections (`close`).
     */
    drain(): void;
  }
}

/**
 * Where the process is on its way out: `draining` from `drain()` (still serving), `closing` from
 * Fastify's `preClose` (new requests refused, in-flight ones finishing).
 */
export class Lifecycle {
  draining = false;
  closing = false;

  /** Whether load balancers should stop sending requests here. */
  get leaving(): boolean {
    return this.draining || this.closing;
  }

  install(app: FastifyInstance): void {
    app.decorate('drain', () => {
      this.draining = true;
    });
    app.addHook('preClose', async () => {
      this.closing = true;
    });
  }
}

const HealthSchema = Type.Object(
  {
    status: Type.Union([Type.Literal('ok'), Type.Literal('degraded')]),
    redis: Type.Union([Type.Literal('ok'), Type.Literal('down')]),
  },
  { description: '`ok`, or `degraded` while Redis does not answer within a second' },
);

const checks = {
  redis: Type.Union([Type.Literal('ok'), Type.Literal('down')], {
    description: 'whether Redis answered a PING within a second',
  }),
  workers: Type.Union([Type.Integer(), Type.Null()], {
    description: `operations workers heard from in the last ${HEARTBEAT_STALE_MS / 1000} s (null: Redis did not say)`,
  }),
  draining: Type.Boolean({ description: 'whether this process is stopping (SIGTERM)' }),
};
const ReadySchema = Type.Object({ status: Type.Literal('ready'), ...checks });
const NotReadySchema = Type.Object(
  { ...ErrorBodySchema.properties, ...checks },
  {
    description:
      'not ready: the error shape (503 `SERVICE_UNAVAILABLE`, the message names the checks that failed) and the checks',
  },
);
const HEALTH_TAGS = ['health'];

/**
 * `/healthz` (liveness: the process answers; kept as it was, Redis included, 503 `degraded` while it
 * does not answer) and `/readyz` (readiness: this process can do its work now). Neither needs a key.
 */
export function registerHealth(app: FastifyInstance, context: ApiContext, lifecycle: Lifecycle): void {
  app.get(
    '/healthz',
    {
      schema: {
        operationId: 'healthz',
        summary: 'Liveness: the process answers (and whether Redis does)',
        tags: HEALTH_TAGS,
        response: { 200: HealthSchema, '4xx': ErrorBodySchema, '5xx': HealthSchema },
      },
    },
    async (_request, reply) => {
      const redis = await redisCheck(context);
      return reply
        .status(redis === 'ok' ? 200 : 503)
        .send({ status: redis === 'ok' ? 'ok' : 'degraded', redis });
    },
  );

  app.get(
    '/readyz',
    {
      schema: {
        operationId: 'readyz',
        summary: 'Readiness: Redis answers, an operations worker runs, and this process is not stopping',
        description:
          'For load balancers and orchestrators: 200 while this API process can serve; 503 while Redis does not answer within a second, ' +
          `no operations worker has reported in ${HEARTBEAT_STALE_MS / 1000} s (requests would only wait), or the process is stopping.`,
        tags: HEALTH_TAGS,
        response: { 200: ReadySchema, '4xx': ErrorBodySchema, '5xx': NotReadySchema },
      },
    },
    async (request, reply) => {
      const redis = await redisCheck(context);
      const workers = redis === 'ok' ? await workersCheck(context) : null;
      const draining = lifecycle.leaving;
      const failed = [
        ...(redis === 'ok' ? [] : ['Redis does not answer']),
        ...(workers === null && redis === 'ok' ? ['the worker heartbeats cannot be read'] : []),
        ...(workers === 0 ? [`no operations worker has reported in ${HEARTBEAT_STALE_MS / 1000} s`] : []),
        ...(draining ? ['this process is stopping'] : []),
      ];
      if (failed.length === 0) return reply.status(200).send({ status: 'ready', redis, workers, draining });
      const error = new GatewayError('SERVICE_UNAVAILABLE', `not ready: ${failed.join('; ')}`);
      return reply
        .status(ERROR_STATUS.SERVICE_UNAVAILABLE)
        .send({ ...errorBody(error, request.id), redis, workers, draining });
    },
  );
}

async function redisCheck({ redis }: ApiContext): Promise<'ok' | 'down'> {
  const answered = redis.ping().then(
    () => 'ok' as const,
    () => 'down' as const,
  );
  return (await withinCheckTimeout(answered)) ?? 'down';
}

async function workersCheck({ store }: ApiContext): Promise<number | null> {
  return (await withinCheckTimeout(store.workers.recent().catch(() => null))) ?? null;
}

function withinCheckTimeout<T>(check: Promise<T>): Promise<T | undefined> {
  const late = new Promise<undefined>((resolve) =>
    setTimeout(() => resolve(undefined), CHECK_TIMEOUT_MS).unref(),
  );
  return Promise.race([check, late]);
}
