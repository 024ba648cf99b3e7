import { jobKeyPrefix } from '@cg/queue';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { expectBadRequest, expectError, expectNotFound } from '../support/assert';
import { connectAccount } from '../support/common';
import { eventually, sleep } from '../support/processes';
import {
  clearFaults,
  injectFault,
  observations,
  resetObservations,
  sawRequests,
  slowDown,
} from '../support/sim';
import { account, finished as finishedAt, gw, startStack, type TestStack } from '../support/stack';

// DELETE /jobs/{id}: a request waiting for its account is cancelled before it reaches the platform.
// One slot per account, so that a slow call holds the account and what follows waits behind it.
const BACKLOG = 3;
const GAP_MS = 2_000;
let stack: TestStack;
let demo: string;
let platformId: string;

beforeAll(async () => {
  stack = await startStack({
    env: {
      ACCOUNT_CONCURRENCY: '1',
      ACCOUNT_MAX_BACKLOG: String(BACKLOG),
      MEDIA_STATS_GAP_MS: String(GAP_MS),
      // A retry waits 1 to 2 s: long enough to be cancelled in.
      JOB_BACKOFF_MS: '2000',
    },
    sim: { mediaOfferGapMs: GAP_MS },
  });
  demo = await connectAccount(stack, 'creator_demo');
  platformId = account(stack, 'creator_demo').platformAccountId;
});
afterEach(async () => {
  await clearFaults(stack);
});
afterAll(async () => {
  await stack?.stop();
});

const async = { prefer: 'respond-async' };
const finished = (statusUrl: string) => finishedAt(statusUrl, stack.keys.t1);
const cancel = (jobId: string, key?: string) => gw(stack, 'DELETE', `/jobs/${jobId}`, key ? { key } : {});
const createLink = (label: string, headers: Record<string, string> = async) =>
  gw(stack, 'POST', `/${demo}/tracking-links`, { body: { label }, headers });
const creations = async () =>
  (await observations(stack, platformId)).requests['POST /api/v1/trackinglinks'] ?? 0;
/** A worker has ended the job (BullMQ's failed set holds it): it is not left waiting. */
const endedByWorker = (jobId: string) =>
  eventually(
    async () =>
      (await stack.redis.zscore(`${jobKeyPrefix(stack.prefix)}failed`, jobId)) === null ? undefined : true,
    10_000,
    `${jobId} failed`,
  );

/** An account call that holds creator_demo's one slot for `ms`, already at the sandbox. */
async function holdSlot(ms: number): Promise<{ jobId: string; statusUrl: string }> {
  await slowDown(stack, 'creator_demo', '/api/v1/account/me', ms);
  const seen = (await observations(stack, platformId)).requests['GET /api/v1/account/me'] ?? 0;
  const busy = await gw(stack, 'GET', `/${demo}/me`, { headers: async });
  expect(busy.status).toBe(202);
  await sawRequests(stack, 'creator_demo', 'GET /api/v1/account/me', seen + 1);
  return busy.body.data;
}

describe('DELETE /jobs/{id}', () => {
  it('cancels a waiting write: nothing reaches the platform, its status says so, and its backlog place is free', async () => {
    await resetObservations(stack);
    const busy = await holdSlot(1_500);
    const doomed = await createLink('Never');
    expect(doomed.status).toBe(202);
    expect(doomed.body.data.state).toBe('delayed');
    const kept = await createLink('Kept');
    expect(kept.status).toBe(202);
    // The backlog (3) is full: the slow call and the two waiting writes.
    expectError(await createLink('Refused'), 429, 'RATE_LIMITED');

    const { jobId, statusUrl } = doomed.body.data;
    const cancelled = await cancel(jobId);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ statusCode: 200, data: { jobId, state: 'cancelled', statusUrl } });
    expectError(await gw(stack, 'GET', `/jobs/${jobId}`), 409, 'JOB_CANCELLED', 'cancelled', 'not sent');
    // Cancelling again answers the same; the place it held is free at once.
    expect((await cancel(jobId)).status).toBe(200);
    const after = await createLink('After');
    expect(after.status).toBe(202);

    expect((await finished(busy.statusUrl)).status).toBe(200);
    expect((await finished(kept.body.data.statusUrl)).status).toBe(201);
    expect((await finished(after.body.data.statusUrl)).status).toBe(201);
    expect(await creations()).toBe(2);
    // A worker ended the cancelled job (it was woken for that, not left parked): the same answer.
    await endedByWorker(jobId);
    expectError(await gw(stack, 'GET', `/jobs/${jobId}`), 409, 'JOB_CANCELLED');
    expect((await cancel(jobId)).status).toBe(200);
  });

  it('refuses a request that has started or finished; another tenant’s or an unknown job is 404', async () => {
    const busy = await holdSlot(1_000);
    expectError(await cancel(busy.jobId), 409, 'JOB_NOT_CANCELLABLE', 'running or about to');
    expectNotFound(await cancel(busy.jobId, stack.keys.t2));
    expectNotFound(await cancel('job_unknown'));
    expectBadRequest(await cancel('not-a-job'));
    expect((await finished(busy.statusUrl)).status).toBe(200);
    expectError(await cancel(busy.jobId), 409, 'JOB_NOT_CANCELLABLE', 'finished');
  });

  it('answers a synchronous caller waiting for it, and a repeat of its Idempotency-Key, with the cancellation', async () => {
    await resetObservations(stack);
    const busy = await holdSlot(1_500);
    const key = `cancel-${Date.now()}`;
    const first = createLink('Waiting', { 'idempotency-key': key });
    // The same key and request, asynchronously: the first request's job id.
    const replay = await eventually(async () => {
      const answer = await createLink('Waiting', { 'idempotency-key': key, ...async });
      return answer.status === 202 ? answer : undefined;
    });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect((await cancel(replay.body.data.jobId)).status).toBe(200);

    expectError(await first, 409, 'JOB_CANCELLED');
    const repeat = await createLink('Waiting', { 'idempotency-key': key });
    expectError(repeat, 409, 'JOB_CANCELLED');
    expect(repeat.headers.get('idempotent-replayed')).toBe('true');
    // Once the slot is free and a worker has ended the cancelled job, still nothing was sent.
    expect((await finished(busy.statusUrl)).status).toBe(200);
    await endedByWorker(replay.body.data.jobId);
    expect(await creations()).toBe(0);
  });

  it('cancels a write in a retry’s backoff: the attempt the platform refused is the only one', async () => {
    await resetObservations(stack);
    await injectFault(stack, {
      account: 'creator_demo',
      path: '/api/v1/trackinglinks',
      method: 'POST',
      kind: 'error',
      status: 503,
      count: 1,
    });
    const write = await createLink('Refused once');
    await sawRequests(stack, 'creator_demo', 'POST /api/v1/trackinglinks', 1);
    // Cancellable once its worker has moved it to its backoff (the next attempt comes 1 to 2 s later).
    await eventually(
      async () => ((await cancel(write.body.data.jobId)).status === 200 ? true : undefined),
      900,
    );
    await endedByWorker(write.body.data.jobId);
    expectError(await gw(stack, 'GET', `/jobs/${write.body.data.jobId}`), 409, 'JOB_CANCELLED');
    await sleep(2_500);
    expect(await creations()).toBe(1);
  });

  it('cancels a media-stats request waiting for the gap, which then holds the next one no longer', async () => {
    const chats = account(stack, 'creator_demo').chatIds as string[];
    const stats = (chat: string) =>
      gw(stack, 'GET', `/${demo}/chats/${chat}/media-stats`, { headers: async });
    // Sharing is per request: the chats differ, so each is a job of its own.
    const first = await stats(chats[0]!);
    expect((await finished(first.body.data.statusUrl)).status).toBe(200);
    await resetObservations(stack);
    const doomed = await stats(chats[1]!);
    const next = await stats(chats[2]!);
    expect((await cancel(doomed.body.data.jobId)).status).toBe(200);
    const started = Date.now();
    expect((await finished(next.body.data.statusUrl)).status).toBe(200);
    // One gap after the first call, not two.
    expect(Date.now() - started).toBeLessThan(2 * GAP_MS);
    expect((await observations(stack, platformId)).requests['GET /api/v1/mediaoffers/location']).toBe(1);
    // An identical request later is a job of its own, not the cancelled one's.
    const again = await stats(chats[1]!);
    expect(again.body.data.jobId).not.toBe(doomed.body.data.jobId);
    expect((await finished(again.body.data.statusUrl)).status).toBe(200);
  });

  // Last: it disconnects the account.
  it('answers a cancelled request as cancelled when its account went away before a worker ended it', async () => {
    await stack.stopWorker();
    let doomed: string;
    try {
      const busy = await gw(stack, 'GET', `/${demo}/me`, { headers: async });
      expect(busy.status).toBe(202);
      const write = await createLink('Gone');
      expect(write.body.data.state).toBe('delayed');
      doomed = write.body.data.jobId;
      expect((await cancel(doomed)).status).toBe(200);
      expect((await gw(stack, 'DELETE', `/accounts/${demo}`)).status).toBe(200);
    } finally {
      await stack.startWorker();
    }
    // The worker finds the account gone before it would call the platform: still cancelled.
    await endedByWorker(doomed);
    expectError(await gw(stack, 'GET', `/jobs/${doomed}`), 409, 'JOB_CANCELLED');
    expect((await cancel(doomed)).status).toBe(200);
  });
});
