import type { Keyring } from '@cg/secrets';
import type { Redis } from 'ioredis';
import { AccountStore } from './accounts';
import { ApiKeyStore } from './api-keys';
import { EgressStore } from './egress';
import { WorkerHeartbeats } from './heartbeats';
import { storeKeys } from './keys';
import { PacingStore } from './pacing';
import { RateLimitStore } from './rate-limits';

export {
  type AccountRecord,
  type AccountStatus,
  AccountStore,
  accountSummary,
  type ConnectInput,
  type EgressChoice,
  type PendingTwofa,
  type PlatformCredentials,
  type PlatformSessionState,
} from './accounts';
export { type ApiKeyInfo, ApiKeyStore, TENANT_PATTERN } from './api-keys';
export { EgressStore } from './egress';
export { HEARTBEAT_EVERY_MS, HEARTBEAT_STALE_MS, WorkerHeartbeats } from './heartbeats';
export { newId, randomId, sha256 } from './ids';
export { storeKeys } from './keys';
export { PacingStore, type WindowClaim } from './pacing';
export { RATE_WINDOW_MS, RateLimitStore, type RateLimitVerdict } from './rate-limits';
export {
  connectRedis,
  parseSeeds,
  type Redis,
  type RedisConnection,
  type RedisSettings,
  redisAddress,
  redisPulse,
  scanKeys,
  watchRedis,
} from './redis';

export interface Store {
  apiKeys: ApiKeyStore;
  accounts: AccountStore;
  egress: EgressStore;
  pacing: PacingStore;
  rateLimits: RateLimitStore;
  workers: WorkerHeartbeats;
}

export function createStore(redis: Redis, prefix: string, keyring: Keyring): Store {
  const keys = storeKeys(prefix);
  return {
    apiKeys: new ApiKeyStore(redis, keys),
    accounts: new AccountStore(redis, keys, keyring),
    egress: new EgressStore(redis, keys),
    pacing: new PacingStore(redis, keys),
    rateLimits: new RateLimitStore(redis, keys),
    workers: new WorkerHeartbeats(redis, keys),
  };
}
