/**
 * The floor scenario's worker (bench/scenarios/floor.ts): a bare BullMQ worker whose processor does
 * nothing, in a process of its own as the gateway's worker is. Not shipped.
 */
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';

const env = process.env;
const url = env.REDIS_URL;
const prefix = env.FLOOR_PREFIX;
if (!url || !prefix) throw new Error('REDIS_URL and FLOOR_PREFIX are required');

const worker = new Worker('floor', async (job) => ({ n: job.data.n }), {
  connection: new Redis(url, { maxRetriesPerRequest: null }),
  prefix,
  concurrency: 64,
});
await worker.waitUntilReady();

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    worker.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
