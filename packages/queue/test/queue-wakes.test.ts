import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { eventually } from '../../../test/support/processes';
import { fileRedis, testQueue } from '../../../test/support/redis';
import { queueKeys } from '../src/keys';
import { type LaneSettings, Lanes } from '../src/lanes';
import type { JobPayload } from '../src/payload';
import { PARK_MS } from '../src/wake';

// The API's side of the queue in this process, on a real Redis, without a worker: what a group of
// requests leaves in Redis once `submit` has answered and `close` has returned.
const { redis, prefix } = fileRedis();
const keys = queueKeys(prefix);
const settings: LaneSettings = { concurrency: 1, intervalMs: 0, gapMs: 0, maxBacklog: 100 };
let ids = 0;

const read = (accountId: string): JobPayload => ({
  op: 'me',
  tenantId: 't1',
  accountId,
  input: {},
  at: Date.now(),
});

/** When BullMQ's delayed set says the job starts (its score is the time in ms times 0x1000). */
async function startsAt(jobId: string): Promise<number | undefined> {
  const score = await redis.zscore(keys.delayed, jobId);
  return score === null ? undefined : Math.floor(Number(score) / 0x1000);
}

const settle = <T>(promise: Promise<T>, ms: number) =>
  Promise.race([promise, sleep(ms).then(() => 'still waiting' as const)]);

describe('OperationsQueue wake-ups', () => {
  it('wakes a parked job whose slot freed between its admission and its add, without holding the next group back', async () => {
    const errors: Error[] = [];
    const queue = testQueue(redis, prefix, {
      lanes: settings,
      newJobId: () => `job_${++ids}`,
      onError: (error) => errors.push(error),
    });
    let closing: Promise<void> | undefined;
    let letKickGo = () => {};
    const kickMayGo = new Promise<void>((resolve) => {
      letKickGo = resolve;
    });
    try {
      const lanes = new Lanes(redis, keys, settings);
      // Another job holds the account's only slot, so the request is admitted to wait...
      const [held] = (await lanes.admit([{ lane: 'acct', jobId: 'holder', gapped: false }])).admissions;
      expect(held).toEqual({ kind: 'ok', delayMs: 0 });
      // ...and the slot frees after the admission, before the add: that release finds nobody to wake.
      const add = queue.queue.addBulk.bind(queue.queue);
      queue.queue.addBulk = async (jobs) => {
        queue.queue.addBulk = add;
        expect(await lanes.release([{ lane: 'acct', jobId: 'holder', final: true }])).toEqual([]);
        return add(jobs);
      };
      // The group's kick of that lane is held until the test lets it go.
      const kick = queue.lanes.kick.bind(queue.lanes);
      const kicked: string[][] = [];
      queue.lanes.kick = async (lanesToKick) => {
        kicked.push(lanesToKick);
        await kickMayGo;
        return kick(lanesToKick);
      };

      const parked = await queue.submit(read('acct'), 0);
      expect(parked.result).toEqual({ state: 'pending', jobState: 'delayed' });
      await eventually(
        async () => (kicked.length > 0 ? true : undefined),
        1_000,
        'the kick of the parked lane',
      );
      expect(kicked).toEqual([['acct']]);
      // The next group goes out while that kick is still on its way.
      const next = await settle(queue.submit(read('other'), 0), 2_000);
      expect(next).toMatchObject({ result: { state: 'pending', jobState: 'waiting' } });

      // `close` waits for the kick, which sets the parked job to start now.
      closing = queue.close();
      expect(await settle(closing, 200)).toBe('still waiting');
      expect(await startsAt(parked.jobId)).toBeGreaterThan(Date.now() + PARK_MS / 2);
      letKickGo();
      await closing;
      expect(await startsAt(parked.jobId)).toBeLessThanOrEqual(Date.now());
      expect(errors).toEqual([]);
    } finally {
      letKickGo();
      await (closing ?? queue.close());
    }
  });
});
