import { CpuMeter, processCpuMs } from '../lib/cpu';
import { type LoadResult, type LoadSpec, runLoad } from '../lib/load';
import type { RedisProbe } from '../lib/redis';
import { type Sandbox, SLUG, type Target } from '../lib/stack';

/** The cheap read every load-oriented scenario uses: the connected account's own profile. */
export const mePath = (accountId: string) => `/api/${SLUG}/${accountId}/me`;

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

/**
 * Runs a load while reading how busy each process was (% of one core): the target's own processes,
 * the sandbox, Redis and the load generator. Their sum near 200% means the 2 cores were saturated.
 */
export async function measuredLoad(
  spec: LoadSpec,
  target: Target,
  sandbox: Sandbox,
  probe: RedisProbe,
): Promise<{ result: LoadResult; cpu: Record<string, number> }> {
  const readers: Record<string, () => number | undefined | Promise<number | undefined>> = {};
  for (const [name, managed] of Object.entries(target.processes()))
    readers[name] = () => processCpuMs(managed.child.pid);
  readers.sandbox = () => processCpuMs(sandbox.process.child.pid);
  readers.redis = () => probe.cpuMs();
  const meter = new CpuMeter(readers);
  await meter.begin();
  const result = await runLoad(spec);
  return { result, cpu: { ...(await meter.end()), load: result.cpuPercent } };
}
