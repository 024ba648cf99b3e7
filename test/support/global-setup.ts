import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { ensureRedis, spawnCluster } from '../../scripts/lib/redis';
import type {} from './provided';

/** The vitest project (vitest.config.ts) whose files run against a Redis Cluster. */
export const CLUSTER_PROJECT = 'e2e-cluster';

/**
 * One Redis for the whole run; each test file isolates itself with its own key prefix. The cluster
 * project gets a real six-node Redis Cluster (three masters, three replicas) on loopback instead.
 * Returns the project's teardown (each project has its own).
 */
export async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (project.name === CLUSTER_PROJECT) {
    const dir = mkdtempSync(join(tmpdir(), 'cg-test-cluster-'));
    const cluster = await spawnCluster(dir);
    project.provide('redisUrl', cluster.url);
    project.provide('redisClusterNodes', cluster.nodes);
    return async () => {
      await cluster.stop();
      rmSync(dir, { recursive: true, force: true });
    };
  }
  const redis = await ensureRedis({
    envUrl: process.env.REDIS_URL,
    dataDir: resolve(import.meta.dirname, '../../.local/test-redis'),
    allowContainer: true,
  });
  project.provide('redisUrl', redis.url);
  project.provide('redisClusterNodes', '');
  return () => redis.stop();
}
