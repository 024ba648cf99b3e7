import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { fileRedis } from '../../../test/support/redis';
import { queueKeys } from '../src/keys';
import { type LaneSettings, Lanes } from '../src/lanes';

// The media-stats gap as the lane scripts keep it, driven step by step on a real Redis. The jobs
// are BullMQ job hashes holding only what the scripts read (that the job exists, and its data).
const { redis, prefix } = fileRedis();
const keys = queueKeys(prefix);
// A gap longer than the 1 s a slot may be held for a gapped job, so the next one gets a timed wake.
const GAP_MS = 1_500;
const settings: LaneSettings = { concurrency: 2, intervalMs: 0, gapMs: GAP_MS, maxBacklog: 100 };
const lanes = new Lanes(redis, keys, settings);
let lanesUsed = 0;

/** A new lane and a function that queues a media-stats job on it (admitted, then held by BullMQ). */
function gappedLane() {
  const lane = `platform:${++lanesUsed}`;
  const state = () => redis.hgetall(keys.lane(lane).state);
  const add = async (jobId: string) => {
    const { admissions } = await lanes.admit([{ lane, jobId, gapped: true }]);
    await redis.hset(keys.job(jobId), 'data', '{"gapped":true}');
    return admissions[0];
  };
  return { lane, state, add };
}

describe('the media-stats gap', () => {
  it('a job let through that sends nothing gives the gap back, and wakes the next one on its timed wait', async () => {
    const { lane, state, add } = gappedLane();
    expect(await add('live1')).toEqual({ kind: 'ok', delayMs: 0 });
    expect((await lanes.claim([{ lane, jobId: 'live1', gapped: true }]))[0]?.kind).toBe('run');
    const firstCall = Number((await state()).last);
    await lanes.release([{ lane, jobId: 'live1', final: true, gapped: true }]);

    // The dead job waits for the gap on a timed wake, then is let through...
    expect(await add('dead')).toMatchObject({ kind: 'ok', delayMs: expect.any(Number) });
    expect((await state()).gwake).toBe('dead');
    await sleep(GAP_MS + 300);
    expect((await lanes.claim([{ lane, jobId: 'dead', gapped: true }]))[0]?.kind).toBe('run');
    // ...and the next live one, arriving meanwhile, is put on a timed wake a gap after the dead one.
    const queued = await add('live2');
    expect(queued).toMatchObject({ kind: 'ok' });
    expect((await state()).gwake).toBe('live2');

    // The dead job ends without a call: the gap counts from the first call again, and live2 wakes now.
    const wakes = await lanes.release([{ lane, jobId: 'dead', final: true, gapped: true, idle: true }]);
    expect(Number((await state()).last)).toBe(firstCall);
    expect(wakes).toEqual([{ jobId: 'live2', delayMs: 0 }]);
    expect((await lanes.claim([{ lane, jobId: 'live2', gapped: true }]))[0]?.kind).toBe('run');
  });

  it('a re-login call (touch) is never given back', async () => {
    const { lane, state, add } = gappedLane();
    await add('job');
    expect((await lanes.claim([{ lane, jobId: 'job', gapped: true }]))[0]?.kind).toBe('run');
    await lanes.touch(lane);
    const touched = Number((await state()).last);
    await lanes.release([{ lane, jobId: 'job', final: true, gapped: true, idle: true }]);
    expect(Number((await state()).last)).toBe(touched);
  });

  it('a job on the timed wake that ends without running stops holding the media-stats list', async () => {
    const { lane, state, add } = gappedLane();
    await add('first');
    expect((await lanes.claim([{ lane, jobId: 'first', gapped: true }]))[0]?.kind).toBe('run');
    await lanes.release([{ lane, jobId: 'first', final: true, gapped: true }]);
    await add('waiting');
    expect((await state()).gwake).toBe('waiting');
    // It failed before its claim was answered "run" (its account was gone): a final release.
    await lanes.release([{ lane, jobId: 'waiting', final: true, gapped: true }]);
    expect((await state()).gwake ?? '').toBe('');
  });
});
