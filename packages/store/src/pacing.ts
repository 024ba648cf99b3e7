import type { Redis } from 'ioredis';
import { releaseHold } from './holds';
import { randomId } from './ids';
import type { StoreKeys } from './keys';

/** A claimed window: `release` gives it up early (only if it is still this claim's). */
export interface WindowClaim {
  release(): Promise<void>;
}

/**
 * Short windows of one account's actions, shared by every process through Redis: the first claim
 * within `ms` wins (`SET NX PX`), the others find it held until it expires or is released.
 */
export class PacingStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: StoreKeys,
  ) {}

  /** Opens the window `name` of an account for `ms`; null when another claim holds it. */
  async claim(tenantId: string, accountId: string, name: string, ms: number): Promise<WindowClaim | null> {
    const key = this.keys.accountWindow(tenantId, accountId, name);
    const token = randomId();
    const set = await this.redis.set(key, token, 'PX', Math.max(1, Math.ceil(ms)), 'NX');
    if (set !== 'OK') return null;
    return {
      release: () => releaseHold(this.redis, key, token),
    };
  }
}
