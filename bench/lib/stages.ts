import { connectRedis } from '@cg/store';

export interface Percentiles {
  p50: number;
  p90: number;
  p99: number;
}

export interface Stages {
  batches: number;
  singles: number;
  /** Requests carried by the batches. */
  batched: number;
  /** Job added − request received by the API (`at`): the admission, per request. */
  admission: Percentiles;
  /** Started by a worker − added, per job. */
  pickup: Percentiles;
  /** Finished − started, per job (a batch ends with its slowest request). */
  run: Percentiles;
}

/**
 * Where a request's time goes inside the gateway, read from the jobs' own timestamps in Redis (ms;
 * every process is on this machine, so one clock). Jobs added within [fromMs, toMs].
 */
export async function jobStages(
  redisUrl: string,
  prefix: string,
  fromMs: number,
  toMs: number,
): Promise<Stages> {
  const redis = connectRedis(redisUrl);
  const jobPrefix = `{${prefix}:q}:operations:`;
  const admission: number[] = [];
  const pickup: number[] = [];
  const run: number[] = [];
  let batches = 0;
  let singles = 0;
  let batched = 0;
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${jobPrefix}job_*`, 'COUNT', 2000);
      cursor = next;
      const jobs = keys.filter((key) => !key.slice(jobPrefix.length).includes(':'));
      const pipeline = redis.pipeline();
      for (const key of jobs) pipeline.hmget(key, 'name', 'timestamp', 'processedOn', 'finishedOn', 'data');
      for (const [, fields] of (await pipeline.exec()) ?? []) {
        const [name, added, started, finished, data] = (fields ?? []) as (string | null)[];
        const addedMs = Number(added);
        if (!data || !(addedMs >= fromMs && addedMs <= toMs)) continue;
        const parsed = JSON.parse(data) as { at?: number; batch?: ({ at: number } | null)[] };
        const requests = name === 'batch' ? (parsed.batch ?? []).filter((p) => p !== null) : [parsed];
        if (name === 'batch') {
          batches += 1;
          batched += requests.length;
        } else singles += 1;
        for (const request of requests)
          if (typeof request.at === 'number') admission.push(addedMs - request.at);
        if (started) pickup.push(Number(started) - addedMs);
        if (started && finished) run.push(Number(finished) - Number(started));
      }
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
  return { batches, singles, batched, admission: pct(admission), pickup: pct(pickup), run: pct(run) };
}

export function stagesLine(stages: Stages): string {
  const p = (x: Percentiles) => `${x.p50}/${x.p90}/${x.p99}`;
  const mean = stages.batches > 0 ? (stages.batched / stages.batches).toFixed(1) : '0';
  return `admission ${p(stages.admission)}, pickup ${p(stages.pickup)}, run ${p(stages.run)} ms (p50/p90/p99); ${stages.batches} batches of ${mean} requests on average, ${stages.singles} single jobs`;
}

function pct(values: number[]): Percentiles {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? Number.NaN;
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99) };
}
