import type { Keyring } from '@cg/secrets';
import type { Redis } from 'ioredis';
import { AccountStore } from './accounts';
import { ApiKeyStore } from './api-keys';
import { EgressStore } from './egress';
import { storeKeys } from './keys';
import { PacingStore } from './pacing';

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
export { newId, randomId, sha256 } from './ids';
export { storeKeys } from './keys';
export { PacingStore, type WindowClaim } from './pacing';
export { connectRedis, type Redis, redisAddress, redisPulse, watchRedis } from './redis';

export interface Store {
  apiKeys: ApiKeyStore;
  accounts: AccountStore;
  egress: EgressStore;
  pacing: PacingStore;
}

export function createStore(redis: Redis, prefix: string, keyring: Keyring): Store {
  const keys = storeKeys(prefix);
  return {
    apiKeys: new ApiKeyStore(redis, keys),
    accounts: new AccountStore(redis, keys, keyring),
    egress: new EgressStore(redis, keys),
    pacing: new PacingStore(redis, keys),
  };
}
