import { ACCESS_PERMISSION_TYPES, Post, REPLY_RULES, Wall } from '@cg/operations/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsOf, expectBadRequest, expectNotFound, expectSuccess } from '../support/assert';
import { connectWithSim, runCommonRouteTests } from '../support/common';
import { type SimSession, simFixture, simRequests } from '../support/sim';
import { account, gw, startStack, type TestStack } from '../support/stack';

interface DemoFixture {
  username: string;
  platformAccountId: string;
  mediaIds: string[];
  fypVideoMediaId: string;
  shortVideoMediaId: string;
  privateVideoMediaId: string;
  wallIds: string[];
  mainWallId: string;
}

let stack: TestStack;
let accountId: string;
let sim: SimSession;
let demo: DemoFixture;
/** A vault image: media that is not a video, so never enough for the For You page. */
let imageMediaId: string;

beforeAll(async () => {
  stack = await startStack({ sim: { mediaOfferGapMs: 0 } });
  ({ accountId, sim } = await connectWithSim(stack));
  demo = account(stack, 'creator_demo') as unknown as DemoFixture;
  const special = new Set([demo.fypVideoMediaId, demo.shortVideoMediaId, demo.privateVideoMediaId]);
  imageMediaId = demo.mediaIds.find((id) => !special.has(id)) ?? '';
});
afterAll(async () => {
  await stack?.stop();
});

/** A 400 or 404 naming every one of `words`, never with the platform's own error text. */
function expectRefused(response: { status: number; body: any }, status: 400 | 404, ...words: string[]) {
  if (status === 400) expectBadRequest(response, ...words);
  else expectNotFound(response, ...words);
  expect(response.body.message).not.toMatch(/invalid field|not found"|^media not found$|^wall not found$/);
}

const postCalls = async () => (await simRequests(stack, demo.username))['POST /api/v1/post'] ?? 0;
const createPost = (body: unknown) => gw(stack, 'POST', `/${accountId}/posts`, { body });

describe('GET /{accountId}/posts/walls', () => {
  it('answers data.status_code and data.data {accountId, walls} with no response wrapper or success', async () => {
    const response = await gw(stack, 'GET', `/${accountId}/posts/walls`);
    expectSuccess(response, 200, { platform: 'status_code' });
    const data = response.body.data;
    expect(Object.keys(data).sort()).toEqual(['data', 'status_code']);
    expect(Object.keys(data.data).sort()).toEqual(['accountId', 'walls']);
    expect(data.data.success).toBeUndefined();
    expect(data.data.response).toBeUndefined();
    expect(data.data.accountId).toBe(demo.platformAccountId);

    const walls = data.data.walls as any[];
    for (const wall of walls) expect(errorsOf(Wall.schema, wall)).toEqual([]);
    // Same walls, order and values as the platform's own answer, less its `false` flags: the
    // contract has mainWall and defaultWall present on the main and the default wall only.
    const own = await sim.get<{ accountId: string; walls: any[] }>('/account/walls');
    expect(walls).toEqual(
      own.walls.map(({ mainWall, defaultWall, ...rest }) => ({
        ...rest,
        ...(mainWall ? { mainWall } : {}),
        ...(defaultWall ? { defaultWall } : {}),
      })),
    );
    expect(walls.map((w) => w.id)).toEqual(demo.wallIds);
    expect(walls.filter((w) => 'mainWall' in w).map((w) => w.id)).toEqual([demo.mainWallId]);
    expect(walls.filter((w) => 'defaultWall' in w)).toHaveLength(1);
    expect(walls.map((w) => w.pos)).toEqual([...walls.map((w) => w.pos)].sort((a, b) => a - b));
    expect(walls.some((w) => w.private === 1)).toBe(true);
  });

  runCommonRouteTests(
    () => stack,
    { method: 'GET', path: '/{accountId}/posts/walls' },
    () => accountId,
  );
});

describe('POST /{accountId}/posts', () => {
  it('publishes a For You post with walls, pins, schedule and reply rules, visible on the platform', async () => {
    const wall = demo.wallIds[1] as string;
    const scheduledFor = Date.now() + 86_400_000;
    const expiresAt = scheduledFor + 7 * 86_400_000;
    const before = Date.now();
    const response = await createPost({
      content: 'new set is up',
      mediaIds: [demo.fypVideoMediaId, imageMediaId],
      postToFYP: true,
      wallIds: [demo.mainWallId, wall],
      pinWallIds: [wall],
      scheduledFor,
      expiresAt,
      replyPermissions: { following: true, tipped: true, tippedMinAmount: 5, mediaPurchases: false },
    });
    expectSuccess(response, 201);
    expect(response.body.data.data.success).toBe(true);
    const post = response.body.data.data.response;
    expect(errorsOf(Post.schema, post)).toEqual([]);

    expect(post.id).toMatch(/^\d+$/);
    expect(post.accountId).toBe(demo.platformAccountId);
    expect(post.content).toBe('new set is up');
    expect(post.fypFlags).not.toBe(0);
    expect(post.inReplyTo).toBeNull();
    expect(post.quotedPostId).toBeNull();
    expect(post.attachments).toEqual([
      { contentType: 1, contentId: demo.fypVideoMediaId, pos: 0, postId: post.id },
      { contentType: 1, contentId: imageMediaId, pos: 1, postId: post.id },
    ]);
    expect(post.wallIds).toEqual([demo.mainWallId, wall]);
    expect(post.pinWallIds).toEqual([wall]);
    expect(post.pinned).toBe(1);
    // Rule 5: milliseconds in, milliseconds out.
    expect(post.expiresAt).toBe(expiresAt);
    expect(post.scheduledFor).toBe(scheduledFor);
    // The platform stamps posts in seconds; the gateway answers ms.
    expect(post.createdAt).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    expect(post.createdAt).toBeLessThanOrEqual(Date.now());
    // Two rules (following, tipped with its minimum in mills); mediaPurchases false adds none.
    const rules = post.postReplyPermissionFlags as any[];
    expect(rules).toHaveLength(2);
    for (const rule of rules) expect(rule.postId).toBe(post.id);
    expect(rules.map((r) => r.flags)).toEqual([REPLY_RULES.following.flags, REPLY_RULES.tipped.flags]);
    expect(JSON.parse(rules[1].metadata)).toEqual({ minAmount: 5000 });
    expect(post.replyPermissionFlags).toBe(REPLY_RULES.following.flags | REPLY_RULES.tipped.flags);
    expect(post.mediaLikeCount).toBe(0);
    expect(post.totalTipAmount).toBe(0);
    expect(post.attachmentTipAmount).toBe(0);
    expect(post.accountMentions).toEqual([]);

    // The write is on the platform: its own read shows the same post.
    const own = await sim.get<{ posts: any[] }>('/post', { ids: post.id });
    expect(own.posts).toHaveLength(1);
    const stored = own.posts[0];
    expect(stored.content).toBe('new set is up');
    expect(stored.wallIds).toEqual(post.wallIds);
    expect(stored.attachments).toEqual(post.attachments);
    expect(stored.postReplyPermissionFlags).toEqual(post.postReplyPermissionFlags);
    expect(stored.createdAt * 1000).toBe(post.createdAt);
    expect((await simFixture(stack, demo.username)).postIds).toContain(post.id);
  });

  it('attaches media for free with only content and mediaIds (rule 4): main wall, no rules, not pinned', async () => {
    const response = await createPost({ content: 'free pic', mediaIds: [imageMediaId] });
    expectSuccess(response, 201);
    const post = response.body.data.data.response;
    expect(errorsOf(Post.schema, post)).toEqual([]);
    expect(post.fypFlags).toBe(0);
    expect(post.wallIds).toEqual([demo.mainWallId]);
    expect(post.pinWallIds).toEqual([]);
    expect(post.pinned).toBe(0);
    expect(post.replyPermissionFlags).toBe(0);
    expect(post.postReplyPermissionFlags).toEqual([]);
    expect(post.expiresAt).toBe(0);
    expect(post.attachments).toEqual([{ contentType: 1, contentId: imageMediaId, pos: 0, postId: post.id }]);
  });

  it('publishes text only (rule 1: content alone is enough) and a ppv post with media and a price', async () => {
    const text = await createPost({ content: 'hello fans' });
    expectSuccess(text, 201);
    expect(text.body.data.data.response.attachments).toEqual([]);

    const ppv = await createPost({
      content: 'unlock me',
      mediaIds: [imageMediaId],
      access_type: ['ppv', 'subscription'],
      price: 4.99,
    });
    expectSuccess(ppv, 201);
    expect(errorsOf(Post.schema, ppv.body.data.data.response)).toEqual([]);
    const own = await sim.get<{ posts: any[] }>('/post', { ids: ppv.body.data.data.response.id });
    expect(own.posts[0].content).toBe('unlock me');
    expect(own.posts[0].accessPermissions).toEqual([
      { type: ACCESS_PERMISSION_TYPES.ppv, price: 4990 },
      { type: ACCESS_PERMISSION_TYPES.subscription },
    ]);
  });

  it('stores a ppv post and a subscription-only post on the platform with their access and price', async () => {
    const ppv = await createPost({
      content: 'pay to see',
      mediaIds: [imageMediaId],
      access_type: ['ppv'],
      price: 12.5,
      previewId: demo.fypVideoMediaId,
    });
    expectSuccess(ppv, 201);
    const members = await createPost({
      content: 'for my subscribers',
      mediaIds: [imageMediaId],
      access_type: ['subscription'],
    });
    expectSuccess(members, 201);
    const free = await createPost({ content: 'for everyone', mediaIds: [imageMediaId] });
    expectSuccess(free, 201);

    // The gateway's Post is the contract's record: no access fields of its own.
    const fields = Object.keys(Post.schema.properties).sort();
    for (const response of [ppv, members, free]) {
      expect(Object.keys(response.body.data.data.response).sort()).toEqual(fields);
    }

    // What the platform holds, read back with its own read route: dollars became mills.
    const ids = [ppv, members, free].map((r) => r.body.data.data.response.id as string);
    const own = await sim.get<{ posts: any[] }>('/post', { ids: ids.join(',') });
    expect(own.posts.map((p) => p.id)).toEqual(ids);
    const [storedPpv, storedMembers, storedFree] = own.posts;
    expect(storedPpv.accessPermissions).toEqual([{ type: ACCESS_PERMISSION_TYPES.ppv, price: 12_500 }]);
    expect(storedPpv.previewId).toBe(demo.fypVideoMediaId);
    expect(storedMembers.accessPermissions).toEqual([{ type: ACCESS_PERMISSION_TYPES.subscription }]);
    expect(storedMembers.previewId).toBeNull();
    expect(storedFree.accessPermissions).toEqual([]);
  });

  it('maps every access type to its own upstream code', async () => {
    const response = await createPost({
      content: 'every restriction',
      mediaIds: [imageMediaId],
      access_type: ['ppv', 'subscription', 'follow', 'list', 'limited_time'],
      price: 0.99,
    });
    expectSuccess(response, 201);
    const own = await sim.get<{ posts: any[] }>('/post', { ids: response.body.data.data.response.id });
    expect(own.posts[0].accessPermissions).toEqual([
      { type: ACCESS_PERMISSION_TYPES.ppv, price: 990 },
      { type: ACCESS_PERMISSION_TYPES.subscription },
      { type: ACCESS_PERMISSION_TYPES.follow },
      { type: ACCESS_PERMISSION_TYPES.list },
      { type: ACCESS_PERMISSION_TYPES.limited_time },
    ]);
    const codes = own.posts[0].accessPermissions.map((p: any) => p.type);
    expect(new Set(codes).size).toBe(5);
  });

  it('refuses each rule before anything reaches the platform, naming the rule and field', async () => {
    const calls = await postCalls();
    expectRefused(await createPost({}), 400, 'Rule 1', 'content', 'mediaIds');
    expectRefused(await createPost({ content: '   ', mediaIds: [] }), 400, 'Rule 1');
    expectRefused(
      await createPost({ content: 'fyp', postToFYP: true }),
      400,
      'Rule 2',
      'postToFYP',
      'mediaIds',
    );
    expectRefused(
      await createPost({ content: 'x', mediaIds: [imageMediaId], access_type: ['ppv'] }),
      400,
      'Rule 3',
      'price',
    );
    expectRefused(
      await createPost({ content: 'x', access_type: ['ppv'], price: 3 }),
      400,
      'Rule 3',
      'mediaIds',
    );
    expectRefused(
      await createPost({ content: 'x', mediaIds: [imageMediaId], access_type: ['ppv'], price: 0 }),
      400,
      'Rule 3',
      'price',
    );
    expectRefused(
      await createPost({ content: 'x', mediaIds: [imageMediaId], price: 5 }),
      400,
      'Rule 4',
      'price',
      'access_type',
    );
    const seconds = Math.floor(Date.now() / 1000) + 3600;
    expectRefused(await createPost({ content: 'x', scheduledFor: seconds }), 400, 'Rule 5', 'scheduledFor');
    expectRefused(await createPost({ content: 'x', expiresAt: seconds }), 400, 'Rule 5', 'expiresAt');
    const at = Date.now() + 3_600_000;
    expectRefused(await createPost({ content: 'x', scheduledFor: at, expiresAt: at - 1 }), 400, 'expiresAt');
    // Published now, already expired (a date in 2001).
    expectRefused(await createPost({ content: 'x', expiresAt: 1_000_000_000_000 }), 400, 'expiresAt', 'past');
    expect(await postCalls()).toBe(calls);
  });

  it('refuses wrong types and values with a 400 naming the field', async () => {
    const calls = await postCalls();
    expectRefused(await createPost({ content: 42 }), 400, 'content');
    expectRefused(await createPost({ content: 'x'.repeat(5001) }), 400, 'content');
    expectRefused(await createPost({ mediaIds: imageMediaId }), 400, 'mediaIds');
    expectRefused(await createPost({ mediaIds: [imageMediaId, imageMediaId] }), 400, 'mediaIds');
    expectRefused(await createPost({ content: 'x', postToFYP: 'yes' }), 400, 'postToFYP');
    expectRefused(await createPost({ content: 'x', scheduledFor: '2025-01-01' }), 400, 'scheduledFor');
    expectRefused(await createPost({ content: 'x', expiresAt: -1 }), 400, 'expiresAt');
    expectRefused(await createPost({ content: 'x', wallIds: 'main' }), 400, 'wallIds');
    expectRefused(await createPost({ content: 'x', access_type: 'ppv' }), 400, 'access_type');
    expectRefused(
      await createPost({ content: 'x', mediaIds: [imageMediaId], access_type: ['free'] }),
      400,
      'access_type',
      'ppv',
    );
    expectRefused(
      await createPost({ content: 'x', mediaIds: [imageMediaId], access_type: ['ppv'], price: -1 }),
      400,
      'price',
    );
    // Amounts past a million dollars became 1e+23 mills, or null past the largest double.
    for (const price of [1e20, 1e306])
      expectRefused(
        await createPost({ content: 'x', mediaIds: [imageMediaId], access_type: ['ppv'], price }),
        400,
        'price',
      );
    expectRefused(
      await createPost({ content: 'x', replyPermissions: { tipped: true, tippedMinAmount: 1e306 } }),
      400,
      'tippedMinAmount',
    );
    expectRefused(
      await createPost({ content: 'x', mediaIds: [imageMediaId], access_type: ['ppv'], price: 1.234 }),
      400,
      'price',
    );
    expectRefused(
      await createPost({ content: 'x', mediaIds: [imageMediaId], access_type: ['ppv'], price: '5' }),
      400,
      'price',
    );
    expectRefused(await createPost({ content: 'x', replyPermissions: { tipped: 'yes' } }), 400, 'tipped');
    expectRefused(
      await createPost({ content: 'x', replyPermissions: { tipped: true, tippedMinAmount: 0.001 } }),
      400,
      'tippedMinAmount',
    );
    expect(await postCalls()).toBe(calls);
  });

  it('turns the platform’s For You refusal into a 400 naming rule 2 (short, private or no video)', async () => {
    for (const mediaId of [demo.shortVideoMediaId, demo.privateVideoMediaId, imageMediaId]) {
      const response = await createPost({ content: 'fyp', mediaIds: [mediaId], postToFYP: true });
      expectRefused(response, 400, 'Rule 2', 'public video', '3 seconds');
    }
  });

  it('answers 404 for media or a wall that is not the account’s, saying which', async () => {
    const media = await createPost({ content: 'x', mediaIds: ['123456789012345678'] });
    expectRefused(media, 404, 'mediaIds');
    const preview = await createPost({
      content: 'x',
      mediaIds: [imageMediaId],
      access_type: ['subscription'],
      previewId: '123456789012345677',
    });
    expectRefused(preview, 404, 'previewId');
    const wall = await createPost({
      content: 'x',
      mediaIds: [imageMediaId],
      wallIds: ['123456789012345679'],
    });
    expectRefused(wall, 404, 'wall', '123456789012345679');
    const pin = await createPost({ content: 'x', pinWallIds: ['123456789012345670'] });
    expectRefused(pin, 404, '123456789012345670');
  });

  runCommonRouteTests(
    () => stack,
    { method: 'POST', path: '/{accountId}/posts', body: { content: 'hi' } },
    () => accountId,
  );
});
