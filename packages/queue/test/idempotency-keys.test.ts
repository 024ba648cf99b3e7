import { setTimeout as sleep } from 'node:timers/promises';
import { randomId } from '@cg/store';
import { describe, expect, it } from 'vitest';
import { fileRedis, testQueue } from '../../../test/support/redis';
import { scanKeys } from '../../../test/support/stack';
import { IdempotencyKeys } from '../src/idempotency';
import { queueKeys } from '../src/keys';
import type { JobPayload } from '../src/payload';
import { PARK_MS } from '../src/wake';

// The records behind callers' Idempotency-Keys, on a real Redis: a job "exists" when its BullMQ hash
// does, which the test writes itself (or a real queue adds, without a worker).
const { redis, prefix } = fileRedis();
const names = queueKeys(prefix);
const WINDOW_MS = 300;
const keys = new IdempotencyKeys(redis, names, 60, WINDOW_MS);
const addJob = (jobId: string) => redis.hset(names.job(jobId), 'name', 'posts-create');
/** A job that failed for good, as BullMQ leaves it: in the failed set, with its reason. */
async function failJob(jobId: string, failedReason: string) {
  await redis.hset(
    names.job(jobId),
    'name',
    'posts-create',
    'failedReason',
    failedReason,
    'finishedOn',
    Date.now(),
  );
  await redis.zadd(names.failed, Date.now(), jobId);
}
/** Fails the job for good with `failedReason`, its write-ahead mark left: its write may have been applied. */
const failMarked = (failedReason: string) => async (jobId: string) => {
  await failJob(jobId, failedReason);
  await redis.set(names.sent(jobId), 'token');
};
/** A fingerprint: 64 hex digits. */
const fp = (n: number) => String(n).repeat(64);

/** What a claim answers: the key is the request's now (a fresh claim unless said), or replays a job. */
const claimed = (jobId: string, fresh = true) => ({ kind: 'new', jobId, fresh });
const replay = (jobId: string) => ({ kind: 'replay', jobId });

describe('IdempotencyKeys', () => {
  it('claims a new key once; the same request then replays its job, another request is a mismatch', async () => {
    expect(await keys.claim('t1', 'k-a', [fp(1)], 'job_a1')).toEqual(claimed('job_a1'));
    await addJob('job_a1');
    expect(await keys.claim('t1', 'k-a', [fp(1)], 'job_a2')).toEqual(replay('job_a1'));
    expect(await keys.claim('t1', 'k-a', [fp(2)], 'job_a3')).toEqual({ kind: 'mismatch' });
    // Another tenant's same key is another key.
    expect(await keys.claim('t2', 'k-a', [fp(2)], 'job_a4')).toEqual(claimed('job_a4'));
  });

  it('recognises a request by any of its fingerprints (the encryption keys of a rotation)', async () => {
    expect(await keys.claim('t1', 'k-r', [fp(1)], 'job_r1')).toEqual(claimed('job_r1'));
    await addJob('job_r1');
    expect(await keys.claim('t1', 'k-r', [fp(7), fp(1)], 'job_r2')).toEqual(replay('job_r1'));
    expect(await keys.claim('t1', 'k-r', [fp(7), fp(8)], 'job_r3')).toEqual({ kind: 'mismatch' });
  });

  it('holds a key whose job is not added yet for the window, then lets the next request take it over with the same job id', async () => {
    expect(await keys.claim('t1', 'k-b', [fp(1)], 'job_b1')).toEqual(claimed('job_b1'));
    expect(await keys.claim('t1', 'k-b', [fp(1)], 'job_b2')).toEqual({ kind: 'pending' });
    await sleep(WINDOW_MS + 50);
    // job_b1 was not added in the window (its API process died, or hangs): the key is the next
    // request's, under job_b1's id, so that a late add of job_b1 adds nothing beside it.
    const taken = await keys.claim('t1', 'k-b', [fp(1)], 'job_b2');
    expect(taken).toEqual(claimed('job_b1', false));
    // The request that took it over is refused (429): the key stays job_b1's, whose add may land yet.
    await keys.release('t1', 'k-b', taken as { jobId: string; fresh: boolean });
    expect(await keys.claim('t1', 'k-b', [fp(1)], 'job_b3')).toEqual({ kind: 'pending' });
    await addJob('job_b1');
    expect(await keys.claim('t1', 'k-b', [fp(1)], 'job_b3')).toEqual(replay('job_b1'));
  });

  it('refuses to take over a key whose job is gone while its write-ahead mark stays: lost', async () => {
    expect(await keys.claim('t1', 'k-lost', [fp(1)], 'job_lost')).toEqual(claimed('job_lost'));
    // It ran and sent its write, and was removed early (eviction, a worker clock ahead).
    await redis.set(names.sent('job_lost'), 'token');
    await sleep(WINDOW_MS + 50);
    expect(await keys.claim('t1', 'k-lost', [fp(1)], 'job_lost2')).toEqual({
      kind: 'lost',
      jobId: 'job_lost',
    });
  });

  it('tells a repeat of a key whose cancelled job is gone that it was cancelled, never taking it over', async () => {
    expect(await keys.claim('t1', 'k-cancel', [fp(1)], 'job_cx')).toEqual(claimed('job_cx'));
    // Cancelled (its mark outlives the job), then removed at the end of its retention.
    await redis.set(names.cancelled('job_cx'), Date.now());
    await sleep(WINDOW_MS + 50);
    expect(await keys.claim('t1', 'k-cancel', [fp(1)], 'job_cx2')).toEqual({
      kind: 'cancelled',
      jobId: 'job_cx',
    });
    // While the job is kept, it answers (failed, JOB_CANCELLED) as any other end.
    await failJob('job_cx', 'JOB_CANCELLED: cancelled');
    expect(await keys.claim('t1', 'k-cancel', [fp(1)], 'job_cx3')).toEqual(replay('job_cx'));
  });

  it('gives a key back only for its own claim, and only while the job does not exist', async () => {
    expect(await keys.claim('t1', 'k-c', [fp(1)], 'job_c1')).toEqual(claimed('job_c1'));
    await keys.release('t1', 'k-c', { jobId: 'job_other', fresh: true });
    expect(await keys.claim('t1', 'k-c', [fp(1)], 'job_c2')).toEqual({ kind: 'pending' });
    await keys.release('t1', 'k-c', { jobId: 'job_c1', fresh: true });
    expect(await keys.claim('t1', 'k-c', [fp(2)], 'job_c3')).toEqual(claimed('job_c3'));
    await addJob('job_c3');
    await keys.release('t1', 'k-c', { jobId: 'job_c3', fresh: true });
    expect(await keys.claim('t1', 'k-c', [fp(2)], 'job_c4')).toEqual(replay('job_c3'));
  });

  it('runs a repeat again when the job failed with nothing applied, and replays every other end', async () => {
    // [what, job id, how the job ended, what a repeat gets]
    const ends: [string, string, (jobId: string) => Promise<unknown>, 'new' | 'replay'][] = [
      ['unavailable', 'job_u', (id) => failJob(id, 'UPSTREAM_UNAVAILABLE retry-after=5: unavailable'), 'new'],
      ['session refused', 'job_s', (id) => failJob(id, 'REAUTH_REQUIRED: connect the account again'), 'new'],
      // The session refused after its write had been sent (its mark kept): replayed.
      [
        'session refused, marked',
        'job_x',
        failMarked('REAUTH_REQUIRED: connect the account again'),
        'replay',
      ],
      // Failed an attempt and waiting for the next (BullMQ keeps its reason; not in the failed set).
      [
        'retrying',
        'job_w',
        (id) => redis.hset(names.job(id), 'failedReason', 'UPSTREAM_UNAVAILABLE: x'),
        'replay',
      ],
      // An earlier step applied: the job's write-ahead mark stays.
      [
        'unavailable, a step applied',
        'job_m',
        failMarked('UPSTREAM_UNAVAILABLE: unavailable (not retried)'),
        'replay',
      ],
      ['outcome unknown', 'job_o', (id) => failJob(id, 'UPSTREAM_OUTCOME_UNKNOWN: may or may not'), 'replay'],
      ['refused by the platform', 'job_b', (id) => failJob(id, 'BAD_REQUEST: invalid'), 'replay'],
      ['completed', 'job_c', (id) => addJob(id), 'replay'],
    ];
    for (const [what, jobId, end, expected] of ends) {
      const key = `k-end-${jobId}`;
      expect(await keys.claim('t1', key, [fp(4)], jobId)).toEqual(claimed(jobId));
      await end(jobId);
      const again = await keys.claim('t1', key, [fp(4)], `${jobId}_again`);
      expect(again, what).toEqual(expected === 'new' ? claimed(`${jobId}_again`, false) : replay(jobId));
    }
  });

  it('keeps the key hashed, and lets records expire with the retention', async () => {
    const key = `order-${randomId(12)}`;
    expect((await keys.claim('t1', key, [fp(3)], 'job_d1')).kind).toBe('new');
    const stored = await scanKeys(redis, prefix);
    expect(stored.some((name) => name.includes(key))).toBe(false);
    const records = stored.filter((name) => name === names.idempotency('t1', key));
    expect(records.length).toBeGreaterThan(0);
    for (const name of records) {
      expect(await redis.get(name)).not.toContain(key);
      const ttl = await redis.ttl(name);
      expect(ttl).toBeGreaterThan(50);
      expect(ttl).toBeLessThanOrEqual(60);
    }
  });
});

describe('a key taken over, then the dead claim’s add landing after all', () => {
  it('leaves one job: the late add under the same id adds nothing', async () => {
    const queue = testQueue(redis, prefix);
    try {
      await queue.ready();
      const write = (label: string): JobPayload => ({
        op: 'tracking-links-create',
        tenantId: 't1',
        accountId: 'acct_late',
        lane: 'acct_late',
        input: { body: { label } },
        at: Date.now(),
        write: true,
      });
      const claim = await queue.idempotency.claim('t1', 'k-late', [fp(5)], 'job_late1');
      expect(claim).toEqual(claimed('job_late1'));
      // The queue keeps a key its retention and `PARK_MS` more, so a job parked long keeps its key.
      const ttl = await redis.ttl(names.idempotency('t1', 'k-late'));
      expect(ttl).toBeGreaterThan(60 + PARK_MS / 1000 - 5);
      expect(ttl).toBeLessThanOrEqual(60 + PARK_MS / 1000);
      await sleep(WINDOW_MS + 50);
      const taken = await keys.claim('t1', 'k-late', [fp(5)], 'job_late2');
      expect(taken).toEqual(claimed('job_late1', false));
      await queue.submit(write('taken over'), 0, 'job_late1');
      await queue.submit(write('late'), 0, 'job_late1');
      const counts = await queue.queue.getJobCounts('waiting', 'delayed', 'active', 'prioritized');
      expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(1);
      expect((await queue.queue.getJob('job_late1'))?.data).toMatchObject({
        input: { body: { label: 'taken over' } },
      });
    } finally {
      await queue.close();
    }
  });
});
