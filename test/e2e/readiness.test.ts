import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HEARTBEAT_STALE_MS } from '@cg/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answersPing, freePort, onPath } from '../../scripts/lib/redis';
import { eventually, spawnApp } from '../support/processes';
import { startStack, type TestStack } from '../support/stack';

const readyz = async (apiUrl: string) => {
  const response = await fetch(`${apiUrl}/readyz`, { signal: AbortSignal.timeout(5_000) });
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
};

describe('/readyz on the run’s Redis', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('is 200 while Redis answers and a worker beats, 503 naming the check when no worker runs', async () => {
    expect(await readyz(stack.apiUrl)).toMatchObject({
      status: 200,
      body: { status: 'ready', redis: 'ok', workers: 1, draining: false },
    });

    // A stopped worker takes its heartbeat with it: not ready at once, not after the staleness.
    await stack.stopWorker();
    const stopped = await readyz(stack.apiUrl);
    expect(stopped.status).toBe(503);
    expect(stopped.body).toMatchObject({
      statusCode: 503,
      code: 'SERVICE_UNAVAILABLE',
      error: 'Service Unavailable',
      requestId: expect.any(String),
      redis: 'ok',
      workers: 0,
      draining: false,
    });
    expect(stopped.body.message).toContain(
      `no operations worker has reported in ${HEARTBEAT_STALE_MS / 1000} s`,
    );

    await stack.startWorker();
    expect((await readyz(stack.apiUrl)).status).toBe(200);
  });

  it('counts a worker that died without saying so until its beats go stale', async () => {
    // A beat from a worker that was SIGKILLed a moment ago still counts; one older than the staleness does not.
    const key = `${stack.prefix}:{workers}:beats`;
    await stack.stopWorker();
    const [seconds] = await stack.redis.time();
    await stack.redis.zadd(key, Number(seconds) * 1000 - HEARTBEAT_STALE_MS - 1_000, 'killed-long-ago');
    expect((await readyz(stack.apiUrl)).body.workers).toBe(0);
    await stack.redis.zadd(key, Number(seconds) * 1000, 'killed-just-now');
    expect((await readyz(stack.apiUrl)).body.workers).toBe(1);
    await stack.redis.del(key);
    await stack.startWorker();
  });

  it('is documented in the OpenAPI document beside /healthz', async () => {
    const doc = (await (await fetch(`${stack.apiUrl}/openapi.json`)).json()) as any;
    for (const path of ['/readyz', '/healthz']) {
      const entry = doc.paths[path]?.get;
      expect(entry, path).toBeDefined();
      expect(entry.responses['200'].content['application/json'].schema, path).toBeDefined();
      expect(entry.responses['5XX'].content['application/json'].schema, path).toBeDefined();
      expect(entry.security, path).toBeUndefined();
    }
  });

  it('is 503 while the process drains after SIGTERM (READY_DRAIN_MS), which still serves', async () => {
    const port = await freePort();
    const api = spawnApp('api', {
      ...stack.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      READY_DRAIN_MS: '3000',
    });
    const url = `http://127.0.0.1:${port}`;
    try {
      await eventually(
        async () => ((await readyz(url).catch(() => null))?.status === 200 ? true : undefined),
        30_000,
        'API process ready',
      );
      api.child.kill('SIGTERM');
      const draining = await eventually(
        async () => {
          const answer = await readyz(url);
          return answer.status === 503 ? answer : undefined;
        },
        2_000,
        'draining',
      );
      expect(draining.body).toMatchObject({
        code: 'SERVICE_UNAVAILABLE',
        draining: true,
        redis: 'ok',
        workers: 1,
      });
      expect(draining.body.message).toContain('this process is stopping');
      expect(draining.headers.get('connection')).toBe('close');
      // Still serving while load balancers catch up.
      const served = await fetch(`${url}/api/fansly/accounts`, { headers: { 'x-api-key': stack.keys.t1 } });
      expect(served.status).toBe(200);
      expect(await api.exited).toBe(0);
    } finally {
      api.child.kill('SIGKILL');
    }
  });
});

describe.skipIf(!onPath('redis-server'))('/readyz when Redis stops', () => {
  let stack: TestStack;
  let redis: ChildProcess | undefined;
  let port: number;
  const dataDir = mkdtempSync(join(tmpdir(), 'cg-readyz-'));
  /** A redis-server of the test's own on `port` (started again on the same port after a stop). */
  const startRedis = async () => {
    redis = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--dir', dataDir, '--save', ''],
      {
        stdio: 'ignore',
      },
    );
    await eventually(
      async () => ((await answersPing(`redis://127.0.0.1:${port}`)) ? true : undefined),
      10_000,
      'redis-server up',
    );
  };
  const stopRedis = () =>
    new Promise<void>((resolve) => {
      if (!redis || redis.exitCode !== null) return resolve();
      redis.once('exit', () => resolve());
      redis.kill('SIGTERM');
    });

  beforeAll(async () => {
    port = await freePort();
    await startRedis();
    stack = await startStack({ redisUrl: `redis://127.0.0.1:${port}` });
    // Its connection errors while Redis is away are expected, and reported by the API's own checks.
    stack.redis.on('error', () => undefined);
  });
  afterAll(async () => {
    await stack?.stop();
    await stopRedis();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('is 503 (redis down) within the check timeout while Redis is away, and 200 when it is back', async () => {
    expect((await readyz(stack.apiUrl)).status).toBe(200);
    await stopRedis();
    const asked = Date.now();
    const away = await readyz(stack.apiUrl);
    expect(Date.now() - asked).toBeLessThan(3_000);
    expect(away.status).toBe(503);
    expect(away.body).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      redis: 'down',
      workers: null,
      draining: false,
    });
    expect(away.body.message).toContain('Redis does not answer');

    await startRedis();
    // The worker's next beat (every 5 s) makes it ready again.
    await eventually(
      async () => ((await readyz(stack.apiUrl)).status === 200 ? true : undefined),
      20_000,
      'ready again',
    );
  });
});
