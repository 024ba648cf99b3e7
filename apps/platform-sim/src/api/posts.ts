import { invalidField, notFound } from '../errors';
import { Kind } from '../ids';
import { type Body, bodyNumber, bodyObject, bodyString, queryCsv } from '../params';
import type { Post, PostAccessPermission, PostAttachment, PostReplyRule } from '../records';
import { MEDIA_VIDEO } from '../world/creator';
import type { ApiContext, ApiRoute } from './types';

/** Attachment contentType of a media id (the only kind of post attachment the sandbox takes). */
export const POST_ATTACHMENT_MEDIA = 1;
export const FYP_MIN_VIDEO_SECONDS = 3;
const MAX_CONTENT = 5000;
/**
 * `accessPermissions[].type` codes (GUESS, docs/upstream-decisions.md): who may open the post's
 * media. Only the ppv entry carries a `price` (mills), and it needs one.
 */
export const POST_ACCESS = { ppv: 1, subscription: 2, follow: 3, list: 4, limitedTime: 5 } as const;
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

function createPost(ctx: ApiContext): Post {
  const body = bodyObject(ctx.body);
  const world = ctx.core.world;
  const creatorWorld = world.creator(ctx.creator);
  const state = world.state(ctx.creator);

  const content = bodyString(body, 'content', { allowEmpty: true, maxLength: MAX_CONTENT }) ?? '';
  const fypFlags = bodyNumber(body, 'fypFlags', 0);
  if (!Number.isInteger(fypFlags) || fypFlags < 0) throw invalidField('fypFlags');
  const scheduledFor = bodyNumber(body, 'scheduledFor', 0);
  const expiresAt = bodyNumber(body, 'expiresAt', 0);
  if (scheduledFor < 0) throw invalidField('scheduledFor');
  if (expiresAt < 0) throw invalidField('expiresAt');
  const pinnedRaw = body.pinned;
  if (
    pinnedRaw !== undefined &&
    pinnedRaw !== null &&
    typeof pinnedRaw !== 'boolean' &&
    typeof pinnedRaw !== 'number'
  ) {
    throw invalidField('pinned');
  }
  const pinned = pinnedRaw ? 1 : 0;

  const rawAttachments = body.attachments ?? [];
  if (!Array.isArray(rawAttachments)) throw invalidField('attachments');
  const attachments = rawAttachments.map((raw, index) => {
    const attachment = bodyObject(raw);
    const contentId = attachment.contentId;
    if (typeof contentId !== 'string' || contentId.length === 0) throw invalidField('attachments');
    if (attachment.contentType !== POST_ATTACHMENT_MEDIA) throw invalidField('attachments');
    const pos = attachment.pos ?? index;
    if (typeof pos !== 'number' || !Number.isInteger(pos) || pos < 0) throw invalidField('attachments');
    return { contentId, pos };
  });
  if (content.trim().length === 0 && attachments.length === 0) throw invalidField('content');
  const access = accessPermissions(body, attachments.length);
  const previewId = optionalRef(body, 'previewId');

  const rawRules = body.postReplyPermissionFlags ?? [];
  if (!Array.isArray(rawRules)) throw invalidField('postReplyPermissionFlags');
  const rules = rawRules.map((raw) => {
    const rule = bodyObject(raw);
    const type = rule.type;
    const flags = rule.flags;
    if (typeof type !== 'number' || !Number.isInteger(type)) throw invalidField('postReplyPermissionFlags');
    if (typeof flags !== 'number' || !Number.isInteger(flags) || flags < 0)
      throw invalidField('postReplyPermissionFlags');
    const metadata = rule.metadata ?? '';
    if (typeof metadata !== 'string') throw invalidField('postReplyPermissionFlags');
    return { type, flags, metadata };
  });

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

  const id = world.ids.next(Kind.post);
  const targetWalls =
    wallIds && wallIds.length > 0 ? wallIds : [state.mainWall()?.id ?? ''].filter((w) => w !== '');
  const postRules: PostReplyRule[] = rules.map((rule) => ({
    id: world.ids.next(Kind.replyRule),
    postId: id,
    ...rule,
  }));
  const postAttachments: PostAttachment[] = attachments.map(({ contentId, pos }) => ({
    contentType: POST_ATTACHMENT_MEDIA,
    contentId,
    pos,
    postId: id,
  }));
  const post: Post = {
    id,
    accountId: creatorWorld.accountId,
    content,
    fypFlags,
    inReplyTo,
    quotedPostId,
    replyPermissionFlags: postRules.reduce((all, rule) => all | rule.flags, 0),
    postReplyPermissionFlags: postRules,
    expiresAt,
    scheduledFor,
    attachments: postAttachments,
    accessPermissions: access,
    previewId,
    wallIds: targetWalls,
    pinWallIds: pinWallIds ?? (pinned ? targetWalls : []),
    pinned,
    mediaLikeCount: 0,
    totalTipAmount: 0,
    attachmentTipAmount: 0,
    accountMentions: [],
    likeCount: 0,
    replyCount: 0,
    createdAt: Math.floor(ctx.now / 1000),
  };
  state.posts.set(id, post);
  return post;
}

/** Posts by id (posts created by the calling account); unknown ids are skipped. */
function postsByIds(ctx: ApiContext): unknown {
  const ids = queryCsv(ctx.query, 'ids');
  if (ids.length === 0 || ids.length > 100) throw invalidField('ids');
  const posts = ctx.core.world.state(ctx.creator).posts;
  return { posts: ids.map((id) => posts.get(id)).filter((post): post is Post => post !== undefined) };
}

export const postRoutes: ApiRoute[] = [
  { method: 'POST', path: '/post', auth: 'session', write: true, handler: createPost },
  { method: 'GET', path: '/post', auth: 'session', handler: postsByIds },
];
