import type { GatewayConfig } from '@cg/config';
import { GatewayError } from '@cg/contract';
import { type Events, WEBHOOKS_QUEUE } from '@cg/events';
import { ApiMetrics, scrapeAllowed } from '@cg/metrics';
import { QueueStats } from '@cg/queue';
import type { Redis } from '@cg/store';
import type { FastifyInstance } from 'fastify';
import { sendError } from './errors';

/** A scrape gives up on Redis after this long and answers without the queue and lane numbers. */
const SCRAPE_REDIS_TIMEOUT_MS = 1_000;

/** The API's metrics: what it measures, what it reads when scraped, and who may scrape. */
export interface ApiMetricsSetup {
  metrics: ApiMetrics;
  stats: QueueStats;
  /** `METRICS_TOKEN`: set, a scrape must send it as a bearer token. */
  token: string | undefined;
}

/** The API's metrics, or none when `METRICS_ENABLED` is false. */
export function createApiMetrics(
  config: Pick<GatewayConfig, 'METRICS_ENABLED' | 'METRICS_TOKEN' | 'REDIS_PREFIX'>,
  redis: Redis,
  events: Events,
): ApiMetricsSetup | undefined {
  if (!config.METRICS_ENABLED) return undefined;
  const metrics = new ApiMetrics();
  // The queues of every process are in the one Redis: each API reports them all (same numbers from
  // every API process: a dashboard takes their max, not their sum).
  const stats = new QueueStats(redis, config.REDIS_PREFIX, [
    { name: WEBHOOKS_QUEUE, prefix: events.keys.bullmqPrefix },
  ]);
  metrics.readQueues(() => stats.snapshot(), SCRAPE_REDIS_TIMEOUT_MS);
  return { metrics, stats, token: config.METRICS_TOKEN };
}

/**
 * `GET /metrics` (Prometheus text) and the measure of every answer. Registered before the other
 * routes, so that its hook sees every request, 404s and the board's included. Left out of the
 * OpenAPI document: it is for the operator's Prometheus, not for API clients, and takes no API key
 * (`METRICS_TOKEN` guards it when set; it holds no id, key or secret either way).
 */
export function registerMetrics(app: FastifyInstance, setup: ApiMetricsSetup | undefined): void {
  if (setup === undefined) return;
  const { metrics, stats, token } = setup;
  // `onResponse`: after the answer went out, so measuring adds nothing to its latency. The route's
  // pattern, never its URL: ids stay out of the labels.
  app.addHook('onResponse', (request, reply, done) => {
    metrics.request(request.routeOptions.url, request.method, reply.statusCode, reply.elapsedTime);
    done();
  });
  app.addHook('onClose', async () => stats.close());
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (!scrapeAllowed(request.headers.authorization, token)) {
      reply.header('www-authenticate', 'Bearer');
      return sendError(
        reply,
        request,
        new GatewayError('UNAUTHORIZED', 'send the metrics token as Authorization: Bearer <token>'),
      );
    }
    const text = await metrics.render();
    return reply.header('content-type', metrics.contentType).header('cache-control', 'no-store').send(text);
  });
}
