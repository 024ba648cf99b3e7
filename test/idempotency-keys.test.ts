import { setTimeout as sleep } from 'node:timers/promises';
import { connectRedis, randomId } from '@cg/store';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { IdempotencyKeys } from '../packages/queue/src/idempotency';
import { scanKeys } from './support/stack';

// The records behind callers' Idempotency-Keys, on a real Redis: a job "exists" when its BullMQ hash
// does, which the test writes itself.
const redis = connectRedis(inject('redisUrl'));
const prefix = `cgt-${randomId(8)}`;
const jobPrefix = `{${prefix}:q}:operations:`;
const WINDOW_MS = 300;
const keys = new IdempotencyKeys(redis, `{${prefix}:q}:idem:`, jobPrefix, 60, WINDOW_MS);
const addJob = (jobId: string) => redis.hset(`${jobPrefix}${jobId}`, 'name', 'posts-create');
const fp = (n: number) => String(n).repeat(64);

afterAll(async () => {
  const found = await scanKeys(redis, prefix);
  if (found.length > 0) await redis.del(...found);
  redis.disconnect();
});

describe('IdempotencyKeys', () => {
  it('claims a new key once; the same request then replays its job, another request is a mismatch', async () => {
    expect(await keys.claim('t1', 'k-a', fp(1), 'job_a1')).toEqual({ kind: 'new' });
    await addJob('job_a1');
    expect(await keys.claim('t1', 'k-a', fp(1), 'job_a2')).toEqual({ kind: 'replay', jobId: 'job_a1' });
    expect(await keys.claim('t1', 'k-a', fp(2), 'job_a3')).toEqual({ kind: 'mismatch' });
    // Another tenant's same key is another key.
    expect(await keys.claim('t2', 'k-a', fp(2), 'job_a4')).toEqual({ kind: 'new' });
  });

  it('holds a key whose job is not added yet for the window, then lets the next request take it over', async () => {
    expect(await keys.claim('t1', 'k-b', fp(1), 'job_b1')).toEqual({ kind: 'new' });
    expect(await keys.claim('t1', 'k-b', fp(1), 'job_b2')).toEqual({ kind: 'pending' });
    await sleep(WINDOW_MS + 50);
    // job_b1 was never added (its API process died): the key is job_b2's now.
    expect(await keys.claim('t1', 'k-b', fp(1), 'job_b2')).toEqual({ kind: 'new' });
    await addJob('job_b2');
    expect(await keys.claim('t1', 'k-b', fp(1), 'job_b3')).toEqual({ kind: 'replay', jobId: 'job_b2' });
  });

  it('gives a key back only for its own claim, and only while the job does not exist', async () => {
    expect(await keys.claim('t1', 'k-c', fp(1), 'job_c1')).toEqual({ kind: 'new' });
    await keys.release('t1', 'k-c', 'job_other');
    expect(await keys.claim('t1', 'k-c', fp(1), 'job_c2')).toEqual({ kind: 'pending' });
    await keys.release('t1', 'k-c', 'job_c1');
    expect(await keys.claim('t1', 'k-c', fp(2), 'job_c3')).toEqual({ kind: 'new' });
    await addJob('job_c3');
    await keys.release('t1', 'k-c', 'job_c3');
    expect(await keys.claim('t1', 'k-c', fp(2), 'job_c4')).toEqual({ kind: 'replay', jobId: 'job_c3' });
  });

  it('keeps neither the key nor anything of it in clear, and lets records expire with the retention', async () => {
    const key = `order-${randomId(12)}`;
    expect(await keys.claim('t1', key, fp(3), 'job_d1')).toEqual({ kind: 'new' });
    const names = await scanKeys(redis, prefix);
    expect(names.some((name) => name.includes(key))).toBe(false);
    expect(names.filter((name) => name.startsWith(`{${prefix}:q}:idem:t1:`)).length).toBeGreaterThan(0);
    const values = await Promise.all(names.map((name) => redis.get(name).catch(() => '')));
    expect(values.some((value) => value?.includes(key))).toBe(false);
    const ttls = await Promise.all(
      names.filter((name) => name.includes(':idem:')).map((name) => redis.ttl(name)),
    );
    for (const ttl of ttls) expect(ttl).toBeGreaterThan(50);
    for (const ttl of ttls) expect(ttl).toBeLessThanOrEqual(60);
  });
});
