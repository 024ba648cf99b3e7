import { Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { Pool } from 'undici';
import { freePort } from '../../scripts/lib/redis';
import { sleep, startNode, waitForHttp } from '../lib/processes';
import { ms, num } from '../lib/report';
import type { Scenario } from '../lib/scenario';
import { Scope } from '../lib/scope';

/** Between two steps every process goes idle, as between S1's requests at a sixteenth of the max. */
const GAP_MS = 12;

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;

/**
 * The floor under S1's added latency: what a bare BullMQ job costs at rest on this machine, with no
 * lanes, no gateway and no platform call. One at a time, with the processes idle in between: an HTTP
 * round trip to a peer process (the hop the proxy makes and the gateway replaces), a Redis PING, and
 * a job added, run by a no-op processor in a worker process of its own, and heard as BullMQ's
 * `completed` event, which is how the gateway's API hears its jobs. A gateway request at rest pays
 * this job's cycle plus its lane's round trips (admit, claim), so where it is near 3 ms, S1's target
 * of +3 ms cannot be met by any change that keeps one BullMQ job per lone request.
 */
export const floor: Scenario = {
  name: 'FLOOR',
  title: 'the floor under S1: a bare BullMQ job at rest, against one HTTP hop',
  async run({ redis, quick, log }) {
    const samples = quick ? 60 : 300;
    const warmup = quick ? 10 : 30;
    const prefix = `{bench-floor-${process.pid}}`;
    const scope = new Scope();
    try {
      const port = await freePort();
      const echo = startNode('echo', 'bench/floor/echo.ts', { PORT: String(port) });
      scope.defer(() => echo.stop());
      const worker = startNode('floor-worker', 'bench/floor/worker.ts', {
        REDIS_URL: redis.url,
        FLOOR_PREFIX: prefix,
      });
      scope.defer(() => worker.stop());
      await waitForHttp(`http://127.0.0.1:${port}/`, 30_000, echo);

      const client = new Redis(redis.url);
      scope.defer(async () => client.disconnect());
      const queue = new Queue('floor', { connection: client, prefix });
      scope.defer(() => queue.close());
      const eventsConnection = new Redis(redis.url, { maxRetriesPerRequest: null });
      scope.defer(async () => eventsConnection.disconnect());
      const events = new QueueEvents('floor', { connection: eventsConnection, prefix });
      scope.defer(() => events.close());
      await Promise.all([queue.waitUntilReady(), events.waitUntilReady()]);
      const heard = new Map<string, () => void>();
      events.on('completed', ({ jobId }) => heard.get(jobId)?.());
      const pool = new Pool(`http://127.0.0.1:${port}`, { connections: 1 });
      scope.defer(() => pool.close());
      // The worker is ready once a job comes back.
      await oneJob(queue, heard, 'ready');

      log(`${samples} of each, one at a time, ${GAP_MS} ms apart (${warmup} more first, not counted)`);
      const http: number[] = [];
      const ping: number[] = [];
      const job: number[] = [];
      for (let i = -warmup; i < samples; i++) {
        const hop = await idleThen(async () => {
          const response = await pool.request({ method: 'GET', path: '/' });
          await response.body.text();
        });
        const pong = await idleThen(() => client.ping());
        const cycle = await idleThen(() => oneJob(queue, heard, `job-${i}`));
        if (i < 0) continue;
        http.push(hop);
        ping.push(pong);
        job.push(cycle);
      }
      for (const list of [http, ping, job]) list.sort((a, b) => a - b);
      const jobP50 = percentile(job, 0.5);
      const httpP50 = percentile(http, 0.5);
      const pingP50 = percentile(ping, 0.5);
      // The proxy's hop to the platform is the worker's in the gateway; what the gateway adds at rest
      // is the job's cycle and the lane's two round trips on the way (admit; claim beside the
      // account read).
      const floorMs = jobP50 + 2 * pingP50;
      return {
        rows: [
          {
            scenario: 'FLOOR',
            metric: 'bare BullMQ job at rest (add → no-op worker → completed event), p50; ref: one HTTP hop',
            gateway: ms(jobP50),
            baseline: ms(httpP50),
            ratio: num(jobP50 / httpP50, 2),
            target: '— (S1: added ≤ +3 ms)',
            verdict: 'n/a',
            values: { gateway: jobP50, baseline: httpP50, ratio: jobP50 / httpP50 },
          },
        ],
        notes: [
          `FLOOR at rest (${samples} each, p50 / p90): BullMQ job ${ms(jobP50)} / ${ms(percentile(job, 0.9))}; HTTP round trip ${ms(httpP50)} / ${ms(percentile(http, 0.9))}; Redis PING ${ms(pingP50)} / ${ms(percentile(ping, 0.9))}. A lone gateway request adds at least the job and two Redis round trips to the proxy's time: about ${ms(floorMs)} here, for S1's +3 ms`,
        ],
        details: {
          samples,
          gapMs: GAP_MS,
          floorMs,
          jobMs: summary(job),
          httpMs: summary(http),
          pingMs: summary(ping),
        },
      };
    } finally {
      await scope.close();
    }
  },
};

/** Waits GAP_MS (every process goes idle), then times `step`. */
async function idleThen(step: () => Promise<unknown>): Promise<number> {
  await sleep(GAP_MS);
  const start = performance.now();
  await step();
  return performance.now() - start;
}

/** Adds a job with the gateway's options and waits for its `completed` event (10 s at most). */
async function oneJob(queue: Queue, heard: Map<string, () => void>, jobId: string): Promise<void> {
  const done = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`job ${jobId} did not complete within 10 s`)), 10_000);
    heard.set(jobId, () => {
      clearTimeout(timer);
      resolve();
    });
  });
  try {
    await queue.add(
      'floor',
      { n: jobId },
      {
        jobId,
        attempts: 4,
        backoff: { type: 'exponential', delay: 500 },
        removeOnComplete: { age: 3600 },
        removeOnFail: { age: 3600 },
      },
    );
    await done;
  } finally {
    heard.delete(jobId);
  }
}

function summary(sorted: number[]) {
  return { p50: percentile(sorted, 0.5), p90: percentile(sorted, 0.9), p99: percentile(sorted, 0.99) };
}
