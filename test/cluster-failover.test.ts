import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectRedis, type Redis } from '@cg/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onPath, type RedisCluster, type SpawnedRedis, spawnCluster } from '../scripts/lib/redis';
import { connectWithSim } from './support/common';
import { tellOnFailure } from './support/logs';
import { eventually, sleep } from './support/processes';
import type { SimSession } from './support/sim';
import { observations } from './support/sim';
import { account, finished, startStack, type TestStack } from './support/stack';

/** How long a master may be silent before its replica takes over (Redis' default is 15 s). */
const NODE_TIMEOUT_MS = 1_500;
/**
 * Requests in flight at once, the pause of each sender between two (about 25 writes a second in all,
 * which the account's lane works off in about the drill's time), and how long the load runs before
 * the crash and after the takeover.
 */
const CONCURRENCY = 4;
const PAUSE_MS = 150;
const BEFORE_MS = 2_000;
const AFTER_MS = 4_000;

interface Sent {
  name: string;
  idempotencyKey: string;
  /** The answer to the first try (0: no answer: the request failed or timed out). */
  status: number;
  statusUrl?: string;
  /** How long the answer took (ms). */
  tookMs: number;
}

// Redis Cluster for real: a six-node cluster of its own (three masters, three replicas), the gateway
// on it, writes under load, and the master holding the queue's slot SIGKILLed. Its replica takes
// over after cluster-node-timeout; every write the gateway accepted (202) must end, completed or
// failed, exactly once, and the platform must hold each write at most once and every completed one.
describe.skipIf(!onPath('redis-server') || !onPath('redis-cli'))(
  'a Redis Cluster losing a master under load',
  () => {
    let dir: string;
    let cluster: RedisCluster;
    let stack: TestStack;
    let accountId: string;
    let sim: SimSession;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'cg-failover-'));
      cluster = await spawnCluster(dir, { nodeTimeoutMs: NODE_TIMEOUT_MS });
      stack = await startStack({
        redisUrl: cluster.url,
        redisClusterNodes: cluster.nodes,
      });
      ({ accountId, sim } = await connectWithSim(stack, 'creator_demo'));
    }, 60_000);
    afterAll(async () => {
      await stack?.stop();
      await cluster?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('fails the queue’s master over to its replica; no accepted write is lost or done twice', async () => {
      const sent: Sent[] = [];
      const send = async (name: string, idempotencyKey: string): Promise<Sent> => {
        const start = Date.now();
        try {
          const response = await fetch(`${stack.apiUrl}/api/fansly/${accountId}/lists/create`, {
            method: 'POST',
            headers: {
              'x-api-key': stack.keys.t1,
              'content-type': 'application/json',
              prefer: 'respond-async',
              'idempotency-key': idempotencyKey,
            },
            body: JSON.stringify({ name }),
            signal: AbortSignal.timeout(25_000),
          });
          const body = (await response.json()) as any;
          const { status } = response;
          return {
            name,
            idempotencyKey,
            status,
            statusUrl: body?.data?.statusUrl,
            tookMs: Date.now() - start,
          };
        } catch {
          return { name, idempotencyKey, status: 0, tookMs: Date.now() - start };
        }
      };
      let running = true;
      const load = Array.from({ length: CONCURRENCY }, async () => {
        while (running) {
          const n = sent.length;
          const slot: Sent = {
            name: `failover ${n}`,
            idempotencyKey: `failover-${n}`,
            status: -1,
            tookMs: 0,
          };
          sent.push(slot);
          Object.assign(slot, await send(slot.name, slot.idempotencyKey));
          await sleep(PAUSE_MS);
        }
      });

      await sleep(BEFORE_MS);
      const victim = await queueMaster(stack, cluster);
      const killedAt = Date.now();
      const sentBefore = sent.length;
      await victim.kill();
      const successor = await takenOver(cluster, victim, `{${stack.prefix}:q}`);
      const tookOverMs = Date.now() - killedAt;
      await sleep(AFTER_MS);
      running = false;
      await Promise.all(load);

      const slowestMs = Math.max(...sent.map((s) => s.tookMs));
      // The load was there while the slot had no master: requests of that time waited for the replica.
      expect(slowestMs).toBeGreaterThan(NODE_TIMEOUT_MS);
      // A caller whose request got no 202 tries again with the same Idempotency-Key, as it should.
      const refused = sent.filter((s) => s.status !== 202);
      for (const s of refused) Object.assign(s, await send(s.name, s.idempotencyKey));
      expect(sent.filter((s) => s.status !== 202)).toEqual([]);

      // Every accepted write ends, once: its status URL gives its final answer, and keeps giving it.
      const ends = await Promise.all(
        sent.map(async (s) => {
          const end = await finished(s.statusUrl as string, stack.keys.t1, 60_000);
          const again = await finished(s.statusUrl as string, stack.keys.t1);
          return { ...s, end, again };
        }),
      );
      for (const e of ends) expect(e.again.status).toBe(e.end.status);
      const completed = ends.filter((e) => e.end.status === 201);
      const failed = ends.filter((e) => e.end.status !== 201);

      // The platform holds each write at most once, and every completed one, under the id answered.
      const lists = await sim.get<{ id: string; label: string }[]>('/lists');
      const byName = new Map<string, string[]>();
      for (const list of lists) byName.set(list.label, [...(byName.get(list.label) ?? []), list.id]);
      for (const e of ends) expect(byName.get(e.name)?.length ?? 0).toBeLessThanOrEqual(1);
      for (const e of completed) expect(byName.get(e.name)).toEqual([e.end.body.data.data.response.id]);
      const platformId = account(stack, 'creator_demo').platformAccountId;
      expect((await observations(stack, platformId)).duplicates).toEqual([]);

      tellOnFailure(
        `cluster failover: master :${victim.port} killed after ${sentBefore} writes, replica :${successor} took the slot in ${tookOverMs} ms; ` +
          `the slowest 202 took ${slowestMs} ms; ` +
          `${sent.length} writes accepted (${refused.length} after a retry), ${completed.length} completed, ` +
          `${failed.length} failed (${[...new Set(failed.map((f) => f.end.body?.code))].join(', ') || 'none'}), ` +
          `${lists.filter((l) => l.label.startsWith('failover ')).length} on the platform`,
      );
      expect(completed.length).toBeGreaterThan(0);
      expect(tookOverMs).toBeLessThan(15_000);
    }, 120_000);
  },
);

/** The server that is master of the slot of the queue's hash tag (`{prefix:q}`). */
async function queueMaster(stack: TestStack, cluster: RedisCluster): Promise<SpawnedRedis> {
  const port = await masterPortOf(cluster.servers[0] as SpawnedRedis, `{${stack.prefix}:q}`);
  const server = cluster.servers.find((s) => s.port === port);
  if (!server) throw new Error(`no server on port ${port}`);
  return server;
}

/** Until a surviving node says the cluster is ok with another master for `key`'s slot: its port. */
async function takenOver(cluster: RedisCluster, victim: SpawnedRedis, key: string): Promise<number> {
  const witness = cluster.servers.find((s) => s !== victim) as SpawnedRedis;
  return eventually(
    async () => {
      const port = await masterPortOf(witness, key).catch(() => undefined);
      const info = await ask(witness, 'CLUSTER', 'INFO').catch(() => '');
      return port !== undefined && port !== victim.port && String(info).includes('cluster_state:ok')
        ? port
        : undefined;
    },
    30_000,
    'a replica takes over the slot',
  );
}

/** The port of the master serving `key`'s slot, as `server` sees the cluster (CLUSTER SLOTS). */
async function masterPortOf(server: SpawnedRedis, key: string): Promise<number> {
  const slot = Number(await ask(server, 'CLUSTER', 'KEYSLOT', key));
  const ranges = (await ask(server, 'CLUSTER', 'SLOTS')) as [number, number, [string, number]][];
  const range = ranges.find(([from, to]) => from <= slot && slot <= to);
  if (!range) throw new Error(`no master serves slot ${slot}`);
  return Number(range[2][1]);
}

/** One command to one node, through a plain client of its own (not the gateway's Cluster client). */
async function ask(server: SpawnedRedis, ...command: string[]): Promise<unknown> {
  const redis: Redis = connectRedis(server.url, { maxRetriesPerRequest: 1, lazyConnect: true });
  redis.on('error', () => undefined);
  try {
    return await redis.call(command[0] as string, ...command.slice(1));
  } finally {
    redis.disconnect();
  }
}
