import { GatewayEnv } from '@cg/config';
import { extraCreatorUsername, SANDBOX_PASSWORD } from '@cg/platform-sim';
import { generateKey } from '@cg/secrets';
import { randomId } from '@cg/store';
import { Agent, Pool, fetch as undiciFetch } from 'undici';
import { freePort } from '../../scripts/lib/redis';
import { type Managed, startNode, waitForHttp } from './processes';
import type { LocalCert } from './tls';

export const SLUG = 'fansly';

/** True once the gateway's configuration has the setting (the per-account scheduling is landing). */
export const gatewayHas = (name: string): boolean => Object.hasOwn(GatewayEnv.properties, name);

export interface Sandbox {
  url: string;
  process: Managed;
  configure(patch: Record<string, number | null>): Promise<void>;
  addFault(fault: Record<string, unknown>): Promise<void>;
  clearFaults(): Promise<void>;
  resetObservations(): Promise<void>;
  observations(): Promise<Observations>;
  /** `/_sim/fixtures?accounts=` for up to 100 usernames at a time. */
  fixtures(usernames: string[]): Promise<FixtureAccount[]>;
  stop(): Promise<void>;
}

export interface Observations {
  accounts: Record<
    string,
    {
      username: string;
      totalRequests: number;
      requests: Record<string, number>;
      responses: Record<string, number>;
      maxInFlight: number;
      mediaOfferCalls: number;
      minMediaOfferGapMs: number | null;
      served429: number;
    }
  >;
  totals: { requests: number; served429: number; accounts: number };
}

export interface FixtureAccount {
  username: string;
  platformAccountId: string;
  chatIds: string[];
}

/**
 * The sandbox platform as its own process, with `extraCreators` bench accounts; over https with
 * `tls` (its gateways must then trust `tls.certPath`: NODE_EXTRA_CA_CERTS in their env).
 */
export async function startSandbox(
  extraCreators: number,
  cpuProfDir?: string,
  options: { tls?: LocalCert; name?: string } = {},
): Promise<Sandbox> {
  const port = await freePort();
  const { tls } = options;
  const url = `${tls ? 'https' : 'http'}://127.0.0.1:${port}`;
  const process = startNode(
    options.name ?? 'sandbox',
    'apps/platform-sim/src/main.ts',
    {
      SIM_PORT: String(port),
      SIM_HOST: '127.0.0.1',
      SIM_EXTRA_CREATORS: String(extraCreators),
      SIM_LOG_LEVEL: 'warn',
      ...(tls ? { SIM_TLS_CERT: tls.certPath, SIM_TLS_KEY: tls.keyPath } : {}),
    },
    { cpuProfDir },
  );
  // This process's own calls (control surface, readiness) trust the certificate through an agent.
  const dispatcher = tls ? new Agent({ connect: { ca: tls.cert } }) : undefined;
  try {
    await waitForHttp(`${url}/_sim/health`, 60_000, process, dispatcher);
  } catch (error) {
    await dispatcher?.close();
    throw error;
  }
  const control = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const init = {
      method,
      ...(body === undefined
        ? {}
        : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    };
    const response = dispatcher
      ? await undiciFetch(`${url}${path}`, { ...init, dispatcher })
      : await fetch(`${url}${path}`, init);
    const text = await response.text();
    if (!response.ok) throw new Error(`sandbox ${method} ${path}: ${response.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
  return {
    url,
    process,
    configure: async (patch) => void (await control('POST', '/_sim/config', patch)),
    addFault: async (fault) => void (await control('POST', '/_sim/faults', fault)),
    clearFaults: async () => void (await control('DELETE', '/_sim/faults')),
    resetObservations: async () => void (await control('POST', '/_sim/observations/reset')),
    observations: async () => (await control('GET', '/_sim/observations')) as Observations,
    fixtures: async (usernames) =>
      (
        (await control('GET', `/_sim/fixtures?accounts=${usernames.join(',')}`)) as {
          accounts: FixtureAccount[];
        }
      ).accounts,
    stop: async () => {
      await process.stop();
      await dispatcher?.close();
    },
  };
}

/** The sandbox's realtime websocket (`ws://<host>:<port>/?v=3`, `wss://` over https). */
export const sandboxWsUrl = (sandbox: Pick<Sandbox, 'url'>): string =>
  `${sandbox.url.replace(/^http/, 'ws')}/?v=3`;

/** Usernames of the sandbox's extra creators `from`..`from+count-1` (1-based). */
export function benchUsernames(count: number, from = 1): string[] {
  return Array.from({ length: count }, (_unused, i) => extraCreatorUsername(from + i));
}

/** Something that serves the gateway's routes: the gateway itself or the baseline proxy. */
export interface Target {
  kind: 'gateway' | 'baseline';
  origin: string;
  apiKey: string;
  /** Its processes by role, for CPU readings. */
  processes(): Record<string, Managed>;
  stop(): Promise<void>;
}

export interface Gateway extends Target {
  kind: 'gateway';
  prefix: string;
  /** The environment its processes run with (for one more, or a component in the bench's process). */
  env: Record<string, string>;
  api: Managed;
  workers: Managed[];
  /** With `realtime`: the listener and webhooks processes. */
  listener?: Managed;
  webhooks?: Managed;
  /** Stops worker processes until `keep` are left (0: jobs then stay queued); the API keeps answering. */
  stopWorkers(keep?: number): Promise<void>;
}

/**
 * The gateway as `pnpm start` runs it: the API and `workers` worker processes (1 unless a scenario
 * says), each `node --import tsx` with its own environment. `env` adds a scenario's settings on top
 * of the bench's defaults.
 */
export async function startGateway(options: {
  scenario: string;
  redisUrl: string;
  platformUrl: string;
  env?: Record<string, string>;
  workers?: number;
  cpuProfDir?: string | undefined;
  /** Also one listener (`PLATFORM_WS_URL` = this) and one webhooks process, loopback receivers allowed. */
  realtime?: { wsUrl: string };
}): Promise<Gateway> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const apiKey = `cgk_${randomId(32)}`;
  const prefix = `bench_${options.scenario}_${randomId(6)}`;
  const env: Record<string, string> = {
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    PORT: String(port),
    REDIS_URL: options.redisUrl,
    REDIS_PREFIX: prefix,
    PLATFORM_URL: options.platformUrl,
    ENCRYPTION_KEY: generateKey(),
    GATEWAY_BOOTSTRAP_API_KEY: apiKey,
    // Only shortens the bench's teardown; no scenario measures a shutdown.
    SHUTDOWN_GRACE_MS: '3000',
    // The per-account scheduling settings at their documented defaults, named so that the bench runs
    // with them as soon as the gateway reads them (ignored until then).
    ACCOUNT_CONCURRENCY: '2',
    ACCOUNT_RATE_PER_MINUTE: '300',
    MEDIA_STATS_GAP_MS: '60000',
    ...(options.realtime ? { PLATFORM_WS_URL: options.realtime.wsUrl, WEBHOOK_ALLOW_PRIVATE: 'true' } : {}),
    ...options.env,
  };
  const cpuProfDir = options.cpuProfDir;
  const api = startNode(`${options.scenario}-api`, 'apps/api/src/main.ts', env, { cpuProfDir });
  await waitForHttp(`${origin}/healthz`, 60_000, api);
  const workers = Array.from({ length: options.workers ?? 1 }, (_unused, i) =>
    startNode(`${options.scenario}-worker${i === 0 ? '' : i + 1}`, 'apps/worker/src/main.ts', env, {
      cpuProfDir,
    }),
  );
  const realtime = options.realtime
    ? {
        listener: startNode(`${options.scenario}-listener`, 'apps/listener/src/main.ts', env, { cpuProfDir }),
        webhooks: startNode(`${options.scenario}-webhooks`, 'apps/webhooks/src/main.ts', env, { cpuProfDir }),
      }
    : {};
  const gateway: Gateway = {
    kind: 'gateway',
    origin,
    apiKey,
    prefix,
    env,
    api,
    workers,
    ...realtime,
    processes: () => ({
      api,
      ...Object.fromEntries(workers.map((worker, i) => [i === 0 ? 'worker' : `worker${i + 1}`, worker])),
      ...realtime,
    }),
    stopWorkers: async (keep = 0) => {
      await Promise.all(workers.splice(keep).map((worker) => worker.stop()));
    },
    stop: async () => {
      await Promise.all([
        ...workers.map((worker) => worker.stop()),
        ...Object.values(realtime).map((managed) => managed.stop()),
        api.stop(),
      ]);
    },
  };
  return gateway;
}

/** A webhook endpoint of the gateway's bootstrap tenant at `url`, for the `event` named. */
export async function registerWebhook(gateway: Gateway, url: string, event: string): Promise<void> {
  const response = await fetch(`${gateway.origin}/api/${SLUG}/webhooks`, {
    method: 'POST',
    headers: { 'x-api-key': gateway.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ url, events: [event] }),
  });
  const text = await response.text();
  if (response.status !== 201) throw new Error(`POST /webhooks: ${response.status} ${text.slice(0, 300)}`);
}

/** The baseline proxy (bench/baseline) as its own process. */
export async function startBaseline(options: {
  scenario: string;
  platformUrl: string;
  platformConnections?: number | undefined;
  cpuProfDir?: string | undefined;
}): Promise<Target> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const apiKey = `cgk_${randomId(32)}`;
  const process = startNode(
    `${options.scenario}-baseline`,
    'bench/baseline/main.ts',
    {
      NODE_ENV: 'production',
      PORT: String(port),
      PLATFORM_URL: options.platformUrl,
      BASELINE_API_KEY: apiKey,
      ...(options.platformConnections === undefined
        ? {}
        : { PLATFORM_CONNECTIONS: String(options.platformConnections) }),
    },
    { cpuProfDir: options.cpuProfDir },
  );
  await waitForHttp(`${origin}/healthz`, 60_000, process);
  return {
    kind: 'baseline',
    origin,
    apiKey,
    processes: () => ({ baseline: process }),
    stop: () => process.stop(),
  };
}

/**
 * Connects `usernames` through the target's own `POST /connect`, `parallel` at a time, and returns
 * their account ids in the same order. Any failure stops the scenario: its premise would be wrong.
 */
export async function connectAccounts(target: Target, usernames: string[], parallel = 32): Promise<string[]> {
  const pool = new Pool(target.origin, { connections: parallel });
  const ids: string[] = new Array(usernames.length);
  let next = 0;
  try {
    await Promise.all(
      Array.from({ length: Math.min(parallel, usernames.length) }, async () => {
        while (next < usernames.length) {
          const index = next++;
          const username = usernames[index] ?? '';
          const response = await pool.request({
            method: 'POST',
            path: `/api/${SLUG}/connect`,
            headers: { 'x-api-key': target.apiKey, 'content-type': 'application/json' },
            body: JSON.stringify({ username, password: SANDBOX_PASSWORD, name: username, countryCode: 'US' }),
          });
          const text = await response.body.text();
          const accountId =
            response.statusCode === 201 ? (JSON.parse(text) as ConnectAnswer).data?.account_id : undefined;
          if (!accountId)
            throw new Error(
              `connect ${username} on the ${target.kind}: ${response.statusCode} ${text.slice(0, 300)}`,
            );
          ids[index] = accountId;
        }
      }),
    );
  } finally {
    await pool.close();
  }
  return ids;
}

interface ConnectAnswer {
  data?: { account_id?: string };
}
