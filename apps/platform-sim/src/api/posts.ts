import { invalidField, notAllowed, notFound } from '../errors';
import { Kind } from '../ids';
import {
  type Body,
  bodyNumber,
  bodyObject,
  bodyString,
  queryCsv,
  queryCursorId,
  queryString,
  requiredBodyId,
} from '../params';
import type { Post, PostAccessPermission, PostReplyRule } from '../records';
import { MEDIA_VIDEO } from '../world/creator';
import { POST_ACCESS, POST_ATTACHMENT_MEDIA, Posts } from '../world/posts';
import { creatorProfile } from '../world/profiles';
import type { ApiContext, ApiRoute } from './types';

export const FYP_MIN_VIDEO_SECONDS = 3;
const MAX_CONTENT = 5000;
const ACCESS_TYPES: ReadonlySet<number> = new Set(Object.values(POST_ACCESS));

function stringArray(body: Body, name: string): string[] | undefined {
  const value = body[name];
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) throw invalidField(name);
  return value as string[];
}

function optionalRef(body: Body, name: string): string | null {
  const value = body[name];
  if (value === undefined || value === null || value === '' || value === '0') return null;
  if (typeof value !== 'string') throw invalidField(name);
  return value;
}

/** `accessPermissions`: absent or null = free; every malformed entry is `invalid field "accessPermissions"`. */
function accessPermissions(body: Body, attachmentCount: number): PostAccessPermission[] {
  const raw = body.accessPermissions ?? [];
  if (!Array.isArray(raw)) throw invalidField('accessPermissions');
  const seen = new Set<number>();
  return raw.map((item) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item))
      throw invalidField('accessPermissions');
    const entry = item as Body;
    const type = entry.type;
    if (typeof type !== 'number' || !ACCESS_TYPES.has(type) || seen.has(type))
      throw invalidField('accessPermissions');
    seen.add(type);
    const price = entry.price ?? undefined;
    if (type !== POST_ACCESS.ppv) {
      if (price !== undefined) throw invalidField('accessPermissions');
      return { type };
    }
    // A ppv entry sells the attached media: it needs media and a positive price in whole mills.
    if (typeof price !== 'number' || !Number.isInteger(price) || price <= 0 || attachmentCount === 0)
      throw invalidField('accessPermissions');
    return { type, price };
  });
}

function attachmentsOf(body: Body): { contentId: string; pos: number }[] {
  const raw = body.attachments ?? [];
  if (!Array.isArray(raw)) throw invalidField('attachments');
  return raw.map((item, index) => {
    const attachment = bodyObject(item);
    const contentId = attachment.contentId;
    if (typeof contentId !== 'string' || contentId.length === 0) throw invalidField('attachments');
    if (attachment.contentType !== POST_ATTACHMENT_MEDIA) throw invalidField('attachments');
    const pos = attachment.pos ?? index;
    if (typeof pos !== 'number' || !Number.isInteger(pos) || pos < 0) throw invalidField('attachments');
    return { contentId, pos };
  });
}

function replyRulesOf(body: Body): Omit<PostReplyRule, 'id' | 'postId'>[] {
  const raw = body.postReplyPermissionFlags ?? [];
  if (!Array.isArray(raw)) throw invalidField('postReplyPermissionFlags');
  return raw.map((item) => {
    const rule = bodyObject(item);
    const type = rule.type;
    const flags = rule.flags;
    if (typeof type !== 'number' || !Number.isInteger(type)) throw invalidField('postReplyPermissionFlags');
    if (typeof flags !== 'number' || !Number.isInteger(flags) || flags < 0)
      throw invalidField('postReplyPermissionFlags');
    const metadata = rule.metadata ?? '';
    if (typeof metadata !== 'string') throw invalidField('postReplyPermissionFlags');
    return { type, flags, metadata };
  });
}

function pinnedOf(body: Body): number {
  const value = body.pinned;
  if (value !== undefined && value !== null && typeof value !== 'boolean' && typeof value !== 'number')
    throw invalidField('pinned');
  return value ? 1 : 0;
}

/** What a create or edit body sets: checked (400 code 10), its media and walls known (404). */
interface PostFields {
  content: string;
  fypFlags: number;
  scheduledFor: number;
  expiresAt: number;
  pinned: number;
  attachments: { contentId: string; pos: number }[];
  access: PostAccessPermission[];
  previewId: string | null;
  rules: Omit<PostReplyRule, 'id' | 'postId'>[];
  wallIds: string[] | undefined;
  pinWallIds: string[] | undefined;
  inReplyTo: string | null;
  quotedPostId: string | null;
}

/** The body of `POST /post` (and of the edit, which takes the same): every rule of the platform. */
function postFields(ctx: ApiContext): PostFields {
  const body = bodyObject(ctx.body);
  const creatorWorld = ctx.core.world.creator(ctx.creator);
  const state = ctx.core.world.state(ctx.creator);

  const content = bodyString(body, 'content', { allowEmpty: true, maxLength: MAX_CONTENT }) ?? '';
  const fypFlags = bodyNumber(body, 'fypFlags', 0);
  if (!Number.isInteger(fypFlags) || fypFlags < 0) throw invalidField('fypFlags');
  const scheduledFor = bodyNumber(body, 'scheduledFor', 0);
  const expiresAt = bodyNumber(body, 'expiresAt', 0);
  if (scheduledFor < 0) throw invalidField('scheduledFor');
  if (expiresAt < 0) throw invalidField('expiresAt');
  const pinned = pinnedOf(body);
  const attachments = attachmentsOf(body);
  if (content.trim().length === 0 && attachments.length === 0) throw invalidField('content');
  const access = accessPermissions(body, attachments.length);
  const previewId = optionalRef(body, 'previewId');
  const rules = replyRulesOf(body);
  const wallIds = stringArray(body, 'wallIds');
  const pinWallIds = stringArray(body, 'pinWallIds');
  const inReplyTo = optionalRef(body, 'inReplyTo');
  const quotedPostId = optionalRef(body, 'quotedPostId');

  // References: unknown media or walls are 404s, checked after the body is well-formed.
  const media = attachments.map(({ contentId }) => {
    const index = creatorWorld.mediaIndexOf(contentId);
    if (index < 0) throw notFound('media');
    return creatorWorld.mediaInfo(index);
  });
  if (previewId !== null && creatorWorld.mediaIndexOf(previewId) < 0) throw notFound('media');
  const knownWalls = new Set(state.walls.map((wall) => wall.id));
  for (const wallId of [...(wallIds ?? []), ...(pinWallIds ?? [])]) {
    if (!knownWalls.has(wallId)) throw notFound('wall');
  }
  if (
    fypFlags !== 0 &&
    !media.some((m) => m.type === MEDIA_VIDEO && m.isPublic && m.duration >= FYP_MIN_VIDEO_SECONDS)
  ) {
    throw invalidField('fypFlags');
  }
  return {
    content,
    fypFlags,
    scheduledFor,
    expiresAt,
    pinned,
    attachments,
    access,
    previewId,
    rules,
    wallIds,
    pinWallIds,
    inReplyTo,
    quotedPostId,
  };
}

/**
 * The post `fields` make under `id`. An edit passes the post it replaces (`previous`): its creation
 * time and counters stay, and a reply rule sent again unchanged keeps its id.
 */
function postRecord(ctx: ApiContext, id: string, fields: PostFields, previous?: Post): Post {
  const world = ctx.core.world;
  const state = world.state(ctx.creator);
  const targetWalls =
    fields.wallIds && fields.wallIds.length > 0
      ? fields.wallIds
      : [state.mainWall()?.id ?? ''].filter((w) => w !== '');
  const rules: PostReplyRule[] = fields.rules.map((rule) => ({
    id:
      previous?.postReplyPermissionFlags.find(
        (old) => old.type === rule.type && old.flags === rule.flags && old.metadata === rule.metadata,
      )?.id ?? world.ids.next(Kind.replyRule),
    postId: id,
    ...rule,
  }));
  return {
    id,
    accountId: world.creator(ctx.creator).accountId,
    content: fields.content,
    fypFlags: fields.fypFlags,
    inReplyTo: fields.inReplyTo,
    quotedPostId: fields.quotedPostId,
    replyPermissionFlags: rules.reduce((all, rule) => all | rule.flags, 0),
    postReplyPermissionFlags: rules,
    expiresAt: fields.expiresAt,
    scheduledFor: fields.scheduledFor,
    attachments: fields.attachments.map(({ contentId, pos }) => ({
      contentType: POST_ATTACHMENT_MEDIA,
      contentId,
      pos,
      postId: id,
    })),
    accessPermissions: fields.access,
    previewId: fields.previewId,
    wallIds: targetWalls,
    pinWallIds: fields.pinWallIds ?? (fields.pinned ? targetWalls : []),
    pinned: fields.pinned,
    mediaLikeCount: previous?.mediaLikeCount ?? 0,
    totalTipAmount: previous?.totalTipAmount ?? 0,
    attachmentTipAmount: previous?.attachmentTipAmount ?? 0,
    accountMentions: previous?.accountMentions ?? [],
    likeCount: previous?.likeCount ?? 0,
    replyCount: previous?.replyCount ?? 0,
    createdAt: previous?.createdAt ?? Math.floor(ctx.now / 1000),
  };
}

/** The caller's posts, with every schedule whose time came published. */
function postsOf(ctx: ApiContext): Posts {
  const world = ctx.core.world;
  return new Posts(world.creator(ctx.creator), world.state(ctx.creator)).publishDue(ctx.now);
}

function createPost(ctx: ApiContext): Post {
  const fields = postFields(ctx);
  const post = postRecord(ctx, ctx.core.world.ids.next(Kind.post), fields);
  postsOf(ctx).add(post, ctx.now);
  return post;
}

/** The siblings a read of posts carries: their media (world/posts.ts) and the creator's profile. */
function aggregationOf(ctx: ApiContext, posts: Posts, found: Post[]): Record<string, unknown> {
  const world = ctx.core.world;
  const accounts =
    found.length > 0 ? [creatorProfile(world.creator(ctx.creator), world.state(ctx.creator))] : [];
  return { ...posts.aggregation(found), accounts };
}

/** The platform's read of posts and what they refer to (media, accounts), as GET /post answers. */
function postsAnswer(ctx: ApiContext, posts: Posts, found: Post[]): Record<string, unknown> {
  return { posts: found, ...aggregationOf(ctx, posts, found), tips: [], tipGoals: [], polls: [] };
}

/** Posts by id (posts of the calling account, published or scheduled); unknown ids are skipped. */
function postsByIds(ctx: ApiContext): unknown {
  const ids = queryCsv(ctx.query, 'ids');
  if (ids.length === 0 || ids.length > 100) throw invalidField('ids');
  const posts = postsOf(ctx);
  const found = ids
    .map((id) => posts.get(id))
    .filter((post): post is Post => post !== undefined && posts.readable(post));
  return postsAnswer(ctx, posts, found);
}

/**
 * GUESS endpoint (docs/upstream-decisions.md, post edit): the body of `POST /post` replaces the
 * post's content and settings; its id, creation time and counters stay. A deleted or cancelled post,
 * or a new `scheduledFor` for a post already published: 403 code 20.
 */
function editPost(ctx: ApiContext): Post {
  const posts = postsOf(ctx);
  const post = posts.get(ctx.params.postId ?? '');
  if (!post) throw notFound('post');
  const status = posts.status(post);
  if (status === 'deleted' || status === 'cancelled') throw notAllowed(`the post is ${status}`);
  const fields = postFields(ctx);
  // A published post has no schedule left to move: its own scheduledFor may only come back unchanged.
  if (status === 'published' && fields.scheduledFor !== 0 && fields.scheduledFor !== post.scheduledFor)
    throw notAllowed('the post is already published');
  return posts.replace(postRecord(ctx, post.id, fields, post), ctx.now);
}

/** Deletes a published post → it, with `deletedAt` (Unix ms). A scheduled one: 403 (cancel it). */
function deletePost(ctx: ApiContext): Post {
  const posts = postsOf(ctx);
  const post = posts.get(ctx.params.postId ?? '');
  if (!post || !posts.readable(post)) throw notFound('post');
  if (posts.status(post) === 'scheduled') throw notAllowed('the post is scheduled: cancel it instead');
  return posts.delete(post, ctx.now);
}

/** Cancels a scheduled post → the post. Already published or already cancelled: 403 code 20. */
function cancelScheduledPost(ctx: ApiContext): Post {
  const posts = postsOf(ctx);
  const post = posts.get(ctx.params.postId ?? '');
  if (!post || posts.status(post) === 'deleted') throw notFound('scheduled post');
  const status = posts.status(post);
  if (status !== 'scheduled') throw notAllowed(`the post is already ${status}`);
  return posts.cancel(post);
}

/** Scheduled posts, the soonest first, each entry's post in `aggregationData.posts`. */
function scheduledPosts(ctx: ApiContext): unknown {
  const posts = postsOf(ctx);
  const schedules = posts.schedules();
  const listed = schedules
    .map((schedule) => posts.get(schedule.postId))
    .filter((post): post is Post => post !== undefined);
  return {
    scheduledPosts: schedules,
    aggregationData: { posts: listed, ...aggregationOf(ctx, posts, listed), tips: [] },
  };
}

/**
 * GUESS endpoint (docs/upstream-decisions.md, post pin): `{postId, wallId}` pins a post on one of
 * the walls it is published on → the post. Unknown post or wall: 404; not published there: 403.
 */
function pinPost(ctx: ApiContext): Post {
  const body = bodyObject(ctx.body);
  const postId = requiredBodyId(body, 'postId');
  const wallId = requiredBodyId(body, 'wallId');
  const posts = postsOf(ctx);
  const post = posts.get(postId);
  if (!post || !posts.readable(post)) throw notFound('post');
  if (!ctx.core.world.state(ctx.creator).walls.some((wall) => wall.id === wallId)) throw notFound('wall');
  if (posts.status(post) !== 'published' || !post.wallIds.includes(wallId))
    throw notAllowed('the post is not published on this wall');
  return posts.pin(post, wallId);
}

/**
 * One page of the creator's timeline, newest first: `wallId` (one wall; absent: every wall),
 * `before` (the oldest post id read; 0: from the newest), `after` (0: no bound). `contentSearch` is
 * taken and ignored. As on the platform, its posts carry no `wallIds` (GET /post has them).
 */
function timeline(ctx: ApiContext): unknown {
  const world = ctx.core.world;
  if (ctx.params.accountId !== world.creator(ctx.creator).accountId) throw notFound('account');
  const wallId = queryString(ctx.query, 'wallId') ?? null;
  if (wallId !== null && !world.state(ctx.creator).walls.some((wall) => wall.id === wallId))
    throw notFound('wall');
  const posts = postsOf(ctx);
  const page = posts.timeline(
    wallId,
    queryCursorId(ctx.query, 'before'),
    queryCursorId(ctx.query, 'after'),
    ctx.now,
  );
  return {
    posts: page.map(({ wallIds: _wallIds, ...post }) => post),
    ...aggregationOf(ctx, posts, page),
    tips: [],
    tipGoals: [],
    stories: [],
  };
}

export const postRoutes: ApiRoute[] = [
  {
    method: 'POST',
    path: '/post',
    summary: 'Creates a post ([below](#post-post)) → the post.',
    auth: 'session',
    write: true,
    handler: createPost,
  },
  {
    method: 'GET',
    path: '/post',
    summary:
      "`{posts, accountMedia, accountMediaBundles, accounts, tips, tipGoals, polls}`: the calling account's posts, published or scheduled (1 to 100 ids; unknown, deleted and cancelled ones skipped), with `likeCount`, `replyCount`, `createdAt` in seconds; `accountMedia` holds one entry per attached media, its `id` the attachment's `contentId`; `accounts` the creator's profile.",
    auth: 'session',
    handler: postsByIds,
  },
  {
    method: 'GET',
    path: '/post/scheduled',
    summary:
      '`{scheduledPosts: [{id, postId, accountId, status, scheduledFor, createdAt}], aggregationData: {posts, accountMedia, accountMediaBundles, accounts, tips}}`, soonest first: `status` 1 still scheduled, 2 published on time, 3 cancelled (2 and 3 decided). A post with a future `scheduledFor` is published at that time.',
    auth: 'session',
    handler: scheduledPosts,
  },
  {
    method: 'POST',
    path: '/post/:postId/edit',
    summary:
      '**GUESS.** The `POST /post` body replaces the post (left out = cleared) → the post, same id, creation time and counts. Unknown: 404; deleted or cancelled, or a new `scheduledFor` for a published post: 403 code 20. A future `scheduledFor` moves a scheduled post, 0 publishes it.',
    auth: 'session',
    write: true,
    handler: editPost,
  },
  {
    method: 'POST',
    path: '/post/:postId/delete',
    summary:
      '→ the post with `deletedAt` (Unix ms); reads leave it out. Unknown, deleted or cancelled: 404; still scheduled: 403 code 20.',
    auth: 'session',
    write: true,
    handler: deletePost,
  },
  {
    method: 'POST',
    path: '/post/scheduled/:postId/cancel',

    summary:
      '→ the post; it is never published. Unknown or deleted: 404; already published or cancelled: 403 code 20.',
    auth: 'session',
    write: true,
    handler: cancelScheduledPost,
  },
  {
    method: 'POST',
    path: '/wall/postpin',
    summary:
      '**GUESS.** `{postId, wallId}` → the post, `wallId` added to `pinWallIds`, `pinned` 1 (again: unchanged). Unknown post or wall: 404; not published on that wall: 403 code 20.',
    auth: 'session',
    write: true,
    handler: pinPost,
  },
  {
    method: 'GET',
    path: '/timelinenew/:accountId',
    summary:
      "One page of 15 published, unexpired posts of the caller's own account, newest first: `wallId` one wall (absent: all; not the creator's: 404), `before`/`after` post ids (0: no bound), `contentSearch` ignored. `{posts (without wallIds, as on the platform), accountMedia, accountMediaBundles, accounts, tips, tipGoals, stories}`. Another account: 404.",
    auth: 'session',
    handler: timeline,
  },
];
