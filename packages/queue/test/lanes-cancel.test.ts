import { describe, expect, it } from 'vitest';
import { fileRedis } from '../../../test/support/redis';
import { queueKeys } from '../src/keys';
import { type LaneSettings, Lanes } from '../src/lanes';

// Cancelling a waiting request (cancel.lua), driven step by step on a real Redis. The jobs are
// BullMQ job hashes holding only what the scripts read (that the job exists, its data), and the
// delayed set, where the API adds a job that may not start at once.
const { redis, prefix } = fileRedis();
const keys = queueKeys(prefix);
const GAP_MS = 1_500;
const settings: LaneSettings = { concurrency: 1, intervalMs: 0, gapMs: GAP_MS, maxBacklog: 100 };
let lanesUsed = 0;

/** A new lane (one slot unless `more` says), and functions that queue and cancel jobs on it. */
function lane(more: Partial<LaneSettings> = {}) {
  const lanes = new Lanes(redis, keys, { ...settings, ...more });
  const name = `platform:c${++lanesUsed}`;
  const key = keys.lane(name);
  /** Admitted, then added as the API adds it: delayed unless it may start now. */
  const add = async (jobId: string, gapped = false, dedupeKey?: string) => {
    const { admissions } = await lanes.admit([
      { lane: name, jobId, gapped, ...(dedupeKey === undefined ? {} : { dedupeKey }) },
    ]);
    await redis.hset(keys.job(jobId), 'data', gapped ? '{"gapped":true}' : '{}');
    const admission = admissions[0];
    if (admission?.kind === 'ok' && admission.delayMs !== 0) await delay(jobId);
    return admission;
  };
  const claim = async (jobId: string, gapped = false) =>
    (await lanes.claim([{ lane: name, jobId, gapped }]))[0]?.kind;
  const cancel = (jobId: string, dedupeKey?: string) => lanes.cancel(name, jobId, dedupeKey, 60);
  return { lanes, name, key, add, claim, cancel };
}

/** BullMQ's delayed set holds the job (added delayed, or moved there by its worker). */
const delay = (jobId: string) => redis.zadd(keys.delayed, Date.now() * 4096, jobId);

describe('cancelling a waiting request', () => {
  it('takes a parked job out of its lane: the backlog, the wait list; its claim then fails it', async () => {
    const { lanes, name, key, add, claim, cancel } = lane();
    expect(await add('run1')).toEqual({ kind: 'ok', delayMs: 0 });
    expect(await add('parked')).toEqual({ kind: 'ok', delayMs: undefined });
    expect(await redis.lrange(key.wait, 0, -1)).toEqual(['parked']);

    // It is woken at once (delay 0), so that it ends now instead of when its park would have.
    expect(await cancel('parked')).toEqual({ kind: 'cancelled', wakes: [{ jobId: 'parked', delayMs: 0 }] });
    expect(await redis.zrange(key.jobs, 0, -1)).toEqual(['run1']);
    expect(await redis.exists(key.wait)).toBe(0);
    expect(await lanes.isCancelled('parked')).toBe(true);
    expect(await cancel('parked')).toEqual({ kind: 'already' });

    expect(await claim('parked')).toBe('cancelled');
    // The running job keeps its slot, and its release wakes nobody.
    expect(await redis.zrange(key.run, 0, -1)).toEqual(['run1']);
    expect(await lanes.release([{ lane: name, jobId: 'run1', final: true }])).toEqual([]);
  });

  it('cancels a job granted a slot for a later start (pacing), and gives the slot to the next one', async () => {
    const { lanes, name, key, add, claim, cancel } = lane({ intervalMs: 5_000 });
    await add('first');
    expect(await claim('first')).toBe('run');
    await lanes.release([{ lane: name, jobId: 'first', final: true }]);
    // Granted at once, to start one interval after the first: delayed, holding the slot.
    expect(await add('paced')).toMatchObject({ kind: 'ok', delayMs: expect.any(Number) });
    expect(await add('next')).toEqual({ kind: 'ok', delayMs: undefined });
    expect(await redis.zrange(key.run, 0, -1)).toEqual(['paced']);

    const pacedAt = Number(await redis.zscore(key.run, 'paced'));
    const nextBefore = Number(await redis.hget(key.state, 'next'));
    const done = await cancel('paced');
    expect(done.kind === 'cancelled' && done.wakes.map((w) => w.jobId)).toEqual(['paced', 'next']);
    // The slot goes with the start it was granted for: the next one starts when the cancelled one
    // would have (not an interval after it), and the rate's clock does not move.
    expect(await redis.zscore(key.run, 'next')).toBe(String(pacedAt));
    expect(done.kind === 'cancelled' && done.wakes[1]?.delayMs).toBeLessThanOrEqual(5_000);
    expect(Number(await redis.hget(key.state, 'next'))).toBe(nextBefore);
    expect(await redis.zrange(key.run, 0, -1)).toEqual(['next']);
    expect(await claim('paced')).toBe('cancelled');
  });

  it('a cancelled backlog does not consume pacing: the next start stays within one interval', async () => {
    const interval = 2_000;
    const { lanes, name, key, add, claim, cancel } = lane({ concurrency: 2, intervalMs: interval });
    await add('first');
    expect(await claim('first')).toBe('run');
    // The second is granted for an interval later (delayed); the rest wait in the list.
    const backlog = Array.from({ length: 30 }, (_, i) => `b${i}`);
    for (const id of backlog) await add(id);
    const nextBefore = Number(await redis.hget(key.state, 'next'));
    // Cancelled oldest first, as a caller walking its list does: each cancel of the job holding the
    // paced slot hands the slot to the next one waiting, which is cancelled in turn.
    for (const id of backlog) expect((await cancel(id)).kind).toBe('cancelled');
    expect(await redis.exists(key.run)).toBe(1);
    expect(await redis.zrange(key.run, 0, -1)).toEqual(['first']);
    // 30 cancelled grants would have pushed `next` 30 intervals ahead; it has not moved (the last
    // cancelled start, taken by nobody, even gave its interval back).
    expect(Number(await redis.hget(key.state, 'next'))).toBe(nextBefore - interval);
    await lanes.release([{ lane: name, jobId: 'first', final: true }]);
    const after = await add('after');
    expect(after?.kind).toBe('ok');
    expect(after?.kind === 'ok' && after.delayMs).toBeLessThanOrEqual(interval);
  });

  it('refuses a job BullMQ has handed out or is about to, a request inside its batch, a write that was sent', async () => {
    const { lanes, name, add, claim, cancel } = lane();
    // Granted at once: added to the wait list, not the delayed set.
    await add('granted');
    expect(await cancel('granted')).toEqual({ kind: 'refused' });
    expect(await claim('granted')).toBe('run');
    expect(await cancel('granted')).toEqual({ kind: 'refused' });
    await lanes.release([{ lane: name, jobId: 'granted', final: true }]);
    expect(await cancel('granted')).toEqual({ kind: 'refused' });

    // A parked job BullMQ has moved on (its safety delay ran out, or a worker died holding it):
    // no slot, no lock, but no longer delayed.
    await add('blocker');
    await add('moved');
    await redis.zrem(keys.delayed, 'moved');
    expect(await cancel('moved')).toEqual({ kind: 'refused' });
    // A write with a write-ahead mark: its request may have been sent.
    await add('written');
    await redis.set(keys.sent('written'), 'token');
    expect(await cancel('written')).toEqual({ kind: 'refused' });
    // A request still inside its batch (no job of its own) runs with it.
    await add('blocker-3');
    await redis.del(keys.job('blocker-3'));
    await redis.zrem(keys.delayed, 'blocker-3');
    expect(await cancel('blocker-3')).toEqual({ kind: 'refused' });
    for (const id of ['moved', 'written', 'blocker-3']) expect(await lanes.isCancelled(id)).toBe(false);
  });

  it('a job told to park and cancelled before its requeue is woken, not queued again', async () => {
    const { lanes, name, key, add, claim, cancel } = lane();
    await add('holder');
    await add('retry');
    await redis.lrem(key.wait, 0, 'retry');
    await redis.zrem(keys.delayed, 'retry');
    // A retry after its backoff meets a busy lane: park. Its worker moves it to the delayed set, and
    // its caller cancels it before the requeue.
    expect(await claim('retry')).toBe('park');
    await delay('retry');
    expect((await cancel('retry')).kind).toBe('cancelled');
    expect(await lanes.requeue(name, 'retry', false)).toEqual([{ jobId: 'retry', delayMs: 0 }]);
    expect(await redis.exists(key.wait)).toBe(0);
    expect(await claim('retry')).toBe('cancelled');
  });

  it('a media-stats job on its timed wake: the wake passes to the next one, and its sharing key goes', async () => {
    const { key, add, claim, cancel } = lane();
    expect(await add('g1', true, 'chat1')).toEqual({ kind: 'ok', delayMs: 0 });
    expect(await claim('g1', true)).toBe('run');
    await add('g2', true, 'chat2');
    expect(await redis.hget(key.state, 'gwake')).toBe('g2');
    await add('g3', true, 'chat3');
    expect(await redis.get(key.dedupe('chat2'))).toBe('g2');

    const done = await cancel('g2', 'chat2');
    expect(done.kind).toBe('cancelled');
    // g3 takes the timed wake g2 had, for the end of the same gap.
    expect(await redis.hget(key.state, 'gwake')).toBe('g3');
    expect(done.kind === 'cancelled' && done.wakes.map((w) => w.jobId)).toEqual(['g2', 'g3']);
    expect(await redis.exists(key.dedupe('chat2'))).toBe(0);
    expect(await redis.get(key.dedupe('chat3'))).toBe('g3');
  });
});
