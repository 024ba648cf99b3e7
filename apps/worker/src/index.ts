import { hostname } from 'node:os';
import { type GatewayConfig, type Logger, laneSettings, loadEgressPlan, webhookSettings } from '@cg/config';
import { createEvents } from '@cg/events';
import { Spool } from '@cg/media-spool';
import { WorkerMetrics } from '@cg/metrics';
import { assertRegistry } from '@cg/operations';
import { accountEgress, accountSessions, platformClient } from '@cg/platform-access';
import type { PlatformClient } from '@cg/platform-client';
import { connectStore, finishesWithin, openProcessMetrics, startUsage } from '@cg/process';
import { JobStates, ListenJobs, type Processor, type RunObserver, startWorker } from '@cg/queue';
import { type Redis, randomId, type UsageCounter } from '@cg/store';
import { createProcessor } from './processor';
import { sweepSpool } from './spool-sweep';

// For the end-to-end tests: the two-factor attempts' limit.
export { MAX_TWOFA_ATTEMPTS } from './connector';

export interface GatewayWorker {
  start(): void;
  /** Stops taking jobs and waits up to the grace period for the running ones. */
  close(): Promise<void>;
}

type Operations = ReturnType<typeof startWorker>;

/** An operations worker process: runs the queued jobs (processor.ts) against the platform. */
export async function createGatewayWorker(config: GatewayConfig, logger: Logger): Promise<GatewayWorker> {
  assertRegistry();
  const plan = loadEgressPlan(config);
  const { redis, keyring, store } = connectStore(config, logger);
  const metrics = config.METRICS_ENABLED ? new WorkerMetrics() : undefined;
  const client = platformClient(config, metrics);
  const log = logger.child({ module: 'worker' });
  const listen = new ListenJobs(redis, config.REDIS_PREFIX);
  const usage = startUsage(config, redis, log);
  const events = createEvents(redis, config.REDIS_PREFIX, keyring, webhookSettings(config), usage);
  const spool = new Spool(config.MEDIA_SPOOL_DIR).ensure();
  const states = new JobStates(redis, config.REDIS_PREFIX);
  const processor = createProcessor({
    egress: accountEgress({ client, plan, store, redis, prefix: config.REDIS_PREFIX, log }),
    store,
    keyring,
    sessions: accountSessions(store, events.publishEvent, config.PLATFORM_TIMEOUT_MS),
    listen,
    publish: events.publishEvent,
    spool,
    log,
    ...(usage === undefined ? {} : { usage }),
  });
  const operations = startOperations(processor, redis, config, log, runObserver(metrics, usage));
  await operations.worker.waitUntilReady();
  const metricsPort = await openProcessMetrics(metrics, config, log);
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
      const closeTheRest = () =>
        Promise.all([client.close(), listen.close(), events.close(), states.close()]);
      await closeOperations(operations, closeTheRest, client, config, log);
      // The jobs' last counts, written before Redis is let go of.
      await usage?.close();
      redis.disconnect();
    },
  };
}

/** The operations worker of the settings, its failures logged; it takes jobs once `run`. */
function startOperations(
  processor: Processor,
  redis: Redis,
  config: GatewayConfig,
  log: Logger,
  observer: RunObserver | undefined,
): Operations {
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
    ...(observer === undefined ? {} : { observer }),
  });
  logWorkerEvents(operations.worker, log);
  return operations;
}

/** What the requests' runs tell: the metrics, and the usage (outcome-unknown writes, under the job's key and account). */
function runObserver(
  metrics: WorkerMetrics | undefined,
  usage: UsageCounter | undefined,
): RunObserver | undefined {
  if (usage === undefined) return metrics;
  return {
    started: (waitedMs) => metrics?.started(waitedMs),
    retried: (op) => metrics?.retried(op),
    paused: () => metrics?.paused(),
    outcomeUnknown: (op, payload) => {
      metrics?.outcomeUnknown(op);
      usage.add(payload.tenantId, payload.keyId, payload.accountId, 'outcomeUnknown');
    },
  };
}

function logWorkerEvents(worker: Operations['worker'], log: Logger): void {
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
}

/**
 * Waits up to SHUTDOWN_GRACE_MS for the running jobs, then closes what they used (`closeTheRest`).
 * Past the grace, the jobs are abandoned (they are retried elsewhere) and the queue is closed within
 * a bound of its own.
 */
async function closeOperations(
  operations: Operations,
  closeTheRest: () => Promise<unknown>,
  client: PlatformClient,
  config: GatewayConfig,
  log: Logger,
): Promise<void> {
  if (await finishesWithin(operations.close().then(closeTheRest), config.SHUTDOWN_GRACE_MS)) return;
  log.warn('in-flight jobs did not finish within the grace period; closing anyway');
  // Only the platform calls already sent go on, each bounded (connect, headers, body); the jobs'
  // next calls are not sent, and they are retried elsewhere. BullMQ's close needs Redis, which may
  // be away for as long as it likes: the process does not wait for it.
  const forced = operations.close(true).then(() => client.close());
  if (!(await finishesWithin(forced, 3 * config.PLATFORM_TIMEOUT_MS + 5_000)))
    log.error('could not close the queue (is Redis away?); exiting anyway');
}
