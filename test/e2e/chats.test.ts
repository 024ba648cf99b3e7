import {
  AccountMedia,
  MEDIA_STATS_PAGE_SIZE,
  MediaOfferItem,
  Reaction,
  UNREAD_PAGE_SIZE,
  UnreadMessageInteraction,
} from '@cg/operations/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsOf, expectBadRequest, expectError, expectNotFound, expectSuccess } from '../support/assert';
import { connectWithSim, runCommonRouteTests } from '../support/common';
import { type SimSession, simConfig, simRequests } from '../support/sim';
import { account, gw, scanKeys, startStack, type TestStack } from '../support/stack';

interface DemoFixture {
  username: string;
  platformAccountId: string;
  chatIds: string[];
  messageIds: string[];
  unreadMessageIds: string[];
  counts: { unreadMessages: number };
}

let stack: TestStack;
let accountId: string;
let sim: SimSession;
let demo: DemoFixture;
let other: DemoFixture;

beforeAll(async () => {
  // The sandbox's per-account media-offer gap would empty every page after the first; pacing those
  // calls is not what this file tests.
  stack = await startStack({ sim: { mediaOfferGapMs: 0 } });
  ({ accountId, sim } = await connectWithSim(stack));
  demo = account(stack, 'creator_demo') as unknown as DemoFixture;
  other = account(stack, 'creator_2fa') as unknown as DemoFixture;
});
afterAll(async () => {
  await stack?.stop();
});

describe('GET /{accountId}/chats/{chatId}/media-stats', () => {
  /** Every offer item of a chat as the sandbox itself pages it (newest first, before = last id). */
  async function simOffers(chatId: string) {
    const items: any[] = [];
    const accountMedia = new Map<string, any>();
    for (;;) {
      const page = await sim.get('/mediaoffers/location', {
        locationId: chatId,
        locationType: 4001,
        before: items.at(-1)?.id ?? '0',
        limit: 100,
      });
      items.push(...page.data);
      for (const media of page.aggregationData.accountMedia) accountMedia.set(media.id, media);
      if (page.data.length < 100) return { items, accountMedia };
    }
  }

  async function walkMediaStats(chatId: string) {
    const items: any[] = [];
    const accountMedia: any[] = [];
    let cursor: string | null = null;
    for (let pages = 1; pages < 50; pages++) {
      const query: string = cursor === null ? '' : `?cursor=${cursor}`;
      const response = await gw(stack, 'GET', `/${accountId}/chats/${chatId}/media-stats${query}`);
      expectSuccess(response, 200);
      const { data } = response.body;
      // Here the cursor sits beside data.data, not inside it.
      expect(data).toHaveProperty('nextCursor');
      expect(data.data).not.toHaveProperty('nextCursor');
      const page = data.data.response;
      for (const item of page.data) expect(errorsOf(MediaOfferItem.schema, item)).toEqual([]);
      for (const media of page.aggregationData.accountMedia)
        expect(errorsOf(AccountMedia.schema, media)).toEqual([]);
      // The aggregation describes exactly the media of this page's items.
      expect(new Set(page.aggregationData.accountMedia.map((m: any) => m.mediaId))).toEqual(
        new Set(page.data.map((i: any) => i.mediaId)),
      );
      items.push(...page.data);
      accountMedia.push(...page.aggregationData.accountMedia);
      if (data.nextCursor === null) return { items, accountMedia, pages };
      expect(typeof data.nextCursor).toBe('string');
      expect(page.data).toHaveLength(MEDIA_STATS_PAGE_SIZE);
      expect(data.nextCursor).toBe(page.data.at(-1).id);
      cursor = data.nextCursor;
    }
    throw new Error('the cursor never ended');
  }

  it('walks a busy chat to its end: every offer item once, in the sandbox’s order, prices in cents', async () => {
    const chatId = demo.chatIds[0]!;
    const expected = await simOffers(chatId);
    expect(expected.items.length).toBeGreaterThan(MEDIA_STATS_PAGE_SIZE);
    const { items, accountMedia, pages } = await walkMediaStats(chatId);
    expect(pages).toBe(Math.ceil(expected.items.length / MEDIA_STATS_PAGE_SIZE));
    expect(items.map((i) => i.id)).toEqual(expected.items.map((i: any) => i.id));
    expect(accountMedia.map((m) => m.id)).toEqual(expected.items.map((i: any) => i.accountMediaId));
    for (const item of items) {
      expect(item.locationId).toBe(chatId);
      expect(item.accountId).toBe(demo.platformAccountId);
      expect(item.locationType).toBe(4001);
    }
    // Upstream prices are mills; the contract's are cents.
    let paywalled = 0;
    let purchased = 0;
    for (const media of accountMedia) {
      const upstream = expected.accountMedia.get(media.id);
      expect(media.price).toBe(upstream.price / 10);
      expect(media.saleStats.totalAmount).toBe(upstream.saleStats.totalAmount / 10);
      expect(media.saleStats.purchasedAt).toBe(upstream.saleStats.purchasedAt);
      expect(media).toMatchObject({
        mediaId: upstream.mediaId,
        purchased: upstream.purchased,
        access: upstream.access,
        whitelisted: upstream.whitelisted,
        likeCount: upstream.likeCount,
      });
      expect(media.media.id).toBe(media.mediaId);
      expect(media.media.locations[0].location.startsWith(`${stack.simUrl}/cdn/`)).toBe(true);
      if (upstream.price > 0) paywalled += 1;
      if (upstream.purchased) purchased += 1;
    }
    // The check above must have compared real prices, not only zeros.
    expect(paywalled).toBeGreaterThan(0);
    expect(purchased).toBeGreaterThan(0);
  });

  it('answers a short chat in one page with nextCursor null', async () => {
    const chatId = demo.chatIds.at(-1)!;
    const expected = await simOffers(chatId);
    expect(expected.items.length).toBeLessThanOrEqual(MEDIA_STATS_PAGE_SIZE);
    const { items, pages } = await walkMediaStats(chatId);
    expect(pages).toBe(1);
    expect(items.map((i) => i.id)).toEqual(expected.items.map((i: any) => i.id));
  });

  it('answers a page the platform left empty inside its gap with the same cursor, not the end', async () => {
    const chatId = demo.chatIds[0]!;
    const path = `/${accountId}/chats/${chatId}/media-stats`;
    const first = await gw(stack, 'GET', path);
    const cursor = first.body.data.nextCursor as string;
    expect(typeof cursor).toBe('string');
    // The platform's own gap: a second call within it gets an empty page.
    await simConfig(stack, { mediaOfferGapMs: 60_000 });
    try {
      const inGap = await gw(stack, 'GET', `${path}?cursor=${cursor}`);
      expectSuccess(inGap, 200);
      expect(inGap.body.data.data.response.data).toEqual([]);
      expect(inGap.body.data.nextCursor).toBe(cursor);
    } finally {
      await simConfig(stack, { mediaOfferGapMs: 0 });
    }
    const again = await gw(stack, 'GET', `${path}?cursor=${cursor}`);
    expect(again.body.data.data.response.data.length).toBeGreaterThan(0);
  });

  it('answers 404 for an unknown chat and another creator’s chat', async () => {
    for (const chatId of ['1234567', other.chatIds[0]]) {
      const response = await gw(stack, 'GET', `/${accountId}/chats/${chatId}/media-stats`);
      expectError(response, 404, 'NOT_FOUND', 'chat');
    }
  });

  it('rejects a malformed chat id with 400 naming it, before it takes the account’s media-stats slot', async () => {
    const before = (await simRequests(stack, 'creator_demo'))['GET /api/v1/mediaoffers/location'] ?? 0;
    for (const chatId of ['abc', '-1', '1e9', '12345678901234567890']) {
      const response = await gw(stack, 'GET', `/${accountId}/chats/${chatId}/media-stats`);
      expectBadRequest(response, 'chatId', 'digits');
    }
    expect((await simRequests(stack, 'creator_demo'))['GET /api/v1/mediaoffers/location'] ?? 0).toBe(before);
  });

  it('rejects a malformed cursor with 400 naming it, before calling the platform', async () => {
    const before = (await simRequests(stack, 'creator_demo'))['GET /api/v1/mediaoffers/location'] ?? 0;
    for (const cursor of ['abc', '-5', '1e9']) {
      const response = await gw(
        stack,
        'GET',
        `/${accountId}/chats/${demo.chatIds[0]}/media-stats?cursor=${cursor}`,
      );
      expectError(response, 400, 'BAD_REQUEST', 'cursor');
    }
    expect((await simRequests(stack, 'creator_demo'))['GET /api/v1/mediaoffers/location'] ?? 0).toBe(before);
  });
});

describe('GET /{accountId}/chats/unread', () => {
  it('walks the unread interactions to the end: each once, newest first, cursor = last messageId', async () => {
    const expected: any[] = [];
    for (;;) {
      const page = await sim.get('/message/unread', {
        before: expected.at(-1)?.messageId ?? '0',
        limit: 100,
      });
      expected.push(...page.messageInteractions);
      if (page.messageInteractions.length < 100) break;
    }
    expect(expected.map((m) => m.messageId)).toEqual(demo.unreadMessageIds);
    expect(expected.length).toBeGreaterThan(UNREAD_PAGE_SIZE);

    const seen: any[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      pages += 1;
      const query: string = cursor === null ? '' : `?cursor=${cursor}`;
      const response = await gw(stack, 'GET', `/${accountId}/chats/unread${query}`);
      expectSuccess(response, 200);
      const { response: page, nextCursor } = response.body.data.data;
      expect(response.body.data).not.toHaveProperty('nextCursor');
      expect(page.total).toBe(demo.counts.unreadMessages);
      for (const interaction of page.messageInteractions)
        expect(errorsOf(UnreadMessageInteraction.schema, interaction)).toEqual([]);
      seen.push(...page.messageInteractions);
      if (nextCursor !== null) {
        expect(page.messageInteractions).toHaveLength(UNREAD_PAGE_SIZE);
        expect(nextCursor).toBe(page.messageInteractions.at(-1).messageId);
      }
      cursor = nextCursor;
    } while (cursor !== null && pages < 50);
    expect(pages).toBe(Math.ceil(expected.length / UNREAD_PAGE_SIZE));
    expect(seen).toEqual(expected);
    // Unix ms (a seconds value would be ~1000 times smaller).
    for (const interaction of seen) expect(interaction.deliveredAt).toBeGreaterThan(1e12);
  });

  it('accepts any messageId as the cursor, as the contract defines it', async () => {
    const middle = demo.unreadMessageIds[10]!;
    const response = await gw(stack, 'GET', `/${accountId}/chats/unread?cursor=${middle}`);
    expectSuccess(response, 200);
    const ids = response.body.data.data.response.messageInteractions.map((m: any) => m.messageId);
    expect(ids).toEqual(demo.unreadMessageIds.slice(11, 11 + UNREAD_PAGE_SIZE));
  });

  it('rejects a malformed cursor with 400 naming it', async () => {
    for (const cursor of ['abc', '12-3']) {
      expectError(
        await gw(stack, 'GET', `/${accountId}/chats/unread?cursor=${cursor}`),
        400,
        'BAD_REQUEST',
        'cursor',
      );
    }
  });
});

describe('POST /{accountId}/messages/like', () => {
  async function simLikes(messageId: string, groupId: string) {
    const { messages } = await sim.get('/message', { groupId, limit: 100 });
    return messages.find((m: any) => m.id === messageId)?.likes;
  }

  it('reacts to a message, answering the Reaction; liking again replaces the type', async () => {
    const messageId = demo.messageIds[0]!;
    const response = await gw(stack, 'POST', `/${accountId}/messages/like`, { body: { messageId, type: 1 } });
    expectSuccess(response, 201);
    const reaction = response.body.data.data.response;
    expect(errorsOf(Reaction.schema, reaction)).toEqual([]);
    expect(reaction).toMatchObject({ messageId, type: 1, accountId: demo.platformAccountId });
    // The sandbox shows the like on that message inside the chat the reaction names.
    expect(await simLikes(messageId, reaction.groupId)).toEqual([expect.objectContaining({ type: 1 })]);

    const again = await gw(stack, 'POST', `/${accountId}/messages/like`, { body: { messageId, type: 7 } });
    expectSuccess(again, 201);
    expect(again.body.data.data.response).toMatchObject({ id: reaction.id, messageId, type: 7 });
    expect(await simLikes(messageId, reaction.groupId)).toEqual([expect.objectContaining({ type: 7 })]);
  });

  it('400: invalid body format or missing parameters, refused before anything is sent', async () => {
    const messageId = demo.messageIds[1]!;
    const keysBefore = (await scanKeys(stack.redis, stack.prefix)).sort();
    const likesBefore = (await simRequests(stack, 'creator_demo'))['POST /api/v1/message/like'] ?? 0;
    const send = (body: unknown) => gw(stack, 'POST', `/${accountId}/messages/like`, { body });
    const cases: [unknown, string][] = [
      [{ type: 1 }, 'messageId'],
      [{ messageId }, 'type'],
      [{ messageId, type: 0 }, 'type'],
      [{ messageId, type: 8 }, 'type'],
      [{ messageId, type: 1.5 }, 'type'],
      [{ messageId, type: '1' }, 'type'],
      [{ messageId: Number(messageId), type: 1 }, 'messageId'],
      [{ messageId: '', type: 1 }, 'messageId'],
      [{ messageId: ' \t', type: 1 }, 'messageId'],
    ];
    for (const [body, field] of cases) {
      const response = await send(body);
      expectBadRequest(response, field);
    }
    const notJson = await fetch(`${stack.apiUrl}/api/fansly/${accountId}/messages/like`, {
      method: 'POST',
      headers: { 'x-api-key': stack.keys.t1, 'content-type': 'application/json' },
      body: '{"messageId":',
    });
    expect(notJson.status).toBe(400);
    expect((await scanKeys(stack.redis, stack.prefix)).sort()).toEqual(keysBefore);
    expect((await simRequests(stack, 'creator_demo'))['POST /api/v1/message/like'] ?? 0).toBe(likesBefore);
  });

  it('401: missing or invalid API key', async () => {
    const body = { messageId: demo.messageIds[0], type: 1 };
    for (const key of [null, 'cgk_not_a_key']) {
      const response = await gw(stack, 'POST', `/${accountId}/messages/like`, { key, body });
      expectError(response, 401, 'UNAUTHORIZED', '');
      expect(response.body.error).toBe('Unauthorized');
    }
  });

  it('404: a message that does not exist or is another creator’s, naming the message', async () => {
    for (const messageId of ['1234567', 'not-a-message-id', other.messageIds[0]]) {
      const response = await gw(stack, 'POST', `/${accountId}/messages/like`, {
        body: { messageId, type: 1 },
      });
      expectNotFound(response, 'message');
      expect(response.body.message).not.toBe('message not found');
    }
  });
});

runCommonRouteTests(
  () => stack,
  { method: 'GET', path: '/{accountId}/chats/1/media-stats' },
  () => accountId,
);
runCommonRouteTests(
  () => stack,
  { method: 'GET', path: '/{accountId}/chats/unread' },
  () => accountId,
);
runCommonRouteTests(
  () => stack,
  { method: 'POST', path: '/{accountId}/messages/like', body: { messageId: '1', type: 1 } },
  () => accountId,
);
