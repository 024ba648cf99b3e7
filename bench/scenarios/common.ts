import { CpuMeter, processCpuMs, runQueueWaitMs } from '../lib/cpu';
import { type LoadResult, type LoadSpec, runLoad } from '../lib/load';
import { type CommandDelta, commandDelta, type RedisProbe } from '../lib/redis';
import type { ScenarioContext } from '../lib/scenario';
import type { Scope } from '../lib/scope';
import {
  type Gateway,
  type Sandbox,
  SLUG,
  startBaseline,
  startGateway,
  startSandbox,
  type Target,
} from '../lib/stack';

/** The cheap read every load-oriented scenario uses: the connected account's own profile. */
export const mePath = (accountId: string) => `/api/${SLUG}/${accountId}/me`;

/** A load of `paths` on `target`; its answers are expected to be 200s unless `shape.expect` says. */
export function loadSpec(
  target: Target,
  paths: string[],
  shape: Pick<LoadSpec, 'mode' | 'warmupMs' | 'durationMs'> & Partial<LoadSpec>,
): LoadSpec {
  const { headers, ...rest } = shape;
  return {
    origin: target.origin,
    method: 'GET',
    paths,
    assign: 'round-robin',
    timeoutMs: 30_000,
    expect: ['200'],
    ...rest,
    headers: { 'x-api-key': target.apiKey, ...headers },
  };
}

/** `200: 1234, 202: 5` for the notes. */
export function statusLine(result: LoadResult): string {
  const entries = Object.entries(result.statuses).sort(([a], [b]) => a.localeCompare(b));
  const dropped = result.dropped > 0 ? `, not started (too many in flight): ${result.dropped}` : '';
  return `${entries.map(([status, count]) => `${status}: ${count}`).join(', ') || 'none'}${dropped}`;
}

/** Compact numbers for the JSON details. */
export function brief(result: LoadResult) {
  return {
    windowMs: Math.round(result.windowMs),
    statuses: result.statuses,
    ratePerSecond: Object.fromEntries(
      Object.entries(result.ratePerSecond).map(([k, v]) => [k, Math.round(v)]),
    ),
    latencyMs: Object.fromEntries(
      Object.entries(result.latencyMs).map(([k, v]) => [k, Math.round(v * 100) / 100]),
    ),
    totalRequests: result.totalRequests,
    elapsedMs: Math.round(result.elapsedMs),
    dropped: result.dropped,
    loadCpuPercent: result.cpuPercent,
  };
}

export interface Measured {
  result: LoadResult;
  /** % of one core per process; their sum near 200% means the 2 cores were saturated. */
  cpu: Record<string, number>;
  /** % of the run's wall time each process (but the load generator) was runnable, waiting for a core. */
  waiting: Record<string, number>;
  /** Redis commands run during the load (INFO commandstats). */
  commands: CommandDelta;
}

/**
 * Runs a load while reading how busy each process was: the target's own processes, the sandbox,
 * Redis and the load generator; how long each waited for a core; and the Redis commands it cost.
 */
export async function measuredLoad(
  spec: LoadSpec,
  target: Target,
  sandbox: Sandbox,
  probe: RedisProbe,
): Promise<Measured> {
  const pids = new Map<string, number | undefined>();
  for (const [name, managed] of Object.entries(target.processes())) pids.set(name, managed.child.pid);
  pids.set('sandbox', sandbox.process.child.pid);
  const redisPid = await probe.pid();
  const busy: Record<string, () => number | undefined | Promise<number | undefined>> = {};
  const waits: Record<string, () => number | undefined> = {};
  for (const [name, pid] of pids) {
    busy[name] = () => processCpuMs(pid);
    waits[name] = () => runQueueWaitMs(pid);
  }
  busy.redis = () => probe.cpuMs();
  waits.redis = () => runQueueWaitMs(redisPid);
  const cpuMeter = new CpuMeter(busy);
  const waitMeter = new CpuMeter(waits);
  const commandsBefore = await probe.commandCounts();
  await Promise.all([cpuMeter.begin(), waitMeter.begin()]);
  const result = await runLoad(spec);
  const [cpu, waiting] = await Promise.all([cpuMeter.end(), waitMeter.end()]);
  const commands = commandDelta(commandsBefore, await probe.commandCounts());
  return { result, cpu: { ...cpu, load: result.cpuPercent }, waiting, commands };
}

/**
 * A scenario's sandbox (with `accounts` extra creators) and gateway on the run's Redis; `scope`
 * stops both when the scenario ends and clears the gateway's keys.
 */
export async function startScenarioStack(
  scope: Scope,
  { redis, probe, cpuProfDir }: ScenarioContext,
  options: { scenario: string; accounts: number; env?: Record<string, string>; workers?: number },
): Promise<{ sandbox: Sandbox; gateway: Gateway }> {
  const sandbox = await startSandbox(options.accounts, cpuProfDir);
  scope.defer(() => sandbox.stop());
  const gateway = await startGateway({
    scenario: options.scenario,
    redisUrl: redis.url,
    platformUrl: sandbox.url,
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.workers === undefined ? {} : { workers: options.workers }),
    cpuProfDir,
  });
  scope.defer(() => probe.clear(gateway.prefix));
  scope.defer(() => gateway.stop());
  return { sandbox, gateway };
}

/** The baseline proxy against the scenario's sandbox, stopped with `scope`. */
export async function startScenarioBaseline(
  scope: Scope,
  { cpuProfDir }: ScenarioContext,
  scenario: string,
  sandbox: Sandbox,
  platformConnections?: number,
): Promise<Target> {
  const baseline = await startBaseline({
    scenario,
    platformUrl: sandbox.url,
    platformConnections,
    cpuProfDir,
  });
  scope.defer(() => baseline.stop());
  return baseline;
}
