import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectAccount } from '../support/common';
import { tellOnFailure } from '../support/logs';
import { eventually, spawnWorker } from '../support/processes';
import { clearFaults, injectFault, observations, resetObservations, slowDown } from '../support/sim';
import { account, finished as finishedAt, gw, startStack, type TestStack } from '../support/stack';

// What a lane gets back after work that never reached the platform (docs/scheduling.md): a
// cancelled backlog costs its account no pacing, and a SIGKILLed worker's account goes on within
// seconds, not a lease. The worker's lock settings are the defaults (WORKER_LOCK_MS).
/** The account's pace: slow enough that a backlog of 30 outlasts cancelling it on a loaded machine. */
const INTERVAL_MS = 1_000;
/** The acceptance bound: a SIGKILLed worker's account resumes within this long. */
const TAKEOVER_MS = 10_000;
let stack: TestStack;
let hot: string;
let hotPlatformId: string;

beforeAll(async () => {
  stack = await startStack({
    env: {
      ACCOUNT_CONCURRENCY: '2',
      ACCOUNT_RATE_PER_MINUTE: String(60_000 / INTERVAL_MS),
    },
  });
  hot = await connectAccount(stack, 'creator_demo');
  hotPlatformId = account(stack, 'creator_demo').platformAccountId;
});
afterEach(async () => {
  await clearFaults(stack);
});
afterAll(async () => {
  await stack?.stop();
});

const async = { prefer: 'respond-async' };
const finished = (statusUrl: string, timeoutMs?: number) => finishedAt(statusUrl, stack.keys.t1, timeoutMs);
const meCalls = async () =>
  (await observations(stack, hotPlatformId)).requests['GET /api/v1/account/me'] ?? 0;

describe('a cancelled backlog', () => {
  it('leaves the account’s next start within its normal spacing', { timeout: 120_000 }, async () => {
    const BACKLOG = 30;
    await resetObservations(stack);
    const queued: string[] = [];
    for (let i = 0; i < BACKLOG; i++) {
      const answer = await gw(stack, 'GET', `/${hot}/me`, { headers: async });
      expect(answer.status).toBe(202);
      queued.push(answer.body.data.jobId);
    }
    // Oldest first, as a caller walking its list does. The first ones may have started already (409);
    // every cancel of the job holding the account's paced slot hands that slot to the next one.
    let cancelled = 0;
    for (const jobId of queued) {
      const answer = await gw(stack, 'DELETE', `/jobs/${jobId}`);
      expect([200, 409]).toContain(answer.status);
      if (answer.status === 200) cancelled += 1;
    }
    expect(cancelled).toBeGreaterThan(BACKLOG / 2);

    // Before, each cancelled grant moved the account's next start an interval on (about 30 s here).
    const started = Date.now();
    const next = await gw(stack, 'GET', `/${hot}/me`);
    const tookMs = Date.now() - started;
    expect(next.status).toBe(200);
    expect(tookMs).toBeLessThan(3 * INTERVAL_MS);
    // None of the cancelled ones reached the platform.
    expect(await meCalls()).toBe(BACKLOG - cancelled + 1);
    tellOnFailure(
      `cancelled backlog: ${cancelled} of ${BACKLOG} cancelled; the next request answered in ${tookMs} ms`,
    );
  });
});

describe('a SIGKILLed worker', () => {
  it('hands its account on within 10 s: the write is not run twice, the read is retried', {
    timeout: 180_000,
  }, async () => {
    await stack.stopWorker();
    await resetObservations(stack);
    // Both of the account's slots held by the worker about to be killed: a write and a read, each held
    // at the sandbox for longer than the drill (the read only the first time).
    await slowDown(stack, 'creator_demo', '/api/v1/lists', 60_000, { method: 'POST' });
    await injectFault(stack, {
      account: 'creator_demo',
      path: '/api/v1/account/me',
      kind: 'latency',
      ms: 60_000,
      count: 1,
    });
    const victim = spawnWorker(stack.env);
    let killedAt = 0;
    try {
      const write = await gw(stack, 'POST', `/${hot}/lists/create`, {
        body: { name: 'killed mid-write' },
        headers: async,
      });
      const read = await gw(stack, 'GET', `/${hot}/me`, { headers: async });
      expect([write.status, read.status]).toEqual([202, 202]);
      await eventually(
        async () => {
          const seen = (await observations(stack, hotPlatformId)).requests;
          return (seen['POST /api/v1/lists'] ?? 0) >= 1 && (seen['GET /api/v1/account/me'] ?? 0) >= 1
            ? true
            : undefined;
        },
        60_000,
        'the write and the read at the sandbox',
      );
      // The survivor runs before the kill; the next request of the account waits for a slot.
      await stack.startWorker();
      const next = await gw(stack, 'GET', `/${hot}/me`, { headers: async });
      expect(next.status).toBe(202);

      victim.child.kill('SIGKILL');
      await victim.exited;
      killedAt = Date.now();

      const nextDone = await finished(next.body.data.statusUrl, 60_000);
      const resumedMs = Date.now() - killedAt;
      expect(nextDone.status).toBe(200);
      const readDone = await finished(read.body.data.statusUrl, 60_000);
      const writeDone = await finished(write.body.data.statusUrl, 60_000);
      tellOnFailure(
        `SIGKILLed worker: the account's next request done ${resumedMs} ms after the kill; ` +
          `write ${writeDone.status} ${writeDone.body.code ?? ''}, read ${readDone.status}`,
      );
      expect(resumedMs).toBeLessThan(TAKEOVER_MS);
      // The read in flight was run again by the survivor; the write was not sent again.
      expect(readDone.status).toBe(200);
      expect(writeDone.status).toBe(502);
      expect(writeDone.body.code).toBe('UPSTREAM_OUTCOME_UNKNOWN');
      const seen = await observations(stack, hotPlatformId);
      expect(seen.requests['POST /api/v1/lists']).toBe(1);
      expect(seen.requests['GET /api/v1/account/me']).toBe(3);
      expect(seen.duplicates).toEqual([]);
    } finally {
      if (victim.child.exitCode === null && victim.child.signalCode === null) victim.child.kill('SIGKILL');
    }
  });
});
