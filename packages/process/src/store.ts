import type { GatewayConfig, Logger } from '@cg/config';
import { type Keyring, parseKeyring } from '@cg/secrets';
import { connectRedis, createStore, type Redis, type Store, watchRedis } from '@cg/store';

/** What every process of the gateway opens first. */
export interface StoreConnection {
  /** Watched: Redis becoming unreachable, and reachable again, is logged once each (`watchRedis`). */
  redis: Redis;
  /** `ENCRYPTION_KEY`'s keys, which seal the accounts' secrets and the jobs' inputs. */
  keyring: Keyring;
  store: Store;
}

/**
 * Connects to the Redis of the settings (a Cluster with `REDIS_CLUSTER_NODES`) and opens the store
 * with the keyring; a bad `ENCRYPTION_KEY` throws the keyring's error, which `startOrExit` prints as
 * its one line.
 */
export function connectStore(
  config: Pick<GatewayConfig, 'REDIS_URL' | 'REDIS_CLUSTER_NODES' | 'REDIS_PREFIX' | 'ENCRYPTION_KEY'>,
  logger: Logger,
): StoreConnection {
  const redis = connectRedis(config);
  watchRedis(redis, logger);
  const keyring = parseKeyring(config.ENCRYPTION_KEY);
  return { redis, keyring, store: createStore(redis, config.REDIS_PREFIX, keyring) };
}
