import { beforeEach, describe, expect, it } from 'vitest';
import { compareIds } from '../src/ids';
import { loginDemo, type Payload, useSim } from './support';

// The sandbox's conversation world: chats with a fan on the other side, messages with their offers,
// media offers with permission rules in mills, sent messages landing in the chat, deletions.
const sim = useSim({ mediaOfferGapMs: 0, maxRequestsPerMinutePerAccount: 100_000 }, { resetEach: true });
let token: string;
let demo: Payload;

// A reset ends every session: each test logs in again.
beforeEach(async () => {
  ({ token, demo } = await loginDemo(sim.client));
});

const api = (method: string, path: string, body?: unknown) => sim.client.api(method, path, token, body);
const call = (method: string, path: string, body?: unknown) =>
  sim.client.call(method, `/api/v1${path}`, { token, body });

async function wholeChat(groupId: string): Promise<Payload[]> {
  const all: Payload[] = [];
  for (;;) {
    const before = all.at(-1)?.id ?? '0';
    const page = await api('GET', `/message?groupId=${groupId}&before=${before}&limit=25`);
    all.push(...page.messages);
    if (page.messages.length < 25) return all;
  }
}

async function allChats(query = ''): Promise<Payload[]> {
  const rows: Payload[] = [];
  for (let offset = 0; ; offset += 50) {
    const page = await api('GET', `/messaging/groups?limit=50&offset=${offset}${query}`);
    rows.push(...page.data);
    if (page.data.length < 50) return rows;
  }
}

const ppvRule = (mills: number) => ({
  type: 0,
  flags: 1,
  price: mills,
  metadata: JSON.stringify({ 1: JSON.stringify({ price: mills }) }),
});

describe('fixtures: conversations', () => {
  it('names every chat with its fan, its newest messages split by author, and its offers', async () => {
    const fixture = (await sim.client.fixtures()).accounts[0];
    expect(fixture.chats).toHaveLength(fixture.counts.chats);
    for (const chat of fixture.chats.slice(0, 5)) {
      expect(fixture.fanIds).toContain(chat.fanId);
      const page = await api('GET', `/message?groupId=${chat.chatId}&limit=5`);
      expect(page.messages.map((m: Payload) => m.id)).toEqual(chat.messageIds);
      for (const id of chat.creatorMessageIds)
        expect(page.messages.find((m: Payload) => m.id === id).senderId).toBe(fixture.platformAccountId);
      for (const id of chat.fanMessageIds)
        expect(page.messages.find((m: Payload) => m.id === id).senderId).toBe(chat.fanId);
    }
  });
});

describe('GET /messaging/groups', () => {
  it('filters by relation bits, tier and search, and sorts by activity', async () => {
    const all = await allChats();
    expect(all).toHaveLength(demo.counts.chats);
    expect(new Set(all.map((c) => c.groupId)).size).toBe(all.length);
    for (const [flag, name] of [
      [1, 'vip'],
      [2, 'follower'],
      [4, 'subscriber'],
    ] as const) {
      const rows = await allChats(`&flags=${flag}`);
      const fixture = (await sim.client.fixtures()).accounts[0];
      const expected = fixture.chats.filter((c: Payload) => c[name]).map((c: Payload) => c.chatId);
      expect(rows.map((r) => r.groupId).sort()).toEqual([...expected].sort());
      expect(rows.every((r) => (r.flags & flag) === flag)).toBe(true);
    }
    const oldest = await allChats('&sortOrder=2');
    expect(oldest.map((c) => c.groupId)).toEqual(all.map((c) => c.groupId).reverse());
    const unread = await allChats('&sortOrder=3');
    const firstRead = unread.findIndex((c) => c.unreadCount === 0);
    expect(unread.slice(firstRead).every((c) => c.unreadCount === 0)).toBe(true);

    const withTier = all.find((c) => c.subscriptionTierId !== null);
    const tiered = await allChats(`&subscriptionTierId=${withTier.subscriptionTierId}`);
    expect(tiered.length).toBeGreaterThan(0);
    expect(tiered.every((c) => c.subscriptionTierId === withTier.subscriptionTierId)).toBe(true);

    const needle = all[3].partnerUsername.slice(0, 6).toUpperCase();
    const found = await allChats(`&search=${needle}`);
    expect(found.map((c) => c.groupId)).toContain(all[3].groupId);

    expect((await call('GET', '/messaging/groups?flags=64')).status).toBe(400);
    expect((await call('GET', '/messaging/groups?sortOrder=4')).status).toBe(400);
  });
});

describe('offers, sending and deleting', () => {
  it('makes a ppv offer in mills, sends it in a chat, lists it first, and deletes it', async () => {
    const [chat] = (await sim.client.fixtures()).accounts[0].chats;
    const mediaId = demo.mediaIds[4];
    const [offer] = await api('POST', '/account/media', [
      {
        mediaId,
        previewId: null,
        permissionFlags: 0,
        price: 0,
        whitelist: [],
        permissions: { permissionFlags: [ppvRule(9990)] },
        tags: [],
      },
    ]);
    expect(offer).toMatchObject({ mediaId, price: 9990 });
    expect(offer.permissions.permissionFlags[0]).toMatchObject({ flags: 1, price: 9990 });

    const sent = await api('POST', '/message', {
      type: 1,
      groupId: chat.chatId,
      content: 'for you',
      attachments: [{ contentId: offer.id, contentType: 1, pos: 0 }],
      createdAt: Date.now() / 1000,
    });
    expect(sent.attachments).toEqual([{ contentId: offer.id, contentType: 1, pos: 0, messageId: sent.id }]);
    const page = await api('GET', `/message?groupId=${chat.chatId}&limit=3`);
    expect(page.messages[0].id).toBe(sent.id);
    expect(page.accountMedia.find((m: Payload) => m.id === offer.id).price).toBe(9990);
    const rows = await allChats();
    expect(rows[0]).toMatchObject({ groupId: chat.chatId, lastMessageId: sent.id });

    const deleted = await api('POST', '/message/delete', { messageId: sent.id });
    expect(deleted.deletedAt).toBeGreaterThan(0);
    expect((await wholeChat(chat.chatId)).map((m) => m.id)).not.toContain(sent.id);
    expect((await call('POST', '/message/delete', { messageId: sent.id })).status).toBe(404);
  });

  it('makes a bundle of several media', async () => {
    const made = await api('POST', '/account/media/bundle', {
      previewId: null,
      permissionFlags: 0,
      price: 0,
      accountMediaModels: [{ mediaId: demo.mediaIds[5] }, { mediaId: demo.mediaIds[6] }],
      whitelist: [],
      permissions: { permissionFlags: [ppvRule(25000), { type: 0, flags: 4, price: 0, metadata: '' }] },
      tags: [],
    });
    const [bundle] = made.accountMediaBundles;
    expect(bundle.price).toBe(25000);
    expect(bundle.accountMediaIds).toEqual(made.accountMedia.map((m: Payload) => m.id));
    expect(bundle.permissions.permissionFlags).toHaveLength(2);
  });

  it('refuses bad offers and unknown references before making anything', async () => {
    const item = (over: Payload) => [
      { mediaId: demo.mediaIds[0], permissions: { permissionFlags: [] }, ...over },
    ];
    expect((await call('POST', '/account/media', item({ mediaId: '123' }))).status).toBe(404);
    const noPrice = { permissions: { permissionFlags: [{ type: 0, flags: 1, price: 0, metadata: '' }] } };
    expect((await call('POST', '/account/media', item(noPrice))).status).toBe(400);
    const list = {
      type: 0,
      flags: 128,
      price: 0,
      metadata: JSON.stringify({ 128: JSON.stringify({ listId: '1' }) }),
    };
    expect(
      (await call('POST', '/account/media', item({ permissions: { permissionFlags: [list] } }))).status,
    ).toBe(404);
    expect((await call('POST', '/account/media', {})).status).toBe(400);
  });

  it('sends text, refuses unknown chats and offers, and keeps a fan’s message', async () => {
    const fixture = (await sim.client.fixtures()).accounts[0];
    const chat = fixture.chats.find(
      (c: Payload) => c.fanMessageIds.length > 0 && c.creatorMessageIds.length > 0,
    );
    const before = await wholeChat(chat.chatId);
    const sent = await api('POST', '/message', {
      type: 1,
      groupId: chat.chatId,
      content: 'hello',
      attachments: [],
    });
    expect(sent).toMatchObject({ content: 'hello', senderId: fixture.platformAccountId, deletedAt: null });
    const after = await wholeChat(chat.chatId);
    expect(after.map((m) => m.id)).toEqual([sent.id, ...before.map((m) => m.id)]);
    for (let i = 1; i < after.length; i++)
      expect(compareIds(after[i - 1].id, after[i].id)).toBeGreaterThan(0);

    expect((await call('POST', '/message', { type: 1, groupId: '123', content: 'x' })).status).toBe(404);
    const ghost = {
      type: 1,
      groupId: chat.chatId,
      content: 'x',
      attachments: [{ contentId: '5', contentType: 1, pos: 0 }],
    };
    expect((await call('POST', '/message', ghost)).status).toBe(404);
    expect((await call('POST', '/message', { type: 1, groupId: chat.chatId, content: ' ' })).status).toBe(
      400,
    );

    const fans = await call('POST', '/message/delete', { messageId: chat.fanMessageIds[0] });
    expect(fans.status).toBe(403);
    const own = await api('POST', '/message/delete', { messageId: chat.creatorMessageIds[0] });
    expect(Number.isInteger(own.deletedAt)).toBe(true);
    const remaining = (await wholeChat(chat.chatId)).map((m) => m.id);
    expect(remaining).not.toContain(chat.creatorMessageIds[0]);
    expect(remaining).toContain(chat.fanMessageIds[0]);
    const refreshed = (await sim.client.fixtures()).accounts[0];
    expect(refreshed.messageIds).not.toContain(chat.creatorMessageIds[0]);
  });
});
