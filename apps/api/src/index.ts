import { type GatewayConfig, type Logger, loadEgressPlan, queueSettings, webhookSettings } from '@cg/config';
import { createEvents } from '@cg/events';
import { assertRegistry } from '@cg/operations';
import { OperationsQueue } from '@cg/queue';
import { parseKeyring } from '@cg/secrets';
import { connectRedis, createStore, newId, watchRedis } from '@cg/store';
import type { FastifyInstance } from 'fastify';
import { createApiMetrics } from './metrics';
import { buildApi } from './server';

// laneOfAccount and MAX_JSON_DEPTH are for the end-to-end tests (an account's lane, the body nesting limit).
export { laneOfAccount } from '@cg/queue';
export { type ApiDocument, loadApiDocument } from './document';
export { buildApi } from './server';
export { MAX_JSON_DEPTH } from './validation';

/** Wires Redis, the store and the queue into a Fastify app; `close` releases them all. */
export async function createApi(config: GatewayConfig, logger: Logger): Promise<FastifyInstance> {
  assertRegistry();
  const egress = loadEgressPlan(config);
  const redis = connectRedis(config);
  watchRedis(redis, logger);
  const keyring = parseKeyring(config.ENCRYPTION_KEY);
  const store = createStore(redis, config.REDIS_PREFIX, keyring);
  if (config.GATEWAY_BOOTSTRAP_API_KEY !== undefined) {
    await store.apiKeys.ensure(config.GATEWAY_BOOTSTRAP_API_KEY, config.GATEWAY_BOOTSTRAP_TENANT);
  }
  const queue = new OperationsQueue({
    redis,
    ...queueSettings(config),
    newJobId: () => newId('job'),
    onError: (error) => logger.error({ err: error }, 'waking queued jobs failed'),
  });
  await queue.ready();
  const events = createEvents(redis, config.REDIS_PREFIX, keyring, webhookSettings(config));
  const metrics = createApiMetrics(config, redis, events);
  const app = await buildApi({
    config,
    redis,
    store,
    queue,
    events,
    keyring,
    logger,
    egress,
    ...(metrics === undefined ? {} : { metrics }),
  });
  // Stopping: synchronous waits may go on for SHUTDOWN_GRACE_MS, then answer 202 (the jobs go on).
  app.addHook('preClose', async () => {
    setTimeout(() => queue.stopWaiting(), config.SHUTDOWN_GRACE_MS).unref();
  });
  app.addHook('onClose', async () => {
    await Promise.all([queue.close(), events.close()]);
    redis.disconnect();
  });
  return app;
}
