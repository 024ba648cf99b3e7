import { type GatewayConfig, type Logger, loadEgressPlan, webhookSettings } from '@cg/config';
import { createEvents } from '@cg/events';
import { ListenerMetrics } from '@cg/metrics';
import { accountEgress, accountSessions, platformClient } from '@cg/platform-access';
import { connectStore, openProcessMetrics, startUsage } from '@cg/process';
import { ListenJobs } from '@cg/queue';
import type { Redis, Store } from '@cg/store';
import { QueuedBackfill } from './backfill';
import { type ConnectionDeps, holdAccount } from './connection';
import { type Holder, startHolding } from './ownership';
import { AccountWatch } from './watch';

export { occurrences } from './catalog';
export { decodeFrames, type Frame } from './frames';

/** How often the accounts held are checked for a disconnection or a lost session. */
const ACCOUNT_CHECK_MS = 2_000;

export interface Listener {
  /** Starts taking accounts to hold. */
  start(): void;
  /** Ends every connection and hands the accounts back to the other listeners at once. */
  close(): Promise<void>;
}

/**
 * A listener process: holds the realtime connection of each account it owns (packages: ownership.ts)
 * and turns what arrives into events in the tenant's log (packages/events), which delivers them.
 */
export async function createListener(config: GatewayConfig, logger: Logger): Promise<Listener> {
  const plan = loadEgressPlan(config);
  const { redis, keyring, store } = connectStore(config, logger);
  const log = logger.child({ module: 'listener' });
  // The events this listener publishes, counted under their accounts (they have no API key).
  const usage = startUsage(config, redis, log);
  const events = createEvents(redis, config.REDIS_PREFIX, keyring, webhookSettings(config), usage);
  const metrics = config.METRICS_ENABLED ? new ListenerMetrics() : undefined;
  const client = platformClient(config, metrics);
  // Disconnected accounts are let go of within this long.
  const watch = new AccountWatch(store, ACCOUNT_CHECK_MS, (error) =>
    log.warn({ err: error }, 'could not check the accounts held'),
  );
  const backfills = new QueuedBackfill(redis, config);
  const deps: ConnectionDeps = {
    wsUrl: config.PLATFORM_WS_URL,
    watch,
    backfill: (account, since) => backfills.read(account, since),
    store,
    sessions: accountSessions(store, events.publishEvent, config.PLATFORM_TIMEOUT_MS),
    egress: accountEgress({ client, plan, store, redis, prefix: config.REDIS_PREFIX, log }),
    timeoutMs: config.PLATFORM_TIMEOUT_MS,
    publish: (tenantId, input) => events.publishEvent(tenantId, input),
    pingMs: config.LISTENER_PING_MS,
    // A rotation's hand-over is a moment; a lost lease's, up to the failover.
    handoverMs: config.LISTENER_FAILOVER_MS + 5_000,
    log,
    ...(metrics === undefined ? {} : { metrics }),
  };
  const listen = new ListenJobs(redis, config.REDIS_PREFIX);
  const metricsPort = await openProcessMetrics(metrics, config, log);
  let holder: Holder | undefined;
  return {
    start: () => {
      holder ??= hold(deps, redis, config);
      reconcile(store, listen).catch((error: unknown) =>
        log.error({ err: error }, 'could not check the accounts held'),
      );
    },
    close: async () => {
      await holder?.close();
      watch.close();
      await backfills.close();
      await listen.close();
      await events.close();
      await client.close();
      await metricsPort?.close();
      await usage?.close();
      redis.disconnect();
    },
  };
}

/** Takes this listener's share of the accounts and holds each one's connection (`holdAccount`). */
function hold(deps: ConnectionDeps, redis: Redis, config: GatewayConfig): Holder {
  return startHolding({
    redis,
    prefix: config.REDIS_PREFIX,
    capacity: config.LISTENER_CAPACITY,
    failoverMs: config.LISTENER_FAILOVER_MS,
    rotateMs: config.LISTENER_ROTATE_MS,
    hold: ({ tenantId, accountId }, signal, stillOwned) =>
      holdAccount(deps, tenantId, accountId, signal, stillOwned),
    onError: (error) => {
      if ((error as NodeJS.ErrnoException).syscall !== undefined) return;
      deps.log.error({ err: error }, 'listener error');
    },
  });
}

/**
 * Every connected account has its listen job (the worker adds it at connect): this finds those
 * connected before listeners existed, or whose job was lost, at each start.
 */
async function reconcile(store: Store, listen: ListenJobs): Promise<void> {
  for (const tenantId of await store.accounts.tenants())
    for (const account of await store.accounts.list(tenantId))
      if (account.status === 'connected') await listen.watch(tenantId, account.accountId);
}
