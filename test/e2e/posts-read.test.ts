import {
  type PostRead,
  postsRead,
  postsScheduled,
  postsWall,
  WALL_PAGE_SIZE,
  Wall,
} from '@cg/operations/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsOf, expectBadRequest, expectNotFound, expectSuccess } from '../support/assert';
import { connectWithSim, runCommonRouteTests } from '../support/common';
import { type SimSession, simFixture, simJson, simRequests } from '../support/sim';
import { gw, startStack, type TestStack } from '../support/stack';

/** A post as the sandbox holds it (GET /_sim/posts), with its state. */
interface SimPost {
  id: string;
  accountId: string;
  content: string;
  wallIds: string[];
  pinWallIds: string[];
  attachments: { contentId: string }[];
  scheduledFor: number;
  expiresAt: number;
  likeCount: number;
  replyCount: number;
  createdAt: number;
  status: 'published' | 'scheduled' | 'cancelled' | 'deleted';
}

let stack: TestStack;
let accountId: string;
let sim: SimSession;
let demo: { platformAccountId: string; wallIds: string[]; mainWallId: string };
let otherCreator: { wallIds: string[]; postIds: string[] };

beforeAll(async () => {
  stack = await startStack();
  ({ accountId, sim } = await connectWithSim(stack));
  demo = await simFixture(stack, 'creator_demo');
  otherCreator = await simFixture(stack, 'creator_2fa');
});
afterAll(async () => {
  await stack?.stop();
});

const simPosts = async (account = 'creator_demo') =>
  ((await simJson(stack, `/_sim/posts?account=${account}`)) as { posts: SimPost[] }).posts;
/** Numeric order of two snowflakes, newest (largest) first. */
const newestFirst = (a: { id: string }, b: { id: string }) =>
  a.id.length !== b.id.length ? b.id.length - a.id.length : a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
/** What a wall shows, worked out from the sandbox's own posts: published, not expired, newest first. */
const wallPosts = (posts: SimPost[], wallId: string) =>
  posts
    .filter((p) => p.status === 'published' && p.wallIds.includes(wallId))
    .filter((p) => p.expiresAt === 0 || p.expiresAt > Date.now())
    .sort(newestFirst);

const readPost = (postId: string) => gw(stack, 'GET', `/${accountId}/posts/${postId}`);
const readWall = (wallId: string, cursor?: string) =>
  gw(stack, 'GET', `/${accountId}/posts/wall/${wallId}${cursor === undefined ? '' : `?cursor=${cursor}`}`);

/** Every page of a wall, following nextCursor to its end. */
async function pageWall(wallId: string) {
  const pages: { posts: PostRead[]; nextCursor: string | null }[] = [];
  let cursor: string | undefined;
  for (let n = 0; n < 50; n++) {
    const response = await readWall(wallId, cursor);
    expectSuccess(response);
    expect(errorsOf(postsWall.schemas.data, response.body.data)).toEqual([]);
    const { response: page, nextCursor } = response.body.data.data;
    pages.push({ posts: page.posts, nextCursor });
    if (nextCursor === null) return pages;
    cursor = nextCursor;
  }
  throw new Error('the wall never ended');
}

describe('GET /{accountId}/posts/{postId}', () => {
  it('reads a published post in read form with its media and its author, as the platform holds it', async () => {
    const own = (await simPosts()).filter((p) => p.status === 'published' && p.attachments.length > 1);
    const stored = own[0] as SimPost;
    const response = await readPost(stored.id);
    expectSuccess(response);
    expect(errorsOf(postsRead.schemas.data, response.body.data)).toEqual([]);
    const { posts, accountMedia, accounts } = response.body.data.data.response;
    expect(posts).toHaveLength(1);
    const post = posts[0] as PostRead;
    expect(post.id).toBe(stored.id);
    expect(post.accountId).toBe(demo.platformAccountId);
    expect(post.content).toBe(stored.content);
    expect(post.wallIds).toEqual(stored.wallIds);
    expect(post.pinWallIds).toEqual(stored.pinWallIds);
    // The read form: createdAt in Unix seconds, as the platform stamps it, and the counts.
    expect(post.createdAt).toBe(stored.createdAt);
    expect(post.createdAt).toBeLessThan(Date.now() / 1000);
    expect(post.likeCount).toBe(stored.likeCount);
    expect(post.replyCount).toBe(stored.replyCount);
    // Each attachment's media is among the account media, and nothing else is.
    const attached = post.attachments.map((a) => a.contentId);
    expect(attached).toEqual(stored.attachments.map((a) => a.contentId));
    expect(accountMedia.map((m: { id: string }) => m.id).sort()).toEqual([...attached].sort());
    expect(accounts.map((a: { id: string }) => a.id)).toEqual([demo.platformAccountId]);
  });

  it('reads a scheduled post, its scheduledFor still ahead', async () => {
    const scheduled = (await simPosts()).find((p) => p.status === 'scheduled') as SimPost;
    const response = await readPost(scheduled.id);
    expectSuccess(response);
    const post = response.body.data.data.response.posts[0];
    expect(post.scheduledFor).toBe(scheduled.scheduledFor);
    expect(post.scheduledFor).toBeGreaterThan(Date.now());
  });

  it('answers 404 for an unknown post and for another creator’s post, 400 for an id that is no id', async () => {
    expectNotFound(await readPost('123456789012345678'), '123456789012345678');
    expectNotFound(await readPost(otherCreator.postIds[0] as string));
    expectBadRequest(await readPost('first-post'), 'postId');
  });

  runCommonRouteTests(
    () => stack,
    { method: 'GET', path: '/{accountId}/posts/123456789012345678' },
    () => accountId,
  );
});

describe('GET /{accountId}/posts/wall/{wallId}', () => {
  it('pages the main wall by 15, newest first, every post once, as the platform’s own timeline has them', async () => {
    const pages = await pageWall(demo.mainWallId);
    const expected = wallPosts(await simPosts(), demo.mainWallId);
    // The seed puts several pages on the main wall.
    expect(expected.length).toBeGreaterThan(2 * WALL_PAGE_SIZE);
    const read = pages.flatMap((page) => page.posts);
    expect(read.map((p) => p.id)).toEqual(expected.map((p) => p.id));
    expect(new Set(read.map((p) => p.id)).size).toBe(read.length);
    // Every page but the last is full; each cursor is the last post of its page.
    for (const page of pages.slice(0, -1)) {
      expect(page.posts).toHaveLength(WALL_PAGE_SIZE);
      expect(page.nextCursor).toBe(page.posts.at(-1)?.id);
    }
    expect(pages.at(-1)?.nextCursor).toBeNull();
    // The timeline leaves wallIds out; the gateway answers the whole post all the same.
    for (const post of read) {
      const stored = expected.find((p) => p.id === post.id) as SimPost;
      expect(post.wallIds).toEqual(stored.wallIds);
      expect(post.createdAt).toBe(stored.createdAt);
      expect(post.likeCount).toBe(stored.likeCount);
    }
    // Scheduled posts are not on a wall until their time comes.
    const scheduled = (await simPosts()).filter((p) => p.status === 'scheduled').map((p) => p.id);
    expect(scheduled.length).toBeGreaterThan(0);
    for (const id of scheduled) expect(read.map((p) => p.id)).not.toContain(id);
  });

  it('starts the next page right after the cursor it answered', async () => {
    const first = await readWall(demo.mainWallId);
    const cursor = first.body.data.data.nextCursor as string;
    const second = await readWall(demo.mainWallId, cursor);
    expectSuccess(second);
    const expected = wallPosts(await simPosts(), demo.mainWallId).map((p) => p.id);
    const at = expected.indexOf(cursor);
    expect(second.body.data.data.response.posts.map((p: PostRead) => p.id)).toEqual(
      expected.slice(at + 1, at + 1 + WALL_PAGE_SIZE),
    );
  });

  it('answers the wall itself, and on another wall only the posts published there', async () => {
    const wallId = demo.wallIds[1] as string;
    const pages = await pageWall(wallId);
    const read = pages.flatMap((page) => page.posts);
    const expected = wallPosts(await simPosts(), wallId);
    expect(expected.length).toBeGreaterThan(0);
    expect(read.map((p) => p.id)).toEqual(expected.map((p) => p.id));
    for (const post of read) expect(post.wallIds).toContain(wallId);

    const response = await readWall(wallId);
    const walls = await gw(stack, 'GET', `/${accountId}/posts/walls`);
    const wall = response.body.data.data.response.wall;
    expect(errorsOf(Wall.schema, wall)).toEqual([]);
    expect(wall).toEqual(walls.body.data.data.walls.find((w: { id: string }) => w.id === wallId));
  });

  it('answers 404 for a wall that is not the account’s, before any timeline call', async () => {
    const timelineCalls = async () =>
      Object.entries(await simRequests(stack, 'creator_demo'))
        .filter(([key]) => key.startsWith('GET /api/v1/timelinenew/'))
        .reduce((sum, [, count]) => sum + count, 0);
    const before = await timelineCalls();
    expectNotFound(await readWall('123456789012345678'), 'wall', '123456789012345678');
    expectNotFound(await readWall(otherCreator.wallIds[0] as string), 'wall');
    expect(await timelineCalls()).toBe(before);
  });

  it('answers 400 for a cursor it never gave and a wall id that is no id', async () => {
    expectBadRequest(await readWall(demo.mainWallId, 'page-2'), 'cursor');
    expectBadRequest(await readWall('main'), 'wallId');
  });

  runCommonRouteTests(
    () => stack,
    { method: 'GET', path: '/{accountId}/posts/wall/123456789012345678' },
    () => accountId,
  );
});

describe('GET /{accountId}/posts/scheduled', () => {
  it('lists the posts still to be published, the soonest first, as the platform has them', async () => {
    const response = await gw(stack, 'GET', `/${accountId}/posts/scheduled`);
    expectSuccess(response);
    expect(errorsOf(postsScheduled.schemas.data, response.body.data)).toEqual([]);
    const { posts, accounts } = response.body.data.data.response;
    const expected = (await simPosts())
      .filter((p) => p.status === 'scheduled')
      .sort((a, b) => a.scheduledFor - b.scheduledFor);
    expect(expected.length).toBeGreaterThan(0);
    expect(posts.map((p: PostRead) => p.id)).toEqual(expected.map((p) => p.id));
    for (const post of posts as PostRead[]) expect(post.scheduledFor).toBeGreaterThan(Date.now());
    expect(accounts.map((a: { id: string }) => a.id)).toEqual([demo.platformAccountId]);
    // The platform's own list, which also holds schedules no longer pending.
    const own = await sim.get<{ scheduledPosts: { postId: string; status: number }[] }>('/post/scheduled');
    expect(
      own.scheduledPosts
        .filter((s) => s.status === 1)
        .map((s) => s.postId)
        .sort(),
    ).toEqual(expected.map((p) => p.id).sort());
  });

  runCommonRouteTests(
    () => stack,
    { method: 'GET', path: '/{accountId}/posts/scheduled' },
    () => accountId,
  );
});

describe('routes under /{accountId}/posts/', () => {
  it('resolves walls, wall/{id} and scheduled before a post id', async () => {
    const walls = await gw(stack, 'GET', `/${accountId}/posts/walls`);
    expectSuccess(walls, 200, { platform: 'status_code' });
    expect(walls.body.data.data.walls.map((w: { id: string }) => w.id)).toEqual(demo.wallIds);
    const scheduled = await gw(stack, 'GET', `/${accountId}/posts/scheduled`);
    expectSuccess(scheduled);
    expect(Array.isArray(scheduled.body.data.data.response.posts)).toBe(true);
    const wall = await readWall(demo.mainWallId);
    expectSuccess(wall);
    expect(wall.body.data.data.response.wall.id).toBe(demo.mainWallId);
    // A post id in the same place is a post.
    const id = (await simPosts()).find((p) => p.status === 'published')?.id as string;
    expect((await readPost(id)).body.data.data.response.posts[0].id).toBe(id);
  });
});
