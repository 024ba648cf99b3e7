import {
  type AccountMedia,
  ATTACHMENT_ACCOUNT_MEDIA,
  ATTACHMENT_BUNDLE,
  CHATS_DEFAULT_LIMIT,
  type Chat,
  chatMessages,
  chatsList,
  Message,
} from '@cg/operations/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsOf, expectBadRequest, expectError, expectNotFound, expectSuccess } from '../support/assert';
import { connectWithSim } from '../support/common';
import { injectFault, type SimSession, simFixture, simRequests } from '../support/sim';
import { gw, startStack, type TestStack } from '../support/stack';

interface ChatFixture {
  chatId: string;
  fanId: string;
  fanUsername: string;
  vip: boolean;
  follower: boolean;
  subscriber: boolean;
  unreadCount: number;
  messageIds: string[];
  creatorMessageIds: string[];
  fanMessageIds: string[];
}

let stack: TestStack;
let accountId: string;
let sim: SimSession;
let demo: { platformAccountId: string; mediaIds: string[]; tierIds: string[]; counts: { chats: number } };
let chats: ChatFixture[];
let otherChatId: string;

beforeAll(async () => {
  stack = await startStack();
  ({ accountId, sim } = await connectWithSim(stack));
  demo = await simFixture(stack, 'creator_demo');
  chats = (demo as unknown as { chats: ChatFixture[] }).chats;
  otherChatId = (await simFixture(stack, 'creator_2fa')).chats[0].chatId;
});
afterAll(async () => {
  await stack?.stop();
});

const platformCalls = async () => {
  const seen = await simRequests(stack, 'creator_demo');
  return {
    groups: seen['GET /api/v1/messaging/groups'] ?? 0,
    messages: seen['GET /api/v1/message'] ?? 0,
    send: seen['POST /api/v1/message'] ?? 0,
    offers: (seen['POST /api/v1/account/media'] ?? 0) + (seen['POST /api/v1/account/media/bundle'] ?? 0),
    delete: seen['POST /api/v1/message/delete'] ?? 0,
  };
};

const listChats = (query = '') => gw(stack, 'GET', `/${accountId}/chats${query}`);
const readChat = (chatId: string, query = '') =>
  gw(stack, 'GET', `/${accountId}/chats/${chatId}/messages${query}`);
const send = (chatId: string, body: unknown, headers?: Record<string, string>) =>
  gw(stack, 'POST', `/${accountId}/chats/${chatId}/messages`, { body, ...(headers ? { headers } : {}) });
const remove = (messageId: string) => gw(stack, 'DELETE', `/${accountId}/messages/${messageId}`);

/** Every chat row of a query, paged by data.data.nextCursor. */
async function walkChats(query: string, limit: number): Promise<Chat[]> {
  const rows: Chat[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 200; pages++) {
    const response = await listChats(`?limit=${limit}${query}${cursor ? `&cursor=${cursor}` : ''}`);
    expectSuccess(response);
    rows.push(...response.body.data.data.response.data);
    cursor = response.body.data.data.nextCursor;
    if (cursor === null) return rows;
  }
  throw new Error('the chat list never ended');
}

/** Every message of a chat, paged by data.data.response.cursor. */
async function walkChat(chatId: string, limit = 10): Promise<Message[]> {
  const messages: Message[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 500; pages++) {
    const response = await readChat(chatId, `?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
    expectSuccess(response);
    messages.push(...response.body.data.data.response.messages);
    cursor = response.body.data.data.response.cursor;
    if (cursor === null) return messages;
  }
  throw new Error('the chat never ended');
}

describe('GET /{accountId}/chats', () => {
  it('answers Chat rows under response.data, their fans under aggregationData.accounts, the cursor beside response', async () => {
    const response = await listChats();
    expectSuccess(response);
    expect(errorsOf(chatsList.schemas.data, response.body.data)).toEqual([]);
    const { response: page, nextCursor } = response.body.data.data;
    expect(page.data).toHaveLength(CHATS_DEFAULT_LIMIT);
    expect(typeof nextCursor).toBe('string');
    expect(response.body.data.nextCursor).toBeUndefined();
    const first = page.data[0] as Chat;
    expect(first.account_id).toBe(demo.platformAccountId);
    expect(first.groupId).toBe(chats[0]?.chatId);
    expect(first.partnerAccountId).toBe(chats[0]?.fanId);
    const accounts = new Set(page.aggregationData.accounts.map((a: { id: string }) => a.id));
    for (const row of page.data as Chat[]) expect(accounts.has(row.partnerAccountId)).toBe(true);
  });

  it('pages the whole list by cursor without a repeat, ending with a null cursor', async () => {
    const rows = await walkChats('', 17);
    expect(rows).toHaveLength(demo.counts.chats);
    expect(new Set(rows.map((r) => r.groupId)).size).toBe(rows.length);
    expect(rows.map((r) => r.groupId)).toEqual(chats.map((c) => c.chatId));
  });

  it('filters vips, followers and subscribers, by tier and by search; sorts oldest and unread', async () => {
    for (const [filter, field] of [
      ['vips', 'vip'],
      ['followers', 'follower'],
      ['subscribers', 'subscriber'],
    ] as const) {
      const rows = await walkChats(`&filter=${filter}`, 100);
      expect(rows.map((r) => r.groupId)).toEqual(chats.filter((c) => c[field]).map((c) => c.chatId));
    }
    const all = await walkChats('', 100);
    const tier = all.find((r) => r.subscriptionTierId !== null)?.subscriptionTierId as string;
    const tiered = await walkChats(`&subscriptionTierId=${tier}`, 100);
    expect(tiered.length).toBeGreaterThan(0);
    expect(tiered.every((r) => r.subscriptionTierId === tier)).toBe(true);
    const target = chats[5] as ChatFixture;
    const found = await walkChats(`&search=${encodeURIComponent(target.fanUsername)}`, 100);
    expect(found.map((r) => r.groupId)).toContain(target.chatId);
    expect(
      found.every((r) => r.partnerUsername.toLowerCase().includes(target.fanUsername.toLowerCase())),
    ).toBe(true);
    const oldest = await walkChats('&sort=oldest', 100);
    expect(oldest.map((r) => r.groupId)).toEqual(all.map((r) => r.groupId).reverse());
    const unread = await walkChats('&sort=unread', 100);
    const firstRead = unread.findIndex((r) => r.unreadCount === 0);
    expect(firstRead).toBeGreaterThan(0);
    expect(unread.slice(firstRead).every((r) => r.unreadCount === 0)).toBe(true);
  });

  it('refuses a filter, sort, limit or cursor outside the contract, sending nothing', async () => {
    const before = await platformCalls();
    expectBadRequest(await listChats('?filter=fans'), 'filter');
    expectBadRequest(await listChats('?sort=popular'), 'sort');
    expectBadRequest(await listChats('?limit=0'), 'limit');
    expectBadRequest(await listChats('?limit=101'), 'limit');
    expectBadRequest(await listChats('?cursor=page2'), 'cursor');
    expect(await platformCalls()).toEqual(before);
  });
});

describe('GET /{accountId}/chats/{chatId}/messages', () => {
  it('answers Messages newest first, the offers they carry, and the cursor in response.cursor', async () => {
    const chat = chats.find((c) => c.messageIds.length === 5) as ChatFixture;
    const response = await readChat(chat.chatId, '?limit=5');
    expectSuccess(response);
    expect(errorsOf(chatMessages.schemas.data, response.body.data)).toEqual([]);
    const page = response.body.data.data.response;
    expect(page.messages.map((m: Message) => m.id)).toEqual(chat.messageIds);
    expect(page.cursor).toBe(chat.messageIds.at(-1));
    expect(response.body.data.data.nextCursor).toBeUndefined();
    for (const message of page.messages as Message[]) {
      // Unix seconds, not ms.
      expect(message.createdAt).toBeLessThan(Date.now() / 100);
      expect(message.groupId).toBe(chat.chatId);
    }
    const withOffer = await walkChat(chats[0]?.chatId as string);
    const offered = withOffer.find((m) =>
      m.attachments.some((a) => a.contentType === ATTACHMENT_ACCOUNT_MEDIA),
    );
    expect(offered).toBeDefined();
  });

  it('pages a whole conversation by cursor without a repeat', async () => {
    const chat = chats[1] as ChatFixture;
    const messages = await walkChat(chat.chatId, 7);
    expect(new Set(messages.map((m) => m.id)).size).toBe(messages.length);
    const upstream: string[] = [];
    for (;;) {
      const page = await sim.get('/message', {
        groupId: chat.chatId,
        before: upstream.at(-1) ?? '0',
        limit: 100,
      });
      upstream.push(...page.messages.map((m: { id: string }) => m.id));
      if (page.messages.length < 100) break;
    }
    expect(messages.map((m) => m.id)).toEqual(upstream);
    expect(messages.length).toBeGreaterThan(10);
  });

  it('refuses a limit outside 1 to 10 and a malformed cursor; an unknown or another creator’s chat is 404', async () => {
    const chatId = chats[0]?.chatId as string;
    const before = await platformCalls();
    expectBadRequest(await readChat(chatId, '?limit=11'), 'limit');
    expectBadRequest(await readChat(chatId, '?limit=0'), 'limit');
    expectBadRequest(await readChat(chatId, '?cursor=abc'), 'cursor');
    expect(await platformCalls()).toEqual(before);
    expectNotFound(await readChat('123456789012345678'));
    expectNotFound(await readChat(otherChatId));
  });
});

describe('POST /{accountId}/chats/{chatId}/messages', () => {
  const media = () => demo.mediaIds.slice(10, 12);

  it('sends text and answers the Message with id, createdAt in seconds and no attachments', async () => {
    const chat = chats[2] as ChatFixture;
    const response = await send(chat.chatId, { content: 'Thanks for the support 💕' });
    expectSuccess(response, 201);
    const message = response.body.data.data.response as Message;
    expect(errorsOf(Message.schema, message)).toEqual([]);
    expect(message).toMatchObject({
      content: 'Thanks for the support 💕',
      groupId: chat.chatId,
      attachments: [],
    });
    expect(Math.abs(message.createdAt - Date.now() / 1000)).toBeLessThan(60);
    expect((await walkChat(chat.chatId, 1)).length).toBeGreaterThan(0);
    const [newest] = (await readChat(chat.chatId, '?limit=1')).body.data.data.response.messages;
    expect(newest.id).toBe(message.id);
  });

  it('sends free media as one offer, several media as a bundle offer', async () => {
    const chat = chats[3] as ChatFixture;
    const [one, two] = media();
    const single = await send(chat.chatId, { content: 'free pic', mediaIds: [one] });
    expectSuccess(single, 201);
    const [attachment] = single.body.data.data.response.attachments;
    expect(attachment).toMatchObject({ contentType: ATTACHMENT_ACCOUNT_MEDIA });
    const upstream = await sim.get('/message', { groupId: chat.chatId, limit: 1 });
    const offer = upstream.accountMedia.find((m: { id: string }) => m.id === attachment.contentId);
    expect(offer).toMatchObject({ mediaId: one, price: 0, permissions: { permissionFlags: [] } });

    const bundle = await send(chat.chatId, {
      content: 'two',
      mediaIds: [one, { mediaId: two as string, previewId: one }],
    });
    expectSuccess(bundle, 201);
    const [bundled] = bundle.body.data.data.response.attachments;
    expect(bundled.contentType).toBe(ATTACHMENT_BUNDLE);
    const page = (await readChat(chat.chatId, '?limit=1')).body.data.data.response;
    expect(page.accountMediaBundles.map((b: { id: string }) => b.id)).toEqual([bundled.contentId]);
    expect(page.accountMedia.map((m: AccountMedia) => m.mediaId)).toEqual([one, two]);
  });

  it('sends permissions as ORed rules that override the root fields, prices in mills', async () => {
    const chat = chats[4] as ChatFixture;
    const response = await send(chat.chatId, {
      content: 'subscribers free, others $4.50',
      mediaIds: [media()[0] as string],
      access_type: 'ppv',
      price: 100,
      permissions: [
        { access_type: 'subscription', subscriptionTierId: demo.tierIds[0] },
        { access_type: 'ppv', price: 4.5 },
      ],
    });
    expectSuccess(response, 201);
    const upstream = await sim.get('/message', { groupId: chat.chatId, limit: 1 });
    const [offer] = upstream.accountMedia;
    expect(offer.price).toBe(4500);
    expect(
      offer.permissions.permissionFlags.map((r: { flags: number; price: number }) => [r.flags, r.price]),
    ).toEqual([
      [4, 0],
      [1, 4500],
    ]);
  });

  it.each([
    ['empty content', { content: '' }, 'content'],
    ['blank content', { content: '   ' }, 'content'],
    ['no content', { mediaIds: ['820357346407481613'] }, 'content'],
    ['a price under $1', { content: 'x', mediaIds: ['1'], access_type: 'ppv', price: 0.5 }, 'price'],
    ['a price over $500', { content: 'x', mediaIds: ['1'], access_type: 'ppv', price: 500.01 }, 'price'],
    ['a price without ppv', { content: 'x', mediaIds: ['1'], price: 5 }, 'price'],
    ['ppv without a price', { content: 'x', mediaIds: ['1'], access_type: 'ppv' }, 'price'],
    ['ppv without media', { content: 'x', access_type: 'ppv', price: 5 }, 'mediaIds'],
    ['an unknown access_type', { content: 'x', mediaIds: ['1'], access_type: 'fans' }, 'access_type'],
    [
      'an unknown access_type in a list',
      { content: 'x', mediaIds: ['1'], access_type: ['ppv', 'vip'], price: 2 },
      'access_type',
    ],
    ['list without listId', { content: 'x', mediaIds: ['1'], access_type: 'list' }, 'listId'],
    [
      'limited_time without a window',
      { content: 'x', mediaIds: ['1'], access_type: 'limited_time' },
      'validAfter',
    ],
    [
      'a window the wrong way round',
      {
        content: 'x',
        mediaIds: ['1'],
        access_type: 'limited_time',
        validAfter: 1_900_000_000_000,
        validBefore: 1_800_000_000_000,
      },
      'validAfter',
    ],
    ['a media entry without mediaId', { content: 'x', mediaIds: [{ previewId: '1' }] }, 'mediaIds'],
    [
      'a rule with a price without ppv',
      { content: 'x', mediaIds: ['1'], permissions: [{ access_type: 'follow', price: 3 }] },
      'permissions[0].price',
    ],
    [
      'a rule priced over $500',
      { content: 'x', mediaIds: ['1'], permissions: [{ access_type: 'ppv', price: 900 }] },
      'price',
    ],
    ['permissions without media', { content: 'x', permissions: [{ access_type: 'follow' }] }, 'mediaIds'],
  ])('refuses %s with a 400 naming the field, sending nothing', async (_, body, field) => {
    const before = await platformCalls();
    expectBadRequest(await send(chats[0]?.chatId as string, body), field);
    expect(await platformCalls()).toEqual(before);
  });

  it('answers 404 for an unknown or another creator’s chat, and for an unknown media, without sending', async () => {
    const before = await platformCalls();
    expectNotFound(await send('123456789012345678', { content: 'hi' }));
    expectNotFound(await send(otherChatId, { content: 'hi', mediaIds: [media()[0] as string] }));
    // An unknown chat is found out before the offer is made.
    expect((await platformCalls()).offers).toBe(before.offers);
    expectNotFound(
      await send(chats[0]?.chatId as string, { content: 'hi', mediaIds: ['123456789012345678'] }),
    );
    expect((await platformCalls()).send).toBe(before.send + 1);
  });

  it('answers the platform’s refusal of delivery as 409', async () => {
    await injectFault(stack, {
      account: 'creator_demo',
      path: '/api/v1/message',
      method: 'POST',
      kind: 'error',
      status: 403,
      count: 1,
    });
    expectError(await send(chats[0]?.chatId as string, { content: 'blocked?' }), 409, 'CONFLICT');
  });

  it('never sends the message twice when it fails after the offer was made, leaving the offer behind', async () => {
    const chat = chats[6] as ChatFixture;
    const [newestBefore] = (await readChat(chat.chatId, '?limit=1')).body.data.data.response.messages;
    const before = await platformCalls();
    await injectFault(stack, {
      account: 'creator_demo',
      path: '/api/v1/message',
      method: 'POST',
      kind: 'error',
      status: 503,
      count: 1,
    });
    const body = { content: 'ppv', mediaIds: [media()[0] as string], access_type: 'ppv', price: 5 };
    const headers = { 'Idempotency-Key': `orphan-${chat.chatId}` };
    const response = await send(chat.chatId, body, headers);
    // The platform refused the message before acting (503), but the offer was made: the job is not
    // retried, and the failure says so.
    expect(response.status).toBe(503);
    expect(response.body.message).toContain('not retried');
    const after = await platformCalls();
    expect(after.offers).toBe(before.offers + 1);
    expect(after.send).toBe(before.send + 1);
    const [newestAfter] = (await readChat(chat.chatId, '?limit=1')).body.data.data.response.messages;
    expect(newestAfter.id).toBe(newestBefore.id);
    // A repeat with the same key is answered by that failure: nothing reaches the platform.
    const settled = await platformCalls();
    const repeat = await send(chat.chatId, body, headers);
    expect(repeat.status).toBe(503);
    expect(repeat.headers.get('idempotent-replayed')).toBe('true');
    expect(await platformCalls()).toEqual(settled);
  });

  it('honours Idempotency-Key: a repeat answers the same message, sent once', async () => {
    const chat = chats[7] as ChatFixture;
    const headers = { 'Idempotency-Key': `send-${chat.chatId}` };
    const body = { content: 'once', mediaIds: [media()[1] as string], access_type: 'ppv', price: 12 };
    const before = await platformCalls();
    const first = await send(chat.chatId, body, headers);
    const second = await send(chat.chatId, body, headers);
    expectSuccess(first, 201);
    expect(second.body.data.data.response.id).toBe(first.body.data.data.response.id);
    const after = await platformCalls();
    expect(after.send - before.send).toBe(1);
    expect(after.offers - before.offers).toBe(1);
  });
});

describe('DELETE /{accountId}/messages/{messageId}', () => {
  it('answers the deleted Message with deletedAt in seconds; the chat no longer shows it; again is 404', async () => {
    const chat = chats.find((c) => c.creatorMessageIds.length > 0) as ChatFixture;
    const id = chat.creatorMessageIds[0] as string;
    const response = await remove(id);
    expectSuccess(response);
    const deleted = response.body.data.data.response as Message;
    expect(errorsOf(Message.schema, deleted)).toEqual([]);
    expect(deleted.id).toBe(id);
    expect(Math.abs((deleted.deletedAt ?? 0) - Date.now() / 1000)).toBeLessThan(60);
    expect((await walkChat(chat.chatId)).map((m) => m.id)).not.toContain(id);
    expectNotFound(await remove(id));
  });

  it('refuses a fan’s message (409) and an unknown one (404)', async () => {
    const chat = chats.find((c) => c.fanMessageIds.length > 0) as ChatFixture;
    expectError(await remove(chat.fanMessageIds[0] as string), 409, 'CONFLICT');
    expectNotFound(await remove('123456789012345678'));
  });
});

describe('a conversation', () => {
  it('lists chats, reads one, sends text and a $9.99 PPV, finds both, deletes the text and finds it gone', async () => {
    const listed = await listChats('?limit=5');
    expectSuccess(listed);
    const chat = listed.body.data.data.response.data[4] as Chat;
    const first = await readChat(chat.groupId);
    expectSuccess(first);
    const earlier = first.body.data.data.response.messages as Message[];

    const text = await send(chat.groupId, { content: 'Hey! New set tonight 🌙' });
    expectSuccess(text, 201);
    const textId = text.body.data.data.response.id as string;
    const vaultMedia = demo.mediaIds[20] as string;
    const ppv = await send(chat.groupId, {
      content: 'Here it is',
      mediaIds: [vaultMedia],
      access_type: 'ppv',
      price: 9.99,
    });
    expectSuccess(ppv, 201);
    const sent = ppv.body.data.data.response as Message;
    const [attachment] = sent.attachments;
    expect(attachment?.contentType).toBe(ATTACHMENT_ACCOUNT_MEDIA);

    const again = (await readChat(chat.groupId)).body.data.data.response;
    expect(again.messages.map((m: Message) => m.id).slice(0, 3)).toEqual([sent.id, textId, earlier[0]?.id]);
    expect(again.messages[1]).toMatchObject({ content: 'Hey! New set tonight 🌙', attachments: [] });
    expect(again.messages[0].attachments[0].contentId).toBe(attachment?.contentId);
    const offer = again.accountMedia.find(
      (m: AccountMedia) => m.id === attachment?.contentId,
    ) as AccountMedia;
    expect(offer.mediaId).toBe(vaultMedia);
    expect(offer.price).toBe(999); // cents, as every price the gateway answers
    const upstream = await sim.get('/message', { groupId: chat.groupId, limit: 1 });
    expect(upstream.accountMedia[0]).toMatchObject({ id: attachment?.contentId, price: 9990 });
    expect(upstream.accountMedia[0].permissions.permissionFlags).toEqual([
      expect.objectContaining({ flags: 1, price: 9990 }),
    ]);
    // The chat moved to the top of the list.
    const top = (await listChats('?limit=1')).body.data.data.response.data[0] as Chat;
    expect(top).toMatchObject({ groupId: chat.groupId, lastMessageId: sent.id });

    expectSuccess(await remove(textId));
    const after = (await readChat(chat.groupId)).body.data.data.response.messages.map((m: Message) => m.id);
    expect(after).not.toContain(textId);
    expect(after.slice(0, 2)).toEqual([sent.id, earlier[0]?.id]);
  });
});
