import type { LookupFunction } from 'node:net';
import { type GatewayConfig, type Logger, loadEgressPlan, queueSettings, webhookSettings } from '@cg/config';
import { createEvents } from '@cg/events';
import { assertRegistry } from '@cg/operations';
import { ProxyHealth } from '@cg/platform-access';
import { connectStore, startUsage } from '@cg/process';
import { OperationsQueue } from '@cg/queue';
import { newId, storeKeys } from '@cg/store';
import type { FastifyInstance } from 'fastify';
import { AuditTrail } from './audit';
import { createApiMetrics } from './metrics';
import { buildApi } from './server';

// MAX_JSON_DEPTH is for the end-to-end tests (the body nesting limit).
export { type ApiDocument, loadApiDocument } from './document';
export { buildApi } from './server';
export { MAX_JSON_DEPTH } from './validation';

/**
 * Wires Redis, the store and the queue into a Fastify app; `close` releases them all. `webhookLookup`
 * resolves webhook URLs' names when they are stored (default `dns.lookup`).
 */
export async function createApi(
  config: GatewayConfig,
  logger: Logger,
  options: { webhookLookup?: LookupFunction | undefined } = {},
): Promise<FastifyInstance> {
  assertRegistry();
  const egress = loadEgressPlan(config);
  const { redis, keyring, store } = connectStore(config, logger);
  if (config.GATEWAY_BOOTSTRAP_API_KEY !== undefined) {
    await store.apiKeys.ensure(config.GATEWAY_BOOTSTRAP_API_KEY, config.GATEWAY_BOOTSTRAP_TENANT);
  }
  const queue = new OperationsQueue({
    redis,
    ...queueSettings(config),
    newJobId: () => newId('job'),
    // The tenants' job indexes, `GET /jobs`: one ZADD beside each group's add.
    indexJobs: true,
    onError: (error) => logger.error({ err: error }, 'waking queued jobs failed'),
  });
  await queue.ready();
  const usage = startUsage(config, redis, logger);
  const audit = config.AUDIT_ENABLED ? new AuditTrail(store.audit, logger) : undefined;
  const events = createEvents(redis, config.REDIS_PREFIX, keyring, webhookSettings(config), usage);
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
    proxies: new ProxyHealth(redis, storeKeys(config.REDIS_PREFIX)),
    ...(metrics === undefined ? {} : { metrics }),
    ...(usage === undefined ? {} : { usage }),
    ...(audit === undefined ? {} : { audit }),
    webhookLookup: options.webhookLookup,
  });
  // Stopping: synchronous waits may go on for SHUTDOWN_GRACE_MS, then answer 202 (the jobs go on);
  // open event streams end at once (they would hold the close), their clients resuming elsewhere.
  app.addHook('preClose', async () => {
    setTimeout(() => queue.stopWaiting(), config.SHUTDOWN_GRACE_MS).unref();
    events.feed.close();
  });
  app.addHook('onClose', async () => {
    // What was counted and audited is written before Redis is let go of (each bounded in time).
    await Promise.all([queue.close(), events.close(), usage?.close(), audit?.close()]);
    redis.disconnect();
  });
  return app;
}
