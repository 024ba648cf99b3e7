import { inject } from 'vitest';

// What the global setup hands the test files (`provide`, `inject`). The files that provide or inject
// it import this module, so every program that typechecks one of them knows the type: the root's and
// a package's whose tests use these helpers (packages/queue/test).
declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
    /**
     * `REDIS_CLUSTER_NODES` of the run's Redis Cluster (the `e2e-cluster` project), '' otherwise:
     * then `redisUrl` is one of its nodes, which a plain client cannot use for every key.
     */
    redisClusterNodes: string;
  }
}

/**
 * The run's Redis as the gateway's settings: `connectRedis(providedRedis())` connects to it (a
 * Cluster client on the cluster project), and spreading it into a process's environment hands it
 * the same Redis.
 */
export function providedRedis(): { REDIS_URL: string; REDIS_CLUSTER_NODES?: string } {
  const nodes = inject('redisClusterNodes');
  return { REDIS_URL: inject('redisUrl'), ...(nodes ? { REDIS_CLUSTER_NODES: nodes } : {}) };
}
