import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectAccount } from '../support/common';
import { type WebhookReceiver, webhookReceiver } from '../support/destinations';
import { eventually } from '../support/processes';
import { injectFault, simJson } from '../support/sim';
import { account, gw, startStack, type TestStack } from '../support/stack';

/**
 * The drill: the platform drops the realtime connection for 30 s (`ws_drop`) while activity
 * goes on. Once it is back, every occurrence reaches the webhook receiver, none missing, none twice.
 */

const OUTAGE_MS = 30_000;
let stack: TestStack;
let receiver: WebhookReceiver;
/** Deliveries by event id, and the events themselves. */
const deliveries = new Map<string, number>();
const delivered: { id: string; event: string; data: Record<string, unknown> }[] = [];

beforeAll(async () => {
  receiver = await webhookReceiver((body) => {
    const event = JSON.parse(body);
    deliveries.set(event.id, (deliveries.get(event.id) ?? 0) + 1);
    delivered.push(event);
  });
  stack = await startStack({
    listener: true,
    webhooks: true,
    env: { LISTENER_PING_MS: '1000', WEBHOOK_ALLOW_PRIVATE: 'true' },
  });
  const url = receiver.url;
  expect((await gw(stack, 'POST', '/webhooks', { body: { url } })).status).toBe(201);
  await connectAccount(stack, 'creator_demo');
});
afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
});

const activity = (body: Record<string, unknown>) =>
  simJson(stack, '/_sim/activity', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ creator: 'creator_demo', ...body }),
  });

const realtimeCurrent = async (): Promise<number> => {
  const seen = await simJson(stack, '/_sim/observations');
  return seen.accounts[account(stack, 'creator_demo').platformAccountId]?.realtime?.current ?? 0;
};

describe('a 30 s realtime outage', () => {
  it('loses nothing: after it, every occurrence arrives once', { timeout: 90_000 }, async () => {
    await eventually(async () => ((await realtimeCurrent()) === 1 ? true : undefined), 10_000, 'held');
    await injectFault(stack, { kind: 'ws_drop', account: 'creator_demo', durationMs: OUTAGE_MS });
    const expected: { event: string; matches: (data: Record<string, unknown>) => boolean }[] = [];
    // Activity spread over the outage.
    for (let round = 0; round < 3; round++) {
      const message = await activity({ type: 'message', content: `during the outage ${round}` });
      expected.push({ event: 'messages.received', matches: (d) => d.id === message.message.id });
      const tip = await activity({ type: 'tip', amount: 2000 + round });
      expected.push({ event: 'tips.received', matches: (d) => d.id === tip.tip.id });
      await new Promise((done) => setTimeout(done, 8_000));
    }
    const bought = await activity({ type: 'ppv_purchase' });
    expected.push({ event: 'ppv.purchased', matches: (d) => d.orderId === bought.order.orderId });
    const followed = await activity({ type: 'follow' });
    expected.push({ event: 'followers.new', matches: (d) => d.id === followed.follow.id });
    expect(await realtimeCurrent()).toBe(0);

    await eventually(
      async () =>
        expected.every(({ event, matches }) => delivered.some((e) => e.event === event && matches(e.data)))
          ? true
          : undefined,
      40_000,
      'every occurrence at the receiver',
    );
    for (const [id, count] of deliveries) expect(count, `event ${id} delivered ${count} times`).toBe(1);
    const seen = await simJson(stack, '/_sim/observations');
    expect(seen.accounts[account(stack, 'creator_demo').platformAccountId].realtime.maxAtOnce).toBe(1);
  });
});
