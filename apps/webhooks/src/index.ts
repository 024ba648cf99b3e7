import type { LookupFunction } from 'node:net';
import { type GatewayConfig, type Logger, webhookSettings } from '@cg/config';
import { createEvents, type DeliveryObserver, startDeliveryWorker } from '@cg/events';
import { WebhooksMetrics } from '@cg/metrics';
import { connectStore, finishesWithin, openProcessMetrics, startUsage } from '@cg/process';
import type { UsageCounter } from '@cg/store';
import { startJobCallbacks } from './callbacks';

export interface WebhookDelivery {
  start(): void;
  /** Stops taking deliveries and waits up to the grace period for the ones in flight. */
  close(): Promise<void>;
}

/**
 * The webhook delivery process: runs the `webhooks` queue's jobs (packages/events `startDeliveryWorker`).
 * Any number may run on one Redis; a delivery whose process dies is taken over by another. `lookup`
 * resolves the endpoints' names (default `dns.lookup`).
 */
export async function createWebhookDelivery(
  config: GatewayConfig,
  logger: Logger,
  options: { lookup?: LookupFunction | undefined } = {},
): Promise<WebhookDelivery> {
  const { redis, keyring } = connectStore(config, logger);
  const settings = { ...webhookSettings(config), lookup: options.lookup };
  const log = logger.child({ module: 'webhooks' });
  const usage = startUsage(config, redis, log);
  const events = createEvents(redis, config.REDIS_PREFIX, keyring, settings, usage);
  const callbacks = startJobCallbacks(redis, config, keyring, events.publishEvent, log);
  const metrics = config.METRICS_ENABLED ? new WebhooksMetrics() : undefined;
  const delivery = startDeliveryWorker(redis, events, settings, log, deliveryObserver(metrics, usage));
  const { worker } = delivery;
  worker.on('failed', (job, error) => {
    // The reason only (an HTTP status or a connection error): never the body, the URL's query or a secret.
    if (job)
      log.info(
        { requestId: job.data.requestId, jobId: job.id, attempt: job.attemptsMade, reason: error.message },
        'delivery attempt failed',
      );
  });
  worker.on('error', (error) => {
    if ((error as NodeJS.ErrnoException).syscall !== undefined) return; // reported once by `watchRedis`
    log.error({ err: error }, 'webhooks worker error');
  });
  await worker.waitUntilReady();
  const metricsPort = await openProcessMetrics(metrics, config, log);
  return {
    start: () => {
      delivery.run().catch((error: unknown) => log.error({ err: error }, 'webhooks worker stopped'));
    },
    close: async () => {
      // Deliveries in flight end within WEBHOOK_TIMEOUT_MS; one that does not finish in the grace is
      // taken over by another process once its lock lapses (stalled), so it is delivered at least once.
      const closing = Promise.all([delivery.close(), callbacks.close(), events.close()]);
      if (!(await finishesWithin(closing, config.SHUTDOWN_GRACE_MS)))
        log.warn('deliveries in flight did not finish within the grace period');
      await metricsPort?.close();
      await usage?.close();
      redis.disconnect();
    },
  };
}

/**
 * What the deliveries tell: the metrics (each attempt's outcome and time) and the usage (attempts
 * delivered and failed, under the event's account; a delivery has no API key).
 */
function deliveryObserver(
  metrics: WebhooksMetrics | undefined,
  usage: UsageCounter | undefined,
): DeliveryObserver | undefined {
  if (usage === undefined) return metrics;
  return {
    started: (waitedMs) => metrics?.started(waitedMs),
    attempted: (status, durationMs, { tenantId, accountId }) => {
      metrics?.attempted(status, durationMs);
      usage.add(tenantId, null, accountId, status === 'delivered' ? 'webhooksDelivered' : 'webhooksFailed');
    },
  };
}
