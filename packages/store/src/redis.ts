import { Redis, type RedisOptions } from 'ioredis';

/**
 * A Redis connection for the store and the queue. `maxRetriesPerRequest: null` is what BullMQ
 * requires of connections used by workers; commands wait for a reconnect instead of failing.
 */
export function connectRedis(url: string, options: RedisOptions = {}): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true, ...options });
}
export type { Redis } from 'ioredis';
