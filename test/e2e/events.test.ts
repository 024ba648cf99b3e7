import { type Events, eventId } from '@cg/events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gw, stackEvents, startStack, type TestStack } from '../support/stack';

// The event log and GET /events: published here directly (the listener will publish the same way).
let stack: TestStack;
let events: Events;

beforeAll(async () => {
  stack = await startStack({ worker: false });
  events = stackEvents(stack);
});
afterAll(async () => {
  await events?.close();
  await stack?.stop();
});

const publish = (tenant: string, n: number, event = 'messages.received', accountId = 'acct_a') =>
  events.publishEvent(tenant, {
    id: eventId([tenant, accountId, event, n]),
    event,
    accountId,
    data: { id: String(n) },
  });

describe('GET /events', () => {
  it('answers the tenant’s events oldest first, page by page, cursor null at the end', async () => {
    const published = [];
    for (let n = 0; n < 5; n++) published.push((await publish('t1', n)).event);
    const seen: unknown[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const response = await gw(stack, 'GET', `/events?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ statusCode: 200, message: 'Success' });
      expect(typeof response.body.timestamp).toBe('string');
      seen.push(...response.body.data.events);
      cursor = response.body.data.nextCursor;
      pages++;
    } while (cursor !== null && pages < 10);
    expect(pages).toBe(3);
    expect(seen).toEqual(published);
    expect(published[0]).toEqual({
      id: eventId(['t1', 'acct_a', 'messages.received', 0]),
      event: 'messages.received',
      accountId: 'acct_a',
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      data: { id: '0' },
    });
  });

  it('filters by event and accountId', async () => {
    await publish('t1', 100, 'tips.received', 'acct_b');
    await publish('t1', 101, 'tips.received', 'acct_c');
    const tips = await gw(stack, 'GET', '/events?event=tips.received');
    expect(tips.body.data.events.map((e: { accountId: string }) => e.accountId)).toEqual([
      'acct_b',
      'acct_c',
    ]);
    const ofB = await gw(stack, 'GET', '/events?accountId=acct_b');
    expect(ofB.body.data).toMatchObject({
      events: [{ event: 'tips.received', accountId: 'acct_b' }],
      nextCursor: null,
    });
  });

  it('stores an event id once', async () => {
    const [first, again] = [await publish('t1', 200), await publish('t1', 200)];
    expect([first.stored, again.stored]).toEqual([true, false]);
    expect(again.streamId).toBe(first.streamId);
    const all = await gw(stack, 'GET', '/events?limit=100');
    expect(all.body.data.events.filter((e: { id: string }) => e.id === first.event.id)).toHaveLength(1);
  });

  it('never shows another tenant’s events', async () => {
    const theirs = await publish('t2', 1);
    const mine = await gw(stack, 'GET', '/events?limit=100');
    expect(mine.body.data.events.map((e: { id: string }) => e.id)).not.toContain(theirs.event.id);
    const t2 = await gw(stack, 'GET', '/events?limit=100', { key: stack.keys.t2 });
    expect(t2.body.data.events.map((e: { id: string }) => e.id)).toEqual([theirs.event.id]);
  });

  it('refuses a malformed cursor, an unknown event name and a missing key', async () => {
    for (const query of ['cursor=abc', 'cursor=1-2-3', 'event=nope.never', 'limit=0', 'limit=101']) {
      const response = await gw(stack, 'GET', `/events?${query}`);
      expect(response.status, query).toBe(400);
      expect(response.body.code).toBe('BAD_REQUEST');
    }
    expect((await gw(stack, 'GET', '/events', { key: null })).status).toBe(401);
  });

  it('trims the stream by the retention (MINID) and expires it', async () => {
    const key = events.keys.stream('t1');
    const ttl = await stack.redis.pttl(key);
    expect(ttl).toBeGreaterThan(71 * 3_600_000);
    expect(ttl).toBeLessThanOrEqual(72 * 3_600_000);
    const seen = await stack.redis.pttl(
      events.keys.seen('t1', eventId(['t1', 'acct_a', 'messages.received', 0])),
    );
    expect(seen).toBeGreaterThan(71 * 3_600_000);
  });
});
