import { resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { ensureRedis, type RedisHandle } from '../../scripts/lib/redis';
import type {} from './provided';

let redis: RedisHandle | undefined;

/** One Redis for the whole run; each test file isolates itself with its own key prefix. */
export async function setup(project: TestProject): Promise<void> {
  redis = await ensureRedis({
    envUrl: process.env.REDIS_URL,
    dataDir: resolve(import.meta.dirname, '../../.local/test-redis'),
    allowContainer: true,
  });
  project.provide('redisUrl', redis.url);
}

export async function teardown(): Promise<void> {
  await redis?.stop();
}
