import { connectRedis } from '@cg/store';
import { describe, expect, inject, it } from 'vitest';
import { eventually } from '../../../test/support/processes';
import { fileRedis, testQueue } from '../../../test/support/redis';
import { queueKeys } from '../src/keys';
import { WriteLedger } from '../src/ledger';
import type { JobPayload } from '../src/payload';
import { startWorker } from '../src/worker';

// What keeps a short BullMQ lock safe when a worker is killed or stalls (docs/scheduling.md, "A
// killed worker's accounts go on within seconds"): the write ledger marks a write only under the
// job's lock, and a job BullMQ fails as stalled gives its account's slot back.
const { redis, prefix } = fileRedis();
const keys = queueKeys(prefix);
const lanes = { concurrency: 1, intervalMs: 0, gapMs: 0, maxBacklog: 100 };

describe('the write ledger', () => {
  it('marks a write only for the attempt that holds the job’s lock', async () => {
    const ledger = new WriteLedger(redis, keys, 60);
    await redis.set(keys.lock('w1'), 'worker-a:1');
    expect(await ledger.markSent('w1', 'worker-a:1', 'worker-a:1')).toBe('mine');
    // Again (a second write of the same job): still its own.
    expect(await ledger.markSent('w1', 'worker-a:1', 'worker-a:1')).toBe('mine');
    // The stalled-job check handed the job to another worker: the new attempt holds the lock, and
    // finds the first attempt's mark.
    await redis.set(keys.lock('w1'), 'worker-b:1');
    expect(await ledger.markSent('w1', 'worker-b:1', 'worker-b:1')).toBe('other');
    // The first attempt, its lock gone, does not mark (and does not send).
    await redis.del(keys.sent('w1'));
    expect(await ledger.markSent('w1', 'worker-a:1', 'worker-a:1')).toBe('lockLost');
    await redis.del(keys.lock('w1'));
    expect(await ledger.markSent('w1', 'worker-a:1', 'worker-a:1')).toBe('lockLost');
    expect(await redis.exists(keys.sent('w1'))).toBe(0);
    // Without a lock to check (a job not run under one), set-if-absent alone decides.
    expect(await ledger.markSent('w2', 'a', undefined)).toBe('mine');
    expect(await ledger.markSent('w2', 'b', undefined)).toBe('other');
  });
});

describe('a job BullMQ fails as stalled too often', () => {
  it('gives its account’s slot back at once, not after its lease', async () => {
    const queue = testQueue(redis, prefix, { lanes });
    const connection = connectRedis(inject('redisUrl'));
    let ran = 0;
    const worker = startWorker(
      async () => {
        ran += 1;
        return { statusCode: 200, message: 'Success', data: {} };
      },
      {
        redis: connection,
        prefix,
        concurrency: 1,
        backoffMs: 100,
        lanes,
        retentionSeconds: 60,
        lockMs: 4_000,
      },
    );
    try {
      await queue.ready();
      const payload: JobPayload = {
        op: 'lists.create',
        tenantId: 't1',
        accountId: 'acct',
        lane: 'platform:stalled',
        write: true,
        input: {},
        at: Date.now(),
      };
      const { jobId } = await queue.submit(payload, 0);
      const lane = keys.lane('platform:stalled');
      expect(await redis.zrange(lane.run, 0, -1)).toEqual([jobId]);
      // What BullMQ's stalled-job check leaves on a job taken back from dead workers past its limit:
      // the next worker to fetch it fails it without running it.
      await redis.hset(keys.job(jobId), 'defa', 'job stalled more than allowable limit');
      void worker.run();
      await eventually(
        async () => ((await redis.zscore(keys.failed, jobId)) === null ? undefined : true),
        5_000,
        'the job failed',
      );
      await eventually(
        async () => ((await redis.exists(lane.run, lane.jobs)) === 0 ? true : undefined),
        5_000,
        'its slot and backlog place given back',
      );
      expect(ran).toBe(0);
    } finally {
      await worker.close(true);
      await queue.close();
      connection.disconnect();
    }
  });
});
