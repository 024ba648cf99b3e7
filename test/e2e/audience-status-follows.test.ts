import {
  type Follower,
  follow,
  SubscriberStats,
  Subscription,
  Supporter,
  subscribers,
  TOP_SUPPORTERS_MAX,
  topSupporters,
  unfollow,
} from '@cg/operations/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsOf, expectBadRequest, expectError, expectNotFound, expectSuccess } from '../support/assert';
import { connectWithSim, runCommonRouteTests } from '../support/common';
import { type SimSession, simAll, simRequestCount } from '../support/sim';
import { account, gw, startStack, type TestStack } from '../support/stack';

interface DemoFixture {
  username: string;
  platformAccountId: string;
  fanIds: string[];
  counts: { activeSubscribers: number; expiredSubscribers: number; subscribers: number; following: number };
}

let stack: TestStack;
let accountId: string;
let sim: SimSession;
let demo: DemoFixture;

beforeAll(async () => {
  stack = await startStack();
  ({ accountId, sim } = await connectWithSim(stack));
  demo = account(stack, 'creator_demo') as unknown as DemoFixture;
});
afterAll(async () => {
  await stack?.stop();
});

/** Sandbox requests of one kind so far (`METHOD /api/v1/path`). */
const simCalls = (key: string) => simRequestCount(stack, demo.username, key);

/** The accounts the creator follows, from the sandbox itself. */
const simFollowing = async () =>
  (await simAll<{ accountId: string }>(sim, `/account/${demo.platformAccountId}/following`, (p) => p)).map(
    (entry) => entry.accountId,
  );

// ---------------------------------------------------------------------------------------------------

describe('GET /{accountId}/subscribers with status all, active or expired', () => {
  /** Every subscription of a status through the gateway's cursor, each page checked; pages never repeat. */
  async function walk(status: string, limit: number) {
    const items: any[] = [];
    let cursor = '';
    for (let pages = 1; pages <= 40; pages++) {
      const response = await gw(
        stack,
        'GET',
        `/${accountId}/subscribers?status=${status}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expectSuccess(response);
      expect(errorsOf(subscribers.schemas.data, response.body.data)).toEqual([]);
      const result = response.body.data.data.response;
      // Stats count the whole account, whatever the filter (contract, chosen).
      expect(result.stats).toEqual({
        totalActive: demo.counts.activeSubscribers,
        totalExpired: demo.counts.expiredSubscribers,
        total: demo.counts.subscribers,
      });
      expect(errorsOf(SubscriberStats.schema, result.stats)).toEqual([]);
      items.push(...result.subscriptions);
      if (result.nextCursor === '') return items;
      expect(result.subscriptions).toHaveLength(limit);
      cursor = result.nextCursor;
    }
    throw new Error('the cursor never ended');
  }

  it('expired: every ended subscription once, none active, each ended in the past', async () => {
    const expired = await walk('expired', 40);
    expect(expired).toHaveLength(demo.counts.expiredSubscribers);
    expect(expired.length).toBeGreaterThan(0);
    const ids = expired.map((s) => s.id);
    expect(new Set(ids).size).toBe(ids.length);
    const now = Date.now();
    for (const subscription of expired) {
      expect(errorsOf(Subscription.schema, subscription)).toEqual([]);
      expect(subscription.status).not.toBe(3);
      expect(subscription.endsAt).toBeLessThan(now);
    }
    // The platform's own records of ended subscriptions, in its order.
    const own = await simAll<any>(sim, '/subscribers', (p) => p.subscriptions, { status: 4 });
    expect(expired).toEqual(own);
  });

  it('all: the active and the expired together, newest first, each once', async () => {
    const all = await walk('all', 100);
    expect(all).toHaveLength(demo.counts.subscribers);
    const ids = all.map((s) => s.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (let n = 1; n < all.length; n++)
      expect(all[n - 1].createdAt).toBeGreaterThanOrEqual(all[n].createdAt);
    const active = await walk('active', 100);
    const expired = await walk('expired', 100);
    for (const s of active) expect(s.status).toBe(3);
    expect([...ids].sort()).toEqual([...active, ...expired].map((s) => s.id).sort());
  });

  it('refuses any other status before anything reaches the platform', async () => {
    const calls = await simCalls('GET /api/v1/subscribers');
    for (const status of ['expired,active', 'EXPIRED', 'ended', '4'])
      expectBadRequest(await gw(stack, 'GET', `/${accountId}/subscribers?status=${status}`), 'status');
    expect(await simCalls('GET /api/v1/subscribers')).toBe(calls);
  });

  runCommonRouteTests(
    () => stack,
    { method: 'GET', path: '/{accountId}/subscribers?status=expired' },
    () => accountId,
  );
});

// ---------------------------------------------------------------------------------------------------

describe('GET /{accountId}/top-supporters', () => {
  interface Spent {
    totalGross: number;
    totalNet: number;
  }

  /** What each fan spent in (after, before), summed here from the platform's own transactions (mills). */
  async function spentByFan(after = 0, before = 0): Promise<Map<string, Spent>> {
    const transactions = await simAll<any>(sim, '/account/wallets/earnings/transactions', (p) => p.data, {
      after,
      before,
    });
    const spent = new Map<string, Spent>();
    for (const tx of transactions) {
      const fan = spent.get(tx.correlationAccountId) ?? { totalGross: 0, totalNet: 0 };
      fan.totalGross += tx.amount;
      fan.totalNet += tx.destinationAmount;
      spent.set(tx.correlationAccountId, fan);
    }
    return spent;
  }

  /** The ranking answers the fans who spent most, highest first, each with what they spent. */
  function expectRanking(rows: any[], spent: Map<string, Spent>) {
    expect(rows.length).toBe(Math.min(TOP_SUPPORTERS_MAX, spent.size));
    for (const row of rows) {
      expect(errorsOf(Supporter.schema, row)).toEqual([]);
      expect(row.accountId).toBe(demo.platformAccountId);
      expect({ totalGross: row.totalGross, totalNet: row.totalNet }).toEqual(
        spent.get(row.correlationAccountId),
      );
    }
    for (let n = 1; n < rows.length; n++)
      expect(rows[n - 1].totalGross).toBeGreaterThanOrEqual(rows[n].totalGross);
    const ranked = new Set(rows.map((row) => row.correlationAccountId));
    expect(ranked.size).toBe(rows.length);
    const lowest = rows.at(-1)?.totalGross ?? 0;
    for (const [fan, { totalGross }] of spent)
      if (!ranked.has(fan)) expect(totalGross).toBeLessThanOrEqual(lowest);
  }

  it('ranks every fan by what they spent over all time, at most 100, in mills', async () => {
    const response = await gw(stack, 'GET', `/${accountId}/top-supporters`);
    expectSuccess(response);
    expect(errorsOf(topSupporters.schemas.data, response.body.data)).toEqual([]);
    const rows = response.body.data.data.response;
    const spent = await spentByFan();
    expect(spent.size).toBeGreaterThan(TOP_SUPPORTERS_MAX);
    expectRanking(rows, spent);
  });

  it('ranks over after/before (exclusive Unix ms) like the transactions of that range', async () => {
    const recent = await sim.get('/account/wallets/earnings/transactions', { limit: 100, offset: 0 });
    const before = recent.data[5].createdAt as number;
    const after = recent.data[95].createdAt as number;
    const response = await gw(stack, 'GET', `/${accountId}/top-supporters?after=${after}&before=${before}`);
    expectSuccess(response);
    const spent = await spentByFan(after, before);
    expect(spent.size).toBeLessThan(TOP_SUPPORTERS_MAX);
    expectRanking(response.body.data.data.response, spent);
    // Only one bound: the other side is open.
    const older = await gw(stack, 'GET', `/${accountId}/top-supporters?before=${after}`);
    expectSuccess(older);
    expectRanking(older.body.data.data.response, await spentByFan(0, after));
  });

  it('answers 400 when after is not before before, before anything reaches the platform', async () => {
    const key = 'GET /api/v1/account/wallets/earnings/accounts';
    const calls = await simCalls(key);
    const at = 1_735_689_600_000;
    for (const query of [`after=${at}&before=${at}`, `after=${at + 1}&before=${at}`])
      expectBadRequest(await gw(stack, 'GET', `/${accountId}/top-supporters?${query}`), 'after', 'before');
    expectBadRequest(await gw(stack, 'GET', `/${accountId}/top-supporters?after=soon`), 'after');
    expect(await simCalls(key)).toBe(calls);
  });

  runCommonRouteTests(
    () => stack,
    { method: 'GET', path: '/{accountId}/top-supporters' },
    () => accountId,
  );
});

// ---------------------------------------------------------------------------------------------------

describe('POST /{accountId}/follow/{targetUserId} and /unfollow/{targetUserId}', () => {
  const followPath = (target: string) => `/${accountId}/follow/${target}`;
  const unfollowPath = (target: string) => `/${accountId}/unfollow/${target}`;

  /** A follow relation of the creator's, answered by follow or unfollow. */
  function expectRelation(
    response: { status: number; body: any },
    status: 200 | 201,
    target: string,
  ): Follower {
    expectSuccess(response, status);
    const schema = status === 201 ? follow.schemas.data : unfollow.schemas.data;
    expect(errorsOf(schema, response.body.data)).toEqual([]);
    const relation = response.body.data.data.response as Follower;
    expect(relation.accountId).toBe(target);
    expect(relation.followerId).toBe(demo.platformAccountId);
    expect(relation.id).not.toBe('');
    return relation;
  }

  it('follows an account (201), shows it first in following, answers a repeat 200 with the same relation', async () => {
    const target = stack.fixtures.profilePlatformAccountIds[3] as string;
    expect(await simFollowing()).not.toContain(target);
    const startedAt = Date.now();
    const created = expectRelation(await gw(stack, 'POST', followPath(target)), 201, target);
    expect(created.createdAt).toBeGreaterThanOrEqual(startedAt - 1000);
    expect(created.createdAt).toBeLessThanOrEqual(Date.now());

    const following = await gw(stack, 'GET', `/${accountId}/following?limit=5`);
    expectSuccess(following);
    expect(following.body.data.data.response.following[0]).toEqual({ accountId: target });
    const own = await simFollowing();
    expect(own[0]).toBe(target);
    expect(own).toHaveLength(demo.counts.following + 1);

    const again = expectRelation(await gw(stack, 'POST', followPath(target)), 200, target);
    expect(again).toEqual(created);
    expect(await simFollowing()).toEqual(own);

    // Unfollow removes that relation; a second unfollow finds none (409: the first took effect).
    const removed = expectRelation(await gw(stack, 'POST', unfollowPath(target)), 200, target);
    expect(removed).toEqual(created);
    expect(await simFollowing()).not.toContain(target);
    expectError(await gw(stack, 'POST', unfollowPath(target)), 409, 'CONFLICT', 'not follow');
  });

  it('unfollows a seeded relation, which leaves the following list; a new follow is a new relation', async () => {
    const before = await simFollowing();
    const target = before[7] as string;
    const removed = expectRelation(await gw(stack, 'POST', unfollowPath(target)), 200, target);
    expect(removed.createdAt).toBeLessThan(Date.now() - 3_600_000);
    const after = await simFollowing();
    expect(after).toEqual(before.filter((id) => id !== target));

    const followed = expectRelation(await gw(stack, 'POST', followPath(target)), 201, target);
    expect(followed.id).not.toBe(removed.id);
    expect(followed.createdAt).toBeGreaterThan(removed.createdAt);
    expect(await simFollowing()).toEqual([target, ...after]);
  });

  it('answers the creator itself 400 and an unknown account 404, changing nothing', async () => {
    const posts = async () =>
      (await simCalls(`POST /api/v1/account/${demo.platformAccountId}/followers`)) +
      (await simCalls(`POST /api/v1/account/${demo.platformAccountId}/followers/remove`));
    const sent = await posts();
    const own = await simFollowing();
    expectBadRequest(await gw(stack, 'POST', followPath(demo.platformAccountId)), 'itself');
    expectBadRequest(await gw(stack, 'POST', unfollowPath(demo.platformAccountId)), 'itself');
    expect(await posts()).toBe(sent);

    const unknown = '1234567890123456';
    expectNotFound(await gw(stack, 'POST', followPath(unknown)), 'unknown account');
    expectNotFound(await gw(stack, 'POST', unfollowPath(unknown)), 'unknown account');
    for (const malformed of ['abc', '12a', '-1'])
      expectBadRequest(await gw(stack, 'POST', followPath(malformed)), 'targetUserId');
    expect(await simFollowing()).toEqual(own);
  });

  runCommonRouteTests(
    () => stack,
    { method: 'POST', path: '/{accountId}/follow/1234567890123456' },
    () => accountId,
  );
  runCommonRouteTests(
    () => stack,
    { method: 'POST', path: '/{accountId}/unfollow/1234567890123456' },
    () => accountId,
  );
});
