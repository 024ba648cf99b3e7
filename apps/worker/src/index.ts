import { hostname } from 'node:os';
import { type GatewayConfig, type Logger, laneSettings, loadEgressPlan, webhookSettings } from '@cg/config';
import { createEvents } from '@cg/events';
import { openMetricsPort, WorkerMetrics } from '@cg/metrics';
import { assertRegistry, Spool } from '@cg/operations';
import { PlatformClient } from '@cg/platform-client';
import { JobStates, ListenJobs, startWorker } from '@cg/queue';
import { parseKeyring } from '@cg/secrets';
import { connectRedis, createStore, randomId, watchRedis } from '@cg/store';
import { Egress } from './egress';
import { createProcessor } from './processor';
import { sweepSpool } from './spool-sweep';

// For the end-to-end tests: the two-factor attempts' limit, and the sessions and egress they drive.
export { MAX_TWOFA_ATTEMPTS } from './connector';
export { Egress, type Route } from './egress';
export { AccountSessions, reauthEvents } from './sessions';

export interface GatewayWorker {
  start(): void;
  /** Stops taking jobs and waits up to the grace period for the running ones. */
  close(): Promise<void>;
}

export async function createGatewayWorker(config: GatewayConfig, logger: Logger): Promise<GatewayWorker> {
  assertRegistry();
  const plan = loadEgressPlan(config);
  const redis = connectRedis(config);
  watchRedis(redis, logger);
  const keyring = parseKeyring(config.ENCRYPTION_KEY);
  const store = createStore(redis, config.REDIS_PREFIX, keyring);
  const metrics = config.METRICS_ENABLED ? new WorkerMetrics() : undefined;
  const client = new PlatformClient({
    baseUrl: config.PLATFORM_URL,
    ...(config.PLATFORM_MEDIA_URL === undefined ? {} : { mediaBaseUrl: config.PLATFORM_MEDIA_URL }),
    timeoutMs: config.PLATFORM_TIMEOUT_MS,
    connections: config.PLATFORM_CONNECTIONS,
    ...(config.PLATFORM_CHECK_KEY === undefined ? {} : { checkKey: config.PLATFORM_CHECK_KEY }),
    ...(metrics === undefined ? {} : { onCall: (call) => metrics.platformCall(call) }),
  });
  const log = logger.child({ module: 'worker' });
  // Renewed while the login runs; only a process that died holds it this long.
  const reloginLockMs = 2 * config.PLATFORM_TIMEOUT_MS + 5_000;
  const egress = new Egress(client, plan, store, log);
  const listen = new ListenJobs(redis, config.REDIS_PREFIX);
  const events = createEvents(redis, config.REDIS_PREFIX, keyring, webhookSettings(config));
  const spool = new Spool(config.MEDIA_SPOOL_DIR).ensure();
  const states = new JobStates(redis, config.REDIS_PREFIX);
  const processor = createProcessor({
    egress,
    store,
    keyring,
    reloginLockMs,
    listen,
    publish: events.publishEvent,
    spool,
    log,
  });
  const operations = startWorker(processor, {
    redis,
    prefix: config.REDIS_PREFIX,
    concurrency: config.WORKER_CONCURRENCY,
    backoffMs: config.JOB_BACKOFF_MS,
    lanes: laneSettings(config),
    retentionSeconds: config.JOB_RETENTION_SECONDS,
    lockMs: config.WORKER_LOCK_MS,
    onError: (error) => log.error({ err: error }, 'operation failed unexpectedly'),
    onRequestFailed: (jobId, op, reason, requestId) =>
      log.info({ ...(requestId === undefined ? {} : { requestId }), jobId, op, reason }, 'job failed'),
    ...(metrics === undefined ? {} : { observer: metrics }),
  });
  const { worker } = operations;
  worker.on('failed', (job, error) => {
    // One line per failed attempt (a retry follows while attempts are left); a batch's requests
    // report their own ends (`onRequestFailed`).
    const requestId = job === undefined || 'batch' in job.data ? undefined : job.data.requestId;
    log.info(
      {
        ...(requestId === undefined ? {} : { requestId }),
        jobId: job?.id,
        op: job?.name,
        attempt: job?.attemptsMade,
        reason: error.message,
      },
      'job failed',
    );
  });
  worker.on('error', (error) => {
    // A socket's failure (Redis away: one per reconnect attempt) is reported once by `watchRedis`.
    if ((error as NodeJS.ErrnoException).syscall !== undefined) return;
    log.error({ err: error }, 'worker error');
  });
  await worker.waitUntilReady();
  const metricsPort = await openMetricsPort(metrics, {
    port: config.METRICS_PORT,
    host: config.HOST,
    token: config.METRICS_TOKEN,
    onError: (error) => log.error({ err: error }, 'metrics scrape failed'),
  });
  let stopSweep: () => void = () => undefined;
  // The API's readiness (`/readyz`) needs at least one worker beating (packages/store heartbeats.ts).
  let heartbeat: { stop(): Promise<void> } | undefined;
  return {
    start: () => {
      operations.run().catch((error: unknown) => log.error({ err: error }, 'worker stopped'));
      heartbeat = store.workers.start(`${hostname()}-${process.pid}-${randomId(6)}`);
      stopSweep = sweepSpool(spool, states, config.MEDIA_SPOOL_SWEEP_MS, log);
    },
    close: async () => {
      stopSweep();
      await heartbeat?.stop();
      await metricsPort?.close();
      const after = (ms: number) =>
        new Promise<'timeout'>((resolve) => setTimeout(resolve, ms, 'timeout').unref());
      const graceful = operations
        .close()
        .then(() => Promise.all([client.close(), listen.close(), events.close(), states.close()]));
      if ((await Promise.race([graceful, after(config.SHUTDOWN_GRACE_MS)])) === 'timeout') {
        log.warn('in-flight jobs did not finish within the grace period; closing anyway');
        // Only the platform calls already sent go on, each bounded (connect, headers, body); the
        // jobs' next calls are not sent, and they are retried elsewhere. BullMQ's close needs
        // Redis, which may be away for as long as it likes: the process does not wait for it.
        const forced = operations.close(true).then(() => client.close());
        if ((await Promise.race([forced, after(3 * config.PLATFORM_TIMEOUT_MS + 5_000)])) === 'timeout')
          log.error('could not close the queue (is Redis away?); exiting anyway');
      }
      redis.disconnect();
    },
  };
}
