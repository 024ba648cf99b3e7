import { setTimeout as sleep } from 'node:timers/promises';
import { DelayedError, Job, Queue } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { eventually } from '../../../test/support/processes';
import { fileRedis } from '../../../test/support/redis';
import { SettlingWorker } from '../src/settling-worker';

// A real BullMQ worker on the run's Redis: a job that parks itself and is woken (a delay change, as
// a lane's release does) by the action `afterRun` runs, while the first run takes its time to end.
const { redis, prefix } = fileRedis();
const LOCK_MS = 1_000;

describe('SettlingWorker', () => {
  it('runs an action once BullMQ is done with the run: a job woken then keeps its lock', async () => {
    const bullmqPrefix = `{${prefix}:q}`;
    const queue = new Queue('settling', { connection: redis, prefix: bullmqPrefix });
    const runs: { start: number; end?: number }[] = [];
    const worker: SettlingWorker = new SettlingWorker(
      'settling',
      async (job, token) => {
        const run: { start: number; end?: number } = { start: Date.now() };
        runs.push(run);
        if (runs.length === 1) {
          await job.moveToDelayed(Date.now() + 60_000, token);
          worker.afterRun(job, () => new Job(queue, 'wake', null, {}, job.id).changeDelay(0));
          // The run is slow to end: a second run started meanwhile by this worker would lose its lock.
          await sleep(200);
          throw new DelayedError();
        }
        // Longer than the lock: only a lock kept renewed stops another run starting beside this one.
        await sleep(LOCK_MS * 3);
        run.end = Date.now();
        return 'done';
      },
      {
        connection: redis,
        prefix: bullmqPrefix,
        concurrency: 2,
        lockDuration: LOCK_MS,
        stalledInterval: LOCK_MS / 2,
        maxStalledCount: 5,
        autorun: false,
      },
    );
    worker.on('error', () => undefined);
    void worker.run();
    try {
      await queue.add('job', {}, { jobId: 'parks-itself' });
      await eventually(
        async () =>
          runs.length > 2 || (await queue.getJobState('parks-itself')) === 'completed' ? true : undefined,
        10_000,
        'the job completed',
      );
      // A third run would be the stalled-job check's, beside the second.
      expect(runs).toHaveLength(2);
      const [first, second] = runs;
      // The wake came after the first run had ended: its 200 ms, and BullMQ's end of it.
      expect(second!.start - first!.start).toBeGreaterThanOrEqual(200);
    } finally {
      await worker.close();
      await queue.close();
    }
  });
});
