import { OperationsQueue, type QueueOptions } from '@cg/queue';
import { connectRedis, type Redis, randomId } from '@cg/store';
import { afterAll } from 'vitest';
import { providedRedis } from './provided';
import { everyKey } from './stack';

/**
 * A connection to the run's Redis and a key prefix of the test file's own; the file's keys are
 * removed (one at a time: a Cluster refuses a DEL across slots) and the connection closed after it.
 */
export function fileRedis(): { redis: Redis; prefix: string } {
  const redis = connectRedis(providedRedis());
  const prefix = `cgt-${randomId(8)}`;
  afterAll(async () => {
    for (const key of await everyKey(redis, prefix)) await redis.unlink(key);
    redis.disconnect();
  });
  return { redis, prefix };
}

/** The API's side of the queue on `redis` under `prefix`, without a worker; `more` overrides. */
export function testQueue(redis: Redis, prefix: string, more: Partial<QueueOptions> = {}): OperationsQueue {
  return new OperationsQueue({
    redis,
    prefix,
    retentionSeconds: 60,
    attempts: 1,
    backoffMs: 100,
    lanes: { concurrency: 2, intervalMs: 0, gapMs: 0, maxBacklog: 100 },
    newJobId: () => `job_${randomId(8)}`,
    ...more,
  });
}
