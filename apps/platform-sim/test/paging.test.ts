import { beforeAll, describe, expect, it } from 'vitest';
import { compareIds } from '../src/ids';
import { loginDemo, useSim } from './support';

const sim = useSim({ mediaOfferGapMs: 0, maxRequestsPerMinutePerAccount: 100_000 });
let token: string;
let demo: any;

beforeAll(async () => {
  ({ token, demo } = await loginDemo(sim.client));
});

const get = (path: string) => sim.client.api('GET', path, token);

function expectUnique(ids: string[]): void {
  expect(new Set(ids).size).toBe(ids.length);
}

function expectNewestFirst(ids: string[]): void {
  for (let i = 1; i < ids.length; i++)
    expect(compareIds(ids[i - 1] as string, ids[i] as string)).toBeGreaterThan(0);
}

describe('offset paging', () => {
  it('walks all subscribers without repeats or gaps', async () => {
    const seen: string[] = [];
    let stats: any;
    for (let offset = 0; ; offset += 40) {
      const page = await get(`/subscribers?limit=40&offset=${offset}`);
      stats = page.stats;
      seen.push(...page.subscriptions.map((s: any) => s.id));
      if (page.subscriptions.length < 40) break;
    }
    expect(stats.total).toBeGreaterThanOrEqual(200);
    expect(seen).toHaveLength(stats.total);
    expectUnique(seen);
    expectNewestFirst(seen);
  });

  it('filters active subscribers, tiers and searches', async () => {
    const active: any[] = [];
    for (let offset = 0; ; offset += 100) {
      const page = await get(`/subscribers?status=3&limit=100&offset=${offset}`);
      active.push(...page.subscriptions);
      if (page.subscriptions.length < 100) {
        expect(active).toHaveLength(page.stats.totalActive);
        expect(page.stats.totalExpired).toBeGreaterThan(0);
        break;
      }
    }
    expect(active.every((s) => s.status === 3)).toBe(true);

    const tierId = demo.tierIds[1];
    const tier = await get(`/subscribers?status=3&limit=100&subscriptionTierId=${tierId}`);
    expect(tier.subscriptions.length).toBeGreaterThan(0);
    expect(tier.subscriptions.every((s: any) => s.subscriptionTierId === tierId)).toBe(true);

    const subscriberId = active[7].subscriberId;
    const [profile] = await get(`/account?ids=${subscriberId}`);
    const found = await get(
      `/subscribers?limit=100&search=${encodeURIComponent(profile.username.toUpperCase())}`,
    );
    expect(found.subscriptions.map((s: any) => s.subscriberId)).toContain(subscriberId);
    const none = await get('/subscribers?search=zzzz-nobody');
    expect(none.subscriptions).toEqual([]);
  });

  it('walks the accounts the creator follows', async () => {
    const seen: string[] = [];
    for (let offset = 0; ; offset += 50) {
      const page = await get(
        `/account/${demo.platformAccountId}/following?before=0&after=0&limit=50&offset=${offset}`,
      );
      seen.push(...page.map((entry: any) => entry.accountId));
      if (page.length < 50) break;
    }
    expect(seen.length).toBe(demo.counts.following);
    expect(seen.length).toBeGreaterThanOrEqual(100);
    expectUnique(seen);
    const sample = await get(`/account?ids=${seen.slice(0, 5).join(',')}`);
    expect(sample).toHaveLength(5);
  });

  it('walks earnings transactions newest first, and bounds them by after/before (ms)', async () => {
    const all: any[] = [];
    let total = 0;
    for (let offset = 0; ; offset += 100) {
      const page = await get(`/account/wallets/earnings/transactions?limit=100&offset=${offset}`);
      total = page.total;
      all.push(...page.data);
      if (page.data.length < 100) break;
    }
    expect(total).toBeGreaterThanOrEqual(300);
    expect(all).toHaveLength(total);
    expectUnique(all.map((t) => t.transactionId));
    for (let i = 1; i < all.length; i++) {
      expect(all[i - 1].createdAt).toBeGreaterThan(all[i].createdAt);
      // The wallet balance after each transaction is the one before it plus its net amount.
      expect(all[i - 1].newBalance).toBe(all[i].newBalance + all[i - 1].destinationAmount);
    }
    const months = (all[0].createdAt - all[all.length - 1].createdAt) / (30 * 86_400_000);
    expect(months).toBeGreaterThan(3);

    const after = all[200].createdAt;
    const before = all[100].createdAt;
    const bounded = await get(
      `/account/wallets/earnings/transactions?after=${after}&before=${before}&limit=100`,
    );
    expect(bounded.total).toBe(99);
    expect(bounded.data.map((t: any) => t.transactionId)).toEqual(
      all.slice(101, 200).map((t) => t.transactionId),
    );
  });

  it('walks chats with unread messages by offset', async () => {
    const seen: string[] = [];
    let total = 0;
    for (let offset = 0; ; offset += 7) {
      const page = await get(`/messaging/groups?sortOrder=1&flags=32&limit=7&offset=${offset}`);
      total = page.total;
      seen.push(...page.data.map((g: any) => g.groupId));
      expect(page.aggregationData.groups.map((g: any) => g.id)).toEqual(page.data.map((g: any) => g.groupId));
      expect(page.data.every((g: any) => g.unreadCount > 0)).toBe(true);
      if (page.data.length < 7) break;
    }
    expect(seen).toHaveLength(total);
    expect(total).toBeGreaterThanOrEqual(10);
    expectUnique(seen);
    const all = await get('/messaging/groups?sortOrder=1&limit=100');
    expect(all.total).toBe(demo.counts.chats);
  });
});

describe('cursor paging', () => {
  it('walks unread message interactions by before=<messageId>', async () => {
    const seen: string[] = [];
    let before = '0';
    let total = 0;
    for (;;) {
      const page = await get(`/message/unread?before=${before}&limit=10`);
      total = page.total;
      seen.push(...page.messageInteractions.map((m: any) => m.messageId));
      if (page.messageInteractions.length < 10) break;
      before = page.messageInteractions.at(-1).messageId;
    }
    expect(total).toBeGreaterThanOrEqual(20);
    expect(seen).toHaveLength(total);
    expectUnique(seen);
    expectNewestFirst(seen);
    expect(seen).toEqual(demo.unreadMessageIds);
    // `offset` skips that many after `before`, as the platform's backfill call pages (`offset=0`).
    const skipped = await get(`/message/unread?before=${seen[2]}&offset=3&limit=4`);
    expect(skipped.messageInteractions.map((m: any) => m.messageId)).toEqual(seen.slice(6, 10));
  });

  it('walks a long list by after=<sortId>', async () => {
    const listId = demo.listIds[0];
    const seen: any[] = [];
    let after = '';
    for (;;) {
      const page = await get(
        `/lists/itemsnew?listId=${listId}&limit=20&sortMode=3${after ? `&after=${after}` : ''}`,
      );
      seen.push(...page);
      if (page.length < 20) break;
      after = page.at(-1).sortId;
    }
    expect(seen.length).toBeGreaterThanOrEqual(50);
    expectUnique(seen.map((m) => m.id));
    for (let i = 1; i < seen.length; i++)
      expect(compareIds(seen[i].sortId, seen[i - 1].sortId)).toBeGreaterThan(0);
  });

  it('walks the media offers of a long chat by before=<last item id>', async () => {
    const chatId = demo.chatIds.find((id: string) => id) as string;
    const longest = { chatId, count: 0 };
    for (const id of demo.chatIds.slice(0, 5)) {
      const page = await get(
        `/mediaoffers/location?locationId=${id}&locationType=4001&before=0&after=0&limit=100&offset=0`,
      );
      if (page.data.length > longest.count) Object.assign(longest, { chatId: id, count: page.data.length });
    }
    expect(longest.count).toBeGreaterThan(25);

    const seen: string[] = [];
    let before = '0';
    for (;;) {
      const page = await get(
        `/mediaoffers/location?locationId=${longest.chatId}&locationType=4001&accountId=${demo.platformAccountId}&before=${before}&after=0&limit=10&offset=0`,
      );
      expect(page.aggregationData.accountMedia.map((m: any) => m.id)).toEqual(
        page.data.map((i: any) => i.accountMediaId),
      );
      expect(page.aggregationData.posts).toEqual([]);
      for (const item of page.data) {
        expect(item.locationId).toBe(longest.chatId);
        expect(item.locationType).toBe(4001);
        if (item.mediaOfferBundleId) {
          expect(page.aggregationData.accountMediaBundles.map((b: any) => b.id)).toContain(
            item.mediaOfferBundleId,
          );
        }
      }
      seen.push(...page.data.map((i: any) => i.id));
      if (page.data.length < 10) break;
      before = page.data.at(-1).id;
    }
    expect(seen).toHaveLength(longest.count);
    expectUnique(seen);
    expectNewestFirst(seen);
  });

  it('pages the messages of a chat by before=<messageId>', async () => {
    const groupId = demo.chatIds[0];
    const first = await get(`/message?groupId=${groupId}&limit=5`);
    const next = await get(`/message?groupId=${groupId}&limit=5&before=${first.messages.at(-1).id}`);
    const both = [...first.messages, ...next.messages].map((m: any) => m.id);
    const together = (await get(`/message?groupId=${groupId}&limit=10`)).messages.map((m: any) => m.id);
    expect(both).toEqual(together);
    expectNewestFirst(together);
  });

  it('caps limit at 100 and rejects malformed paging values (400 code 10)', async () => {
    expect(await get('/subscribers?limit=500')).toMatchObject({ subscriptions: expect.any(Array) });
    expect((await get('/subscribers?limit=500')).subscriptions).toHaveLength(100);
    for (const path of [
      '/subscribers?limit=abc',
      '/subscribers?offset=-1',
      '/message/unread?before=xyz',
      '/subscribers?limit=0',
      `/account/${demo.platformAccountId}/following?before=abc`,
      '/account/%E0%A4%A/following',
    ]) {
      const result = await sim.client.call('GET', `/api/v1${path}`, { token });
      expect(result.status).toBe(400);
      expect(result.body.error.code).toBe(10);
    }
  });
});
