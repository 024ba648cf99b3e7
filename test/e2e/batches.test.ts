import { laneOfAccount } from '@cg/queue';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../support/assert';
import { crashWorkerOnceAt, eventually } from '../support/processes';
import { clearFaults, injectFault, resetObservations, simRequests } from '../support/sim';
import { gw, startStack, type TestStack } from '../support/stack';

// Reads that their lanes let start at once travel together as one BullMQ job, a batch
// (docs/scheduling.md, "Batches"); each request keeps its own id, answer and job status.
let stack: TestStack;
const creators: { username: string; accountId: string; platformAccountId: string }[] = [];
const ATTEMPTS = 3;

beforeAll(async () => {
  stack = await startStack({
    env: { JOB_ATTEMPTS: String(ATTEMPTS), JOB_BACKOFF_MS: '50', WORKER_LOCK_MS: '2000' },
    sim: { extraCreators: 6 },
  });
  const { password } = (stack.fixtures as any).extraCreators;
  for (let i = 1; i <= 6; i++) {
    const username = `sim_creator_${String(i).padStart(5, '0')}`;
    const connected = await gw(stack, 'POST', '/connect', {
      body: { username, password, name: username, countryCode: 'US' },
    });
    expect(connected.status).toBe(201);
    creators.push({
      username,
      accountId: connected.body.data.account_id,
      platformAccountId: connected.body.data.data.response.accountId,
    });
  }
});
afterEach(async () => {
  await clearFaults(stack);
});
afterAll(async () => {
  await stack?.stop();
});

const ITEM_ID = /^(job_[A-Za-z0-9]+)-(\d+)$/;
const jobKey = (id: string) => `{${stack.prefix}:q}:operations:${id}`;

async function finished(jobId: string) {
  return eventually(
    async () => {
      const answer = await gw(stack, 'GET', `/jobs/${jobId}`);
      return answer.status === 202 ? undefined : answer;
    },
    20_000,
    `job ${jobId} finished`,
  );
}

/** The sandbox answers `GET /account/me` of `username` with 503, `count` times (else until cleared). */
const failMe = (username: string, count?: number) =>
  injectFault(stack, {
    account: username,
    path: '/api/v1/account/me',
    kind: 'error',
    status: 503,
    ...(count === undefined ? {} : { count }),
  });

/** The platform username a `GET /{accountId}/me` answer is about. */
const usernameIn = (body: any): string | undefined => body?.data?.data?.response?.username;

/** Sends `paths` at once with Prefer: respond-async and returns the accepted job ids. */
async function acceptAll(paths: string[]): Promise<string[]> {
  const accepted = await Promise.all(
    paths.map((path) => gw(stack, 'GET', path, { headers: { prefer: 'respond-async' } })),
  );
  expect(accepted.map((a) => a.status)).toEqual(paths.map(() => 202));
  return accepted.map((a) => a.body.data.jobId as string);
}

/** The batches the ids were placed in, by batch id: ids of requests that share one BullMQ job. */
function batchesOf(ids: string[]): Map<string, string[]> {
  const batches = new Map<string, string[]>();
  for (const id of ids) {
    const batchId = ITEM_ID.exec(id)?.[1];
    if (batchId) batches.set(batchId, [...(batches.get(batchId) ?? []), id]);
  }
  return batches;
}

/** The batch jobs among the ids' groups, each with the ids its data carries. */
async function batchMembers(ids: string[]): Promise<[string, string[]][]> {
  const found: [string, string[]][] = [];
  for (const [batchId, placed] of batchesOf(ids)) {
    const data = await stack.redis.hget(jobKey(batchId), 'data');
    const slots: unknown[] = data ? (JSON.parse(data).batch ?? []) : [];
    const members = placed.filter((id) => slots[Number(ITEM_ID.exec(id)?.[2])] != null);
    if (members.length > 0) found.push([batchId, members]);
  }
  return found;
}

describe('batches', () => {
  it('carries reads that arrive together in one job, and answers each request with its own result', async () => {
    await stack.stopWorker();
    const paths = [...creators, ...creators].map((c) => `/${c.accountId}/me`);
    const ids = await acceptAll(paths);
    // The first request may go alone (nothing gathers while nothing is on its way); the rest gather.
    // A group's second request for an account may be paced (a 1 ms interval here): it keeps its
    // place's id but is a job of its own, and its slot in the batch is empty.
    const [batchId, members] = (await batchMembers(ids)).sort((a, b) => b[1].length - a[1].length)[0] ?? [];
    expect(members?.length).toBeGreaterThan(1);
    expect(await stack.redis.hget(jobKey(batchId as string), 'name')).toBe('batch');
    for (const id of members ?? []) expect(await stack.redis.exists(jobKey(id))).toBe(0);

    const waiting = await gw(stack, 'GET', `/jobs/${members?.[0]}`);
    expect(waiting.status).toBe(202);
    expect(waiting.body.data).toMatchObject({ jobId: members?.[0], state: 'waiting' });
    expectError(await gw(stack, 'GET', `/jobs/${members?.[0]}`, { key: stack.keys.t2 }), 404, 'NOT_FOUND');
    // The batch itself is no request of anyone's.
    expectError(await gw(stack, 'GET', `/jobs/${batchId}`), 404, 'NOT_FOUND');

    await stack.startWorker();
    const answers = await Promise.all(ids.map(finished));
    answers.forEach((answer, i) => {
      expect(answer.status).toBe(200);
      // Request i asked for creator i % 6: its answer is that creator's.
      expect(usernameIn(answer.body)).toBe(creators[i % creators.length]?.username);
    });
  });

  it('answers synchronous reads of many accounts sent at once, each with its own account', async () => {
    const answers = await Promise.all(
      [...creators, ...creators, ...creators].map((c) => gw(stack, 'GET', `/${c.accountId}/me`)),
    );
    answers.forEach((answer, i) => {
      expect(answer.status).toBe(200);
      expect(usernameIn(answer.body)).toBe(creators[i % creators.length]?.username);
    });
  });

  it('retries a batched read the platform refused (503) as a job of its own, and answers', async () => {
    const [flaky, ...steady] = creators as [(typeof creators)[0], ...typeof creators];
    await resetObservations(stack);
    await failMe(flaky.username, 1);
    await stack.stopWorker();
    const ids = await acceptAll([flaky, ...steady].map((c) => `/${c.accountId}/me`));
    const flakyId = ids[0] as string;
    expect([...batchesOf(ids).values()].some((members) => members.length > 1)).toBe(true);
    await stack.startWorker();

    const answers = await Promise.all(ids.map(finished));
    expect(answers.map((a) => a.status)).toEqual(ids.map(() => 200));
    expect((await simRequests(stack, flaky.username))['GET /api/v1/account/me']).toBe(2);
    // A batched request that was retried has a job of its own under its id now.
    expect(flakyId).toMatch(ITEM_ID);
    expect(await stack.redis.exists(jobKey(flakyId))).toBe(1);
  });

  it('gives up on a batched read after JOB_ATTEMPTS in all, with the error the direct call gives', async () => {
    const [failing, other] = creators as [(typeof creators)[0], (typeof creators)[0]];
    await resetObservations(stack);
    await failMe(failing.username);
    const answers = await Promise.all(
      [failing, other, failing, other].map((c) => gw(stack, 'GET', `/${c.accountId}/me`)),
    );
    expectError(answers[0] as never, 503, 'UPSTREAM_UNAVAILABLE');
    expectError(answers[2] as never, 503, 'UPSTREAM_UNAVAILABLE');
    expect(answers[1]?.status).toBe(200);
    expect(answers[3]?.status).toBe(200);
    // Two requests, each tried JOB_ATTEMPTS times in all (in its batch, then as its own job).
    expect((await simRequests(stack, failing.username))['GET /api/v1/account/me']).toBe(2 * ATTEMPTS);
  });

  it('moves a batched read whose account was paused after admission to a job that waits the pause out', async () => {
    const [paused, free] = creators as [(typeof creators)[0], (typeof creators)[0]];
    await stack.stopWorker();
    const ids = await acceptAll([paused, free, paused, free].map((c) => `/${c.accountId}/me`));
    // A 429 served to another job of the account after these were admitted: the lane pauses.
    const [seconds] = await stack.redis.time();
    const pauseEnds = Number(seconds) * 1000 + 2_000;
    const lane = laneOfAccount(paused);
    await stack.redis.hset(`{${stack.prefix}:q}:lane:${lane}:state`, 'pause', pauseEnds);
    await stack.startWorker();

    const freeAnswers = await Promise.all([ids[1], ids[3]].map((id) => finished(id as string)));
    expect(freeAnswers.map((a) => a.status)).toEqual([200, 200]);
    const pausedAnswers = await Promise.all([ids[0], ids[2]].map((id) => finished(id as string)));
    expect(pausedAnswers.map((a) => a.status)).toEqual([200, 200]);
    const [after] = await stack.redis.time();
    expect(Number(after) * 1000 + 1_000).toBeGreaterThanOrEqual(pauseEnds);
    for (const id of [ids[0], ids[2]] as string[]) {
      const started = Number(await stack.redis.hget(jobKey(id), 'processedOn'));
      expect(started).toBeGreaterThanOrEqual(pauseEnds - 50);
    }
  });

  it('answers quick requests of a batch before a slow one of the same batch has ended', async () => {
    const [slow, medium, quick] = creators as [
      (typeof creators)[0],
      (typeof creators)[0],
      (typeof creators)[0],
    ];
    const slowDown = (username: string, ms: number) =>
      injectFault(stack, {
        account: username,
        path: '/api/v1/account/me',
        kind: 'latency',
        minMs: ms,
        maxMs: ms,
      });
    await slowDown(slow.username, 4_000);
    await slowDown(medium.username, 1_000);
    await stack.stopWorker();
    const order = [slow, medium, quick, slow, medium, quick];
    const ids = await acceptAll(order.map((c) => `/${c.accountId}/me`));
    const kindOf = (id: string) => order[ids.indexOf(id)];
    const shared = [...batchesOf(ids).values()].find((members) =>
      [slow, medium, quick].every((c) => members.some((id) => kindOf(id) === c)),
    );
    expect(shared).toBeDefined();
    const [slowId, mediumId, quickId] = [slow, medium, quick].map((c) =>
      (shared ?? []).find((id) => kindOf(id) === c),
    ) as [string, string, string];
    await stack.startWorker();

    const answered = await finished(quickId);
    expect(answered.status).toBe(200);
    expect(usernameIn(answered.body)).toBe(quick.username);
    expect((await finished(mediumId)).status).toBe(200);
    // Reported later by the same batch, the medium request does not hide the quick one's result, and
    // the slow one is still running.
    expect((await gw(stack, 'GET', `/jobs/${quickId}`)).status).toBe(200);
    expect((await gw(stack, 'GET', `/jobs/${slowId}`)).status).toBe(202);
    expect((await finished(slowId)).status).toBe(200);
  });

  it('loses no request of a batch whose worker was SIGKILLed mid-run', async () => {
    const [a, b, c] = creators as [(typeof creators)[0], (typeof creators)[0], (typeof creators)[0]];
    await resetObservations(stack);
    for (const creator of [a, b, c])
      await injectFault(stack, {
        account: creator.username,
        path: '/api/v1/account/me',
        kind: 'latency',
        minMs: 1_500,
        maxMs: 1_500,
        count: 2,
      });
    await stack.stopWorker();
    const order = [a, b, c, a, b, c];
    const ids = await acceptAll(order.map((creator) => `/${creator.accountId}/me`));
    expect([...batchesOf(ids).values()].some((members) => members.length > 1)).toBe(true);
    try {
      // Every request is at the platform (the 1.5 s answers are not back yet): the worker dies.
      await crashWorkerOnceAt(
        stack.env,
        async () => {
          const seen = await Promise.all([a, b, c].map((creator) => simRequests(stack, creator.username)));
          return seen.every((requests) => requests['GET /api/v1/account/me'] === 2);
        },
        'the batch reached the platform',
      );
    } finally {
      await stack.startWorker();
    }
    // Its lock runs out (WORKER_LOCK_MS), the batch runs again on the new worker, and every request
    // gets its own answer (reads: repeating them is allowed; each is sent twice here).
    const answers = await Promise.all(ids.map(finished));
    answers.forEach((answer, i) => {
      expect(answer.status).toBe(200);
      expect(usernameIn(answer.body)).toBe(order[i]?.username);
    });
  });
});
