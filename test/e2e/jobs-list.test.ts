import { ApiKeyStore, storeKeys } from '@cg/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../support/assert';
import { connectAccount, runCommonRouteTests } from '../support/common';
import { injectFault } from '../support/sim';
import { gw, startStack, type TestStack } from '../support/stack';

// `GET /jobs`: the tenant's recent jobs, newest first, each with what `GET /jobs/{jobId}` answers,
// from the tenant's job index written when the API accepts a request.

let stack: TestStack;
let demo: string;
let twofa: string;
let foreign: string;
/** Job ids of t1's requests below, in the order they were sent. */
const sent: string[] = [];
let failedJob: string;

interface Listed {
  jobId: string;
  operation: string;
  accountId: string | null;
  state: string;
  submittedAt: string;
  answer: any;
}

const jobIdOf = (answer: { body: any; headers: Headers }) => {
  const location = answer.headers.get('location');
  if (location) return location.split('/').at(-1) as string;
  throw new Error(`no job id in ${JSON.stringify(answer.body)}`);
};

/** A request answered 202 at once: its job id. */
async function submit(path: string, key = stack.keys.t1): Promise<string> {
  const answer = await gw(stack, 'GET', path, { key, headers: { prefer: 'respond-async' } });
  expect(answer.status).toBe(202);
  return jobIdOf(answer);
}

/** Every page of `query` with `limit`, in order, and how many pages it took. */
async function walk(query: string, limit: number, key = stack.keys.t1) {
  const jobs: Listed[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page = await gw(
      stack,
      'GET',
      `/jobs?limit=${limit}${query}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`,
      { key },
    );
    expect(page.status).toBe(200);
    expect(page.body.data.jobs.length).toBeLessThanOrEqual(limit);
    jobs.push(...page.body.data.jobs);
    cursor = page.body.data.nextCursor;
    pages += 1;
  } while (cursor !== null && pages < 100);
  return { jobs, pages };
}

const settled = async () => {
  // Every job sent has ended: none is listed waiting, delayed or active any more.
  for (let tries = 0; tries < 200; tries++) {
    const { jobs } = await walk('', 100);
    if (jobs.every((job) => job.state === 'completed' || job.state === 'failed')) return jobs;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('jobs did not finish');
};

beforeAll(async () => {
  stack = await startStack();
  demo = await connectAccount(stack, 'creator_demo');
  twofa = await connectAccount(stack, 'creator_2fa');
  foreign = await connectAccount(stack, 'creator_demo', stack.keys.t2);
  sent.push(await submit(`/${demo}/me`));
  sent.push(await submit(`/${twofa}/me`));
  sent.push(await submit(`/${demo}/vault/albums`));
  await injectFault(stack, {
    kind: 'error',
    status: 403,
    account: 'creator_2fa',
    path: '/api/v1/vault',
    count: 1,
  });
  failedJob = await submit(`/${twofa}/vault/albums`);
  sent.push(failedJob);
  // Sent together: reads that may travel in one batch (ids `<batch>-<n>`).
  sent.push(...(await Promise.all([1, 2, 3].map(() => submit(`/${demo}/me`)))));
  sent.push(await submit(`/${twofa}/vault/albums`));
  // The other tenant's, never in t1's listing.
  await submit(`/${foreign}/me`, stack.keys.t2);
  await settled();
});
afterAll(async () => {
  await stack?.stop();
});

runCommonRouteTests(() => stack, { method: 'GET', path: '/jobs' });

describe('GET /jobs', () => {
  it('lists the tenant’s jobs newest first, each as GET /jobs/{jobId} answers it', async () => {
    const answer = await gw(stack, 'GET', '/jobs?limit=100');
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ statusCode: 200, message: 'Success', data: { nextCursor: null } });
    const jobs: Listed[] = answer.body.data.jobs;
    const times = jobs.map((job) => Date.parse(job.submittedAt));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    // The requests sent one after the other come newest first (those sent together share a time).
    const ids = jobs.map((job) => job.jobId);
    const order = [sent[0], sent[1], sent[2], sent[3], sent[7]].map((jobId) => ids.indexOf(jobId as string));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => b - a));
    for (const jobId of sent) expect(ids).toContain(jobId);
    // The connections are the tenant's jobs too (two, and a second factor): a login has no account.
    const logins = jobs.filter((job) => job.operation === 'connect' || job.operation === 'verify-2fa');
    expect(logins.map((job) => [job.operation, job.accountId])).toEqual([
      ['verify-2fa', null],
      ['connect', null],
      ['connect', null],
    ]);
    expect(new Set(ids).size).toBe(ids.length);

    for (const job of jobs.filter((listed) => sent.includes(listed.jobId))) {
      const own = await gw(stack, 'GET', `/jobs/${job.jobId}`);
      expect(job.answer.statusCode).toBe(own.status);
      const { timestamp: _listed, requestId: _a, ...listed } = job.answer;
      const { timestamp: _own, requestId: _b, ...direct } = own.body;
      expect(listed).toEqual(direct);
    }
    const failed = jobs.find((job) => job.jobId === failedJob);
    expect(failed).toMatchObject({
      operation: 'vault-albums',
      accountId: twofa,
      state: 'failed',
      answer: { statusCode: 403, code: 'FORBIDDEN_ACTION' },
    });
  });

  it('pages by cursor through every job, the same as one page', async () => {
    const whole = (await walk('', 100)).jobs.map((job) => job.jobId);
    const paged = await walk('', 2);
    expect(paged.pages).toBeGreaterThan(3);
    expect(paged.jobs.map((job) => job.jobId)).toEqual(whole);
  });

  it('filters by account, operation and state, on every page', async () => {
    const byAccount = await walk(`&accountId=${twofa}`, 2);
    expect(byAccount.pages).toBeGreaterThan(1);
    expect(byAccount.jobs.map((job) => job.jobId).sort()).toEqual(
      [sent[1], sent[3], sent[7]].sort() as string[],
    );
    const albums = (await walk('&operation=vault-albums', 1)).jobs;
    expect(albums.map((job) => job.jobId)).toEqual([sent[7], sent[3], sent[2]]);
    const failed = (await walk('&state=failed', 100)).jobs;
    expect(failed.map((job) => job.jobId)).toEqual([failedJob]);
    const both = (await walk(`&accountId=${demo}&operation=me&state=completed`, 2)).jobs;
    expect(both.map((job) => job.jobId).sort()).toEqual(
      [sent[0], sent[4], sent[5], sent[6]].sort() as string[],
    );
    expect((await walk('&accountId=acct_unknown0', 10)).jobs).toEqual([]);
  });

  it('shows no other tenant’s job, and a scoped key only its accounts’ jobs', async () => {
    const mine = (await walk('', 100)).jobs;
    const theirs = (await walk('', 100, stack.keys.t2)).jobs;
    expect(mine.some((job) => job.accountId === foreign)).toBe(false);
    expect(theirs.filter((job) => job.operation === 'me').map((job) => job.accountId)).toEqual([foreign]);
    const ids = new Set(mine.map((job) => job.jobId));
    expect(theirs.some((job) => ids.has(job.jobId))).toBe(false);

    const keys = new ApiKeyStore(stack.redis, storeKeys(stack.prefix));
    const scoped = (await keys.create('t1', { access: 'read', accounts: [twofa] })).key;
    const seen = (await walk('', 2, scoped)).jobs;
    // Not the connections either: a login's job has no account.
    expect(seen.map((job) => job.jobId).sort()).toEqual([sent[1], sent[3], sent[7]].sort() as string[]);
    expect((await walk(`&accountId=${demo}`, 10, scoped)).jobs).toEqual([]);
  });

  it('refuses a state, an operation or a cursor it does not know, naming what it takes', async () => {
    const state = await gw(stack, 'GET', '/jobs?state=done');
    expectError(state, 400, 'BAD_REQUEST', 'done', 'waiting, delayed, active, completed, failed');
    const operation = await gw(stack, 'GET', '/jobs?operation=nope');
    expectError(operation, 400, 'BAD_REQUEST', 'nope', 'vault-albums', 'connect');
    expectError(await gw(stack, 'GET', '/jobs?cursor=abc'), 400, 'BAD_REQUEST', 'cursor');
    expectError(await gw(stack, 'GET', '/jobs?limit=0'), 400, 'BAD_REQUEST');
  });
});
