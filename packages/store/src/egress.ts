import type { Redis } from 'ioredis';
import type { StoreKeys } from './keys';

/**
 * Egress proxies' state, shared by every process: how many accounts leave through each, and which
 * are down. A proxy failing `failures` times within `windowMs` is down for `cooldownMs`.
 */
export class EgressStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: StoreKeys,
  ) {}

  /** Counts a proxy-layer failure; says whether the proxy is down (now, or already). */
  async recordFailure(proxyId: string, rule: { failures: number; windowMs: number; cooldownMs: number }) {
    const down = await this.redis.eval(
      `if redis.call('EXISTS', KEYS[2]) == 1 then return 1 end
       local failures = redis.call('INCR', KEYS[1])
       if failures == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
       if failures < tonumber(ARGV[1]) then return 0 end
       redis.call('DEL', KEYS[1])
       redis.call('SET', KEYS[2], '1', 'PX', ARGV[3])
       return 1`,
      2,
      this.keys.egressFailures(proxyId),
      this.keys.egressDown(proxyId),
      String(rule.failures),
      String(rule.windowMs),
      String(rule.cooldownMs),
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

  /** How many accounts leave through each proxy (kept by `AccountStore`). */
  async load(): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    for (const id of await this.redis.hvals(this.keys.egressLoad()))
      counts.set(id, (counts.get(id) ?? 0) + 1);
    return counts;
  }
}
