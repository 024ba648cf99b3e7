import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { type AddressInfo, createServer } from 'node:net';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { generateKey } from '@cg/secrets';
import { connectRedis, randomId } from '@cg/store';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../scripts/lib/redis';
import { eventually } from './support/processes';
import { testQueue } from './support/redis';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '..');
const started: ChildProcess[] = [];

afterAll(() => {
  for (const child of started) child.kill('SIGKILL');
});

const baseEnv = () => ({
  ...process.env,
  REDIS_URL: inject('redisUrl'),
  REDIS_PREFIX: `cgt-${randomId(8)}`,
  ENCRYPTION_KEY: generateKey(),
  LOG_LEVEL: 'warn',
});

describe('a process started with a bad setting', () => {
  for (const app of ['api', 'worker']) {
    it(`${app}: prints one line naming the setting and exits 1, without the key`, {
      timeout: 60_000,
    }, async () => {
      const env = baseEnv();
      const cases = [
        ['SYNC_WAIT_MS', '-5', 'invalid environment variable SYNC_WAIT_MS: must be >= 0'],
        ['LOG_LEVEL', 'loud', 'invalid environment variable LOG_LEVEL: must be one of'],
        ['ENCRYPTION_KEY', 'c2hvcnQ=', 'invalid environment variable ENCRYPTION_KEY'],
        [
          'EGRESS_PROXIES',
          '{"US":["http://u:c2hvcnQ=@127.0.0.1:3128/x"]}',
          'invalid environment variable EGRESS_PROXIES: US[0]: a proxy URL has no path',
        ],
      ] as const;
      // One process per case, all at once.
      const failures = await Promise.all(
        cases.map(([name, value]) =>
          run(process.execPath, ['--import', 'tsx', `apps/${app}/src/main.ts`], {
            cwd: root,
            env: { ...env, [name]: value },
            timeout: 50_000,
          }).catch((error: { code: number; stderr: string }) => error),
        ),
      );
      for (const [n, [, , words]] of cases.entries()) {
        const failure = failures[n];
        expect(failure).toMatchObject({ code: 1 });
        const stderr = (failure as { stderr: string }).stderr.trim();
        expect(stderr.split('\n')).toHaveLength(1);
        expect(stderr).toContain(`${app}: ${words}`);
        expect(stderr).not.toContain('c2hvcnQ=');
      }
    });
  }
});

/** A loopback port held by a server of the test's own until `release`. */
async function takenPort(): Promise<{ port: number; release: () => void }> {
  const holder = createServer();
  await new Promise<void>((listening) => holder.listen(0, '127.0.0.1', listening));
  return { port: (holder.address() as AddressInfo).port, release: () => holder.close() };
}

describe('a process started with a port another process holds', () => {
  // Each process, the setting naming each port it listens on, and how its one line starts.
  for (const [app, setting, prefix] of [
    ['api', 'PORT', 'api'],
    ['worker', 'METRICS_PORT', 'worker'],
    ['listener', 'METRICS_PORT', 'listener'],
    ['webhooks', 'METRICS_PORT', 'webhooks'],
    ['platform-sim', 'SIM_PORT', 'platform sandbox failed to start'],
  ] as const) {
    it(`${app}: prints one line naming ${setting} and its port and exits 1`, async () => {
      const { port, release } = await takenPort();
      try {
        const failure = await run(process.execPath, ['--import', 'tsx', `apps/${app}/src/main.ts`], {
          cwd: root,
          env: { ...baseEnv(), HOST: '127.0.0.1', SIM_HOST: '127.0.0.1', [setting]: String(port) },
          timeout: 30_000,
        }).catch((error: { code: number; stdout: string; stderr: string }) => error);
        expect(failure).toMatchObject({ code: 1 });
        const { stdout, stderr } = failure as { stdout: string; stderr: string };
        expect(stderr.trim()).toBe(`${prefix}: ${setting} ${port} is in use`);
        expect(stdout).not.toContain('EADDRINUSE');
      } finally {
        release();
      }
    });
  }
});

// A Redis of this test's own, which it can stop; only where redis-server is installed.
const hasRedisServer = spawnSync('redis-server', ['--version']).status === 0;

function startRedisOn(port: number): ChildProcess {
  const redis = spawn('redis-server', ['--port', String(port), '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  started.push(redis);
  return redis;
}

describe.skipIf(!hasRedisServer)('a process started before its Redis', () => {
  for (const app of ['api', 'worker']) {
    it(`${app}: says so in one line, keeps trying, and starts once Redis is up`, async () => {
      const [redisPort, port] = [await freePort(), await freePort()];
      const child = spawn(process.execPath, ['--import', 'tsx', `apps/${app}/src/main.ts`], {
        cwd: root,
        env: {
          ...baseEnv(),
          REDIS_URL: `redis://127.0.0.1:${redisPort}`,
          PORT: String(port),
          LOG_LEVEL: 'info',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      started.push(child);
      let output = '';
      for (const stream of [child.stdout, child.stderr]) stream?.on('data', (chunk) => (output += chunk));
      await eventually(
        async () => (output.includes('cannot be reached') ? true : undefined),
        20_000,
        'the line',
      );
      await new Promise((done) => setTimeout(done, 2_000));
      expect(output.match(/cannot be reached; retrying/g)).toHaveLength(1);
      expect(output).not.toContain('Unhandled error event');
      expect(output).not.toContain('worker error');
      expect(child.exitCode).toBeNull();

      startRedisOn(redisPort);
      const ready = app === 'api' ? 'listening' : 'worker started';
      await eventually(async () => (output.includes(ready) ? true : undefined), 30_000, `${app} started`);
      expect(output).toContain('is reachable again');
      // Nor a runtime warning, such as a deprecated Fastify option (`(node:123) [FSTDEP022] ...`) or
      // Ajv option (`DEPRECATED: option unicode ...`).
      expect(output).not.toMatch(/\(node:\d+\) \[\w+\]|DEPRECATED/);
      child.kill('SIGTERM');
    });
  }
});

/** Starts a redis-server of the test's own on `port` and waits until it answers; its URL. */
async function startOwnRedis(port: number): Promise<string> {
  startRedisOn(port);
  const url = `redis://127.0.0.1:${port}`;
  await eventually(
    async () => {
      const client = connectRedis(url, { maxRetriesPerRequest: 1 });
      client.on('error', () => undefined);
      try {
        return (await client.ping()) === 'PONG' ? true : undefined;
      } catch {
        return undefined;
      } finally {
        client.disconnect();
      }
    },
    10_000,
    'redis-server up',
  );
  return url;
}

/** A redis-server of the test's own on a free port, answering; its URL. */
const ownRedis = async () => startOwnRedis(await freePort());

/** Sends `args` on a connection of its own, which is then closed (SHUTDOWN never answers). */
async function redisCommand(url: string, ...args: string[]): Promise<void> {
  const admin = connectRedis(url, { maxRetriesPerRequest: 1 });
  admin.on('error', () => undefined);
  await admin.call(args[0] as string, ...args.slice(1)).catch(() => undefined);
  admin.disconnect();
}

describe.skipIf(!hasRedisServer)('the API while Redis is away', () => {
  it('answers 503 at once (/healthz degraded, other routes SERVICE_UNAVAILABLE), then serves again', async () => {
    const redisPort = await freePort();
    const startRedis = () => startRedisOn(redisPort);
    const redisUrl = await startOwnRedis(redisPort);
    const port = await freePort();
    const api = spawn(process.execPath, ['--import', 'tsx', 'apps/api/src/main.ts'], {
      cwd: root,
      env: { ...baseEnv(), REDIS_URL: redisUrl, PORT: String(port), ADMIN_PASSWORD: 'board-password' },
      stdio: 'ignore',
    });
    started.push(api);
    const health = async () => {
      const response = await fetch(`http://127.0.0.1:${port}/healthz`, {
        signal: AbortSignal.timeout(5_000),
      });
      return { status: response.status, body: await response.json() };
    };
    await eventually(() => health().catch(() => undefined), 30_000, 'the API up');

    await redisCommand(redisUrl, 'SHUTDOWN', 'NOSAVE');
    const asked = Date.now();
    expect(await health()).toEqual({ status: 503, body: { status: 'degraded', redis: 'down' } });
    expect(Date.now() - asked).toBeLessThan(3_000);
    // A route that needs Redis (the key's lookup): it cannot be served, and says so instead of hanging.
    const route = () =>
      fetch(`http://127.0.0.1:${port}/api/fansly/accounts`, {
        headers: { 'x-api-key': `cgk_${'x'.repeat(32)}` },
        signal: AbortSignal.timeout(5_000),
      });
    const refused = await route();
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(await refused.json()).toMatchObject({ statusCode: 503, code: 'SERVICE_UNAVAILABLE' });
    // The board too, in the same shape (its plugin's own error handler reshaped it).
    const board = await fetch(`http://127.0.0.1:${port}/admin/queues/api/queues`, {
      headers: { authorization: `Basic ${Buffer.from('admin:board-password').toString('base64')}` },
      signal: AbortSignal.timeout(5_000),
    });
    expect(board.status).toBe(503);
    expect(await board.json()).toMatchObject({ code: 'SERVICE_UNAVAILABLE', requestId: expect.any(String) });

    startRedis();
    await eventually(
      async () => {
        const answer = await health().catch(() => undefined);
        return answer?.status === 200 ? answer : undefined;
      },
      20_000,
      'healthy again',
    );
    expect((await route()).status).toBe(401);
  });
});

describe.skipIf(!hasRedisServer)('while Redis holds its connections and answers nothing', () => {
  it('the API refuses new requests at once (503), and serves again when Redis answers', async () => {
    const redisUrl = await ownRedis();
    const port = await freePort();
    const api = spawn(process.execPath, ['--import', 'tsx', 'apps/api/src/main.ts'], {
      cwd: root,
      env: { ...baseEnv(), REDIS_URL: redisUrl, PORT: String(port) },
      stdio: 'ignore',
    });
    started.push(api);
    const route = () =>
      fetch(`http://127.0.0.1:${port}/api/fansly/accounts`, {
        headers: { 'x-api-key': `cgk_${'x'.repeat(32)}` },
        signal: AbortSignal.timeout(3_000),
      });
    await eventually(() => route().catch(() => undefined), 30_000, 'the API up');

    await redisCommand(redisUrl, 'CLIENT', 'PAUSE', '8000', 'ALL');
    await new Promise((done) => setTimeout(done, 3_000));
    const asked = Date.now();
    const refused = await route();
    expect(Date.now() - asked).toBeLessThan(1_000);
    expect(refused.status).toBe(503);
    expect(await refused.json()).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });

    await eventually(
      async () => ((await route().catch(() => undefined))?.status === 401 ? true : undefined),
      15_000,
      'served again',
    );
  });

  it('a synchronous wait ends on time, its job’s state unknown, instead of waiting for Redis', async () => {
    const redisUrl = await ownRedis();
    const redis = connectRedis(redisUrl);
    redis.on('error', () => undefined);
    const queue = testQueue(redis, `cgt-${randomId(8)}`);
    try {
      await queue.ready();
      const submitted = queue.submit(
        { op: 'me', tenantId: 't', accountId: 'acct_1', lane: 'platform:1', input: {}, at: Date.now() },
        1_500,
      );
      await new Promise((done) => setTimeout(done, 500));
      await redisCommand(redisUrl, 'CLIENT', 'PAUSE', '6000', 'ALL');
      const asked = Date.now();
      const { jobId, result } = await submitted;
      // The wait's own end (1.5 s from the submit) and at most a second's read of the job.
      expect(Date.now() - asked).toBeLessThan(3_000);
      expect(result).toEqual({ state: 'pending', jobState: 'unknown' });
      // A request following that job (an identical one, a repeated Idempotency-Key) does not wait
      // for Redis either: its first read and its last are bounded.
      const following = Date.now();
      expect(await queue.follow(jobId, 300)).toEqual({ state: 'pending', jobState: 'unknown' });
      expect(Date.now() - following).toBeLessThan(2_500);
    } finally {
      await queue.close();
      redis.disconnect();
    }
  });

  it('a worker told to stop exits within its bound while Redis is away', async () => {
    const redisUrl = await ownRedis();
    const worker = spawn(process.execPath, ['--import', 'tsx', 'apps/worker/src/main.ts'], {
      cwd: root,
      env: {
        ...baseEnv(),
        REDIS_URL: redisUrl,
        LOG_LEVEL: 'info',
        SHUTDOWN_GRACE_MS: '500',
        PLATFORM_TIMEOUT_MS: '500',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    started.push(worker);
    let output = '';
    for (const stream of [worker.stdout, worker.stderr]) stream?.on('data', (chunk) => (output += chunk));
    await eventually(async () => (output.includes('worker started') ? true : undefined), 30_000, 'worker up');

    await redisCommand(redisUrl, 'SHUTDOWN', 'NOSAVE');
    await eventually(
      async () => (output.includes('cannot be reached') ? true : undefined),
      10_000,
      'Redis gone',
    );
    const exited = new Promise<number | null>((done) => worker.once('exit', (code) => done(code)));
    const stopped = Date.now();
    worker.kill('SIGTERM');
    // The grace (0.5 s), then at most 3 × PLATFORM_TIMEOUT_MS + 5 s for the forced close.
    const code = await Promise.race([
      exited,
      new Promise<'running'>((done) => setTimeout(done, 15_000, 'running')),
    ]);
    expect(code).not.toBe('running');
    expect(Date.now() - stopped).toBeLessThan(10_000);
  });
});
