import { storeKeys } from '@cg/store';
import { describe, expect, it } from 'vitest';
import { fileRedis } from '../../../test/support/redis';
import { queueKeys } from '../src/keys';
import { Lanes } from '../src/lanes';
import { type TenantJob, TenantJobs, type TenantJobsCursor } from '../src/tenant-jobs';

// The tenants' job indexes (`GET /jobs`) and a lane's view (`GET /accounts/{id}/status`), on a real
// Redis.
const { redis, prefix } = fileRedis();

/** Every entry of the tenant's index, `count` a page, each page from the last entry of the one before. */
async function walk(index: TenantJobs, tenantId: string, count: number): Promise<string[]> {
  const seen: string[] = [];
  let from: TenantJobsCursor | undefined;
  for (let pages = 0; pages < 100; pages++) {
    const page = await index.page(tenantId, from, count);
    seen.push(...page.map((job) => job.jobId));
    const last = page.at(-1);
    if (page.length < count || last === undefined) return seen;
    from = { at: last.at, jobId: last.jobId };
  }
  throw new Error('the walk did not end');
}

describe('a tenant’s job index', () => {
  it('pages newest first, entries of one time included once each, other tenants’ apart', async () => {
    const index = new TenantJobs(redis, prefix, 60_000);
    const at = Date.now();
    // Twelve jobs, most of them accepted in the same millisecond (one group), one a batch's.
    const jobs: TenantJob[] = [
      { jobId: 'job_old', op: 'me', accountId: 'acct_a', at: at - 10 },
      ...Array.from({ length: 10 }, (_, n) => ({ jobId: `job_same${n}`, op: 'me', accountId: 'acct_a', at })),
      { jobId: 'job_batch-0', op: 'connect', accountId: undefined, at: at + 5 },
    ];
    await index.add(jobs.map((job) => ({ ...job, tenantId: 't1' })));
    await index.add([{ tenantId: 't2', jobId: 'job_theirs', op: 'me', accountId: 'acct_b', at }]);

    const whole = await index.page('t1', undefined, 100);
    expect(whole[0]).toEqual({ jobId: 'job_batch-0', op: 'connect', accountId: undefined, at: at + 5 });
    expect(whole.at(-1)?.jobId).toBe('job_old');
    expect(whole).toHaveLength(12);
    for (const count of [1, 2, 3, 5])
      expect(await walk(index, 't1', count)).toEqual(whole.map((j) => j.jobId));
    expect((await index.page('t2', undefined, 100)).map((job) => job.jobId)).toEqual(['job_theirs']);
  });

  it('drops entries older than it keeps them, and expires with the last', async () => {
    const index = new TenantJobs(redis, prefix, 1_000);
    const now = Date.now();
    await index.add([{ tenantId: 't3', jobId: 'job_stale', op: 'me', accountId: 'acct_c', at: now - 5_000 }]);
    await index.add([{ tenantId: 't4', jobId: 'job_x', op: 'me', accountId: 'acct_d', at: now }]);
    // A new process trims at its first note of a tenant.
    const another = new TenantJobs(redis, prefix, 1_000);
    await another.add([{ tenantId: 't3', jobId: 'job_fresh', op: 'me', accountId: 'acct_c', at: now }]);
    expect((await index.page('t3', undefined, 10)).map((job) => job.jobId)).toEqual(['job_fresh']);
    const ttl = await redis.pttl(storeKeys(prefix).tenantJobs('t3'));
    expect(ttl).toBeGreaterThan(1_000);
    expect(ttl).toBeLessThanOrEqual(1_000 + 120_000);
  });
});

describe('a lane’s view', () => {
  it('tells a pause and why, the pacing and the media-stats gap, on Redis’s clock', async () => {
    const settings = { concurrency: 1, intervalMs: 2_000, gapMs: 5_000, maxBacklog: 10 };
    const lanes = new Lanes(redis, queueKeys(prefix), settings);
    expect(await lanes.inspect('platform:idle')).toMatchObject({
      inFlight: 0,
      backlog: 0,
      waiting: 0,
      nextStartAt: null,
      pausedUntil: null,
      pauseWhy: null,
      nextGappedAt: null,
    });
    const lane = 'platform:busy';
    await lanes.admit([
      { lane, jobId: 'job_one', gapped: true },
      { lane, jobId: 'job_two', gapped: false },
    ]);
    await lanes.pause(lane, 30_000, 'the platform answered 429 with Retry-After 30 s');
    const view = await lanes.inspect(lane);
    expect(view).toMatchObject({
      inFlight: 1,
      backlog: 2,
      waiting: 1,
      pauseWhy: 'the platform answered 429 with Retry-After 30 s',
    });
    expect(view.pausedUntil).toBeGreaterThan(view.now + 29_000);
    expect(view.nextStartAt).toBeGreaterThan(view.now);
    // The gapped job was granted now: the next one may start a gap later.
    expect(view.nextGappedAt).toBeGreaterThan(view.now + 4_000);
    // A shorter pause does not replace the longer one, nor its reason.
    await lanes.pause(lane, 1_000, 'other');
    expect((await lanes.inspect(lane)).pauseWhy).toBe('the platform answered 429 with Retry-After 30 s');
  });
});
