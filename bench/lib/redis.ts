import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectRedis, type Redis } from '@cg/store';
import { ensureRedis, onPath, spawnRedis } from '../../scripts/lib/redis';

export interface BenchRedis {
  url: string;
  /**
   * `dedicated`: a redis-server the bench started for itself, so INFO commandstats and used_memory
   * count the gateway's traffic only and the data may be flushed between scenarios. Otherwise a
   * Redis others may use too (REDIS_URL or 127.0.0.1:6379): figures are then upper bounds.
   */
  source: 'dedicated' | 'env' | 'local' | 'spawned' | 'container';
  version: string;
  stop(): Promise<void>;
}

/**
 * A redis-server of the bench's own on a free loopback port when one is on PATH, configured like
 * the production compose file (AOF every second, no RDB snapshots, noeviction) so memory and
 * command costs match a deployment; else whatever `ensureRedis` finds.
 */
export async function startBenchRedis(): Promise<BenchRedis> {
  if (onPath('redis-server')) {
    const dir = mkdtempSync(join(tmpdir(), 'cg-bench-redis-'));
    const spawned = await spawnRedis(dir);
    return {
      url: spawned.url,
      source: 'dedicated',
      version: await serverVersion(spawned.url),
      stop: async () => {
        await spawned.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const found = await ensureRedis({
    envUrl: process.env.REDIS_URL,
    dataDir: join(tmpdir(), 'cg-bench-redis'),
  });
  return { ...found, version: await serverVersion(found.url) };
}

async function serverVersion(url: string): Promise<string> {
  const redis = connectRedis(url);
  try {
    return /redis_version:(\S+)/.exec(await redis.info('server'))?.[1] ?? 'unknown';
  } finally {
    redis.disconnect();
  }
}

export type CommandCounts = Map<string, number>;

export interface CommandDelta {
  /** Sum of `calls` over every command (commands a Lua script runs are counted by Redis too). */
  total: number;
  byCommand: Record<string, number>;
}

/** Reads what the bench measures in Redis, and clears a scenario's keys. */
export class RedisProbe {
  private readonly redis: Redis;

  constructor(
    url: string,
    private readonly dedicated: boolean,
  ) {
    this.redis = connectRedis(url);
  }

  /** `calls` per command from INFO commandstats. */
  async commandCounts(): Promise<CommandCounts> {
    const counts: CommandCounts = new Map();
    for (const line of (await this.redis.info('commandstats')).split('\n')) {
      const match = /^cmdstat_([^:]+):calls=(\d+)/.exec(line.trim());
      if (match?.[1] && match[2]) counts.set(match[1], Number(match[2]));
    }
    return counts;
  }

  /** CPU time the Redis server has used (user + system), ms. */
  async cpuMs(): Promise<number> {
    const info = await this.redis.info('cpu');
    const field = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? Number.NaN);
    return (field('used_cpu_user') + field('used_cpu_sys')) * 1000;
  }

  /** The server's process id (the bench's Redis runs on this machine). */
  async pid(): Promise<number | undefined> {
    const pid = Number(/process_id:(\d+)/.exec(await this.redis.info('server'))?.[1]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  }

  async usedMemory(): Promise<number> {
    return Number(/used_memory:(\d+)/.exec(await this.redis.info('memory'))?.[1] ?? Number.NaN);
  }

  /** Everything under a gateway prefix (store keys `p:…`, queue keys `{p:q}:…`) is removed. */
  async clear(prefix: string): Promise<void> {
    if (this.dedicated) {
      await this.redis.flushall();
      return;
    }
    for (const pattern of [`${prefix}:*`, `{${prefix}:q}:*`]) {
      let cursor = '0';
      do {
        const [next, keys] = await this.redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
        cursor = next;
        if (keys.length > 0) await this.redis.unlink(...keys);
      } while (cursor !== '0');
    }
  }

  /**
   * Runs `during` with MONITOR on and counts what Redis executed: commands sent by clients (each a
   * round trip, or part of a pipeline) apart from those Lua scripts ran inside Redis. MONITOR slows
   * Redis down, so only short, counted runs use it, never a timed one.
   */
  async monitor<T>(
    url: string,
    during: () => Promise<T>,
  ): Promise<{ result: T; sent: Record<string, number>; inScripts: Record<string, number> }> {
    const connection = connectRedis(url);
    const sent: Record<string, number> = {};
    const inScripts: Record<string, number> = {};
    const monitor = await connection.monitor();
    // Once `disconnect` has left monitoring mode, lines still arriving are replies to no command,
    // which ioredis reports as errors ("Command queue state error"); the count is over by then.
    monitor.on('error', () => undefined);
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      const name = (args[0] ?? '').toLowerCase();
      if (name === 'info' || name === 'monitor') return;
      const command = name === 'evalsha' || name === 'eval' ? scriptLabel(args) : name;
      const counts = source === 'lua' ? inScripts : sent;
      counts[command] = (counts[command] ?? 0) + 1;
    });
    try {
      return { result: await during(), sent, inScripts };
    } finally {
      monitor.disconnect();
      connection.disconnect();
    }
  }

  close(): void {
    this.redis.disconnect();
  }
}

/**
 * What a script call is: the lane scripts' first key is the lanes index (`…:lanes`); BullMQ's scripts
 * are told apart by their number of keys, which their files are named by (`moveToActive-11.lua`).
 */
function scriptLabel(args: string[]): string {
  return args[3]?.endsWith(':lanes') ? 'lane script' : `bullmq/${args[2] ?? '?'}`;
}

/**
 * Commands between two readings. The probe's own INFO calls are left out: they are the
 * measurement, not the gateway's traffic.
 */
export function commandDelta(before: CommandCounts, after: CommandCounts): CommandDelta {
  const byCommand: Record<string, number> = {};
  let total = 0;
  for (const [command, calls] of after) {
    if (command === 'info') continue;
    const delta = calls - (before.get(command) ?? 0);
    if (delta > 0) {
      byCommand[command] = delta;
      total += delta;
    }
  }
  return { total, byCommand };
}
