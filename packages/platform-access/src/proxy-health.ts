import { defineScripts, type Scripted, type StoreKeys } from '@cg/store';
import type { Redis } from 'ioredis';

/**
 * Egress proxies' state, shared by every process: how many accounts leave through each, and which
 * are down. A proxy failing `failures` times within `windowMs` is down for `cooldownMs`.
 */
export class ProxyHealth {
  private readonly scripts: Scripted<'egress_failure'>;

  constructor(
    private readonly redis: Redis,
    private readonly keys: StoreKeys,
  ) {
    this.scripts = defineScripts(redis, new URL('./lua/', import.meta.url), { 'egress-failure': 2 });
  }

  /** Counts a proxy-layer failure; says whether the proxy is down (now, or already). */
  async recordFailure(proxyId: string, rule: { failures: number; windowMs: number; cooldownMs: number }) {
    const down = await this.scripts.egress_failure(
      this.keys.egressFailures(proxyId),
      this.keys.egressDown(proxyId),
      rule.failures,
      rule.windowMs,
      rule.cooldownMs,
    );
    return down === 1;
  }

  /** For each proxy, how long it stays down (ms; 0 when up). */
  async downFor(proxyIds: readonly string[]): Promise<number[]> {
    if (proxyIds.length === 0) return [];
    // Sent together, not as one pipeline: each proxy's key has a hash tag (a Cluster slot) of its own,
    // and a pipeline may only address one Cluster node.
    const ttls = await Promise.all(proxyIds.map((id) => this.redis.pttl(this.keys.egressDown(id))));
    return ttls.map((ttl) => Math.max(0, ttl));
  }

  /** How many accounts leave through each proxy (kept by the store's `AccountStore`). */
  async load(): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    for (const id of await this.redis.hvals(this.keys.egressLoad()))
      counts.set(id, (counts.get(id) ?? 0) + 1);
    return counts;
  }
}
