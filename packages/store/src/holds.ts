import type { Redis } from 'ioredis';

/**
 * Deletes `key` only while it still holds `owner`'s token: a hold that lapsed and was taken by
 * another owner is left alone (re-login locks, action windows).
 */
export async function releaseHold(redis: Redis, key: string, owner: string): Promise<void> {
  await redis.eval(
    "if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end",
    1,
    key,
    owner,
  );
}
