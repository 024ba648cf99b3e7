import type { Keyring } from '@cg/secrets';
import type { Redis } from 'ioredis';
import { AccountHealthStore } from './account-health';
import { AccountStore } from './accounts';
import { ApiKeyStore } from './api-keys';
import { AuditLog } from './audit';
import { WorkerHeartbeats } from './heartbeats';
import { storeKeys } from './keys';
import { PacingStore } from './pacing';
import { RateLimitStore } from './rate-limits';
import { UsageStore } from './usage';

export {
  type AccountHealth,
  AccountHealthStore,
  HANDED_OVER,
  type PlatformFailureNote,
} from './account-health';
export {
  type AccountRecord,
  type AccountStatus,
  type AccountStatusTimes,
  AccountStore,
  accountSummary,
  type ConnectInput,
  type EgressChoice,
  type PendingTwofa,
  type PlatformCredentials,
  type PlatformSessionState,
} from './accounts';
export {
  type ApiKeyInfo,
  ApiKeyStore,
  KEY_ACCESS,
  type KeyAccess,
  type KeyFields,
  type KeyScope,
  LAST_ADMIN,
  LEGACY,
  TENANT_PATTERN,
} from './api-keys';
export {
  AUDIT_RETENTION_DAYS,
  type AuditEntry,
  AuditLog,
  type AuditPage,
  type AuditQuery,
  type AuditRecord,
} from './audit';
export { HEARTBEAT_EVERY_MS, HEARTBEAT_STALE_MS, WorkerHeartbeats } from './heartbeats';
export { releaseHold } from './holds';
export { newId, randomId, sha256 } from './ids';
export { type StoreKeys, storeKeys } from './keys';
export { defineScripts, luaSource, type Scripted } from './lua';
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
export {
  noUsage,
  USAGE_COUNTERS,
  USAGE_FLUSH_MS,
  USAGE_RETENTION_DAYS,
  type UsageBucket,
  UsageCounter,
  type UsageCounterName,
  type UsageCounts,
  type UsageGrouping,
  type UsageRecorder,
  type UsageRow,
  UsageStore,
} from './usage';

export interface Store {
  apiKeys: ApiKeyStore;
  accounts: AccountStore;
  /** What the processes saw of each account's platform calls and realtime connection. */
  health: AccountHealthStore;
  pacing: PacingStore;
  rateLimits: RateLimitStore;
  workers: WorkerHeartbeats;
  /** The usage the processes counted (read side; each process counts with a `UsageCounter`). */
  usage: UsageStore;
  audit: AuditLog;
}

export function createStore(redis: Redis, prefix: string, keyring: Keyring): Store {
  const keys = storeKeys(prefix);
  return {
    apiKeys: new ApiKeyStore(redis, keys),
    accounts: new AccountStore(redis, keys, keyring),
    health: new AccountHealthStore(redis, keys),
    pacing: new PacingStore(redis, keys),
    rateLimits: new RateLimitStore(redis, keys),
    workers: new WorkerHeartbeats(redis, keys),
    usage: new UsageStore(redis, keys),
    audit: new AuditLog(redis, keys),
  };
}
