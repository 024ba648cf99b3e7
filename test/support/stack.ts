import { rmSync } from 'node:fs';
import type { LookupFunction } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApi } from '@cg/api';
import { loadGatewayConfig, webhookSettings } from '@cg/config';
import { createEvents, type Events } from '@cg/events';
import { createListener } from '@cg/listener';
import { buildSim, type SimOptions } from '@cg/platform-sim';
import { generateKey, parseKeyring } from '@cg/secrets';
import {
  ApiKeyStore,
  connectRedis,
  type Redis,
  randomId,
  scanKeys as scanAll,
  storeKeys,
  WorkerHeartbeats,
} from '@cg/store';
import { createWebhookDelivery, type WebhookDelivery } from '@cg/webhooks';
import { createGatewayWorker, type GatewayWorker } from '@cg/worker';
import type { FastifyInstance } from 'fastify';
import { testLogger } from './logs';
import { eventually } from './processes';
import { providedRedis } from './provided';

export interface TestStack {
  apiUrl: string;
  simUrl: string;
  prefix: string;
  redis: Redis;
  /** The gateway's environment, for processes a test starts itself. */
  env: Record<string, string>;
  /** A key of tenant `t1` and one of tenant `t2`. */
  keys: { t1: string; t2: string };
  fixtures: SimFixtures;
  startWorker(): Promise<void>;
  stopWorker(): Promise<void>;
  stop(): Promise<void>;
}

export interface SimAccountFixture {
  username: string;
  password: string;
  twofaCode: string | null;
  platformAccountId: string;
  [key: string]: unknown;
}

export interface SimFixtures {
  accounts: SimAccountFixture[];
  profilePlatformAccountIds: string[];
}

/**
 * The whole gateway on loopback for one test file: the sandbox, the API and (unless `worker: false`)
 * a worker, on the run's Redis under a prefix of the file's own, removed again by `stop`.
 */
export async function startStack(
  options: {
    worker?: boolean;
    /** Also the webhook delivery process (apps/webhooks), in-process like the worker. */
    webhooks?: boolean;
    /** Also a listener (apps/listener), in-process like the worker. */
    listener?: boolean;
    env?: Record<string, string>;
    sim?: Partial<SimOptions>;
    /** Another Redis than the run's (the Cluster tests'). */
    redisUrl?: string;
    /** With `redisUrl`: that Redis is a Cluster with these seeds (`REDIS_CLUSTER_NODES`). */
    redisClusterNodes?: string;
    /** The resolver of webhook hosts, in the API and the delivery process (a stub: no network). */
    lookup?: LookupFunction;
  } = {},
): Promise<TestStack> {
  // The run's Redis (a Cluster on the cluster project), unless the file brings its own.
  const redisSettings = options.redisUrl
    ? {
        REDIS_URL: options.redisUrl,
        ...(options.redisClusterNodes ? { REDIS_CLUSTER_NODES: options.redisClusterNodes } : {}),
      }
    : providedRedis();
  const prefix = `cgt-${randomId(8)}`;
  const sim = await buildSim({ logLevel: 'silent', ...options.sim });
  const simUrl = await sim.listen({ port: 0, host: '127.0.0.1' });
  const env: Record<string, string> = {
    ...redisSettings,
    REDIS_PREFIX: prefix,
    ENCRYPTION_KEY: generateKey(),
    PLATFORM_URL: simUrl,
    PLATFORM_WS_URL: `${simUrl.replace(/^http/, 'ws')}/?v=3`,
    LOG_LEVEL: 'warn',
    SYNC_WAIT_MS: '10000',
    JOB_BACKOFF_MS: '50',
    ADMIN_PASSWORD: 'admin-password-for-tests',
    // Paging walks make many calls per account: the tests of pacing set their own values.
    ACCOUNT_RATE_PER_MINUTE: '60000',
    // The keys' limit is counted on every request but never reached (the default, 0, counts none;
    // the rate-limit tests set theirs).
    API_KEY_RPM_DEFAULT: '1000000',
    // Every test calls from 127.0.0.1, and many check 401s: failed authentications are counted but
    // never slowed (the rate-limit tests set a threshold of their own).
    AUTH_FAILURE_THRESHOLD: '1000000',
    MEDIA_STATS_GAP_MS: '0',
    // The sandbox serves its CDN links on its own port; each stack spools media in a folder of its own.
    MEDIA_CDN_URLS: `${simUrl}/cdn/`,
    MEDIA_SPOOL_DIR: join(tmpdir(), `${prefix}-spool`),
    ...options.env,
  };
  const config = loadGatewayConfig(env);
  const logger = testLogger(config.LOG_LEVEL);
  const api: FastifyInstance = await createApi(config, logger, { webhookLookup: options.lookup });
  const apiUrl = await api.listen({ port: 0, host: '127.0.0.1' });
  const redis = connectRedis(redisSettings);
  const apiKeys = new ApiKeyStore(redis, storeKeys(prefix));
  const keys = { t1: (await apiKeys.create('t1')).key, t2: (await apiKeys.create('t2')).key };
  const fixtures = (await (await fetch(`${simUrl}/_sim/fixtures`)).json()) as SimFixtures;

  let worker: GatewayWorker | undefined;
  const heartbeats = new WorkerHeartbeats(redis, storeKeys(prefix));
  // Started means counted by `/readyz`: the worker's first beat is sent, not awaited, by `start`.
  const startWorker = async () => {
    worker = await createGatewayWorker(config, logger);
    worker.start();
    await eventually(
      async () => ((await heartbeats.recent()) > 0 ? true : undefined),
      5_000,
      'a first heartbeat',
    );
  };
  const stopWorker = async () => {
    await worker?.close();
    worker = undefined;
  };
  if (options.worker !== false) await startWorker();
  const listener = options.listener ? await createListener(config, logger) : undefined;
  listener?.start();
  let webhooks: WebhookDelivery | undefined;
  if (options.webhooks) {
    webhooks = await createWebhookDelivery(config, logger, { lookup: options.lookup });
    webhooks.start();
  }

  return {
    apiUrl,
    simUrl,
    prefix,
    redis,
    env,
    keys,
    fixtures,
    startWorker,
    stopWorker,
    stop: async () => {
      await stopWorker();
      await listener?.close();
      await webhooks?.close();
      await api.close();
      await sim.close();
      rmSync(env.MEDIA_SPOOL_DIR ?? '', { recursive: true, force: true });
      await deleteKeys(redis, prefix);
      redis.disconnect();
    },
  };
}

/** Every key of a test prefix: store keys `p:…` and queue keys `{p:q}:…` (every master's, on a Cluster). */
export async function everyKey(redis: Redis, prefix: string): Promise<string[]> {
  return [...(await scanAll(redis, `${prefix}:*`)), ...(await scanAll(redis, `{${prefix}:q}:*`))];
}

/**
 * The keys of a test prefix that hold the gateway's state: every key but BullMQ's `stalled-check`, a
 * timer a worker sets for a few seconds at a time, the per-minute request counters
 * `p:{rl:<key>}:<minute>`, which every request counts in and which roll over with the clock's minute,
 * and the record of requests themselves: the hourly usage `p:{t:<tenant>}:usage:<hour>` (every
 * request counts in it) and the audit log `p:{t:<tenant>}:audit` (every write, refused ones too). A
 * test comparing them before and after a request sees what the request wrote.
 */
export async function scanKeys(redis: Redis, prefix: string): Promise<string[]> {
  const record = new RegExp(`^${prefix}:\\{t:[^}]+\\}:(usage:\\d+|audit)$`);
  return (await everyKey(redis, prefix)).filter(
    (key) => !key.endsWith(':stalled-check') && !key.startsWith(`${prefix}:{rl:`) && !record.test(key),
  );
}

/**
 * Every key of the stack's prefix and every value it holds, as text: what a plaintext scan of Redis
 * searches for secrets.
 */
export async function redisText(stack: TestStack): Promise<string[]> {
  const { redis } = stack;
  const haystack: string[] = [];
  for (const key of await everyKey(redis, stack.prefix)) {
    haystack.push(key);
    const type = await redis.type(key);
    if (type === 'string') haystack.push((await redis.get(key)) ?? '');
    if (type === 'hash') haystack.push(JSON.stringify(await redis.hgetall(key)));
    if (type === 'list') haystack.push(JSON.stringify(await redis.lrange(key, 0, -1)));
    if (type === 'set') haystack.push(JSON.stringify(await redis.smembers(key)));
    if (type === 'zset') haystack.push(JSON.stringify(await redis.zrange(key, 0, -1)));
    if (type === 'stream') haystack.push(JSON.stringify(await redis.xrange(key, '-', '+')));
  }
  return haystack;
}

async function deleteKeys(redis: Redis, prefix: string): Promise<void> {
  const keys = await everyKey(redis, prefix);
  // One key per command: a Redis Cluster refuses a DEL of keys in different slots (and a pipeline
  // of keys on different nodes), so the commands are sent together instead.
  await Promise.all(keys.map((key) => redis.unlink(key)));
}

export function account(stack: TestStack, username: string): SimAccountFixture {
  const found = stack.fixtures.accounts.find((a) => a.username === username);
  if (!found) throw new Error(`sandbox has no account ${username}`);
  return found;
}

/** A JSON request to the gateway; returns status, parsed body and headers. */
export async function gw(
  stack: TestStack,
  method: string,
  path: string,
  options: { key?: string | null; body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const key = options.key === undefined ? stack.keys.t1 : options.key;
  const response = await fetch(`${stack.apiUrl}/api/fansly${path}`, {
    method,
    headers: {
      ...(key === null ? {} : { 'x-api-key': key }),
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...options.headers,
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
}

/** A job's final answer at its status URL (polled while it answers 202): status, headers, body. */
export async function finished(statusUrl: string, key: string, timeoutMs = 30_000) {
  return eventually(
    async () => {
      const response = await fetch(statusUrl, { headers: { 'x-api-key': key } });
      return response.status === 202
        ? undefined
        : { status: response.status, headers: response.headers, body: (await response.json()) as any };
    },
    timeoutMs,
    'job finished',
  );
}

/**
 * The stack's events (the log, the endpoints, the deliveries' producer), as its processes build them:
 * for a test that publishes as a listener would. The caller closes it.
 */
export function stackEvents(stack: TestStack): Events {
  const config = loadGatewayConfig(stack.env);
  return createEvents(
    stack.redis,
    stack.prefix,
    parseKeyring(config.ENCRYPTION_KEY),
    webhookSettings(config),
  );
}
