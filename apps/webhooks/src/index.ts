import { type GatewayConfig, type Logger, webhookSettings } from '@cg/config';
import { createEvents, startDeliveryWorker } from '@cg/events';
import { openMetricsPort, WebhooksMetrics } from '@cg/metrics';
import { parseKeyring } from '@cg/secrets';
import { connectRedis, watchRedis } from '@cg/store';
import { startJobCallbacks } from './callbacks';

export interface WebhookDelivery {
  start(): void;
  /** Stops taking deliveries and waits up to the grace period for the ones in flight. */
  close(): Promise<void>;
}

/**
 * The webhook delivery process: runs the `webhooks` queue's jobs (packages/events `startDeliveryWorker`).
 * Any number may run on one Redis; a delivery whose process dies is taken over by another.
 */
export async function createWebhookDelivery(config: GatewayConfig, logger: Logger): Promise<WebhookDelivery> {
  const redis = connectRedis(config);
  watchRedis(redis, logger);
  const settings = webhookSettings(config);
  const keyring = parseKeyring(config.ENCRYPTION_KEY);
  const events = createEvents(redis, config.REDIS_PREFIX, keyring, settings);
  const log = logger.child({ module: 'webhooks' });
  const callbacks = startJobCallbacks(redis, config, keyring, events.publishEvent, log);
  const metrics = config.METRICS_ENABLED ? new WebhooksMetrics() : undefined;
  const delivery = startDeliveryWorker(redis, events, settings, log, metrics);
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
  const metricsPort = await openMetricsPort(metrics, {
    port: config.METRICS_PORT,
    host: config.HOST,
    token: config.METRICS_TOKEN,
    onError: (error) => log.error({ err: error }, 'metrics scrape failed'),
  });
  return {
    start: () => {
      worker.run().catch((error: unknown) => log.error({ err: error }, 'webhooks worker stopped'));
    },
    close: async () => {
      // Deliveries in flight end within WEBHOOK_TIMEOUT_MS; one that does not finish in the grace is
      // taken over by another process once its lock lapses (stalled), so it is delivered at least once.
      const closed = Promise.all([delivery.close(), callbacks.close(), events.close()]).then(() => true);
      const late = new Promise<false>((resolve) =>
        setTimeout(resolve, config.SHUTDOWN_GRACE_MS, false).unref(),
      );
      if (!(await Promise.race([closed, late])))
        log.warn('deliveries in flight did not finish within the grace period');
      await metricsPort?.close();
      redis.disconnect();
    },
  };
}
