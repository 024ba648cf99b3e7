import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { type Payload, useSim } from './support';

const sim = useSim({ mediaOfferGapMs: 0 }, { resetEach: true });

interface Frame {
  t: number;
  /** `d` decoded once; for t=10000 also `serviceId`, `type` and the object under `key`. */
  d: Payload;
  serviceId?: number;
  type?: number;
  object?: Payload;
}

/** A realtime client that keeps every frame, decoding the platform's nested JSON strings. */
class Listener {
  readonly frames: Frame[] = [];
  closeCode: number | null = null;
  private waiters: (() => void)[] = [];

  constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      const raw = JSON.parse(data.toString());
      expect(typeof raw.d).toBe('string');
      const d = JSON.parse(raw.d);
      const frame: Frame = { t: raw.t, d };
      if (raw.t === 10000) {
        // The third level: the event is itself a JSON string.
        expect(typeof d.event).toBe('string');
        const event = JSON.parse(d.event);
        const key = Object.keys(event).find((k) => k !== 'type') ?? '';
        Object.assign(frame, { serviceId: d.serviceId, type: event.type, object: event[key], key });
      }
      this.frames.push(frame);
      this.wake();
    });
    socket.on('close', (code) => {
      this.closeCode = code;
      this.wake();
    });
  }

  private wake(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
  }

  /** Resolves when `done` holds (checked at every frame and at close), else fails after ms. */
  async until(done: () => boolean, ms = 2000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!done()) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out; frames: ${JSON.stringify(this.frames)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  events(serviceId: number, type: number): Frame[] {
    return this.frames.filter((f) => f.t === 10000 && f.serviceId === serviceId && f.type === type);
  }

  send(frame: unknown): void {
    this.socket.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  }

  get closed(): boolean {
    return this.closeCode !== null;
  }
}

const open: Listener[] = [];
afterEach(() => {
  for (const listener of open.splice(0)) listener.socket.terminate();
});

async function connect(path = '/?v=3'): Promise<Listener> {
  const socket = new WebSocket(`${sim.client.baseUrl.replace(/^http/, 'ws')}${path}`);
  const listener = new Listener(socket);
  open.push(listener);
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  return listener;
}

const authFrame = (token: string) => ({ t: 1, d: JSON.stringify({ token, v: 3 }) });

/** A connection authenticated with a fresh login of `username`. */
async function listen(username = 'creator_demo'): Promise<{ listener: Listener; token: string }> {
  const token = await sim.client.login(username);
  const listener = await connect();
  listener.send(authFrame(token));
  await listener.until(() => listener.frames.some((f) => f.t === 1 || f.t === 0));
  return { listener, token };
}

async function activity(body: unknown): Promise<{ status: number; body: Payload }> {
  const result = await sim.client.call('POST', '/_sim/activity', { body });
  return { status: result.status, body: result.body };
}

async function created(body: Record<string, unknown>): Promise<Payload> {
  const result = await activity({ creator: 'creator_demo', ...body });
  expect(result.status, JSON.stringify(result.body)).toBe(201);
  return result.body;
}

async function realtimeObservation(): Promise<Payload> {
  const observed = await sim.client.control('GET', '/observations?account=creator_demo');
  return (Object.values(observed.accounts)[0] as Payload | undefined)?.realtime;
}

describe('realtime connection', () => {
  it('authenticates a session token and answers its session', async () => {
    const { listener, token } = await listen();
    const reply = listener.frames[0];
    expect(reply?.t).toBe(1);
    const session = reply?.d.session;
    expect(session).toMatchObject({ token, status: 2, accountId: expect.stringMatching(/^\d+$/) });
    expect(Object.keys(session).sort()).toEqual(
      [
        'accountId',
        'createdAt',
        'deviceId',
        'id',
        'lastUsed',
        'status',
        'token',
        'websocketSessionId',
      ].sort(),
    );
  });

  it('accepts an auth frame without v', async () => {
    const token = await sim.client.login();
    const listener = await connect('/');
    listener.send({ t: 1, d: JSON.stringify({ token }) });
    await listener.until(() => listener.frames.length > 0);
    expect(listener.frames[0]?.t).toBe(1);
  });

  it('refuses a bad token with a t=0 401 frame, then closes', async () => {
    const listener = await connect();
    listener.send(authFrame('bm90LWEtdG9rZW4='));
    await listener.until(() => listener.closed);
    expect(listener.frames).toEqual([{ t: 0, d: { code: 401 } }]);
    expect(listener.closeCode).toBe(4001);
  });

  it('answers an error frame to anything but auth and ping before authentication', async () => {
    const listener = await connect();
    listener.send({ t: 10000, d: '{}' });
    await listener.until(() => listener.frames.length > 0);
    expect(listener.frames[0]).toEqual({ t: 0, d: { code: 401 } });
    expect(listener.closed).toBe(false);
  });

  it('answers a ping with t=2 lastPing', async () => {
    const { listener } = await listen();
    const before = Date.now();
    listener.send('p');
    await listener.until(() => listener.frames.some((f) => f.t === 2));
    const pong = listener.frames.find((f) => f.t === 2);
    expect(pong?.d.lastPing).toBeGreaterThanOrEqual(before);
  });

  it('closes a connection that stays silent for realtimeIdleTimeoutMs', async () => {
    await sim.client.control('POST', '/config', { realtimeIdleTimeoutMs: 150 });
    const { listener } = await listen();
    await listener.until(() => listener.closed, 1000);
    expect(listener.closeCode).toBe(4000);
  });

  it('refuses other paths', async () => {
    await expect(connect('/ws/elsewhere')).rejects.toThrow(/404/);
  });

  it('counts connections per account: current and the most at once', async () => {
    const { listener } = await listen();
    expect(await realtimeObservation()).toMatchObject({ current: 1, maxAtOnce: 1, opened: 1, framesSent: 1 });
    await sim.client.control('POST', '/observations/reset');
    expect(await realtimeObservation()).toMatchObject({ current: 1, maxAtOnce: 1, opened: 0, framesSent: 0 });
    listener.socket.close();
    await listener.until(() => listener.closed);
    await sim.client.call('GET', '/_sim/health');
    expect(await realtimeObservation()).toMatchObject({ current: 0, maxAtOnce: 1 });
  });

  it('closes the connections of a revoked session with t=0 401', async () => {
    const { listener } = await listen();
    await sim.client.control('POST', '/faults', { kind: 'sessionExpiry', account: 'creator_demo' });
    await listener.until(() => listener.closed);
    expect(listener.frames.at(-1)).toEqual({ t: 0, d: { code: 401 } });
  });
});

/** What each activity type pushes: its (serviceId, type) frames and the body field they carry. */
const FRAMES: [string, [number, number][], string][] = [
  ['message', [[5, 1]], 'message'],
  ['tip', [[7, 1]], 'tip'],
  [
    'subscription',
    [
      [15, 5],
      [15, 5],
    ],
    'subscription',
  ],
  ['subscription_expired', [[9, 1]], 'notification'],
  ['follow', [[3, 2]], 'follow'],
  ['unfollow', [[3, 3]], 'follow'],
  ['ppv_purchase', [[2, 7]], 'order'],
  ['message_read', [[4, 2]], 'ackCommand'],
  ['reaction', [[5, 3]], 'like'],
  ['typing', [[5, 22]], 'typingAnnounceEvent'],
  ['post_like', [[1, 2]], 'like'],
];

describe('POST /_sim/activity', () => {
  it.each(FRAMES)(
    '%s pushes its frames, carrying the objects of the 201 body',
    async (type, frames, field) => {
      const { listener, token } = await listen();
      if (type === 'post_like') await sim.client.api('POST', '/post', token, { content: 'new set' });
      const body = await created({ type });
      expect(body.frames.map((f: Payload) => [f.serviceId, f.type])).toEqual(frames);
      expect(body.delivered).toBe(1);
      await listener.until(() => listener.frames.filter((f) => f.t === 10000).length === frames.length);
      const events = listener.frames.filter((f) => f.t === 10000);
      expect(events.map((f) => [f.serviceId, f.type])).toEqual(frames);
      const last = events.at(-1)?.object;
      expect(last).toEqual(body[field]);
      if (type === 'subscription') {
        expect(events.map((f) => f.object.status)).toEqual([2, 3]);
        expect(events[0]?.object.id).toBe(body.subscription.id);
      }
    },
  );

  it('gives each type the documented object fields', async () => {
    const { listener } = await listen();
    const message = await created({ type: 'message', content: 'hello there' });
    expect(message.message).toMatchObject({
      senderId: message.fanId,
      content: 'hello there',
      groupId: message.groupId,
    });
    const tip = await created({ type: 'tip', fanId: message.fanId, amount: 12_340 });
    expect(tip.tip).toMatchObject({ senderId: message.fanId, receiverId: tip.creatorId, amount: 12_340 });
    const follow = await created({ type: 'follow', fanId: message.fanId });
    const unfollow = await created({ type: 'unfollow', fanId: message.fanId });
    expect(unfollow.follow.id).toBe(follow.follow.id);
    expect(follow.follow).toMatchObject({ followerId: message.fanId, accountId: follow.creatorId });
    const read = await created({ type: 'message_read', fanId: message.fanId });
    expect(read.ackCommand).toMatchObject({ userId: message.fanId, type: 2, groupId: message.groupId });
    const expired = await created({ type: 'subscription_expired' });
    expect(expired.notification).toMatchObject({ type: 15007, correlationId: expired.subscription.id });
    await listener.until(() => listener.events(9, 1).length === 1);
  });

  it('ties a purchase to the offer a creator message carried (PPV stitching)', async () => {
    const { token } = await listen();
    const { demo } = { demo: (await sim.client.fixtures()).accounts[0] };
    const chat = demo.chats.find((c: Payload) => c.offerIds.length > 0);
    const page = await sim.client.api('GET', `/message?groupId=${chat.chatId}&limit=100`, token);
    const offered = page.messages.find((m: Payload) => m.senderId !== chat.fanId && m.attachments.length > 0);
    const body = await created({ type: 'ppv_purchase', messageId: offered.id });
    expect(body.fanId).toBe(chat.fanId);
    expect(body.order).toMatchObject({
      accountMediaId: offered.attachments[0].contentId,
      correlationAccountId: body.creatorId,
      accountId: chat.fanId,
    });
    expect([1, 2]).toContain(body.order.type);
  });

  it('changes the world: a received message is read back, unread, its chat unread', async () => {
    const { token } = await listen();
    const body = await created({ type: 'message', content: 'are you online?' });
    const page = await sim.client.api('GET', `/message?groupId=${body.groupId}&limit=5`, token);
    expect(page.messages[0]).toMatchObject({ id: body.message.id, senderId: body.fanId });
    const unread = await sim.client.api('GET', '/message/unread?limit=3', token);
    expect(unread.messageInteractions[0]).toMatchObject({ messageId: body.message.id, userId: body.fanId });
    const older = await sim.client.api('GET', `/message/unread?limit=1&before=${body.message.id}`, token);
    expect(older.messageInteractions[0].messageId).not.toBe(body.message.id);
    expect(older.total).toBe(unread.total);
    const groups = await sim.client.api('GET', '/messaging/groups?flags=32&limit=100', token);
    const row = groups.data.find((r: Payload) => r.groupId === body.groupId);
    expect(row).toMatchObject({ lastMessageId: body.message.id, lastUnreadMessageId: body.message.id });
    expect(row.unreadCount).toBeGreaterThanOrEqual(1);
  });

  it('lists money, subscriptions and follows in GET /notifications, newest first', async () => {
    const { token } = await listen();
    const tip = await created({ type: 'tip' });
    const sub = await created({ type: 'subscription' });
    const follow = await created({ type: 'follow' });
    const order = await created({ type: 'ppv_purchase' });
    const expired = await created({ type: 'subscription_expired' });
    const all = await sim.client.api('GET', '/notifications?limit=10', token);
    expect(all.notifications.map((n: Payload) => n.type)).toEqual([15007, 2007, 3002, 15006, 7001]);
    expect(all.notifications.map((n: Payload) => n.id)).toEqual(
      [expired, order, follow, sub, tip].map((b) => b.notification.id),
    );
    expect(all.aggregationData.tips[0].id).toBe(tip.tip.id);
    expect(all.aggregationData.orders[0].orderId).toBe(order.order.orderId);
    const page = await sim.client.api(
      'GET',
      `/notifications?limit=2&before=${follow.notification.id}&type=7001,15006`,
      token,
    );
    expect(page.notifications.map((n: Payload) => n.correlationId)).toEqual([
      sub.subscription.id,
      tip.tip.id,
    ]);
    const bad = await sim.client.call('GET', '/api/v1/notifications?type=tip', { token });
    expect(bad.status).toBe(400);
  });

  it("post_like counts on the post's likeCount", async () => {
    const { token } = await listen();
    const made = await sim.client.api('POST', '/post', token, { content: 'liked twice' });
    const postId = made.id as string;
    const likes = async () => (await sim.client.api('GET', `/post?ids=${postId}`, token)).posts[0].likeCount;
    expect(await likes()).toBe(0);
    await created({ type: 'post_like', postId });
    await created({ type: 'post_like', postId });
    expect(await likes()).toBe(2);
  });

  it('refuses bad fields (400) and unknown creators, fans and messages (404)', async () => {
    expect((await activity({ type: 'dance', creator: 'creator_demo' })).body.error).toMatch(/"type"/);
    expect((await activity({ type: 'tip', creator: 'creator_demo', amount: 1.5 })).body.error).toMatch(
      /"amount"/,
    );
    expect((await activity({ type: 'tip', creator: 'creator_demo', fan: '1' })).status).toBe(400);
    expect((await activity({ type: 'tip', creator: 'nobody' })).status).toBe(404);
    expect((await activity({ type: 'tip', creator: 'creator_demo', fanId: '123' })).status).toBe(404);
    const missing = await activity({
      type: 'reaction',
      creator: 'creator_demo',
      messageId: '818897382257197089',
    });
    expect(missing.status).toBe(404);
    expect(
      (await activity({ type: 'post_like', creator: 'creator_demo', postId: '123456789012345678' })).status,
    ).toBe(404);
  });
});

describe('ws_drop fault', () => {
  it('drops connections at once, refuses new ones while in effect, then allows them again', async () => {
    const { listener, token } = await listen();
    const fault = await sim.client.control('POST', '/faults', { kind: 'ws_drop', account: 'creator_demo' });
    expect(fault.droppedConnections).toBe(1);
    await listener.until(() => listener.closed);
    const refused = await connect();
    refused.send(authFrame(token));
    await refused.until(() => refused.closed);
    expect(refused.frames).toEqual([{ t: 0, d: { code: 503 } }]);
    // Activity during the outage still changes the world: a backfill finds it.
    const missed = await created({ type: 'tip' });
    expect(missed.delivered).toBe(0);
    const backfill = await sim.client.api('GET', '/notifications?type=7001', token);
    expect(backfill.notifications[0].correlationId).toBe(missed.tip.id);
    // Another account is not in scope.
    expect((await listen('creator_2fa')).listener.frames[0]?.t).toBe(1);
    await sim.client.control('DELETE', `/faults/${fault.id}`);
    expect((await listen()).listener.frames[0]?.t).toBe(1);
  });

  it('takes count and durationMs but no path', async () => {
    const bad = await sim.client.call('POST', '/_sim/faults', { body: { kind: 'ws_drop', path: '/x' } });
    expect(bad.status).toBe(400);
    await sim.client.control('POST', '/faults', { kind: 'ws_drop', durationMs: 100 });
    const { listener } = await listen();
    expect(listener.frames[0]?.t).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect((await listen()).listener.frames[0]?.t).toBe(1);
  });
});

describe('POST /_sim/activity/batch', () => {
  const batch = (activities: unknown) =>
    sim.client.call('POST', '/_sim/activity/batch', { body: { activities } });

  it('applies every activity in order, each as /_sim/activity would', async () => {
    const { listener } = await listen();
    const result = await batch([
      { type: 'message', creator: 'creator_demo', content: 'first' },
      { type: 'tip', creator: 'creator_demo' },
      { type: 'message', creator: 'creator_demo', content: 'second' },
    ]);
    expect(result.status).toBe(201);
    const [first, tip, second] = result.body.results;
    expect([first.message.content, tip.tip.amount > 0, second.message.content]).toEqual([
      'first',
      true,
      'second',
    ]);
    expect(first.delivered).toBe(1);
    await listener.until(() => listener.frames.filter((f) => f.t === 10000).length === 3);
    const objects = listener.frames.filter((f) => f.t === 10000).map((f) => f.object?.id);
    expect(objects).toEqual([first.message.id, tip.tip.id, second.message.id]);
  });

  it('checks every activity first: a bad one is 400 naming it, and none is applied', async () => {
    const { listener } = await listen();
    const bad = await batch([
      { type: 'message', creator: 'creator_demo' },
      { type: 'dance', creator: 'creator_demo' },
    ]);
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('activities[1]');
    expect((await batch([])).status).toBe(400);
    expect(
      (await sim.client.call('POST', '/_sim/activity/batch', { body: { activities: [], more: 1 } })).status,
    ).toBe(400);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(listener.frames.filter((f) => f.t === 10000)).toEqual([]);
  });
});

describe('POST /_sim/activity/stream', () => {
  it('generates activity at about the rate asked, for as long as asked', async () => {
    const { listener } = await listen();
    const result = await sim.client.call('POST', '/_sim/activity/stream', {
      body: { perSecond: 40, seconds: 0.5, creators: ['creator_demo'] },
    });
    expect(result.status).toBe(202);
    expect(result.body).toMatchObject({
      streamId: expect.any(String),
      expected: 20,
      creators: ['creator_demo'],
    });
    await new Promise((resolve) => setTimeout(resolve, 800));
    const events = listener.frames.filter((f) => f.t === 10000).length;
    // 20 activities (a few that do not fit are skipped; a subscription sends two frames).
    expect(events).toBeGreaterThanOrEqual(14);
    expect(events).toBeLessThanOrEqual(45);
    const after = listener.frames.length;
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(listener.frames.length).toBe(after);
  });

  it('refuses bad rates and unknown creators', async () => {
    const bad = await sim.client.call('POST', '/_sim/activity/stream', {
      body: { perSecond: 0, seconds: 1 },
    });
    expect(bad.status).toBe(400);
    const unknown = await sim.client.call('POST', '/_sim/activity/stream', {
      body: { perSecond: 1, seconds: 1, creators: ['nobody'] },
    });
    expect(unknown.status).toBe(404);
  });

  it('runs continuously with activityPerMinute', async () => {
    const { listener } = await listen();
    await sim.client.control('POST', '/config', { activityPerMinute: 1200 });
    await listener.until(() => listener.frames.filter((f) => f.t === 10000).length >= 3, 1500);
    await sim.client.control('POST', '/config', { activityPerMinute: 0 });
  });
});
