import { EarningsTransaction, FollowingEntry, SubscriberStats, Subscription } from '@cg/operations/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsOf, expectBadRequest, expectSuccess } from '../support/assert';
import { connectWithSim, runCommonRouteTests } from '../support/common';
import { type SimSession, simAll, simRequestCount } from '../support/sim';
import { account, gw, startStack, type TestStack } from '../support/stack';

interface DemoFixture {
  username: string;
  platformAccountId: string;
  tierIds: string[];
  counts: {
    activeSubscribers: number;
    expiredSubscribers: number;
    subscribers: number;
    following: number;
    transactions: number;
  };
}

let stack: TestStack;
let accountId: string;
let sim: SimSession;
let demo: DemoFixture;

beforeAll(async () => {
  stack = await startStack({ sim: { mediaOfferGapMs: 0 } });
  ({ accountId, sim } = await connectWithSim(stack));
  demo = account(stack, 'creator_demo') as unknown as DemoFixture;
});
afterAll(async () => {
  await stack?.stop();
});

/** Sandbox calls of one kind so far: bad input must be refused before it reaches the platform. */
const simCalls = (key: string) => simRequestCount(stack, demo.username, key);

/** Walks a gateway cursor (inside `response`) to its end, checking the shape of every page. */
async function walk(path: string, field: 'subscriptions' | 'following', check: (item: unknown) => void) {
  const items: any[] = [];
  const sizes: number[] = [];
  let cursor: string | undefined;
  for (let pages = 1; pages <= 60; pages++) {
    const separator = path.includes('?') ? '&' : '?';
    const url = cursor === undefined ? path : `${path}${separator}cursor=${encodeURIComponent(cursor)}`;
    const response = await gw(stack, 'GET', url);
    expectSuccess(response);
    const body = response.body.data.data;
    expect(body.nextCursor).toBeUndefined();
    expect(response.body.data.nextCursor).toBeUndefined();
    const { nextCursor } = body.response;
    expect(typeof nextCursor).toBe('string');
    for (const item of body.response[field]) check(item);
    items.push(...body.response[field]);
    sizes.push(body.response[field].length);
    if (nextCursor === '') return { items, pages, sizes };
    cursor = nextCursor;
  }
  throw new Error(`${path}: the cursor never ended`);
}

describe('GET /{accountId}/subscribers', () => {
  it('answers stats, subscriptions and nextCursor inside response, matching the platform', async () => {
    const response = await gw(stack, 'GET', `/${accountId}/subscribers?status=active&limit=10`);
    expectSuccess(response);
    const result = response.body.data.data.response;
    expect(Object.keys(result).sort()).toEqual(['nextCursor', 'stats', 'subscriptions']);
    expect(errorsOf(SubscriberStats.schema, result.stats)).toEqual([]);
    expect(result.stats).toEqual({
      totalActive: demo.counts.activeSubscribers,
      totalExpired: demo.counts.expiredSubscribers,
      total: demo.counts.subscribers,
    });
    expect(result.subscriptions).toHaveLength(10);
    for (const subscription of result.subscriptions) {
      expect(errorsOf(Subscription.schema, subscription)).toEqual([]);
      expect(subscription.status).toBe(3);
    }
    expect(typeof result.nextCursor).toBe('string');
    expect(result.nextCursor).not.toBe('');

    // Same records as the platform's (prices already cents, times already ms there).
    const own = await sim.get('/subscribers', { status: 3, limit: 10, offset: 0 });
    expect(result.subscriptions).toEqual(own.subscriptions);
    const first = result.subscriptions[0];
    expect(first.renewDate).toBeGreaterThan(1e12);
    expect(first.createdAt).toBeGreaterThan(1e12);
    expect(Number.isInteger(first.price)).toBe(true);
  });

  it('walks the cursor to the end: every active subscription once, in the platform’s order', async () => {
    const { items, pages } = await walk(
      `/${accountId}/subscribers?status=active&limit=100`,
      'subscriptions',
      (s) => expect(errorsOf(Subscription.schema, s)).toEqual([]),
    );
    expect(pages).toBeGreaterThanOrEqual(4);
    const ids = items.map((s) => s.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(demo.counts.activeSubscribers);
    const own = await simAll<{ id: string }>(sim, '/subscribers', (p) => p.subscriptions, { status: 3 });
    expect(ids).toEqual(own.map((s) => s.id));

    // A small page size walks the same list.
    const small = await walk(`/${accountId}/subscribers?status=active&limit=37`, 'subscriptions', () => {});
    expect(small.items.map((s) => s.id)).toEqual(ids);
  });

  it('honours a limit above the platform’s 100: pages of exactly 250 walk every subscription once', async () => {
    const own = await simAll<{ id: string }>(sim, '/subscribers', (p) => p.subscriptions, { status: 3 });
    expect(own.length).toBeGreaterThan(250);
    const { items, sizes } = await walk(
      `/${accountId}/subscribers?status=active&limit=250`,
      'subscriptions',
      (s) => expect(errorsOf(Subscription.schema, s)).toEqual([]),
    );
    // Every page but the last holds exactly the limit; the last holds what is left.
    expect(sizes).toEqual([250, own.length - 250]);
    const ids = items.map((s) => s.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(own.map((s) => s.id));
  });

  it('filters by subscriptionTierIds like the platform', async () => {
    const tier = demo.tierIds[1] as string;
    const { items } = await walk(
      `/${accountId}/subscribers?status=active&limit=100&subscriptionTierIds=${tier}`,
      'subscriptions',
      () => {},
    );
    expect(items.length).toBeGreaterThan(0);
    expect(items.length).toBeLessThan(demo.counts.activeSubscribers);
    for (const s of items) expect(s.subscriptionTierId).toBe(tier);
    const own = await simAll<{ id: string }>(sim, '/subscribers', (p) => p.subscriptions, {
      status: 3,
      subscriptionTierId: tier,
    });
    expect(items.map((s) => s.id)).toEqual(own.map((s) => s.id));

    const none = await gw(
      stack,
      'GET',
      `/${accountId}/subscribers?status=active&subscriptionTierIds=123456789`,
    );
    expectSuccess(none);
    expect(none.body.data.data.response.subscriptions).toEqual([]);
    expect(none.body.data.data.response.nextCursor).toBe('');
  });

  it('searches by username and display name like the platform', async () => {
    const page = await sim.get('/subscribers', { status: 3, limit: 1, offset: 5 });
    const subscriberId = page.subscriptions[0].subscriberId as string;
    const [fan] = await sim.get<any[]>('/account', { ids: subscriberId });
    const search = (fan.username as string).slice(0, 6).toUpperCase();
    const { items } = await walk(
      `/${accountId}/subscribers?status=active&limit=100&search=${encodeURIComponent(search)}`,
      'subscriptions',
      () => {},
    );
    expect(items.map((s) => s.subscriberId)).toContain(subscriberId);
    expect(items.length).toBeLessThan(demo.counts.activeSubscribers);
    const own = await simAll<{ id: string }>(sim, '/subscribers', (p) => p.subscriptions, {
      status: 3,
      search,
    });
    expect(items.map((s) => s.id)).toEqual(own.map((s) => s.id));
    const profiles = await sim.get<any[]>('/account', { ids: items.map((s) => s.subscriberId).join(',') });
    for (const profile of profiles) {
      const matches = `${profile.username} ${profile.displayName}`
        .toLowerCase()
        .includes(search.toLowerCase());
      expect(matches).toBe(true);
    }
  });

  it('requires a known status and valid paging, before anything reaches the platform', async () => {
    const calls = await simCalls('GET /api/v1/subscribers');
    const base = `/${accountId}/subscribers`;
    expectBadRequest(await gw(stack, 'GET', base), 'status');
    // all and expired are valid too (audience-status-follows.test.ts).
    for (const status of ['3', 'ACTIVE', 'inactive', '']) {
      expectBadRequest(await gw(stack, 'GET', `${base}?status=${status}`), 'status');
    }
    for (const limit of ['0', '501', 'ten', '2.5']) {
      expectBadRequest(await gw(stack, 'GET', `${base}?status=active&limit=${limit}`), 'limit');
    }
    expectBadRequest(await gw(stack, 'GET', `${base}?status=active&limit=501`), '500');
    expectBadRequest(await gw(stack, 'GET', `${base}?status=active&cursor=page2`), 'cursor');
    expectBadRequest(
      await gw(stack, 'GET', `${base}?status=active&subscriptionTierIds=gold`),
      'subscriptionTierIds',
    );
    expect(await simCalls('GET /api/v1/subscribers')).toBe(calls);
  });

  runCommonRouteTests(
    () => stack,
    { method: 'GET', path: '/{accountId}/subscribers?status=active' },
    () => accountId,
  );
});

describe('GET /{accountId}/following', () => {
  it('answers following entries and nextCursor inside response, matching the platform', async () => {
    const response = await gw(stack, 'GET', `/${accountId}/following?limit=20`);
    expectSuccess(response);
    const result = response.body.data.data.response;
    expect(Object.keys(result).sort()).toEqual(['following', 'nextCursor']);
    expect(result.following).toHaveLength(20);
    for (const entry of result.following) {
      expect(errorsOf(FollowingEntry.schema, entry)).toEqual([]);
      expect(Object.keys(entry)).toEqual(Object.keys(FollowingEntry.schema.properties));
    }
    expect(result.nextCursor).not.toBe('');
    const own = await sim.get(`/account/${demo.platformAccountId}/following`, { limit: 20, offset: 0 });
    expect(result.following).toEqual(own);
    // The followed accounts are real platform accounts.
    const profiles = await sim.get<any[]>('/account', {
      ids: result.following.map((f: any) => f.accountId).join(','),
    });
    expect(profiles).toHaveLength(20);
  });

  it('walks the cursor to the end: every followed account once, in the platform’s order', async () => {
    const { items, pages } = await walk(`/${accountId}/following?limit=100`, 'following', (entry) =>
      expect(errorsOf(FollowingEntry.schema, entry)).toEqual([]),
    );
    expect(pages).toBe(3);
    const ids = items.map((f) => f.accountId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(demo.counts.following);
    const own = await simAll<{ accountId: string }>(
      sim,
      `/account/${demo.platformAccountId}/following`,
      (p) => p,
    );
    expect(ids).toEqual(own.map((f) => f.accountId));
    // Without a limit the default page size walks the same list.
    const defaults = await walk(`/${accountId}/following`, 'following', () => {});
    expect(defaults.items.map((f) => f.accountId)).toEqual(ids);
  });

  it('honours a limit above the platform’s 100, with cursors from what was returned', async () => {
    const own = (
      await simAll<{ accountId: string }>(sim, `/account/${demo.platformAccountId}/following`, (p) => p)
    ).map((f) => f.accountId);
    expect(own).toHaveLength(demo.counts.following);
    // The seeded creator follows fewer than 250 accounts (README: 200-320 with this seed's 222), so a
    // limit of 250 is the whole list in one answer, fetched in upstream pages of at most 100.
    expect(own.length).toBeLessThan(250);
    const whole = await walk(`/${accountId}/following?limit=250`, 'following', (entry) =>
      expect(errorsOf(FollowingEntry.schema, entry)).toEqual([]),
    );
    expect(whole.sizes).toEqual([own.length]);
    expect(whole.items.map((f) => f.accountId)).toEqual(own);
    // 150 is not a multiple of the platform's page: the second page starts right after the first.
    const { items, sizes } = await walk(`/${accountId}/following?limit=150`, 'following', () => {});
    expect(sizes).toEqual([150, own.length - 150]);
    const ids = items.map((f) => f.accountId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(own);
  });

  it('refuses bad paging before anything reaches the platform', async () => {
    const key = `GET /api/v1/account/${demo.platformAccountId}/following`;
    const calls = await simCalls(key);
    for (const limit of ['0', '501', 'x']) {
      expectBadRequest(await gw(stack, 'GET', `/${accountId}/following?limit=${limit}`), 'limit');
    }
    expectBadRequest(await gw(stack, 'GET', `/${accountId}/following?limit=501`), '500');
    expectBadRequest(await gw(stack, 'GET', `/${accountId}/following?cursor=abc`), 'cursor');
    expectBadRequest(await gw(stack, 'GET', `/${accountId}/following?cursor=o-1`), 'cursor');
    expect(await simCalls(key)).toBe(calls);
  });

  runCommonRouteTests(
    () => stack,
    { method: 'GET', path: '/{accountId}/following' },
    () => accountId,
  );
});

describe('GET /{accountId}/earnings/transactions', () => {
  const path = () => `/${accountId}/earnings/transactions`;

  it('answers total and data with amounts in cents and times in ms', async () => {
    const response = await gw(stack, 'GET', `${path()}?limit=50`);
    expectSuccess(response);
    const result = response.body.data.data.response;
    expect(Object.keys(result).sort()).toEqual(['data', 'total']);
    expect(result.total).toBe(demo.counts.transactions);
    expect(result.data).toHaveLength(50);
    for (const tx of result.data) expect(errorsOf(EarningsTransaction.schema, tx)).toEqual([]);

    const own = await sim.get('/account/wallets/earnings/transactions', { limit: 50, offset: 0 });
    const cents = (mills: number) => Math.round(mills / 10);
    result.data.forEach((tx: any, i: number) => {
      const raw = own.data[i];
      expect(tx).toEqual({
        ...raw,
        amount: cents(raw.amount),
        destinationTax: cents(raw.destinationTax),
        destinationAmount: cents(raw.destinationAmount),
        newBalance: cents(raw.newBalance),
        newBalance64: cents(raw.newBalance64),
      });
      for (const field of ['amount', 'destinationTax', 'destinationAmount', 'newBalance', 'newBalance64'])
        expect(Number.isInteger(tx[field])).toBe(true);
      // ms, not seconds
      expect(tx.createdAt).toBeGreaterThan(1e12);
    });
    // Spot check of the unit: 1 cent is 10 mills upstream.
    const gross = own.data.find((raw: any) => raw.amount % 10 === 0 && raw.amount > 0);
    expect(result.data[own.data.indexOf(gross)].amount * 10).toBe(gross.amount);
  });

  it('walks offset to the end: every transaction once, newest first', async () => {
    const ids: string[] = [];
    let last = Number.POSITIVE_INFINITY;
    for (let offset = 0; ; offset += 100) {
      const response = await gw(stack, 'GET', `${path()}?limit=100&offset=${offset}`);
      expectSuccess(response);
      const { total, data } = response.body.data.data.response;
      expect(total).toBe(demo.counts.transactions);
      for (const tx of data) {
        expect(tx.createdAt).toBeLessThanOrEqual(last);
        last = tx.createdAt;
      }
      ids.push(...data.map((tx: any) => tx.transactionId));
      if (data.length < 100) break;
    }
    expect(ids).toHaveLength(demo.counts.transactions);
    expect(new Set(ids).size).toBe(ids.length);
    const own = await simAll<{ transactionId: string }>(
      sim,
      '/account/wallets/earnings/transactions',
      (p) => p.data,
    );
    expect(ids).toEqual(own.map((tx) => tx.transactionId));
    const past = await gw(stack, 'GET', `${path()}?offset=${demo.counts.transactions}`);
    expectSuccess(past);
    expect(past.body.data.data.response.data).toEqual([]);
  });

  it('honours a limit above the platform’s 100: offset walks of 250 and one page of 500', async () => {
    const own = await simAll<{ transactionId: string }>(
      sim,
      '/account/wallets/earnings/transactions',
      (p) => p.data,
    );
    expect(own).toHaveLength(demo.counts.transactions);
    const ids: string[] = [];
    const sizes: number[] = [];
    for (let offset = 0; ; offset += 250) {
      const response = await gw(stack, 'GET', `${path()}?limit=250&offset=${offset}`);
      expectSuccess(response);
      const { total, data } = response.body.data.data.response;
      expect(total).toBe(demo.counts.transactions);
      ids.push(...data.map((tx: any) => tx.transactionId));
      sizes.push(data.length);
      if (data.length < 250) break;
    }
    const full = Math.floor(own.length / 250);
    expect(sizes).toEqual([...Array.from({ length: full }, () => 250), own.length - full * 250]);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(own.map((tx) => tx.transactionId));

    // The gateway maximum in one answer, from an offset that is not a multiple of 100.
    const most = await gw(stack, 'GET', `${path()}?limit=500&offset=7`);
    expectSuccess(most);
    const data = most.body.data.data.response.data as any[];
    expect(data.map((tx) => tx.transactionId)).toEqual(own.slice(7, 507).map((tx) => tx.transactionId));
    for (const tx of data) expect(errorsOf(EarningsTransaction.schema, tx)).toEqual([]);
  });

  it('filters by before and after (Unix ms, exclusive) like the platform', async () => {
    const own = await sim.get('/account/wallets/earnings/transactions', { limit: 100, offset: 0 });
    const before = own.data[10].createdAt as number;
    const after = own.data[80].createdAt as number;
    const response = await gw(stack, 'GET', `${path()}?before=${before}&after=${after}&limit=100`);
    expectSuccess(response);
    const { total, data } = response.body.data.data.response;
    const expected = own.data.filter((tx: any) => tx.createdAt < before && tx.createdAt > after);
    expect(total).toBe(expected.length);
    expect(data.map((tx: any) => tx.transactionId)).toEqual(expected.map((tx: any) => tx.transactionId));
    for (const tx of data) {
      expect(tx.createdAt).toBeLessThan(before);
      expect(tx.createdAt).toBeGreaterThan(after);
    }

    const older = await gw(stack, 'GET', `${path()}?before=${before}&limit=5`);
    expectSuccess(older);
    const bounded = await sim.get('/account/wallets/earnings/transactions', { before, limit: 5 });
    expect(older.body.data.data.response.total).toBe(bounded.total);
    expect(older.body.data.data.response.total).toBeLessThan(demo.counts.transactions);
    expect(older.body.data.data.response.data[0].createdAt).toBeLessThan(before);

    const newer = await gw(stack, 'GET', `${path()}?after=${after}`);
    expectSuccess(newer);
    // Newest first, so every transaction newer than the 81st is on the sandbox's first page.
    expect(newer.body.data.data.response.total).toBe(
      own.data.filter((tx: any) => tx.createdAt > after).length,
    );
  });

  it('refuses bad query values before anything reaches the platform', async () => {
    const key = 'GET /api/v1/account/wallets/earnings/transactions';
    const calls = await simCalls(key);
    for (const limit of ['0', '501', 'many'])
      expectBadRequest(await gw(stack, 'GET', `${path()}?limit=${limit}`), 'limit');
    expectBadRequest(await gw(stack, 'GET', `${path()}?limit=501`), '500');
    for (const offset of ['-1', 'x', '1.5'])
      expectBadRequest(await gw(stack, 'GET', `${path()}?offset=${offset}`), 'offset');
    expectBadRequest(await gw(stack, 'GET', `${path()}?before=yesterday`), 'before');
    expectBadRequest(await gw(stack, 'GET', `${path()}?after=-5`), 'after');
    expectBadRequest(await gw(stack, 'GET', `${path()}?before=1700000000000&after=1700000000000`), 'before');
    expect(await simCalls(key)).toBe(calls);
  });

  runCommonRouteTests(
    () => stack,
    { method: 'GET', path: '/{accountId}/earnings/transactions' },
    () => accountId,
  );
});
