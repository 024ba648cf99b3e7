import { connectRedis, randomId } from '@cg/store';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { AccountLanes, type LaneSettings } from '../packages/queue/src/lanes';
import type { JobPayload } from '../packages/queue/src/payload';
import { jobKeyPrefix, OperationsQueue, PARK_MS } from '../packages/queue/src/queue';
import { scanKeys } from './support/stack';

// The API's side of the queue in this process, on a real Redis, without a worker: what a group of
// requests leaves in Redis once `submit` has answered and `close` has returned.
const redis = connectRedis(inject('redisUrl'));
const prefix = `cgt-${randomId(8)}`;
const settings: LaneSettings = { concurrency: 1, intervalMs: 0, gapMs: 0, maxBacklog: 100 };
let ids = 0;

afterAll(async () => {
  const keys = await scanKeys(redis, prefix);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

const read = (accountId: string): JobPayload => ({
  op: 'me',
  tenantId: 't1',
  accountId,
  input: {},
  at: Date.now(),
});

/** When BullMQ's delayed set says the job starts (its score is the time in ms times 0x1000). */
async function startsAt(jobId: string): Promise<number | undefined> {
  const score = await redis.zscore(`${jobKeyPrefix(prefix)}delayed`, jobId);
  return score === null ? undefined : Math.floor(Number(score) / 0x1000);
}

describe('OperationsQueue wake-ups', () => {
  it('wakes a parked job whose slot freed between its admission and its add, before close returns', async () => {
    const errors: Error[] = [];
    const queue = new OperationsQueue({
      redis,
      prefix,
      retentionSeconds: 60,
      attempts: 1,
      backoffMs: 100,
      lanes: settings,
      newJobId: () => `job_${++ids}`,
      onError: (error) => errors.push(error),
    });
    const lanes = new AccountLanes(redis, jobKeyPrefix(prefix), settings);
    // Another job holds the account's only slot, so the request is admitted to wait...
    const [held] = (await lanes.admit([{ lane: 'acct', jobId: 'holder', gapped: false }])).admissions;
    expect(held).toEqual({ kind: 'ok', delayMs: 0 });
    // ...and the slot frees after the admission, before the add: that release finds nobody to wake.
    const add = queue.queue.addBulk.bind(queue.queue);
    queue.queue.addBulk = async (jobs) => {
      expect(await lanes.release([{ lane: 'acct', jobId: 'holder', final: true }])).toEqual([]);
      return add(jobs);
    };

    const { jobId, result } = await queue.submit(read('acct'), 0);
    expect(result).toEqual({ state: 'pending', jobState: 'delayed' });
    await queue.close();

    // The group's kick, which `close` waited for, set the parked job to start now.
    const starts = await startsAt(jobId);
    expect(starts).toBeDefined();
    expect(starts as number).toBeLessThan(Date.now() + PARK_MS / 2);
    expect(errors).toEqual([]);
  });
});
