import type { GatewayConfig, Logger } from '@cg/config';
import { assertRegistry } from '@cg/operations';
import { PlatformClient } from '@cg/platform-client';
import { startWorker } from '@cg/queue';
import { parseKeyring } from '@cg/secrets';
import { connectRedis, createStore } from '@cg/store';
import { createProcessor } from './processor';

export type WorkerConfig = Pick<
  GatewayConfig,
  | 'REDIS_URL'
  | 'REDIS_PREFIX'
  | 'ENCRYPTION_KEY'
  | 'PLATFORM_URL'
  | 'PLATFORM_CHECK_KEY'
  | 'PLATFORM_TIMEOUT_MS'
  | 'WORKER_CONCURRENCY'
  | 'JOB_BACKOFF_MS'
  | 'SHUTDOWN_GRACE_MS'
>;

export interface GatewayWorker {
  start(): void;
  /** Stops taking jobs and waits up to the grace period for the running ones. */
  close(): Promise<void>;
}

export async function createGatewayWorker(config: WorkerConfig, logger: Logger): Promise<GatewayWorker> {
  assertRegistry();
  const redis = connectRedis(config.REDIS_URL);
  const keyring = parseKeyring(config.ENCRYPTION_KEY);
  const store = createStore(redis, config.REDIS_PREFIX, keyring);
  const client = new PlatformClient({
    baseUrl: config.PLATFORM_URL,
    timeoutMs: config.PLATFORM_TIMEOUT_MS,
    ...(config.PLATFORM_CHECK_KEY === undefined ? {} : { checkKey: config.PLATFORM_CHECK_KEY }),
  });
  const log = logger.child({ module: 'worker' });
  const worker = startWorker(createProcessor({ client, store, keyring }), {
    redis,
    prefix: config.REDIS_PREFIX,
    concurrency: config.WORKER_CONCURRENCY,
    backoffMs: config.JOB_BACKOFF_MS,
    onError: (error) => log.error({ err: error }, 'operation failed unexpectedly'),
  });
  worker.on('failed', (job, error) =>
    log.info({ jobId: job?.id, op: job?.name, reason: error.message }, 'job failed'),
  );
  worker.on('error', (error) => log.error({ err: error }, 'worker error'));
  await worker.waitUntilReady();
  return {
    start: () => {
      worker.run().catch((error: unknown) => log.error({ err: error }, 'worker stopped'));
    },
    close: async () => {
      const closing = worker.close();
      const grace = new Promise<'timeout'>((resolve) =>
        setTimeout(resolve, config.SHUTDOWN_GRACE_MS, 'timeout').unref(),
      );
      if ((await Promise.race([closing, grace])) === 'timeout') {
        log.warn('in-flight jobs did not finish within the grace period; closing anyway');
        await worker.close(true);
      }
      await client.close();
      redis.disconnect();
    },
  };
}
