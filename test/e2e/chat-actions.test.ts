import {
  type Chat,
  type ChatTip,
  chatsHide,
  chatsMute,
  chatsReadReceipts,
  chatsTips,
  chatsTyping,
  chatsVip,
  groupCreate,
  messagesUnlike,
  Reaction,
  RecipientGroup,
  TYPING_WINDOW_MS,
} from '@cg/operations/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsOf, expectBadRequest, expectNotFound, expectSuccess } from '../support/assert';
import { connectWithSim } from '../support/common';
import { sleep } from '../support/processes';
import { simFixture, simRequests } from '../support/sim';
import { gw, startStack, type TestStack } from '../support/stack';

interface ChatFixture {
  chatId: string;
  fanId: string;
  vip: boolean;
  muted: boolean;
  hidden: boolean;
  readReceiptsEnabled: boolean;
  unreadCount: number;
  tipCount: number;
  tipTotal: number;
  messageIds: string[];
}

let stack: TestStack;
let accountId: string;
let chats: ChatFixture[];
/** A chat and a fan of the other sandbox creator: unknown to creator_demo. */
let otherChatId: string;
let otherFanId: string;
let otherMessageId: string;
let creatorId: string;

beforeAll(async () => {
  stack = await startStack();
  ({ accountId } = await connectWithSim(stack));
  const demo = await simFixture(stack, 'creator_demo');
  chats = demo.chats;
  creatorId = demo.platformAccountId;
  const other = (await simFixture(stack, 'creator_2fa')).chats[0];
  otherChatId = other.chatId;
  otherFanId = other.fanId;
  otherMessageId = other.messageIds[0];
});
afterAll(async () => {
  await stack?.stop();
});

/** The chat fixture as the sandbox holds it now. */
const chatNow = async (chatId: string): Promise<ChatFixture> =>
  ((await simFixture(stack, 'creator_demo')).chats as ChatFixture[]).find(
    (c) => c.chatId === chatId,
  ) as ChatFixture;

const calls = async (key: string) => (await simRequests(stack, 'creator_demo'))[key] ?? 0;
const SETTINGS = 'POST /api/v1/groups/users/settings';
const IGNORE = 'POST /api/v1/account/ignore';
const TYPING = 'POST /api/v1/message/typing';

/** Every chat row of a query, paged by data.data.nextCursor. */
async function walkChats(query = ''): Promise<Chat[]> {
  const rows: Chat[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 50; pages++) {
    const response = await gw(
      stack,
      'GET',
      `/${accountId}/chats?limit=100${query}${cursor ? `&cursor=${cursor}` : ''}`,
    );
    expectSuccess(response);
    rows.push(...response.body.data.data.response.data);
    cursor = response.body.data.data.nextCursor;
    if (cursor === null) return rows;
  }
  throw new Error('the chat list never ended');
}

describe('POST /{accountId}/chats/{chatId}/hide', () => {
  it('answers {chatId, hidden: true}; the chat leaves the chat list, its messages stay readable', async () => {
    const chat = chats[3] as ChatFixture;
    expect((await walkChats()).map((r) => r.groupId)).toContain(chat.chatId);
    const before = await calls(SETTINGS);
    const response = await gw(stack, 'POST', `/${accountId}/chats/${chat.chatId}/hide`);
    expectSuccess(response, 200);
    expect(errorsOf(chatsHide.schemas.data, response.body.data)).toEqual([]);
    expect(response.body.data.data.response).toEqual({ chatId: chat.chatId, hidden: true });
    expect(await calls(SETTINGS)).toBe(before + 1);
    const rows = await walkChats();
    expect(rows.map((r) => r.groupId)).not.toContain(chat.chatId);
    expect(rows).toHaveLength(chats.length - 1);
    expect((await chatNow(chat.chatId)).hidden).toBe(true);
    const read = await gw(stack, 'GET', `/${accountId}/chats/${chat.chatId}/messages`);
    expectSuccess(read);
    expect(read.body.data.data.response.messages[0].id).toBe(chat.messageIds[0]);
    // Hiding again changes nothing and answers the same.
    const again = await gw(stack, 'POST', `/${accountId}/chats/${chat.chatId}/hide`);
    expectSuccess(again, 200);
    expect(again.body.data.data.response).toEqual({ chatId: chat.chatId, hidden: true });
  });

  it('answers an unknown chat (another creator’s) 404', async () => {
    expectNotFound(await gw(stack, 'POST', `/${accountId}/chats/${otherChatId}/hide`), 'chat');
  });
});

describe('POST /{accountId}/chats/mute and /chats/unmute', () => {
  it('mutes and unmutes a fan, answering {targetUserId, muted}; the VIP bit is kept', async () => {
    const vipChat = chats.find((c) => c.vip && !c.muted) as ChatFixture;
    const before = await calls(IGNORE);
    const muted = await gw(stack, 'POST', `/${accountId}/chats/mute`, {
      body: { targetUserId: vipChat.fanId },
    });
    expectSuccess(muted, 200);
    expect(errorsOf(chatsMute.schemas.data, muted.body.data)).toEqual([]);
    expect(muted.body.data.data.response).toEqual({ targetUserId: vipChat.fanId, muted: true });
    expect(await calls(IGNORE)).toBe(before + 1);
    expect(await chatNow(vipChat.chatId)).toMatchObject({ muted: true, vip: true });
    expect((await walkChats('&filter=vips')).map((r) => r.groupId)).toContain(vipChat.chatId);
    // Muting a muted fan succeeds without change.
    const again = await gw(stack, 'POST', `/${accountId}/chats/mute`, {
      body: { targetUserId: vipChat.fanId },
    });
    expectSuccess(again, 200);
    expect(await chatNow(vipChat.chatId)).toMatchObject({ muted: true, vip: true });

    const unmuted = await gw(stack, 'POST', `/${accountId}/chats/unmute`, {
      body: { targetUserId: vipChat.fanId },
    });
    expectSuccess(unmuted, 200);
    expect(unmuted.body.data.data.response).toEqual({ targetUserId: vipChat.fanId, muted: false });
    expect(await chatNow(vipChat.chatId)).toMatchObject({ muted: false, vip: true });
  });

  it('does a mute once when retried with the same Idempotency-Key', async () => {
    const fan = (chats.find((c) => !c.vip) as ChatFixture).fanId;
    const before = await calls(IGNORE);
    const headers = { 'idempotency-key': `mute-${fan}` };
    for (let i = 0; i < 2; i++) {
      const response = await gw(stack, 'POST', `/${accountId}/chats/mute`, {
        body: { targetUserId: fan },
        headers,
      });
      expectSuccess(response, 200);
      expect(response.body.data.data.response).toEqual({ targetUserId: fan, muted: true });
    }
    expect(await calls(IGNORE)).toBe(before + 1);
  });

  it('answers a malformed targetUserId 400 naming it, an unknown fan 404', async () => {
    const before = await calls(IGNORE);
    expectBadRequest(
      await gw(stack, 'POST', `/${accountId}/chats/mute`, { body: { targetUserId: 'luna' } }),
      'targetUserId',
    );
    expect(await calls(IGNORE)).toBe(before);
    expectNotFound(
      await gw(stack, 'POST', `/${accountId}/chats/unmute`, { body: { targetUserId: otherFanId } }),
      'user',
    );
  });
});

describe('POST /{accountId}/chats/{fanId}/vip', () => {
  it('answers {fanId, vip: true}; filter=vips then finds the fan; the mute bit is kept', async () => {
    const chat = chats.find((c) => !c.vip && !c.hidden && c !== chats[3]) as ChatFixture;
    expect((await walkChats('&filter=vips')).map((r) => r.groupId)).not.toContain(chat.chatId);
    expectSuccess(
      await gw(stack, 'POST', `/${accountId}/chats/mute`, { body: { targetUserId: chat.fanId } }),
    );
    const response = await gw(stack, 'POST', `/${accountId}/chats/${chat.fanId}/vip`);
    expectSuccess(response, 200);
    expect(errorsOf(chatsVip.schemas.data, response.body.data)).toEqual([]);
    expect(response.body.data.data.response).toEqual({ fanId: chat.fanId, vip: true });
    const vips = await walkChats('&filter=vips');
    expect(vips.map((r) => r.groupId)).toContain(chat.chatId);
    expect(await chatNow(chat.chatId)).toMatchObject({ vip: true, muted: true });
    // Marking a VIP again changes nothing.
    expectSuccess(await gw(stack, 'POST', `/${accountId}/chats/${chat.fanId}/vip`), 200);
    expect(await chatNow(chat.chatId)).toMatchObject({ vip: true, muted: true });
  });

  it('answers an unknown fan 404', async () => {
    expectNotFound(await gw(stack, 'POST', `/${accountId}/chats/${otherFanId}/vip`), 'fan');
  });
});

describe('POST /{accountId}/chats/{chatId}/readreceipts', () => {
  it('answers {chatId, readReceipts} and the chat keeps the setting', async () => {
    const chat = chats[1] as ChatFixture;
    expect(chat.readReceiptsEnabled).toBe(true);
    const off = await gw(stack, 'POST', `/${accountId}/chats/${chat.chatId}/readreceipts`, {
      body: { action: 'disable' },
    });
    expectSuccess(off, 200);
    expect(errorsOf(chatsReadReceipts.schemas.data, off.body.data)).toEqual([]);
    expect(off.body.data.data.response).toEqual({ chatId: chat.chatId, readReceipts: 'disabled' });
    expect((await chatNow(chat.chatId)).readReceiptsEnabled).toBe(false);
    const on = await gw(stack, 'POST', `/${accountId}/chats/${chat.chatId}/readreceipts`, {
      body: { action: 'enable' },
    });
    expectSuccess(on, 200);
    expect(on.body.data.data.response).toEqual({ chatId: chat.chatId, readReceipts: 'enabled' });
    expect((await chatNow(chat.chatId)).readReceiptsEnabled).toBe(true);
    // The chat is still listed: read receipts hide nothing.
    expect((await walkChats()).map((r) => r.groupId)).toContain(chat.chatId);
  });

  it('answers an action other than enable/disable 400 naming it, an unknown chat 404', async () => {
    const before = await calls(SETTINGS);
    expectBadRequest(
      await gw(stack, 'POST', `/${accountId}/chats/${chats[1]?.chatId}/readreceipts`, {
        body: { action: 'read' },
      }),
      'action',
    );
    expect(await calls(SETTINGS)).toBe(before);
    expectNotFound(
      await gw(stack, 'POST', `/${accountId}/chats/${otherChatId}/readreceipts`, {
        body: { action: 'enable' },
      }),
      'chat',
    );
  });
});

describe('POST /{accountId}/chats/typing', () => {
  it('answers {chatId, typing: true}; 5 quick calls reach the platform once, a call after 3 s again', async () => {
    const chatId = (chats[2] as ChatFixture).chatId;
    const before = await calls(TYPING);
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => gw(stack, 'POST', `/${accountId}/chats/typing`, { body: { chatId } })),
    );
    for (const response of answers) {
      expectSuccess(response, 200);
      expect(errorsOf(chatsTyping.schemas.data, response.body.data)).toEqual([]);
      expect(response.body.data.data.response).toEqual({ chatId, typing: true });
    }
    expect(await calls(TYPING)).toBe(before + 1);
    // Another chat has its own window.
    const other = (chats[4] as ChatFixture).chatId;
    expectSuccess(await gw(stack, 'POST', `/${accountId}/chats/typing`, { body: { chatId: other } }), 200);
    expect(await calls(TYPING)).toBe(before + 2);
    await sleep(TYPING_WINDOW_MS + 200);
    expectSuccess(await gw(stack, 'POST', `/${accountId}/chats/typing`, { body: { chatId } }), 200);
    expect(await calls(TYPING)).toBe(before + 3);
  });

  it('answers an unknown chat 404 each time: a refused call holds no window', async () => {
    const before = await calls(TYPING);
    for (let i = 0; i < 2; i++) {
      expectNotFound(
        await gw(stack, 'POST', `/${accountId}/chats/typing`, { body: { chatId: otherChatId } }),
        'chat',
      );
    }
    expect(await calls(TYPING)).toBe(before + 2);
  });
});

describe('GET /{accountId}/chats/{fanId}/tips', () => {
  it('pages a fan’s chat tips newest first by data.data.nextCursor, with the total in mills', async () => {
    const chat = [...chats].sort((a, b) => b.tipCount - a.tipCount)[0] as ChatFixture;
    expect(chat.tipCount).toBeGreaterThan(2);
    const tips: ChatTip[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 50; pages++) {
      const response = await gw(
        stack,
        'GET',
        `/${accountId}/chats/${chat.fanId}/tips?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expectSuccess(response);
      expect(errorsOf(chatsTips.schemas.data, response.body.data)).toEqual([]);
      const page = response.body.data.data.response;
      expect(page.total).toBe(chat.tipTotal);
      tips.push(...page.tips);
      cursor = response.body.data.data.nextCursor;
      if (cursor === null) break;
    }
    expect(cursor).toBeNull();
    expect(tips).toHaveLength(chat.tipCount);
    expect(tips.reduce((sum, tip) => sum + tip.amount, 0)).toBe(chat.tipTotal);
    for (const tip of tips) {
      expect(tip.senderId).toBe(chat.fanId);
      expect(tip.amount % 1000).toBe(0);
      expect(tip.amount).toBeGreaterThanOrEqual(1000);
    }
    const times = tips.map((tip) => tip.createdAt);
    expect(times).toEqual([...times].sort((a, b) => b - a));
    // The tip rides on the fan's message, whose totalTipAmount is the same mills.
    const newest = tips[0] as ChatTip;
    const read = await gw(stack, 'GET', `/${accountId}/chats/${chat.chatId}/messages?limit=10`);
    const carried = (read.body.data.data.response.messages as { id: string; totalTipAmount: number }[]).find(
      (m) => m.id === newest.messageId,
    );
    if (carried) expect(carried.totalTipAmount).toBe(newest.amount);
  });

  it('answers a fan with no tips an empty page, a malformed cursor 400, an unknown fan 404', async () => {
    const quiet = chats.find((c) => c.tipCount === 0);
    if (quiet) {
      const response = await gw(stack, 'GET', `/${accountId}/chats/${quiet.fanId}/tips`);
      expectSuccess(response);
      expect(response.body.data.data.response).toEqual({ total: 0, tips: [] });
      expect(response.body.data.data.nextCursor).toBeNull();
    }
    expectBadRequest(
      await gw(stack, 'GET', `/${accountId}/chats/${chats[0]?.fanId}/tips?cursor=page2`),
      'cursor',
    );
    expectNotFound(await gw(stack, 'GET', `/${accountId}/chats/${otherFanId}/tips`), 'fan');
  });
});

describe('POST /{accountId}/messages/unlike', () => {
  it('removes the creator’s reaction and answers it; the message is then read without it', async () => {
    const chat = chats[6] as ChatFixture;
    const messageId = chat.messageIds[1] as string;
    const liked = await gw(stack, 'POST', `/${accountId}/messages/like`, { body: { messageId, type: 5 } });
    expectSuccess(liked, 201);
    const likesOf = async () => {
      const read = await gw(stack, 'GET', `/${accountId}/chats/${chat.chatId}/messages?limit=10`);
      expectSuccess(read);
      const found = (read.body.data.data.response.messages as { id: string; likes: unknown[] }[]).find(
        (m) => m.id === messageId,
      );
      return found?.likes;
    };
    expect(await likesOf()).toHaveLength(1);
    // Another type than the one on the message: nothing to remove.
    expectNotFound(
      await gw(stack, 'POST', `/${accountId}/messages/unlike`, { body: { messageId, type: 1 } }),
      'reaction',
    );
    const response = await gw(stack, 'POST', `/${accountId}/messages/unlike`, {
      body: { messageId, type: 5 },
    });
    expectSuccess(response, 200);
    expect(errorsOf(messagesUnlike.schemas.data, response.body.data)).toEqual([]);
    const removed = response.body.data.data.response;
    expect(errorsOf(Reaction.schema, removed)).toEqual([]);
    expect(removed).toMatchObject({
      id: liked.body.data.data.response.id,
      messageId,
      type: 5,
      groupId: chat.chatId,
    });
    expect(await likesOf()).toEqual([]);
    expectNotFound(
      await gw(stack, 'POST', `/${accountId}/messages/unlike`, { body: { messageId, type: 5 } }),
      'reaction',
    );
  });

  it('answers a type outside 1 to 7 400 naming it, another creator’s message 404', async () => {
    const calls0 = await calls('POST /api/v1/message/like/remove');
    expectBadRequest(
      await gw(stack, 'POST', `/${accountId}/messages/unlike`, {
        body: { messageId: chats[0]?.messageIds[0], type: 8 },
      }),
      'type',
    );
    expect(await calls('POST /api/v1/message/like/remove')).toBe(calls0);
    expectNotFound(
      await gw(stack, 'POST', `/${accountId}/messages/unlike`, {
        body: { messageId: otherMessageId, type: 1 },
      }),
      'message',
    );
  });
});

describe('POST /{accountId}/group', () => {
  const open = (fanId: string, more: Record<string, unknown> = {}) =>
    gw(stack, 'POST', `/${accountId}/group`, {
      body: {
        users: [
          { userId: creatorId, permissionFlags: 0 },
          { userId: fanId, permissionFlags: 0 },
        ],
        ...more,
      },
    });

  it('opens a direct chat with a fan (201, the Recipient group); it then heads the chat list and reads empty', async () => {
    const fanId = (await simFixture(stack, 'creator_demo')).newChatFanIds[0] as string;
    const before = await calls('POST /api/v1/group');
    const response = await open(fanId, { type: 1, userSettings: { customName: 'Luna' } });
    expectSuccess(response, 201);
    expect(errorsOf(groupCreate.schemas.data, response.body.data)).toEqual([]);
    const group = response.body.data.data.response as RecipientGroup;
    expect(errorsOf(RecipientGroup.schema, group)).toEqual([]);
    expect(group).toMatchObject({ type: 1, createdBy: creatorId });
    expect(group.users.map((u) => u.userId).sort()).toEqual([creatorId, fanId].sort());
    expect(await calls('POST /api/v1/group')).toBe(before + 1);
    const first = (await walkChats())[0] as Chat;
    expect(first).toMatchObject({ groupId: group.id, partnerAccountId: fanId, unreadCount: 0 });
    const read = await gw(stack, 'GET', `/${accountId}/chats/${group.id}/messages`);
    expectSuccess(read);
    expect(read.body.data.data.response.messages).toEqual([]);
    expect((await simFixture(stack, 'creator_demo')).directChats).toContainEqual({ chatId: group.id, fanId });
    // Opening it again returns the same chat, with no second creation.
    const again = await open(fanId);
    expectSuccess(again, 201);
    expect(again.body.data.data.response.id).toBe(group.id);
    expect(await calls('POST /api/v1/group')).toBe(before + 1);
  });

  it('returns the chat a fan already has, without creating one', async () => {
    const chat = chats[2] as ChatFixture;
    const before = await calls('POST /api/v1/group');
    const response = await open(chat.fanId);
    expectSuccess(response, 201);
    expect(response.body.data.data.response).toMatchObject({ id: chat.chatId, type: 1 });
    expect(await calls('POST /api/v1/group')).toBe(before);
  });

  it('answers a fan who refuses messages 409, an unknown fan 404', async () => {
    const refusing = (await simFixture(stack, 'creator_demo')).refusingFanIds[0] as string;
    const refused = await open(refusing);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ statusCode: 409, code: 'CONFLICT' });
    expectNotFound(await open(otherFanId), 'fan');
    expectNotFound(await open('788291264641499999'), 'fan');
  });

  it('answers users that are not the creator plus one other user, a permissionFlags or type other than the allowed, 400 naming the field; nothing sent', async () => {
    const fanId = chats[0]?.fanId as string;
    const before = await simRequests(stack, 'creator_demo');
    const users = (a: string, b: string, flags = 0) => [
      { userId: a, permissionFlags: 0 },
      { userId: b, permissionFlags: flags },
    ];
    expectBadRequest(
      await gw(stack, 'POST', `/${accountId}/group`, { body: { users: users(fanId, fanId) } }),
      'users',
    );
    expectBadRequest(
      await gw(stack, 'POST', `/${accountId}/group`, { body: { users: users(creatorId, fanId, 2) } }),
      'permissionFlags',
    );
    expectBadRequest(
      await gw(stack, 'POST', `/${accountId}/group`, { body: { users: users(creatorId, fanId), type: 3 } }),
      'type',
    );
    expect(await simRequests(stack, 'creator_demo')).toEqual(before);
    // Two users, neither of them the creator: refused before the platform is asked.
    const other = chats[1]?.fanId as string;
    expectBadRequest(
      await gw(stack, 'POST', `/${accountId}/group`, { body: { users: users(fanId, other) } }),
      'users',
      'creator',
    );
    expect(await simRequests(stack, 'creator_demo')).toEqual(before);
  });
});
