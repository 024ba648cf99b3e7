import { describe, expect, it } from 'vitest';
import { AccountLanes, type LaneSettings } from '../packages/queue/src/lanes';
import { jobKeyPrefix } from '../packages/queue/src/queue';
import { fileRedis } from './support/redis';

// Cancelling a waiting request (cancel.lua), driven step by step on a real Redis. The jobs are
// BullMQ job hashes holding only what the scripts read (that the job exists, its data, its lock).
const { redis, prefix } = fileRedis();
const jobs = jobKeyPrefix(prefix);
const base = jobs.replace(/operations:$/, '');
const GAP_MS = 1_500;
const settings: LaneSettings = { concurrency: 1, intervalMs: 0, gapMs: GAP_MS, maxBacklog: 100 };
const lanes = new AccountLanes(redis, jobs, settings);
let lanesUsed = 0;

/** A new lane of one slot, and a function that queues a job on it (admitted, then held by BullMQ). */
function lane() {
  const name = `platform:c${++lanesUsed}`;
  const key = (part: string) => `${base}lane:${name}:${part}`;
  const add = async (jobId: string, gapped = false, dedupeKey?: string) => {
    const { admissions } = await lanes.admit([
      { lane: name, jobId, gapped, ...(dedupeKey === undefined ? {} : { dedupeKey }) },
    ]);
    await redis.hset(`${jobs}${jobId}`, 'data', gapped ? '{"gapped":true}' : '{}');
    return admissions[0];
  };
  const claim = async (jobId: string, gapped = false) =>
    (await lanes.claim([{ lane: name, jobId, gapped }]))[0]?.kind;
  const cancel = (jobId: string, dedupeKey?: string) => lanes.cancel(name, jobId, dedupeKey, 60);
  return { name, key, add, claim, cancel };
}

describe('cancelling a waiting request', () => {
  it('takes a parked job out of its lane: the backlog, the wait list; its claim then fails it', async () => {
    const { name, key, add, claim, cancel } = lane();
    expect(await add('run1')).toEqual({ kind: 'ok', delayMs: 0 });
    expect(await add('parked')).toEqual({ kind: 'ok', delayMs: undefined });
    expect(await redis.lrange(key('wait'), 0, -1)).toEqual(['parked']);

    // It is woken at once (delay 0), so that it ends now instead of when its park would have.
    expect(await cancel('parked')).toEqual({ kind: 'cancelled', wakes: [{ jobId: 'parked', delayMs: 0 }] });
    expect(await redis.zrange(key('jobs'), 0, -1)).toEqual(['run1']);
    expect(await redis.exists(key('wait'))).toBe(0);
    expect(await lanes.isCancelled('parked')).toBe(true);
    expect(await cancel('parked')).toEqual({ kind: 'already' });

    expect(await claim('parked')).toBe('cancelled');
    // The slot was never the cancelled job's: the running one keeps it, and its release wakes nobody.
    expect(await redis.zrange(key('run'), 0, -1)).toEqual(['run1']);
    expect(await lanes.release([{ lane: name, jobId: 'run1', final: true }])).toEqual([]);
  });

  it('refuses a job that holds a slot, runs, or has ended', async () => {
    const { name, add, claim, cancel } = lane();
    await add('granted');
    expect(await cancel('granted')).toEqual({ kind: 'refused' });
    expect(await claim('granted')).toBe('run');
    expect(await cancel('granted')).toEqual({ kind: 'refused' });
    await lanes.release([{ lane: name, jobId: 'granted', final: true }]);
    expect(await cancel('granted')).toEqual({ kind: 'refused' });

    // Not granted, but BullMQ holds its lock (a worker took it and has not claimed yet, say).
    await add('blocker');
    await add('locked');
    await redis.set(`${jobs}locked:lock`, 'token');
    expect(await cancel('locked')).toEqual({ kind: 'refused' });
    expect(await lanes.isCancelled('locked')).toBe(false);
    // A request still inside its batch (no job of its own) runs with it.
    await add('blocker-3');
    await redis.del(`${jobs}blocker-3`);
    expect(await cancel('blocker-3')).toEqual({ kind: 'refused' });
  });

  it('a job told to park and cancelled before its requeue is woken, not queued again', async () => {
    const { name, key, add, claim, cancel } = lane();
    await add('holder');
    await add('retry');
    await redis.lrem(key('wait'), 0, 'retry');
    // A retry after its backoff meets a busy lane: park; its caller cancels it before the requeue.
    expect(await claim('retry')).toBe('park');
    expect((await cancel('retry')).kind).toBe('cancelled');
    expect(await lanes.requeue(name, 'retry', false)).toEqual([{ jobId: 'retry', delayMs: 0 }]);
    expect(await redis.exists(key('wait'))).toBe(0);
    expect(await claim('retry')).toBe('cancelled');
  });

  it('a media-stats job on its timed wake: the wake passes to the next one, and its sharing key goes', async () => {
    const { key, add, claim, cancel } = lane();
    expect(await add('g1', true, 'chat1')).toEqual({ kind: 'ok', delayMs: 0 });
    expect(await claim('g1', true)).toBe('run');
    await add('g2', true, 'chat2');
    expect(await redis.hget(key('state'), 'gwake')).toBe('g2');
    await add('g3', true, 'chat3');
    expect(await redis.get(key('dedupe:chat2'))).toBe('g2');

    const done = await cancel('g2', 'chat2');
    expect(done.kind).toBe('cancelled');
    // g3 takes the timed wake g2 had, for the end of the same gap.
    expect(await redis.hget(key('state'), 'gwake')).toBe('g3');
    expect(done.kind === 'cancelled' && done.wakes.map((w) => w.jobId)).toEqual(['g2', 'g3']);
    expect(await redis.exists(key('dedupe:chat2'))).toBe(0);
    expect(await redis.get(key('dedupe:chat3'))).toBe('g3');
  });
});
