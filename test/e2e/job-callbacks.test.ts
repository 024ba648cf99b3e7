import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectAccount, connectCredentials } from '../support/common';
import { eventually } from '../support/processes';
import { gw, startStack, type TestStack } from '../support/stack';

/**
 * Job callbacks: a request answered 202 has its end told as `jobs.completed` or `jobs.failed` (the
 * webhook delivery process tells it), with what `GET /jobs/{jobId}` answers; one answered at once
 * has none.
 */

interface GatewayEvent {
  id: string;
  event: string;
  accountId: string | null;
  data: { jobId: string; status: number; body: Record<string, unknown> };
}

let stack: TestStack;
let accountId: string;
const ASYNC = { prefer: 'respond-async' };

beforeAll(async () => {
  stack = await startStack({ webhooks: true });
  accountId = await connectAccount(stack, 'creator_demo');
});
afterAll(async () => {
  await stack?.stop();
});

async function jobEvents(): Promise<GatewayEvent[]> {
  const found: GatewayEvent[] = [];
  for (const name of ['jobs.completed', 'jobs.failed']) {
    const response = await gw(stack, 'GET', `/events?event=${name}&limit=100`);
    found.push(...response.body.data.events);
  }
  return found;
}

const eventOf = (jobId: string) =>
  eventually(
    async () => (await jobEvents()).find((e) => e.data.jobId === jobId),
    10_000,
    `the event of ${jobId}`,
  );

describe('job callbacks', () => {
  it('tells a 202 request’s success as jobs.completed, with what GET /jobs/{jobId} answers', async () => {
    const accepted = await gw(stack, 'GET', `/${accountId}/me`, { headers: ASYNC });
    expect(accepted.status).toBe(202);
    const { jobId } = accepted.body.data;
    const event = await eventOf(jobId);
    expect(event).toMatchObject({ event: 'jobs.completed', accountId, data: { jobId, status: 200 } });
    const polled = await gw(stack, 'GET', `/jobs/${jobId}`);
    expect(polled.status).toBe(200);
    const { timestamp: _told, ...told } = event.data.body;
    const { timestamp: _read, ...read } = polled.body;
    expect(told).toEqual(read);
  });

  it('tells a 202 request’s failure as jobs.failed, with its error body', async () => {
    const accepted = await gw(stack, 'GET', `/${accountId}/lists/788240311431884800`, { headers: ASYNC });
    expect(accepted.status).toBe(202);
    const event = await eventOf(accepted.body.data.jobId);
    expect(event).toMatchObject({ event: 'jobs.failed', data: { status: 404, body: { code: 'NOT_FOUND' } } });
  });

  it('keeps a connection’s session out of its event', async () => {
    const accepted = await gw(stack, 'POST', '/connect', {
      body: connectCredentials(stack, 'creator_2fa'),
      headers: ASYNC,
    });
    expect(accepted.status).toBe(202);
    const event = await eventOf(accepted.body.data.jobId);
    expect(event.data.body).toMatchObject({ sealed: true });
    expect(JSON.stringify(event)).not.toMatch(/token/i);
  });

  it('tells nothing of a request answered at once', async () => {
    const before = (await jobEvents()).length;
    const answered = await gw(stack, 'GET', `/${accountId}/me`);
    expect(answered.status).toBe(200);
    await new Promise((done) => setTimeout(done, 1_000));
    expect((await jobEvents()).length).toBe(before);
  });
});
