import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

export interface RedisHandle {
  url: string;
  /** How it was found: the caller's REDIS_URL, a local server, one we started, or a container. */
  source: 'env' | 'local' | 'spawned' | 'container';
  stop(): Promise<void>;
}

const LOCAL_URL = 'redis://127.0.0.1:6379';

/**
 * Finds a Redis for the local stack and the tests: `REDIS_URL` if set, else 127.0.0.1:6379 if it
 * answers, else a `redis-server` from PATH on a free port with its data under `dataDir`, else (only
 * where a Docker engine answers) a container; otherwise it fails naming the ways to get one.
 */
export async function ensureRedis(options: {
  envUrl: string | undefined;
  dataDir: string;
  allowContainer?: boolean;
}): Promise<RedisHandle> {
  const none = async () => {};
  if (options.envUrl) return { url: options.envUrl, source: 'env', stop: none };
  if (await answersPing(LOCAL_URL)) return { url: LOCAL_URL, source: 'local', stop: none };
  if (onPath('redis-server')) return spawnRedis(options.dataDir);
  if (options.allowContainer && dockerAnswers()) return startContainer();
  throw new Error(
    'No Redis found: set REDIS_URL, or install redis-server (e.g. `apt-get install redis-server`), or run `docker compose up redis`.',
  );
}

export function answersPing(url: string, timeoutMs = 500): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    socket.connect(Number(port || 6379), hostname, () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}

export function onPath(command: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function dockerAnswers(): boolean {
  try {
    execFileSync('docker', ['info'], { stdio: 'ignore', timeout: 5000 });
    return true;
  } catch {
    return false;
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/**
 * A redis-server of our own on a free loopback port, configured like docker-compose.yml (AOF, fsync
 * every second by default, no RDB snapshots, noeviction), with its data under `dataDir` and any
 * further `args` (the tests' one-node Cluster).
 */
export async function spawnRedis(dataDir: string, args: string[] = []): Promise<SpawnedRedis> {
  mkdirSync(dataDir, { recursive: true });
  const port = await freePort();
  const child: ChildProcess = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dataDir,
      '--appendonly',
      'yes',
      '--save',
      '',
      '--maxmemory-policy',
      'noeviction',
      ...args,
    ],
    { stdio: 'ignore' },
  );
  const url = `redis://127.0.0.1:${port}`;
  for (let i = 0; i < 100 && !(await answersPing(url)); i++) await new Promise((r) => setTimeout(r, 50));
  if (!(await answersPing(url))) {
    child.kill();
    throw new Error(`redis-server did not start on port ${port}`);
  }
  const signal = (name: NodeJS.Signals) =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill(name);
    });
  return { url, port, source: 'spawned', stop: () => signal('SIGTERM'), kill: () => signal('SIGKILL') };
}

/** A redis-server `spawnRedis` started: its port, and a crash (SIGKILL) besides a stop. */
export interface SpawnedRedis extends RedisHandle {
  port: number;
  kill(): Promise<void>;
}

export interface RedisCluster {
  /** `REDIS_CLUSTER_NODES`: every node's `127.0.0.1:port`. */
  nodes: string;
  /** The first node's URL (a plain client there sees its own slots only). */
  url: string;
  servers: SpawnedRedis[];
  stop(): Promise<void>;
}

/**
 * A real Redis Cluster on loopback: `masters` masters with `replicas` replicas each (three and one: six
 * `redis-server --cluster-enabled yes`), joined by `redis-cli --cluster create`, with its data under
 * `dataDir`. Returns once every node says `cluster_state:ok` and every replica is in sync.
 * `nodeTimeoutMs` is `cluster-node-timeout`: how long a master may be silent before its replica takes
 * over (Redis' default is 15 s; tests use less). Without AOF, as a cache-like test cluster: a failover
 * may lose what a master acknowledged but had not yet sent to its replica.
 */
export async function spawnCluster(
  dataDir: string,
  options: { masters?: number; replicas?: number; nodeTimeoutMs?: number } = {},
): Promise<RedisCluster> {
  const { masters = 3, replicas = 1, nodeTimeoutMs = 2_000 } = options;
  const servers: SpawnedRedis[] = [];
  const stop = async () => {
    await Promise.all(servers.map((server) => server.stop()));
  };
  try {
    for (let i = 0; i < masters * (1 + replicas); i++) {
      // The cluster bus port is named: port + 10000, its default, may be past 65535.
      const busPort = await freePort();
      servers.push(
        await spawnRedis(join(dataDir, `node-${i}`), [
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          'nodes.conf',
          '--cluster-port',
          String(busPort),
          '--cluster-node-timeout',
          String(nodeTimeoutMs),
          // A replica takes over however long its master was silent (the tests' timeouts are short).
          '--cluster-replica-validity-factor',
          '0',
          '--appendonly',
          'no',
        ]),
      );
    }
    const addresses = servers.map((server) => `127.0.0.1:${server.port}`);
    await execFileAsync(
      'redis-cli',
      ['--cluster', 'create', ...addresses, '--cluster-replicas', String(replicas), '--cluster-yes'],
      { timeout: 30_000 },
    );
    await waitForCluster(servers, masters * replicas);
    return { nodes: addresses.join(','), url: servers[0]?.url ?? '', servers, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Until every node says `cluster_state:ok` and `replicaCount` replicas have their master's data. */
async function waitForCluster(servers: SpawnedRedis[], replicaCount: number, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  const ask = async (port: number, ...command: string[]) =>
    (await execFileAsync('redis-cli', ['-p', String(port), ...command])).stdout;
  for (;;) {
    const infos = await Promise.all(
      servers.map(
        async (s) => (await ask(s.port, 'CLUSTER', 'INFO')) + (await ask(s.port, 'INFO', 'replication')),
      ),
    );
    const ok = infos.every((info) => info.includes('cluster_state:ok'));
    const synced = infos.filter((info) => info.includes('master_link_status:up')).length;
    if (ok && synced === replicaCount) return;
    if (Date.now() > deadline) throw new Error(`the Redis Cluster did not settle within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function startContainer(): Promise<RedisHandle> {
  const { GenericContainer } = await import('testcontainers');
  const container = await new GenericContainer('redis:7-alpine').withExposedPorts(6379).start();
  return {
    url: `redis://${container.getHost()}:${container.getMappedPort(6379)}`,
    source: 'container',
    stop: async () => {
      await container.stop();
    },
  };
}
