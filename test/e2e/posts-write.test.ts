import {
  type Post,
  type PostRead,
  postsDelete,
  postsPin,
  postsScheduledCancel,
  postsUpdate,
  REPLY_RULES,
} from '@cg/operations/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsOf, expectBadRequest, expectError, expectNotFound, expectSuccess } from '../support/assert';
import { connectWithSim, runCommonRouteTests } from '../support/common';
import { eventually } from '../support/processes';
import { type SimSession, simFixture, simJson, simRequests } from '../support/sim';
import { gw, startStack, type TestStack } from '../support/stack';

interface SimPost {
  id: string;
  content: string;
  wallIds: string[];
  pinWallIds: string[];
  scheduledFor: number;
  deletedAt?: number;
  status: 'published' | 'scheduled' | 'cancelled' | 'deleted';
}

let stack: TestStack;
let accountId: string;
let sim: SimSession;
let demo: { mediaIds: string[]; wallIds: string[]; mainWallId: string; fypVideoMediaId: string };
/** Two vault media that are not the special videos. */
let media: [string, string];
let otherWall: string;

beforeAll(async () => {
  stack = await startStack();
  ({ accountId, sim } = await connectWithSim(stack));
  demo = await simFixture(stack, 'creator_demo');
  media = [demo.mediaIds[10] as string, demo.mediaIds[11] as string];
  otherWall = demo.wallIds[1] as string;
});
afterAll(async () => {
  await stack?.stop();
});

const simPost = async (id: string) =>
  ((await simJson(stack, '/_sim/posts?account=creator_demo')) as { posts: SimPost[] }).posts.find(
    (post) => post.id === id,
  );
const simPostsIn = async (status: SimPost['status']) =>
  ((await simJson(stack, '/_sim/posts?account=creator_demo')) as { posts: SimPost[] }).posts.filter(
    (post) => post.status === status,
  );
/** How often the sandbox saw `method` on a path starting with `prefix` ("/api/v1/post/"). */
const calls = async (method: string, prefix: string) =>
  Object.entries(await simRequests(stack, 'creator_demo'))
    .filter(([key]) => key.startsWith(`${method} ${prefix}`))
    .reduce((sum, [, count]) => sum + count, 0);

const create = async (body: Record<string, unknown>): Promise<Post> => {
  const response = await gw(stack, 'POST', `/${accountId}/posts`, { body });
  expectSuccess(response, 201);
  return response.body.data.data.response;
};
const read = async (postId: string): Promise<PostRead> => {
  const response = await gw(stack, 'GET', `/${accountId}/posts/${postId}`);
  expectSuccess(response);
  return response.body.data.data.response.posts[0];
};
const update = (postId: string, body: unknown) =>
  gw(stack, 'POST', `/${accountId}/posts/${postId}`, { body });
const remove = (postId: string) => gw(stack, 'DELETE', `/${accountId}/posts/${postId}`);
const pin = (postId: string, body: unknown) =>
  gw(stack, 'POST', `/${accountId}/posts/${postId}/pin`, { body });
const cancel = (postId: string) => gw(stack, 'POST', `/${accountId}/posts/scheduled/${postId}/cancel`);
const scheduledIds = async () => {
  const response = await gw(stack, 'GET', `/${accountId}/posts/scheduled`);
  expectSuccess(response);
  return (response.body.data.data.response.posts as PostRead[]).map((post) => post.id);
};
const onWall = async (wallId: string, postId: string) => {
  const response = await gw(stack, 'GET', `/${accountId}/posts/wall/${wallId}`);
  expectSuccess(response);
  return (response.body.data.data.response.posts as PostRead[]).some((post) => post.id === postId);
};
const inAnHour = () => Date.now() + 3_600_000;

describe('POST /{accountId}/posts/{postId} (update)', () => {
  it('replaces the post: what is sent back is kept, what is left out is cleared, the id stays', async () => {
    const created = await create({
      content: 'first take',
      mediaIds: media,
      wallIds: [demo.mainWallId, otherWall],
      pinWallIds: [otherWall],
      replyPermissions: { following: true, tipped: true, tippedMinAmount: 2 },
    });
    // Read, change one field, send back every field kept.
    const before = await read(created.id);
    const full = {
      content: 'second take',
      mediaIds: before.attachments.map((a) => a.contentId),
      wallIds: before.wallIds,
      pinWallIds: before.pinWallIds,
      replyPermissions: { following: true, tipped: true, tippedMinAmount: 2 },
    };
    const response = await update(created.id, full);
    expectSuccess(response);
    expect(errorsOf(postsUpdate.schemas.data, response.body.data)).toEqual([]);
    const updated = response.body.data.data.response as Post;
    expect(updated.id).toBe(created.id);
    expect(updated.content).toBe('second take');
    expect(updated.attachments.map((a) => a.contentId)).toEqual(media);
    expect(updated.wallIds).toEqual([demo.mainWallId, otherWall]);
    expect(updated.pinWallIds).toEqual([otherWall]);
    expect(updated.replyPermissionFlags).toBe(REPLY_RULES.following.flags | REPLY_RULES.tipped.flags);
    expect(updated.createdAt).toBe(created.createdAt);
    // The platform holds the new content under the same id.
    expect((await simPost(created.id))?.content).toBe('second take');

    // The same body again changes nothing, down to the reply rules' ids.
    const again = await update(created.id, full);
    expectSuccess(again);
    expect(again.body.data.data.response).toEqual(updated);

    // Only content: media, the second wall, the pin and the reply rules are cleared.
    const bare = await update(created.id, { content: 'text only now' });
    expectSuccess(bare);
    const cleared = bare.body.data.data.response as Post;
    expect(cleared.id).toBe(created.id);
    expect(cleared.attachments).toEqual([]);
    expect(cleared.wallIds).toEqual([demo.mainWallId]);
    expect(cleared.pinWallIds).toEqual([]);
    expect(cleared.pinned).toBe(0);
    expect(cleared.replyPermissionFlags).toBe(0);
    expect(cleared.postReplyPermissionFlags).toEqual([]);
    const stored = await read(created.id);
    expect(stored.content).toBe('text only now');
    expect(stored.wallIds).toEqual([demo.mainWallId]);
    expect(await onWall(otherWall, created.id)).toBe(false);
  });

  it('moves a scheduled post, publishes it when scheduledFor is left out, and keeps an unchanged time once published', async () => {
    const scheduledFor = inAnHour();
    const created = await create({ content: 'later', scheduledFor });
    expect(await scheduledIds()).toContain(created.id);
    const later = scheduledFor + 3_600_000;
    const moved = await update(created.id, { content: 'even later', scheduledFor: later });
    expectSuccess(moved);
    expect(moved.body.data.data.response.scheduledFor).toBe(later);
    expect((await simPost(created.id))?.status).toBe('scheduled');

    // Leaving scheduledFor out clears it: the post is published now.
    const now = await update(created.id, { content: 'now after all' });
    expectSuccess(now);
    expect((await simPost(created.id))?.status).toBe('published');
    expect(await scheduledIds()).not.toContain(created.id);
    expect(await onWall(demo.mainWallId, created.id)).toBe(true);

    // A published post's schedule cannot move: 409, and the post is as it was.
    const refused = await update(created.id, { content: 'again later', scheduledFor: inAnHour() });
    expectError(refused, 409, 'CONFLICT', 'already published', 'scheduledFor');
    expect((await read(created.id)).content).toBe('now after all');
  });

  it('takes back the scheduledFor of a post published on schedule (read, modify, write)', async () => {
    const created = await create({ content: 'soon', scheduledFor: Date.now() + 1500 });
    await eventually(
      async () => ((await simPost(created.id))?.status === 'published' ? true : undefined),
      10_000,
    );
    const current = await read(created.id);
    const response = await update(created.id, {
      content: 'soon, edited',
      scheduledFor: current.scheduledFor,
    });
    expectSuccess(response);
    expect(response.body.data.data.response.scheduledFor).toBe(created.scheduledFor);
  });

  it('answers 409 for a deleted or cancelled post and 404 for an unknown post or media', async () => {
    const deleted = await create({ content: 'to delete' });
    expectSuccess(await remove(deleted.id));
    expectError(await update(deleted.id, { content: 'x' }), 409, 'CONFLICT', 'deleted');
    const cancelled = await create({ content: 'to cancel', scheduledFor: inAnHour() });
    expectSuccess(await cancel(cancelled.id));
    expectError(await update(cancelled.id, { content: 'x' }), 409, 'CONFLICT', 'cancelled');

    expectNotFound(await update('123456789012345678', { content: 'x' }), 'post', '123456789012345678');
    const post = await create({ content: 'keep me' });
    expectNotFound(await update(post.id, { content: 'x', mediaIds: ['123456789012345670'] }), 'mediaIds');
    expectNotFound(
      await update(post.id, { content: 'x', wallIds: ['123456789012345671'] }),
      '123456789012345671',
    );
    expect((await read(post.id)).content).toBe('keep me');
  });

  it('refuses the create rules before anything reaches the platform', async () => {
    const post = await create({ content: 'rules' });
    const edits = () => calls('POST', `/api/v1/post/${post.id}/edit`);
    const before = await edits();
    expectBadRequest(await update(post.id, {}), 'Rule 1');
    expectBadRequest(await update(post.id, { content: 'x', access_type: ['ppv'] }), 'Rule 3');
    expectBadRequest(await update(post.id, { content: 'x', scheduledFor: 1_900_000_000 }), 'Rule 5');
    expectBadRequest(await update(post.id, { content: 42 }), 'content');
    expectBadRequest(await update('latest', { content: 'x' }), 'postId');
    expect(await edits()).toBe(before);
    expect((await read(post.id)).content).toBe('rules');
  });

  runCommonRouteTests(
    () => stack,
    { method: 'POST', path: '/{accountId}/posts/123456789012345678', body: { content: 'hi' } },
    () => accountId,
  );
});

describe('DELETE /{accountId}/posts/{postId}', () => {
  it('deletes a published post: answered with deletedAt, then gone from reads, walls and a second delete', async () => {
    const created = await create({ content: 'short-lived', wallIds: [demo.mainWallId, otherWall] });
    expect(await onWall(otherWall, created.id)).toBe(true);
    const before = Date.now();
    const response = await remove(created.id);
    expectSuccess(response);
    expect(errorsOf(postsDelete.schemas.data, response.body.data)).toEqual([]);
    const deleted = response.body.data.data.response;
    expect(deleted.id).toBe(created.id);
    expect(deleted.content).toBe('short-lived');
    expect(deleted.deletedAt).toBeGreaterThanOrEqual(before);
    expect(deleted.deletedAt).toBeLessThanOrEqual(Date.now());
    expect((await simPost(created.id))?.deletedAt).toBe(deleted.deletedAt);

    expectNotFound(await gw(stack, 'GET', `/${accountId}/posts/${created.id}`));
    expect(await onWall(otherWall, created.id)).toBe(false);
    expectNotFound(await remove(created.id), 'already deleted');
  });

  it('deletes a seeded post of the main wall', async () => {
    const [seeded] = await simPostsIn('published');
    expectSuccess(await remove(seeded?.id as string));
    expect((await simPost(seeded?.id as string))?.status).toBe('deleted');
    expect(await onWall(demo.mainWallId, seeded?.id as string)).toBe(false);
  });

  it('answers 409 for a post still scheduled, which stays scheduled; 404 for an unknown one', async () => {
    const scheduled = await create({ content: 'tomorrow', scheduledFor: inAnHour() });
    expectError(await remove(scheduled.id), 409, 'CONFLICT', 'scheduled', 'cancel');
    expect((await simPost(scheduled.id))?.status).toBe('scheduled');
    expectNotFound(await remove('123456789012345678'));
  });

  runCommonRouteTests(
    () => stack,
    { method: 'DELETE', path: '/{accountId}/posts/123456789012345678' },
    () => accountId,
  );
});

describe('POST /{accountId}/posts/{postId}/pin', () => {
  it('pins a post on one of its walls; pinning it again changes nothing', async () => {
    const created = await create({ content: 'pin me', wallIds: [demo.mainWallId, otherWall] });
    const response = await pin(created.id, { wallId: otherWall });
    expectSuccess(response);
    expect(errorsOf(postsPin.schemas.data, response.body.data)).toEqual([]);
    const pinned = response.body.data.data.response as Post;
    expect(pinned.pinWallIds).toEqual([otherWall]);
    expect(pinned.pinned).toBe(1);
    expect((await simPost(created.id))?.pinWallIds).toEqual([otherWall]);
    // The profile lists it among the pinned posts.
    const me = await sim.get<{ account: { pinnedPosts: { postId: string }[] } }>('/account/me');
    expect(me.account.pinnedPosts.map((p) => p.postId)).toContain(created.id);

    const again = await pin(created.id, { wallId: otherWall });
    expectSuccess(again);
    expect(again.body.data.data.response).toEqual(pinned);
    const both = await pin(created.id, { wallId: demo.mainWallId });
    expect(both.body.data.data.response.pinWallIds).toEqual([otherWall, demo.mainWallId]);
  });

  it('answers 409 when the post is not published on that wall, 404 for an unknown post or wall', async () => {
    const mainOnly = await create({ content: 'main wall only' });
    expectError(await pin(mainOnly.id, { wallId: otherWall }), 409, 'CONFLICT', otherWall);
    const scheduled = await create({ content: 'not yet', scheduledFor: inAnHour() });
    expectError(await pin(scheduled.id, { wallId: demo.mainWallId }), 409, 'CONFLICT', 'scheduled');
    expect((await simPost(mainOnly.id))?.pinWallIds).toEqual([]);
    expectNotFound(await pin(mainOnly.id, { wallId: '123456789012345678' }), 'wall', '123456789012345678');
    expectNotFound(await pin('123456789012345679', { wallId: demo.mainWallId }), 'post');
  });

  it('refuses a missing or malformed wallId before anything reaches the platform', async () => {
    const pins = () => calls('POST', '/api/v1/wall/postpin');
    const before = await pins();
    const post = await create({ content: 'x' });
    expectBadRequest(await pin(post.id, {}), 'wallId');
    expectBadRequest(await pin(post.id, { wallId: 'main' }), 'wallId');
    expect(await pins()).toBe(before);
  });

  runCommonRouteTests(
    () => stack,
    { method: 'POST', path: '/{accountId}/posts/123456789012345678/pin', body: { wallId: '1' } },
    () => accountId,
  );
});

describe('POST /{accountId}/posts/scheduled/{postId}/cancel', () => {
  it('cancels a scheduled post: it leaves the schedule and reads, and is never published', async () => {
    const scheduledFor = Date.now() + 2000;
    const created = await create({ content: 'never mind', scheduledFor });
    expect(await scheduledIds()).toContain(created.id);
    const response = await cancel(created.id);
    expectSuccess(response);
    expect(errorsOf(postsScheduledCancel.schemas.data, response.body.data)).toEqual([]);
    const cancelled = response.body.data.data.response as Post;
    expect(cancelled.id).toBe(created.id);
    expect(cancelled.scheduledFor).toBe(scheduledFor);
    expect(await scheduledIds()).not.toContain(created.id);
    expectNotFound(await gw(stack, 'GET', `/${accountId}/posts/${created.id}`));

    // Its time passes: still cancelled, not on the wall.
    await new Promise((resolve) => setTimeout(resolve, scheduledFor - Date.now() + 300));
    expect((await simPost(created.id))?.status).toBe('cancelled');
    expect(await onWall(demo.mainWallId, created.id)).toBe(false);
    expectError(await cancel(created.id), 409, 'CONFLICT', 'already cancelled');
  });

  it('cancels a seeded scheduled post', async () => {
    const [seeded] = await simPostsIn('scheduled');
    expectSuccess(await cancel(seeded?.id as string));
    expect(await scheduledIds()).not.toContain(seeded?.id);
  });

  it('answers 409 for a published post and 404 for an unknown one', async () => {
    const published = await create({ content: 'out already' });
    expectError(await cancel(published.id), 409, 'CONFLICT', 'already published');
    expect((await simPost(published.id))?.status).toBe('published');
    expectNotFound(await cancel('123456789012345678'), 'scheduled post');
  });

  runCommonRouteTests(
    () => stack,
    { method: 'POST', path: '/{accountId}/posts/scheduled/123456789012345678/cancel' },
    () => accountId,
  );
});

describe('a scheduled post', () => {
  it('is listed until its time, then published on its walls', async () => {
    const scheduledFor = Date.now() + 1500;
    const created = await create({ content: 'on the dot', scheduledFor, wallIds: [otherWall] });
    expect(await scheduledIds()).toContain(created.id);
    expect(await onWall(otherWall, created.id)).toBe(false);
    await eventually(async () => ((await onWall(otherWall, created.id)) ? true : undefined), 10_000);
    expect(Date.now()).toBeGreaterThanOrEqual(scheduledFor);
    expect(await scheduledIds()).not.toContain(created.id);
  });
});
