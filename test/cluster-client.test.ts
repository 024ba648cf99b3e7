import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { ProxyHealth } from '@cg/platform-access';
import { generateKey, parseKeyring } from '@cg/secrets';
import {
  ApiKeyStore,
  connectRedis,
  createStore,
  parseSeeds,
  type Redis,
  randomId,
  redisAddress,
  scanKeys,
  storeKeys,
} from '@cg/store';
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onPath, type RedisCluster, spawnCluster } from '../scripts/lib/redis';

const root = resolve(import.meta.dirname, '..');
const run = promisify(execFile);

describe('REDIS_CLUSTER_NODES', () => {
  it('reads seeds as host:port or URLs; a URL’s password and TLS apply to every node', () => {
    expect(parseSeeds(' 10.0.0.1:7000, 10.0.0.2 ,')).toEqual({
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: '10.0.0.2', port: 6379 },
      ],
      auth: {},
    });
    expect(parseSeeds('redis://10.0.0.1:7000,rediss://gw:p%40ss@10.0.0.2:7001')).toEqual({
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: '10.0.0.2', port: 7001 },
      ],
      auth: { username: 'gw', password: 'p@ss', tls: {} },
    });
  });

  it('refuses a bad seed without repeating it (it may hold a password)', () => {
    expect(() => parseSeeds('redis://:secret-pw@')).toThrow(/REDIS_CLUSTER_NODES/);
    expect(() => parseSeeds('redis://:secret-pw@')).not.toThrow(/secret-pw/);
  });

  it('is a Cluster client, named in messages by its seeds, never by a password', () => {
    const redis = connectRedis(
      { REDIS_URL: 'redis://unused:6379', REDIS_CLUSTER_NODES: 'redis://:secret-pw@127.0.0.1:1,127.0.0.2:2' },
      { lazyConnect: true },
    );
    expect(redis).toBeInstanceOf(Cluster);
    expect(redisAddress(redis)).toBe('cluster 127.0.0.1:1,127.0.0.2:2');
    redis.disconnect();
    const plain = connectRedis({ REDIS_URL: 'redis://:secret-pw@127.0.0.1:1' }, { lazyConnect: true });
    expect(plain).not.toBeInstanceOf(Cluster);
    expect(redisAddress(plain)).toBe('127.0.0.1:1');
    plain.disconnect();
  });

  it('`pnpm keys` names an unreachable cluster by its seeds, without the password', async () => {
    const failed = await run(process.execPath, ['--import', 'tsx', 'apps/api/src/cli.ts', 'list'], {
      cwd: root,
      env: { ...process.env, REDIS_CLUSTER_NODES: 'redis://:secret-pw@127.0.0.1:1' },
    }).catch((error: { code: number; stdout: string; stderr: string }) => error);
    expect('code' in failed && failed.code).toBe(1);
    expect(failed.stderr).toContain('Redis at cluster 127.0.0.1:1 cannot be reached (REDIS_CLUSTER_NODES)');
    expect(failed.stdout + failed.stderr).not.toContain('secret-pw');
  }, 20_000);
});

// The store's commands that address several hash tags at once (one per tenant, one per proxy) and its
// SCANs, on a Cluster of three masters, where those keys lie on different nodes.
describe.skipIf(!onPath('redis-server') || !onPath('redis-cli'))(
  'the store on a three-master Redis Cluster',
  () => {
    let dir: string;
    let cluster: RedisCluster;
    let redis: Redis;
    const prefix = `cgt-${randomId(8)}`;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'cg-cluster-client-'));
      cluster = await spawnCluster(dir, { replicas: 0 });
      redis = connectRedis({ REDIS_URL: cluster.url, REDIS_CLUSTER_NODES: cluster.nodes });
    }, 60_000);
    afterAll(async () => {
      redis?.disconnect();
      await cluster?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    /** The tenants `t0`…, enough that their hash tags fall on every master. */
    const tenants = Array.from({ length: 12 }, (_, i) => `t${i}`);

    it('finds every key of every master with SCAN, each once', async () => {
      const keys = tenants.map((tenant) => `${prefix}:{t:${tenant}}:probe`);
      await Promise.all(keys.map((key) => redis.set(key, '1')));
      const masters = new Set(await Promise.all(keys.map((key) => masterOf(cluster, key))));
      expect(masters.size).toBe(3);

      expect((await scanKeys(redis, `${prefix}:*`)).sort()).toEqual([...keys].sort());
      // What SCAN on one node (a plain client's) finds: that master's keys only.
      const one = connectRedis(cluster.url);
      expect((await scanKeys(one, `${prefix}:*`)).length).toBeLessThan(keys.length);
      one.disconnect();
      await Promise.all(keys.map((key) => redis.unlink(key)));
    });

    it('keeps accounts of tenants on different masters: which are connected, which tenants have any', async () => {
      const store = createStore(redis, prefix, parseKeyring(generateKey()));
      const accounts = await Promise.all(
        tenants.map((tenantId, i) =>
          store.accounts.connect({
            tenantId,
            name: `Creator ${i}`,
            countryCode: 'US',
            platformAccountId: `p${i}`,
            username: `creator_${i}`,
            credentials: { username: `creator_${i}`, password: 'pw' },
            session: { token: `token-${i}`, deviceId: 'd', deviceIdAt: Date.now() },
            egress: { id: `proxy-${i % 4}`, label: `Proxy ${i % 4}` },
          }),
        ),
      );
      await store.accounts.remove('t0', accounts[0]?.accountId as string);

      expect(await store.accounts.connected(accounts)).toEqual(tenants.map((_, i) => i !== 0));
      expect((await store.accounts.tenants()).sort()).toEqual(tenants.slice(1).sort());

      const rule = { failures: 1, windowMs: 10_000, cooldownMs: 10_000 };
      const proxies = new ProxyHealth(redis, storeKeys(prefix));
      await proxies.recordFailure('proxy-2', rule);
      const down = await proxies.downFor(['proxy-0', 'proxy-1', 'proxy-2', 'proxy-3']);
      expect(down.map((ms) => ms > 0)).toEqual([false, false, true, false]);

      for (const key of await scanKeys(redis, `${prefix}:*`)) await redis.unlink(key);
    });

    it('creates and lists API keys through `pnpm keys` on the cluster', async () => {
      const env = { ...process.env, REDIS_CLUSTER_NODES: cluster.nodes, REDIS_PREFIX: prefix };
      const cli = (...args: string[]) =>
        run(process.execPath, ['--import', 'tsx', 'apps/api/src/cli.ts', ...args], { cwd: root, env });
      const key = (await cli('create', '--tenant', 'acme', '--label', 'cluster')).stdout.trim();
      expect(await new ApiKeyStore(redis, storeKeys(prefix)).resolve(key)).toMatchObject({
        tenantId: 'acme',
      });
      expect((await cli('list')).stdout).toContain('\tacme\t');
      for (const stale of await scanKeys(redis, `${prefix}:*`)) await redis.unlink(stale);
    }, 30_000);
  },
);

/** The port of the master serving `key`'s slot. */
async function masterOf(cluster: RedisCluster, key: string): Promise<number> {
  const probe = connectRedis(cluster.url);
  try {
    const slot = Number(await probe.call('CLUSTER', 'KEYSLOT', key));
    const ranges = (await probe.call('CLUSTER', 'SLOTS')) as [number, number, [string, number]][];
    return Number(ranges.find(([from, to]) => from <= slot && slot <= to)?.[2][1]);
  } finally {
    probe.disconnect();
  }
}
