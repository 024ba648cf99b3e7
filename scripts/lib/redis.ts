import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer, Socket } from 'node:net';

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
export async function spawnRedis(dataDir: string, args: string[] = []): Promise<RedisHandle> {
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
  return {
    url,
    source: 'spawned',
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
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
