import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectCredentials } from '../support/common';
import { account, finished, gw, startStack, type TestStack } from '../support/stack';

let stack: TestStack;

beforeAll(async () => {
  stack = await startStack({ worker: false });
});
afterAll(async () => {
  await stack?.stop();
});

const connectBody = () => connectCredentials(stack, 'creator_demo', 'Demo');

describe('asynchronous answers', () => {
  it('answers 202 with a job id while no worker runs, and the result once one starts', async () => {
    const accepted = await gw(stack, 'POST', '/connect', {
      body: connectBody(),
      headers: { prefer: 'respond-async' },
    });
    expect(accepted.status).toBe(202);
    expect(accepted.body.statusCode).toBe(202);
    const { jobId, state, statusUrl } = accepted.body.data;
    expect(jobId).toMatch(/^job_/);
    expect(state).toBe('waiting');
    expect(statusUrl).toBe(`${stack.apiUrl}/api/fansly/jobs/${jobId}`);
    expect(accepted.headers.get('location')).toBe(statusUrl);

    const pending = await fetch(statusUrl, { headers: { 'x-api-key': stack.keys.t1 } });
    expect(pending.status).toBe(202);
    expect(((await pending.json()) as any).data.state).toBe('waiting');

    const foreign = await fetch(statusUrl, { headers: { 'x-api-key': stack.keys.t2 } });
    expect(foreign.status).toBe(404);

    await stack.startWorker();
    const done = await finished(statusUrl, stack.keys.t1);
    expect(done.status).toBe(201);
    expect(done.body.statusCode).toBe(201);
    expect(done.body.data.account_id).toMatch(/^acct_/);
    expect(done.body.data.data.response.accountId).toBe(account(stack, 'creator_demo').platformAccountId);
    await stack.stopWorker();
  });

  it('answers 202 when the job outlasts Prefer: wait', async () => {
    const started = Date.now();
    const response = await gw(stack, 'POST', '/connect', {
      body: connectBody(),
      headers: { prefer: 'wait=1' },
    });
    expect(response.status).toBe(202);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(response.body.data.jobId).toMatch(/^job_/);
  });

  it('gives a failed job the same error the synchronous call gives', async () => {
    const accepted = await gw(stack, 'POST', '/connect', {
      body: { ...connectBody(), password: 'wrong-password' },
      headers: { prefer: 'respond-async' },
    });
    await stack.startWorker();
    const done = await finished(accepted.body.data.statusUrl, stack.keys.t1);
    expect(done.status).toBe(400);
    expect(done.body).toMatchObject({ statusCode: 400, code: 'INVALID_CREDENTIALS', error: 'Bad Request' });
    await stack.stopWorker();
  });

  it('answers 404 for an unknown job', async () => {
    const response = await gw(stack, 'GET', '/jobs/job_unknown');
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('NOT_FOUND');
  });
});
