import { beforeEach, describe, expect, it } from 'vitest';
import { loginDemo, SNOWFLAKE, useSim } from './support';

const sim = useSim({ mediaOfferGapMs: 0 }, { resetEach: true });
let token: string;
let demo: any;
let profileIds: string[];

beforeEach(async () => {
  ({ token, demo, profileIds } = await loginDemo(sim.client));
});

const api = (method: string, path: string, body?: unknown) =>
  sim.client.call(method, `/api/v1${path}`, { token, body });

describe('lists', () => {
  it('shows a created list, and a fan added to it, on the next reads', async () => {
    const created = await api('POST', '/lists', { label: 'Test list', description: 'made by a test' });
    expect(created.status).toBe(200);
    const list = created.body.response;
    expect(list).toMatchObject({
      id: expect.stringMatching(SNOWFLAKE),
      accountId: demo.platformAccountId,
      label: 'Test list',
    });
    expect(typeof list.type).toBe('number');

    const lists = await api('GET', '/lists');
    expect(lists.body.response.map((l: any) => l.id)).toContain(list.id);
    expect((await api('GET', `/lists/itemsnew?listId=${list.id}&limit=25&sortMode=3`)).body.response).toEqual(
      [],
    );

    const fanId = demo.fanIds[5];
    const added = await api('POST', '/lists/items/add', {
      listItems: [{ id: fanId, listId: list.id, type: 1 }],
    });
    expect(added.status).toBe(200);
    expect(added.body.response).toEqual([
      { id: fanId, listId: list.id, type: list.type, metadata: expect.any(String) },
    ]);

    const items = (await api('GET', `/lists/itemsnew?listId=${list.id}&limit=25&sortMode=3`)).body.response;
    expect(items).toEqual([
      {
        id: fanId,
        sortId: expect.stringMatching(SNOWFLAKE),
        listId: list.id,
        type: list.type,
        metadata: expect.any(String),
      },
    ]);
  });

  it('answers 404 for an unknown list and adds nothing', async () => {
    const result = await api('POST', '/lists/items/add', {
      listItems: [
        { id: demo.fanIds[0], listId: demo.listIds[0], type: 1 },
        { id: demo.fanIds[1], listId: '123456789012345678', type: 1 },
      ],
    });
    expect(result.status).toBe(404);
    expect(result.body.error.code).toBe(404);
    expect((await api('GET', '/lists/itemsnew?listId=123456789012345678')).status).toBe(404);
  });

  it('validates list bodies (400 code 10)', async () => {
    expect((await api('POST', '/lists', { description: 'no label' })).body.error).toEqual({
      code: 10,
      details: 'invalid field "label"',
    });
    expect((await api('POST', '/lists/items/add', { listItems: [] })).body.error.code).toBe(10);
    const badType = await api('POST', '/lists/items/add', {
      listItems: [{ id: demo.fanIds[0], listId: demo.listIds[0], type: 7 }],
    });
    expect(badType.body.error).toEqual({ code: 10, details: 'invalid field "type"' });
  });

  it('restores the seed on /_sim/reset', async () => {
    const created = (await api('POST', '/lists', { label: 'Temporary' })).body.response;
    await sim.client.control('POST', '/reset');
    token = await sim.client.login();
    expect((await api('GET', '/lists')).body.response.map((l: any) => l.id)).not.toContain(created.id);
  });
});

describe('vault albums', () => {
  it('deletes a user album once: gone from the listing, second delete 404', async () => {
    const albumId = demo.albumIds[0];
    const deleted = await api('POST', '/vault/albums/delete', { albumId });
    expect(deleted.status).toBe(200);
    expect(deleted.body.response).toMatchObject({
      id: albumId,
      type: null,
      deletedAt: expect.any(Number),
      lastSyncAt: expect.any(Number),
    });

    const listing = (await api('GET', '/vault/albumsnew')).body.response;
    expect(listing.albums.map((a: any) => a.id)).not.toContain(albumId);
    expect((await api('POST', '/vault/albums/delete', { albumId })).status).toBe(404);
    expect((await sim.client.fixtures()).accounts[0].albumIds).not.toContain(albumId);
  });

  it('refuses to delete the standard albums (403 code 20)', async () => {
    const listing = (await api('GET', '/vault/albumsnew')).body.response;
    expect(listing.albums.filter((a: any) => a.type !== null).map((a: any) => a.type)).toEqual([
      38000, 1000, 5000,
    ]);
    for (const albumId of demo.standardAlbumIds) {
      const result = await api('POST', '/vault/albums/delete', { albumId });
      expect(result.status).toBe(403);
      expect(result.body.error.code).toBe(20);
    }
  });
});

describe('payout methods', () => {
  it('returns the deleted method with status 3 once, then 404', async () => {
    const payoutMethodId = demo.payoutMethodIds[0];
    const deleted = await api('POST', '/payments/payoutmethod/delete', { payoutMethodId });
    expect(deleted.body.response).toMatchObject({
      id: payoutMethodId,
      status: 3,
      deletedAt: expect.any(Number),
    });
    expect((await api('POST', '/payments/payoutmethod/delete', { payoutMethodId })).status).toBe(404);
    expect((await sim.client.fixtures()).accounts[0].payoutMethodIds).not.toContain(payoutMethodId);
  });
});

describe('tracking links', () => {
  it('creates and updates links; the next read shows them', async () => {
    const created = (await api('POST', '/trackinglinks', { label: 'Campaign A', description: 'first' })).body
      .response;
    expect(created).toMatchObject({
      id: expect.stringMatching(SNOWFLAKE),
      label: 'Campaign A',
      description: 'first',
      type: 2,
      clicks: 0,
    });
    expect(typeof created.internalId).toBe('number');

    const updated = await api('POST', '/trackinglinks', { id: created.id, label: 'Campaign B' });
    expect(updated.body.response).toMatchObject({
      id: created.id,
      label: 'Campaign B',
      description: 'first',
    });
    const links = (await api('GET', '/trackinglinks')).body.response;
    expect(links.find((l: any) => l.id === created.id).label).toBe('Campaign B');
  });

  it('refuses to edit the default type-1 link and 404s unknown links', async () => {
    const refused = await api('POST', '/trackinglinks', {
      id: demo.defaultTrackingLinkId,
      label: 'mine now',
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe(20);
    expect((await api('POST', '/trackinglinks', { id: '123456789012345678', label: 'x' })).status).toBe(404);
    expect((await api('POST', '/trackinglinks', { description: 'no label' })).body.error.code).toBe(10);
  });
});

describe('posts', () => {
  it('publishes a For You post with the public 3 s+ video and returns the full record', async () => {
    const before = Math.floor(Date.now() / 1000);
    const result = await api('POST', '/post', {
      content: 'new post',
      fypFlags: 1,
      inReplyTo: null,
      quotedPostId: null,
      attachments: [{ contentId: demo.fypVideoMediaId, contentType: 1, pos: 0 }],
      scheduledFor: 0,
      expiresAt: 0,
      postReplyPermissionFlags: [{ type: 1, flags: 2, metadata: '' }],
      pinned: true,
      wallIds: [demo.mainWallId],
    });
    expect(result.status).toBe(200);
    const post = result.body.response;
    expect(post).toMatchObject({
      id: expect.stringMatching(SNOWFLAKE),
      accountId: demo.platformAccountId,
      content: 'new post',
      fypFlags: 1,
      replyPermissionFlags: 2,
      wallIds: [demo.mainWallId],
      pinWallIds: [demo.mainWallId],
      pinned: 1,
      attachments: [{ contentType: 1, contentId: demo.fypVideoMediaId, pos: 0, postId: post.id }],
    });
    expect(post.postReplyPermissionFlags).toEqual([
      { id: expect.stringMatching(SNOWFLAKE), postId: post.id, type: 1, flags: 2, metadata: '' },
    ]);
    expect(post.createdAt).toBeGreaterThanOrEqual(before);
    expect(post.createdAt).toBeLessThan(before + 10);

    const read = (await api('GET', `/post?ids=${post.id}`)).body.response;
    expect(read.posts).toEqual([post]);
    const me = (await api('GET', '/account/me')).body.response.account;
    expect(me.pinnedPosts.map((p: any) => p.postId)).toContain(post.id);
  });

  it('enforces the post rules', async () => {
    const empty = await api('POST', '/post', { content: '  ', attachments: [] });
    expect(empty.status).toBe(400);
    expect(empty.body.error.code).toBe(10);
    for (const mediaId of [demo.shortVideoMediaId, demo.privateVideoMediaId]) {
      const fyp = await api('POST', '/post', {
        content: 'x',
        fypFlags: 1,
        attachments: [{ contentId: mediaId, contentType: 1, pos: 0 }],
      });
      expect(fyp.status).toBe(400);
      expect(fyp.body.error).toEqual({ code: 10, details: 'invalid field "fypFlags"' });
    }
    const textFyp = await api('POST', '/post', { content: 'x', fypFlags: 1 });
    expect(textFyp.body.error.code).toBe(10);
    const unknownMedia = await api('POST', '/post', {
      attachments: [{ contentId: '123456789012345678', contentType: 1, pos: 0 }],
    });
    expect(unknownMedia.status).toBe(404);
    const unknownWall = await api('POST', '/post', { content: 'x', wallIds: ['123456789012345678'] });
    expect(unknownWall.status).toBe(404);
    const mediaOnly = await api('POST', '/post', {
      attachments: [{ contentId: demo.mediaIds[10], contentType: 1, pos: 0 }],
    });
    expect(mediaOnly.status).toBe(200);
    expect(mediaOnly.body.response.wallIds).toEqual([demo.mainWallId]);
  });

  it('stores access restrictions and a preview, and shows them on the read route', async () => {
    const ppv = await api('POST', '/post', {
      content: 'unlock me',
      attachments: [{ contentId: demo.mediaIds[10], contentType: 1, pos: 0 }],
      accessPermissions: [{ type: 1, price: 4990 }, { type: 2 }],
      previewId: demo.mediaIds[11],
    });
    expect(ppv.status).toBe(200);
    expect(ppv.body.response.accessPermissions).toEqual([{ type: 1, price: 4990 }, { type: 2 }]);
    expect(ppv.body.response.previewId).toBe(demo.mediaIds[11]);

    // Subscription only, on text: no media needed, no price.
    const subscribers = await api('POST', '/post', {
      content: 'members only',
      accessPermissions: [{ type: 2 }],
    });
    expect(subscribers.status).toBe(200);
    const free = await api('POST', '/post', { content: 'for everyone' });
    expect(free.body.response.accessPermissions).toEqual([]);
    expect(free.body.response.previewId).toBeNull();

    const ids = [ppv, subscribers, free].map((r) => r.body.response.id);
    const read = (await api('GET', `/post?ids=${ids.join(',')}`)).body.response.posts;
    expect(read.map((p: any) => [p.accessPermissions, p.previewId])).toEqual([
      [[{ type: 1, price: 4990 }, { type: 2 }], demo.mediaIds[11]],
      [[{ type: 2 }], null],
      [[], null],
    ]);
  });

  it('refuses malformed access restrictions (400 code 10) and an unknown preview (404), storing nothing', async () => {
    const media = [{ contentId: demo.mediaIds[10], contentType: 1, pos: 0 }];
    const refused = [
      { content: 'x', attachments: media, accessPermissions: { type: 1, price: 1000 } },
      { content: 'x', attachments: media, accessPermissions: [7] },
      { content: 'x', attachments: media, accessPermissions: [{ type: 9 }] },
      { content: 'x', attachments: media, accessPermissions: [{ type: '1', price: 1000 }] },
      { content: 'x', attachments: media, accessPermissions: [{ type: 2 }, { type: 2 }] },
      // ppv: a price in whole mills above 0, and media to sell
      { content: 'x', attachments: media, accessPermissions: [{ type: 1 }] },
      { content: 'x', attachments: media, accessPermissions: [{ type: 1, price: 0 }] },
      { content: 'x', attachments: media, accessPermissions: [{ type: 1, price: 4.99 }] },
      { content: 'x', attachments: media, accessPermissions: [{ type: 1, price: '4990' }] },
      { content: 'x', accessPermissions: [{ type: 1, price: 4990 }] },
      // a price belongs to ppv only
      { content: 'x', attachments: media, accessPermissions: [{ type: 2, price: 4990 }] },
    ];
    for (const body of refused) {
      const result = await api('POST', '/post', body);
      expect(result.status, JSON.stringify(body)).toBe(400);
      expect(result.body.error).toEqual({ code: 10, details: 'invalid field "accessPermissions"' });
    }
    const badPreview = await api('POST', '/post', { content: 'x', attachments: media, previewId: 12 });
    expect(badPreview.body.error).toEqual({ code: 10, details: 'invalid field "previewId"' });
    const unknownPreview = await api('POST', '/post', {
      content: 'x',
      attachments: media,
      accessPermissions: [{ type: 1, price: 4990 }],
      previewId: '123456789012345678',
    });
    expect(unknownPreview.status).toBe(404);
    expect(unknownPreview.body.error).toEqual({ code: 404, details: 'media not found' });
    expect((await sim.client.fixtures()).accounts[0].postIds).toEqual(demo.postIds);
  });
});

describe('message reactions', () => {
  it('likes a message; the reaction shows on the message', async () => {
    const messageId = demo.messageIds[0];
    const result = await api('POST', '/message/like', { messageId, type: 1 });
    expect(result.status).toBe(200);
    const reaction = result.body.response;
    expect(reaction).toMatchObject({
      id: expect.stringMatching(SNOWFLAKE),
      accountId: demo.platformAccountId,
      messageId,
      type: 1,
    });
    expect(demo.chatIds.concat(demo.unreadChatIds)).toContain(reaction.groupId);

    const messages = (await api('GET', `/message?groupId=${reaction.groupId}&limit=100`)).body.response
      .messages;
    const liked = messages.find((m: any) => m.id === messageId);
    expect(liked.likes).toEqual([reaction]);
  });

  it('rejects a bad type (400 code 10) and an unknown message (404)', async () => {
    for (const type of [0, 8, 1.5, '1']) {
      const result = await api('POST', '/message/like', { messageId: demo.messageIds[0], type });
      expect(result.status).toBe(400);
      expect(result.body.error).toEqual({ code: 10, details: 'invalid field "type"' });
    }
    expect((await api('POST', '/message/like', { messageId: '123456789012345678', type: 1 })).status).toBe(
      404,
    );
    expect((await api('POST', '/message/like', { messageId: 'not-a-message', type: 1 })).status).toBe(404);
  });

  it("does not reach another creator's messages", async () => {
    const fixtures = await sim.client.fixtures();
    const other = fixtures.accounts[1].messageIds[0];
    expect((await api('POST', '/message/like', { messageId: other, type: 1 })).status).toBe(404);
  });
});

describe('accounts by ids', () => {
  it('finds creators, fans and other profiles, skipping unknown ids, in request order', async () => {
    const ids = [demo.fanIds[3], 'garbage', profileIds[0], '123456789012345678', demo.platformAccountId];
    const profiles = (await api('GET', `/account?ids=${ids.join(',')}`)).body.response;
    expect(profiles.map((p: any) => p.id)).toEqual([demo.fanIds[3], profileIds[0], demo.platformAccountId]);
    expect(profiles[2].username).toBe('creator_demo');
  });

  it('needs 1 to 100 ids (400 code 10)', async () => {
    expect((await api('GET', '/account')).body.error).toEqual({ code: 10, details: 'invalid field "ids"' });
    const many = Array.from({ length: 101 }, (_, i) => demo.fanIds[i]).join(',');
    expect((await api('GET', `/account?ids=${many}`)).status).toBe(400);
    const hundred = Array.from({ length: 100 }, (_, i) => demo.fanIds[i]).join(',');
    expect((await api('GET', `/account?ids=${hundred}`)).body.response).toHaveLength(100);
  });
});
