import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectAccount } from '../support/common';
import { type WebhookReceiver, webhookReceiver } from '../support/destinations';
import { eventually } from '../support/processes';
import { injectFault, sawRequests, simFixture, simJson } from '../support/sim';
import { account, gw, startStack, type TestStack } from '../support/stack';

/**
 * Issue 32's drill, in bulk: while the realtime connection is down, the platform gathers several
 * backfill pages (3 × the page size) of every kind the backfill reads back: fans' messages (in a few
 * chats, so a chat's messages take pages too) and each notification the listener maps to events.
 * Once the connection is back, every one of them is in the log once, in the order it happened, and
 * at the webhook receiver once. With the default page and with a small one.
 */

interface GatewayEvent {
  id: string;
  event: string;
  data: Record<string, unknown>;
}

/** The activities of one round, and the occurrences each makes: [event, the data's id]. */
const ROUND: [Record<string, unknown>, (made: any) => [string, string][]][] = [
  [{ type: 'message' }, (made) => [['messages.received', made.message.id]]],
  [{ type: 'tip' }, (made) => [['tips.received', made.tip.id]]],
  [{ type: 'subscription' }, (made) => [['subscriptions.new', made.subscription.id]]],
  [{ type: 'follow' }, (made) => [['followers.new', made.follow.id]]],
  [{ type: 'unfollow' }, (made) => [['followers.removed', made.follow.id]]],
  [
    { type: 'ppv_purchase' },
    (made) => [
      ['ppv.purchased', made.order.orderId],
      ['media.purchased', made.order.orderId],
    ],
  ],
  [{ type: 'subscription_expired' }, (made) => [['subscriptions.expired', made.notification.id]]],
];

/** An event's occurrence as ROUND names it. */
const keyOf = (event: GatewayEvent) => `${event.event} ${String(event.data.orderId ?? event.data.id)}`;

describe.each([
  ['pages of the default size', 100, {}],
  ['small pages', 4, { LISTENER_BACKFILL_PAGE: '4' }],
])('an outage of several backfill pages, read in %s', (_, page: number, settings: Record<string, string>) => {
  let stack: TestStack;
  let receiver: WebhookReceiver;
  /** What the webhook receiver got, by occurrence. */
  const delivered = new Map<string, number>();

  beforeAll(async () => {
    receiver = await webhookReceiver((body) => {
      const key = keyOf(JSON.parse(body));
      delivered.set(key, (delivered.get(key) ?? 0) + 1);
    });
    stack = await startStack({
      listener: true,
      webhooks: true,
      // The platform's error frame at the drop is a warning: none is printed here.
      env: {
        LISTENER_PING_MS: '1000',
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_ENDPOINT_CONCURRENCY: '16',
        LOG_LEVEL: 'error',
        ...settings,
      },
    });
    expect((await gw(stack, 'POST', '/webhooks', { body: { url: receiver.url } })).status).toBe(201);
    await connectAccount(stack, 'creator_demo');
  });
  afterAll(async () => {
    await stack?.stop();
    await receiver?.close();
  });

  const realtimeCurrent = async (): Promise<number> => {
    const seen = await simJson(stack, '/_sim/observations');
    return seen.accounts[account(stack, 'creator_demo').platformAccountId]?.realtime?.current ?? 0;
  };

  /** Every event of the tenant's log, oldest first. */
  async function allEvents(): Promise<GatewayEvent[]> {
    const events: GatewayEvent[] = [];
    let cursor: string | null = null;
    do {
      const response = await gw(stack, 'GET', `/events?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
      events.push(...response.body.data.events);
      cursor = response.body.data.nextCursor;
    } while (cursor !== null);
    return events;
  }

  it('publishes every occurrence of the gap once, in order', { timeout: 150_000 }, async () => {
    await eventually(async () => ((await realtimeCurrent()) === 1 ? true : undefined), 10_000, 'held');
    // The connection's first backfill has read everything (the notifications last) before the gap:
    // one still reading during it would find part of the gap, and publish that part first.
    await sawRequests(stack, 'creator_demo', 'GET /api/v1/notifications', 1);
    // The purchases are of offers in a chat of their own; two other chats get the messages (two
    // thirds in one), so each chat's messages are paged too.
    const chats: { fanId: string; offerIds: string[] }[] = (await simFixture(stack, 'creator_demo')).chats;
    const buyer = chats.find((chat) => chat.offerIds.length > 0)?.fanId;
    const [busy, quiet] = chats.filter((chat) => chat.fanId !== buyer).map((chat) => chat.fanId);
    const fans = [busy, busy, quiet];
    const activities = Array.from({ length: 3 * page }, (_, round) =>
      ROUND.map(([activity]) => ({
        creator: 'creator_demo',
        ...activity,
        ...(activity.type === 'message' ? { fanId: fans[round % 3], content: `in the gap ${round}` } : {}),
        ...(activity.type === 'ppv_purchase' ? { fanId: buyer } : {}),
      })),
    ).flat();

    await injectFault(stack, { kind: 'ws_drop', account: 'creator_demo', durationMs: 2_500 });
    await eventually(async () => ((await realtimeCurrent()) === 0 ? true : undefined), 2_000, 'dropped');
    const made = (
      await simJson(stack, '/_sim/activity/batch', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ activities }),
      })
    ).results;
    // None went out live: all of it comes back through the backfill.
    expect(made.filter((m: { delivered: number }) => m.delivered !== 0)).toEqual([]);
    const expected = made.flatMap((m: unknown, n: number) =>
      (ROUND[n % ROUND.length]?.[1](m) ?? []).map(([event, id]) => `${event} ${id}`),
    );

    await eventually(
      async () => (expected.every((key: string) => delivered.has(key)) ? true : undefined),
      // 2,400 occurrences at the default page: on a loaded machine their deliveries take a while.
      120_000,
      'every occurrence at the receiver',
    );
    const wanted = new Set(expected);
    const logged = (await allEvents()).map(keyOf).filter((key) => wanted.has(key));
    expect(logged).toEqual(expected);
    for (const key of expected) expect(delivered.get(key), key).toBe(1);
    const seen = await simJson(stack, '/_sim/observations');
    expect(seen.accounts[account(stack, 'creator_demo').platformAccountId].realtime.maxAtOnce).toBe(1);
  });
});
