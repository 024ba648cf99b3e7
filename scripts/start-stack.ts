/**
 * `pnpm start`: the whole local stack in one command. Finds or starts Redis, starts the sandbox
 * platform (unless PLATFORM_URL names a real one), the API, the workers, the listener and the webhook
 * delivery, waits until the API is healthy, and prints where everything is with a usable API key.
 * Ctrl-C stops it all.
 *
 * This orchestrator is the one script that reads the environment for the stack as a whole; each app
 * still parses its own configuration at start.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { loadDotEnv, loadEgressPlan, loadGatewayConfig } from '@cg/config';
import { generateKey } from '@cg/secrets';
import { parseSeeds, randomId } from '@cg/store';
import { ensureConsoleBuilt } from './lib/console-build';
import { ensureRedis, type RedisHandle } from './lib/redis';

loadDotEnv();

const root = resolve(import.meta.dirname, '..');
const localDir = resolve(root, '.local');
mkdirSync(localDir, { recursive: true });
const env = process.env;

/** A value kept in .local/ so that a restarted stack can still open what it sealed before. */
function persisted(name: string, make: () => string): string {
  const file = resolve(localDir, name);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const value = make();
  writeFileSync(file, `${value}\n`, { mode: 0o600 });
  return value;
}

const children: ChildProcess[] = [];
function start(name: string, entry: string, extraEnv: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', resolve(root, entry)], {
    cwd: root,
    env: { ...env, ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  for (const stream of [child.stdout, child.stderr]) {
    if (stream)
      createInterface({ input: stream }).on('line', (line) => process.stdout.write(`[${name}] ${line}\n`));
  }
  child.once('exit', (code, signal) => {
    if (!stopping) {
      process.stderr.write(`[${name}] exited (${signal ?? code}); stopping the stack\n`);
      void stop(1);
    }
  });
  children.push(child);
  return child;
}

/**
 * A Cluster's stand-in for a found Redis: its first seed as `REDIS_URL` (unused while
 * `REDIS_CLUSTER_NODES` is set) and its seeds' addresses to print, never a password.
 */
function clusterRedis(seeds: string): RedisHandle & { shown: string } {
  const where = parseSeeds(seeds).nodes.map((node) => `${node.host}:${node.port}`);
  return {
    url: `redis://${where[0]}`,
    shown: `cluster ${where.join(',')}`,
    source: 'env',
    stop: async () => {},
  };
}

async function waitForHealthy(url: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

let stopping = false;
let stopRedis: () => Promise<void> = async () => {};
async function stop(code: number): Promise<never> {
  stopping = true;
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((done) => {
          if (child.exitCode !== null || child.signalCode !== null) return done();
          child.once('exit', () => done());
          child.kill('SIGTERM');
        }),
    ),
  );
  await stopRedis();
  process.exit(code);
}
process.once('SIGINT', () => void stop(0));
process.once('SIGTERM', () => void stop(0));

// A Redis Cluster (REDIS_CLUSTER_NODES, passed on to every process with the environment) is the
// operator's own: no Redis is looked for or started then.
const redis = env.REDIS_CLUSTER_NODES
  ? clusterRedis(env.REDIS_CLUSTER_NODES)
  : await ensureRedis({ envUrl: env.REDIS_URL, dataDir: resolve(localDir, 'redis') });
stopRedis = redis.stop;
const port = env.PORT ?? '3000';
const simPort = env.SIM_PORT ?? '4010';
const platformUrl = env.PLATFORM_URL ?? `http://127.0.0.1:${simPort}`;
// The sandbox serves the realtime websocket on its own port; a real platform's is its own setting.
const platformWsUrl =
  env.PLATFORM_WS_URL ?? (env.PLATFORM_URL ? undefined : `ws://127.0.0.1:${simPort}/?v=3`);
// The sandbox's CDN links are on its own port, under /cdn.
const cdnUrls = env.MEDIA_CDN_URLS ?? (env.PLATFORM_URL ? undefined : `http://127.0.0.1:${simPort}/cdn/`);
const apiKey = env.GATEWAY_BOOTSTRAP_API_KEY ?? persisted('api-key', () => `cgk_${randomId(32)}`);
const adminPassword = env.ADMIN_PASSWORD ?? persisted('admin-password', () => randomId(16));
const shared = {
  REDIS_URL: redis.url,
  PLATFORM_URL: platformUrl,
  ...(platformWsUrl ? { PLATFORM_WS_URL: platformWsUrl } : {}),
  ...(cdnUrls ? { MEDIA_CDN_URLS: cdnUrls } : {}),
  ENCRYPTION_KEY: env.ENCRYPTION_KEY ?? persisted('encryption.key', generateKey),
  GATEWAY_BOOTSTRAP_API_KEY: apiKey,
  ADMIN_PASSWORD: adminPassword,
  PORT: port,
  // Webhook receivers on this machine (http, loopback) can be tried locally.
  WEBHOOK_ALLOW_PRIVATE: env.WEBHOOK_ALLOW_PRIVATE ?? 'true',
  // Read by a person at a terminal: log lines as text (LOG_PRETTY=false: the JSON lines of production).
  LOG_PRETTY: env.LOG_PRETTY ?? 'true',
};

if (!env.PLATFORM_URL) {
  start('sandbox', 'apps/platform-sim/src/main.ts', { SIM_PORT: simPort });
  await waitForHealthy(`${platformUrl}/_sim/fixtures`);
}
// The API serves /metrics on its own port; every other process gets a metrics port of its own, one
// after the other from METRICS_PORT (0: none).
const metricsBase = Number(env.METRICS_PORT ?? '9464');
const metricsPorts: string[] = [];
const metricsPort = (name: string): { METRICS_PORT?: string } => {
  if (metricsBase === 0) return {};
  const own = String(metricsBase + metricsPorts.length);
  metricsPorts.push(`${name} :${own}`);
  return { METRICS_PORT: own };
};
// The API serves the console's build as it finds it at start: made first when its sources changed.
if (await ensureConsoleBuilt()) process.stdout.write('console: built apps/console/dist\n');
start('api', 'apps/api/src/main.ts', shared);
const workers = Number(env.WORKERS ?? '1');
for (let i = 1; i <= workers; i++) {
  const name = workers === 1 ? 'worker' : `worker-${i}`;
  start(name, 'apps/worker/src/main.ts', { ...shared, ...metricsPort(name) });
}
start('listener', 'apps/listener/src/main.ts', { ...shared, ...metricsPort('listener') });
start('webhooks', 'apps/webhooks/src/main.ts', { ...shared, ...metricsPort('webhooks') });
const apiUrl = `http://127.0.0.1:${port}`;
await waitForHealthy(`${apiUrl}/healthz`);
const egress = loadEgressPlan(loadGatewayConfig({ ...env, ...shared }));
const egressLine =
  egress === null
    ? "direct (no EGRESS_PROXIES: accounts leave from this machine's address)"
    : [...egress.byCountry].map(([country, proxies]) => `${country} ×${proxies.length}`).join(', ');

process.stdout.write(`
creator-gateway is running
  API          ${apiUrl}/api/${env.PLATFORM_SLUG ?? 'fansly'}   (docs: ${apiUrl}/docs)
  Console      ${apiUrl}/console/
  API key      ${apiKey}   (tenant ${env.GATEWAY_BOOTSTRAP_TENANT ?? 'default'})
  Platform     ${platformUrl}${env.PLATFORM_URL ? '' : '   (sandbox; accounts: creator_demo, creator_2fa / sandbox-password)'}
  Egress       ${egressLine}
  Redis        ${'shown' in redis ? redis.shown : redis.url}   (${redis.source})
  Queues       ${apiUrl}/admin/queues   (admin / ${adminPassword})
  Metrics      ${apiUrl}/metrics${metricsPorts.length > 0 ? `; ${metricsPorts.join(', ')}` : ''}
Press Ctrl-C to stop.
`);
