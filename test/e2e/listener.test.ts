import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSuccess } from '../support/assert';
import { connectAccount } from '../support/common';
import { type WebhookReceiver, webhookReceiver } from '../support/destinations';
import { eventually } from '../support/processes';
import { injectFault, simJson } from '../support/sim';
import { account, gw, startStack, type TestStack } from '../support/stack';

/**
 * The listener (apps/listener) against the sandbox's realtime endpoint: it holds one connection per
 * connected account, turns what the platform pushes into the contract's events in the tenant's log
 * (GET /events), backfills what a dropped connection missed, and lets go of a disconnected account.
 * A webhook receiver registered for the tenant gets every one of them, signed.
 */

interface GatewayEvent {
  id: string;
  event: string;
  accountId: string;
  timestamp: string;
  data: Record<string, unknown>;
}

let stack: TestStack;
let accountId: string;
let receiver: WebhookReceiver;
let secret: string;
/** What the receiver got: each delivery's event and whether its signature checked out. */
const received: { event: GatewayEvent; signed: boolean; at: number }[] = [];

/** Standard Webhooks, checked by the algorithm: HMAC-SHA256 of "<id>.<timestamp>.<body>". */
function signedBy(
  headers: Record<string, string | string[] | undefined>,
  body: string,
  key: string,
): boolean {
  const content = `${headers['webhook-id']}.${headers['webhook-timestamp']}.${body}`;
  const expected = createHmac('sha256', Buffer.from(key.slice('whsec_'.length), 'base64'))
    .update(content)
    .digest('base64');
  return String(headers['webhook-signature'] ?? '')
    .split(' ')
    .includes(`v1,${expected}`);
}

beforeAll(async () => {
  receiver = await webhookReceiver((body, headers) => {
    received.push({ event: JSON.parse(body), signed: signedBy(headers, body, secret), at: Date.now() });
  });
  stack = await startStack({
    listener: true,
    webhooks: true,
    env: { LISTENER_FAILOVER_MS: '3000', LISTENER_PING_MS: '1000', WEBHOOK_ALLOW_PRIVATE: 'true' },
  });
  const url = receiver.url;
  secret = (await gw(stack, 'POST', '/webhooks', { body: { url } })).body.data.secret;
  accountId = await connectAccount(stack, 'creator_demo');
});
afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
});

/** Makes something happen on creator_demo's account; answers the platform objects it made. */
const activity = (body: Record<string, unknown>) =>
  simJson(stack, '/_sim/activity', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ creator: 'creator_demo', ...body }),
  });

/** Every event of the tenant's log (t1), oldest first, paged by cursor. */
async function allEvents(): Promise<GatewayEvent[]> {
  const events: GatewayEvent[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 100; pages++) {
    const response = await gw(stack, 'GET', `/events?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
    expectSuccess(response, 200, { platform: 'none' });
    events.push(...response.body.data.events);
    cursor = response.body.data.nextCursor;
    if (cursor === null) return events;
  }
  throw new Error('the event log never ended');
}

/** The events `name` whose data matches `match`, once at least `count` are there. */
const eventsOf = (name: string, match: (data: Record<string, unknown>) => boolean, count = 1) =>
  eventually(
    async () => {
      const found = (await allEvents()).filter((e) => e.event === name && match(e.data));
      return found.length >= count ? found : undefined;
    },
    5_000,
    `${count} ${name} event(s)`,
  );

const realtime = async (): Promise<{ current: number; maxAtOnce: number }> => {
  const platformAccountId = account(stack, 'creator_demo').platformAccountId;
  const seen = await simJson(stack, '/_sim/observations');
  return seen.accounts[platformAccountId]?.realtime ?? { current: 0, maxAtOnce: 0 };
};

describe('the listener', () => {
  it('holds one realtime connection for the connected account', async () => {
    await eventually(
      async () => ((await realtime()).current === 1 ? true : undefined),
      5_000,
      'a connection',
    );
    expect((await realtime()).maxAtOnce).toBe(1);
    // Its first backfill ran (it reads the notifications last) and told nothing of the unread
    // messages the account had before it was connected: history, not a gap.
    const platformAccountId = account(stack, 'creator_demo').platformAccountId;
    await eventually(
      async () => {
        const seen = await simJson(stack, '/_sim/observations');
        return seen.accounts[platformAccountId]?.requests['GET /api/v1/notifications'] ? true : undefined;
      },
      5_000,
      'the first backfill',
    );
    await new Promise((done) => setTimeout(done, 300));
    expect((await allEvents()).filter((e) => e.event === 'messages.received')).toEqual([]);
    // Nor did it read a chat for them: unread before the connection is left unread, unasked.
    const seen = await simJson(stack, '/_sim/observations');
    expect(seen.accounts[platformAccountId].requests['GET /api/v1/message'] ?? 0).toBe(0);
  });

  it('turns a fan’s message into messages.received, the platform’s message as data', async () => {
    const made = await activity({ type: 'message', content: 'hello from a fan' });
    const [event] = await eventsOf('messages.received', (data) => data.id === made.message.id);
    expect(event).toMatchObject({ accountId, data: { content: 'hello from a fan', senderId: made.fanId } });
    expect(event?.id).toMatch(/^evt_/);
    expect(Number.isNaN(Date.parse(event?.timestamp ?? ''))).toBe(false);
  });

  it.each([
    ['tip', 'tips.received', (made: any) => (data: any) => data.id === made.tip.id],
    ['follow', 'followers.new', (made: any) => (data: any) => data.id === made.follow.id],
    ['reaction', 'messages.reaction_added', (made: any) => (data: any) => data.id === made.like.id],
    ['message_read', 'messages.read', (made: any) => (data: any) => data.groupId === made.ackCommand.groupId],
    [
      'typing',
      'users.typing',
      (made: any) => (data: any) => data.groupId === made.typingAnnounceEvent.groupId,
    ],
    [
      'subscription_expired',
      'subscriptions.expired',
      (made: any) => (data: any) => data.correlationId === made.notification.correlationId,
    ],
  ])('turns %s activity into %s', async (type, name, matcher) => {
    const made = await activity({ type });
    await eventsOf(name, matcher(made));
  });

  it('makes one subscriptions.new of a subscription the platform sends twice (status 2, then 3)', async () => {
    const made = await activity({ type: 'subscription' });
    const found = await eventsOf('subscriptions.new', (data) => data.id === made.subscription.id);
    await new Promise((done) => setTimeout(done, 300));
    const again = (await allEvents()).filter(
      (e) => e.event === 'subscriptions.new' && e.data.id === made.subscription.id,
    );
    expect(again).toHaveLength(1);
    expect(found[0]?.data.status).toBe(3);
  });

  it('turns a like of the creator’s post into posts.liked', async () => {
    const created = await gw(stack, 'POST', `/${accountId}/posts`, {
      body: { content: 'New week, new set' },
    });
    expect(created.status).toBe(201);
    const liked = await activity({ type: 'post_like' });
    await eventsOf('posts.liked', (data) => data.id === liked.like.id);
  });

  it('makes ppv.purchased and media.purchased of a purchase, and followers.removed of an unfollow', async () => {
    const bought = await activity({ type: 'ppv_purchase' });
    for (const name of ['ppv.purchased', 'media.purchased'])
      await eventsOf(name, (data) => data.orderId === bought.order.orderId);
    const followed = await activity({ type: 'follow' });
    const unfollowed = await activity({ type: 'unfollow', fanId: followed.fanId });
    await eventsOf('followers.removed', (data) => data.id === unfollowed.follow.id);
  });

  it('backfills what arrived while its connection was dropped, each once, messages in order', async () => {
    await injectFault(stack, { kind: 'ws_drop', account: 'creator_demo', durationMs: 2_000 });
    const sent: string[] = [];
    for (const n of [1, 2, 3])
      sent.push((await activity({ type: 'message', content: `while away ${n}` })).message.id);
    const tip = await activity({ type: 'tip', amount: 5000 });
    const order = await activity({ type: 'ppv_purchase' });
    const found = await eventually(
      async () => {
        const events = (await allEvents()).filter(
          (e) => e.event === 'messages.received' && sent.includes(String(e.data.id)),
        );
        return events.length >= sent.length ? events : undefined;
      },
      15_000,
      'the missed messages',
    );
    expect(found.map((e) => e.data.id)).toEqual(sent);
    // A tip and a purchase in the gap come back from the notifications, once each.
    const tips = await eventsOf('tips.received', (data) => data.id === tip.tip.id);
    const bought = await eventsOf('ppv.purchased', (data) => data.orderId === order.order.orderId);
    expect([tips.length, bought.length]).toEqual([1, 1]);
    // The backfill's platform calls ran on the account's lane: never more at once than it allows.
    const seen = await simJson(stack, '/_sim/observations');
    const platformAccountId = account(stack, 'creator_demo').platformAccountId;
    expect(seen.accounts[platformAccountId].maxInFlight).toBeLessThanOrEqual(2);
    expect(seen.accounts[platformAccountId].requests['GET /api/v1/notifications']).toBeGreaterThan(0);
    await eventually(
      async () => ((await realtime()).current === 1 ? true : undefined),
      10_000,
      'reconnected',
    );
    expect((await realtime()).maxAtOnce).toBe(1);
  });

  it('renews an ended session (a 401 frame) and goes on: what comes after arrives', async () => {
    const opened = async () => {
      const seen = await simJson(stack, '/_sim/observations');
      return seen.accounts[account(stack, 'creator_demo').platformAccountId].realtime.opened as number;
    };
    const before = await opened();
    await injectFault(stack, { kind: 'sessionExpiry', account: 'creator_demo' });
    // The platform said 401: the listener logged in again and opened a new connection with it.
    await eventually(async () => ((await opened()) > before ? true : undefined), 15_000, 'a new connection');
    await eventually(async () => ((await realtime()).current === 1 ? true : undefined), 5_000, 'held again');
    const made = await activity({ type: 'message', content: 'after the renewal' });
    await eventsOf('messages.received', (data) => data.id === made.message.id);
    const listed = (await gw(stack, 'GET', '/accounts')).body.data.accounts;
    expect(listed.find((a: { accountId: string }) => a.accountId === accountId)?.status).toBe('connected');
  });

  it('delivers every event of the log to the tenant’s webhook, signed, within 2 s', async () => {
    const logged = await allEvents();
    expect(logged.length).toBeGreaterThan(15);
    await eventually(
      async () => {
        const ids = new Set(received.map((r) => r.event.id));
        return logged.every((e) => ids.has(e.id)) ? true : undefined;
      },
      2_000,
      'every event at the receiver',
    );
    for (const delivery of received) {
      expect(delivery.signed).toBe(true);
      expect(delivery.at - Date.parse(delivery.event.timestamp)).toBeLessThan(2_000);
    }
    const first = received.find((r) => r.event.id === logged[0]?.id);
    expect(first?.event).toEqual(logged[0]);
  });

  it('lets go of the account within seconds of its disconnection', async () => {
    expect((await gw(stack, 'DELETE', `/accounts/${accountId}`)).status).toBe(200);
    await eventually(
      async () => ((await realtime()).current === 0 ? true : undefined),
      6_000,
      'no connection',
    );
    // The gateway's own view of the account, as events too: connected, then disconnected.
    const own = (await allEvents()).filter((e) => e.event.startsWith('accounts.'));
    expect(own.map((e) => e.event)).toEqual(['accounts.connected', 'accounts.disconnected']);
    for (const event of own)
      expect(event).toMatchObject({ accountId, data: { accountId, username: 'creator_demo' } });
  });
});
