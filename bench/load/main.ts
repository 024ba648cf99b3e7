/**
 * The load generator, a process of its own so that its CPU use shows up apart from the gateway's.
 * It takes one `LoadSpec` over IPC, runs it with undici, answers one `LoadResult` and exits.
 */
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import type { LatencySummary, LoadResult, LoadSpec } from './spec';

async function run(spec: LoadSpec): Promise<LoadResult> {
  if (!/^http:\/\/127\.0\.0\.1:\d+$/.test(spec.origin)) throw new Error('load targets 127.0.0.1 only');
  const sockets = spec.mode.kind === 'closed' ? spec.mode.callers : spec.mode.maxInFlight;
  const pool = new Pool(spec.origin, {
    connections: sockets,
    pipelining: 1,
    headersTimeout: spec.timeoutMs,
    bodyTimeout: spec.timeoutMs,
    keepAliveTimeout: 60_000,
  });
  const cpuAtStart = process.cpuUsage();
  const start = performance.now();
  const windowStart = start + spec.warmupMs;
  const windowEnd = windowStart + spec.durationMs;
  const maxRequests = spec.maxRequests ?? Number.POSITIVE_INFINITY;

  let latencies = new Float64Array(1 << 16);
  let measured = 0;
  const statuses: Record<string, number> = {};
  const totalStatuses: Record<string, number> = {};
  const answeredInWindow: Record<string, number> = {};
  let issued = 0;
  let lastAnswer = start;
  let inFlight = 0;
  let dropped = 0;

  const send = async (path: string, startedAt: number): Promise<void> => {
    issued++;
    inFlight++;
    let status: string;
    let answered = false;
    try {
      const response = await pool.request({ method: spec.method, path, headers: spec.headers });
      // Answers are a few KB: read and discarded unparsed, so the generator stays cheap.
      await response.body.dump();
      status = String(response.statusCode);
      answered = true;
    } catch (error) {
      status = `error:${(error as { code?: string }).code ?? 'unknown'}`;
    }
    inFlight--;
    const end = performance.now();
    lastAnswer = Math.max(lastAnswer, end);
    totalStatuses[status] = (totalStatuses[status] ?? 0) + 1;
    if (startedAt >= windowStart && startedAt < windowEnd) {
      statuses[status] = (statuses[status] ?? 0) + 1;
      if (answered) {
        if (measured === latencies.length) {
          const grown = new Float64Array(latencies.length * 2);
          grown.set(latencies);
          latencies = grown;
        }
        latencies[measured++] = end - startedAt;
      }
    }
    if (end >= windowStart && end < windowEnd) answeredInWindow[status] = (answeredInWindow[status] ?? 0) + 1;
  };

  const pathFor = (caller: number) =>
    spec.paths[(spec.assign === 'per-caller' ? caller : issued) % spec.paths.length] ?? '/';

  if (spec.mode.kind === 'closed') {
    const callers = Array.from({ length: spec.mode.callers }, async (_unused, caller) => {
      while (performance.now() < windowEnd && issued < maxRequests) {
        await send(pathFor(caller), performance.now());
      }
    });
    await Promise.all(callers);
  } else {
    const { ratePerSecond, maxInFlight } = spec.mode;
    const pending = new Set<Promise<void>>();
    let scheduled = 0;
    await new Promise<void>((done) => {
      // A 1 ms tick starts every request whose time has come; each is timed from its scheduled
      // start, so time spent waiting for a free socket counts as latency, as a user would feel it.
      // Request k is due at start + k / rate: by `now`, those with k ≤ elapsed × rate are due, and
      // none is scheduled at or after the window's end.
      const last = Math.min(Math.ceil(((windowEnd - start) * ratePerSecond) / 1000), maxRequests);
      const tick = setInterval(() => {
        const now = performance.now();
        const due = Math.min(Math.floor(((now - start) * ratePerSecond) / 1000) + 1, last);
        while (scheduled < due) {
          const at = start + (scheduled * 1000) / ratePerSecond;
          scheduled++;
          if (inFlight >= maxInFlight) {
            dropped++;
            continue;
          }
          const request = send(pathFor(0), at).finally(() => pending.delete(request));
          pending.add(request);
        }
        if (scheduled >= last) {
          clearInterval(tick);
          done();
        }
      }, 1);
    });
    await Promise.all(pending);
  }
  await pool.close();
  const cpu = process.cpuUsage(cpuAtStart);

  const windowMs = Math.min(spec.durationMs, Math.max(1, lastAnswer - windowStart));
  const ratePerSecond: Record<string, number> = {};
  for (const [status, count] of Object.entries(answeredInWindow))
    ratePerSecond[status] = (count * 1000) / windowMs;
  return {
    windowMs,
    statuses,
    ratePerSecond,
    latencyMs: summarise(latencies.subarray(0, measured)),
    totalRequests: issued,
    totalStatuses,
    elapsedMs: lastAnswer - start,
    dropped,
    cpuPercent: Math.round(((cpu.user + cpu.system) / 1000 / (performance.now() - start)) * 100),
  };
}

function summarise(values: Float64Array): LatencySummary {
  const sorted = Float64Array.from(values).sort();
  const at = (q: number) =>
    sorted.length === 0
      ? Number.NaN
      : (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN);
  let sum = 0;
  for (const value of sorted) sum += value;
  return {
    count: sorted.length,
    p50: at(0.5),
    p90: at(0.9),
    p99: at(0.99),
    max: sorted.length === 0 ? Number.NaN : (sorted[sorted.length - 1] ?? Number.NaN),
    mean: sorted.length === 0 ? Number.NaN : sum / sorted.length,
  };
}

process.once('message', (spec: LoadSpec) => {
  run(spec).then(
    (result) => process.send?.({ result }, () => process.exit(0)),
    (error: unknown) =>
      process.send?.({ error: error instanceof Error ? error.message : String(error) }, () =>
        process.exit(1),
      ),
  );
});
