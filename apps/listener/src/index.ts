import { type GatewayConfig, type Logger, loadEgressPlan, webhookSettings } from '@cg/config';
import { createEvents } from '@cg/events';
import { ListenerMetrics, openMetricsPort } from '@cg/metrics';
import { PlatformClient } from '@cg/platform-client';
import { ListenJobs } from '@cg/queue';
import { parseKeyring } from '@cg/secrets';
import { type AccountRecord, connectRedis, createStore, watchRedis } from '@cg/store';
import { AccountSessions, Egress, type Route, reauthEvents } from '@cg/worker';
import { QueuedBackfill } from './backfill';
import { holdAccount } from './connection';
import { startHolding } from './ownership';
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
  const redis = connectRedis(config);
  watchRedis(redis, logger);
  const keyring = parseKeyring(config.ENCRYPTION_KEY);
  const store = createStore(redis, config.REDIS_PREFIX, keyring);
  const events = createEvents(redis, config.REDIS_PREFIX, keyring, webhookSettings(config));
  const metrics = config.METRICS_ENABLED ? new ListenerMetrics() : undefined;
  const client = new PlatformClient({
    baseUrl: config.PLATFORM_URL,
    timeoutMs: config.PLATFORM_TIMEOUT_MS,
    connections: config.PLATFORM_CONNECTIONS,
    ...(config.PLATFORM_CHECK_KEY === undefined ? {} : { checkKey: config.PLATFORM_CHECK_KEY }),
    ...(metrics === undefined ? {} : { onCall: (call) => metrics.platformCall(call) }),
  });
  const log = logger.child({ module: 'listener' });
  const egress = new Egress(client, plan, store, log);
  const sessions = new AccountSessions(
    store.accounts,
    2 * config.PLATFORM_TIMEOUT_MS + 5_000,
    reauthEvents(store, events.publishEvent),
  );
  // A websocket goes through its proxy's CONNECT tunnel, whatever the platform's scheme.
  const proxyOf = (route: Route): string | undefined =>
    route.choice === null ? undefined : plan?.byId.get(route.choice.id)?.url;
  // Disconnected accounts are let go of within this long.
  const watch = new AccountWatch(store, ACCOUNT_CHECK_MS, (error) =>
    log.warn({ err: error }, 'could not check the accounts held'),
  );
  const backfills = new QueuedBackfill(redis, config);
  const deps = {
    wsUrl: config.PLATFORM_WS_URL,
    watch,
    backfill: (account: AccountRecord, since: number) => backfills.read(account, since),
    store,
    sessions,
    egress,
    proxyOf,
    timeoutMs: config.PLATFORM_TIMEOUT_MS,
    publish: (tenantId: string, input: Parameters<typeof events.publishEvent>[1]) =>
      events.publishEvent(tenantId, input),
    pingMs: config.LISTENER_PING_MS,
    log,
    ...(metrics === undefined ? {} : { metrics }),
  };
  const holding = () =>
    startHolding({
      redis,
      prefix: config.REDIS_PREFIX,
      capacity: config.LISTENER_CAPACITY,
      failoverMs: config.LISTENER_FAILOVER_MS,
      rotateMs: config.LISTENER_ROTATE_MS,
      hold: ({ tenantId, accountId }, signal, stillOwned) =>
        holdAccount(deps, tenantId, accountId, signal, stillOwned),
      onError: (error) => {
        if ((error as NodeJS.ErrnoException).syscall !== undefined) return;
        log.error({ err: error }, 'listener error');
      },
    });
  // Every connected account has its listen job (the worker adds it at connect): this finds those
  // connected before listeners existed, or whose job was lost, at each start.
  const listen = new ListenJobs(redis, config.REDIS_PREFIX);
  const reconcile = async () => {
    for (const tenantId of await store.accounts.tenants())
      for (const account of await store.accounts.list(tenantId))
        if (account.status === 'connected') await listen.watch(tenantId, account.accountId);
  };
  const metricsPort = await openMetricsPort(metrics, {
    port: config.METRICS_PORT,
    host: config.HOST,
    token: config.METRICS_TOKEN,
    onError: (error) => log.error({ err: error }, 'metrics scrape failed'),
  });
  let holder: ReturnType<typeof startHolding> | undefined;
  return {
    start: () => {
      holder ??= holding();
      reconcile().catch((error: unknown) => log.error({ err: error }, 'could not check the accounts held'));
    },
    close: async () => {
      await holder?.close();
      watch.close();
      await backfills.close();
      await listen.close();
      await events.close();
      await client.close();
      await metricsPort?.close();
      redis.disconnect();
    },
  };
}
