import { GatewayError } from '@cg/contract';
import { PlatformError } from '@cg/platform-client';
import { type Static, Type } from 'typebox';
import { AccountMedia } from '../chat-media-stats/operation';
import type { OperationContext } from '../define';
import { coerce, type Raw } from './coerce';
import { attachedMedia } from './media-offer';
import { dollarsToMills } from './money';
import { PlatformProfile } from './profile';
import { f, type RecordValue, record } from './record';
import { AccountParams, NonBlank, NonEmpty, PlatformId, Text, UnixMs } from './schemas';

/**
 * Posts, shared by the post operations: the create body (which the update takes too), its rules and
 * its platform form, the Post record in its three forms (written, read, deleted), and the read
 * answer of posts with the media and accounts they refer to.
 */

const { obj, arr, str } = coerce;

/** The platform takes at most this much post text (sandbox README, `POST /post`). */
const MAX_CONTENT = 5000;
const MAX_MEDIA = 100;
/** Attachment contentType of a vault media item: the only kind a post made here carries. */
const ATTACHMENT_MEDIA = 1;
/**
 * Rule 5: a non-zero timestamp below this (1973-03-03 in ms, or the year 5138 in seconds) can only
 * be a Unix time in seconds sent by mistake, so it is refused rather than read as a date in 1970.
 */
const MIN_MS_TIMESTAMP = 100_000_000_000;

/**
 * Access restrictions upstream, one `{type, price?}` per access_type in `accessPermissions`, the
 * ppv price in mills. GUESS (docs/upstream-decisions.md): the public sources show neither the field
 * nor the codes, so they live in this one table, kept in step with the sandbox's POST_ACCESS. Its
 * names are also the access_type values the gateway accepts.
 */
export const ACCESS_PERMISSION_TYPES = {
  ppv: 1,
  subscription: 2,
  follow: 3,
  list: 4,
  limited_time: 5,
} as const;
const accessCodes: ReadonlyMap<string, number> = new Map(Object.entries(ACCESS_PERMISSION_TYPES));
const accessNames = Object.keys(ACCESS_PERMISSION_TYPES).join(', ');

/** A pattern rather than a union of literals: the 400 then reads "must be one of ppv, ...". */
export const AccessType = Type.String({
  pattern: `^(${Object.keys(ACCESS_PERMISSION_TYPES).join('|')})$`,
  description: `one of ${accessNames}`,
});

/**
 * The platform states no largest price; a million dollars keeps every amount a whole number of
 * mills well inside a safe (and a 32-bit) integer, where a larger one became 1e+23 or, past the
 * largest double, null on the wire.
 */
const MAX_DOLLARS = 1_000_000;
const Dollars = (description: string) => Type.Number({ minimum: 0, maximum: MAX_DOLLARS, description });

const ReplyPermissions = Type.Object({
  following: Type.Optional(Type.Boolean({ description: 'allow users who follow you' })),
  subscribed: Type.Optional(Type.Boolean({ description: 'allow subscribed users' })),
  tipped: Type.Optional(Type.Boolean({ description: 'allow users who tipped' })),
  tippedMinAmount: Type.Optional(Dollars('dollars; used only when tipped is true')),
  followedMe: Type.Optional(Type.Boolean({ description: 'allow users you follow back' })),
  mediaPurchases: Type.Optional(Type.Boolean({ description: 'allow users who purchased your media' })),
  mediaPurchasesMinAmount: Type.Optional(Dollars('dollars; used only when mediaPurchases is true')),
});

/** The body of POST /{account_id}/posts, and of the update, which takes the same. */
export const PostBody = Type.Object({
  content: Type.Optional(Text('post text', { maxLength: MAX_CONTENT, long: true })),
  mediaIds: Type.Optional(
    Type.Array(NonEmpty(undefined, { maxLength: 64 }), {
      maxItems: MAX_MEDIA,
      uniqueItems: true,
      description: 'vault media ids to attach',
    }),
  ),
  postToFYP: Type.Optional(Type.Boolean({ description: 'true publishes to the For You page' })),
  previewId: Type.Optional(NonBlank('preview media id', { maxLength: 64 })),
  scheduledFor: Type.Optional(UnixMs('Unix ms; 0 = now')),
  expiresAt: Type.Optional(UnixMs('Unix ms; 0 = never')),
  wallIds: Type.Optional(Type.Array(NonEmpty(undefined, { maxLength: 64 }), { uniqueItems: true })),
  pinWallIds: Type.Optional(Type.Array(NonEmpty(undefined, { maxLength: 64 }), { uniqueItems: true })),
  access_type: Type.Optional(
    Type.Array(AccessType, {
      uniqueItems: true,
      description: `${accessNames}; may be combined`,
    }),
  ),
  price: Type.Optional(Dollars('dollars; required when access_type includes ppv')),
  replyPermissions: Type.Optional(ReplyPermissions),
});
export type PostBody = Static<typeof PostBody>;

/** The path of an operation on one post. */
export const PostParams = Type.Object({
  ...AccountParams.properties,
  postId: PlatformId('id of the post'),
});

/** The post a rule or an attachment belongs to: the platform may leave it to its post's id. */
const postIdOr = (raw: Raw, post: Raw) => raw.postId ?? post.id;

export const PostReplyRule = record({
  id: f.id(),
  postId: f.from(postIdOr, f.id()),
  flags: f.number(),
  type: f.number(),
  metadata: f.string(),
});

export const PostAttachment = record({
  contentType: f.number(),
  contentId: f.id(),
  pos: f.number(),
  postId: f.from(postIdOr, f.id()),
});

/**
 * The contract's Post record (result of creation), plus createdAt and scheduledFor in Unix ms. It
 * has no access fields, so the platform's accessPermissions and previewId stay upstream.
 */
export const Post = record({
  id: f.id(),
  accountId: f.id(),
  content: f.string(),
  fypFlags: f.number(),
  inReplyTo: f.nullableString(),
  quotedPostId: f.nullableString(),
  replyPermissionFlags: f.number('combined bitmask of postReplyPermissionFlags'),
  postReplyPermissionFlags: f.array(PostReplyRule),
  expiresAt: f.timestamp('Unix ms; 0 means never'),
  attachments: f.array(PostAttachment),
  wallIds: f.array(f.id()),
  pinWallIds: f.array(f.id()),
  pinned: f.number(),
  mediaLikeCount: f.number(),
  // Tip totals are platform money, in mills.
  totalTipAmount: f.centsFromMills(),
  attachmentTipAmount: f.centsFromMills(),
  accountMentions: f.array(f.unknown()),
  scheduledFor: f.timestamp('Unix ms; 0 = published at creation'),
  // Post createdAt is the one upstream time in seconds.
  createdAt: f.timestampFromSeconds(),
});
export type Post = RecordValue<typeof Post>;

/**
 * The read form of a Post (get post, get wall, scheduled posts): the Post record with createdAt in
 * Unix seconds, as the platform sends it and the contract's read form keeps it, and the counts.
 */
export const PostRead = Post.extend({
  createdAt: f.timestamp('Unix seconds'),
  likeCount: f.number(),
  replyCount: f.number(),
});
export type PostRead = RecordValue<typeof PostRead>;

/** A deleted post: the Post record with when it was deleted. */
export const DeletedPost = Post.extend({ deletedAt: f.timestamp('Unix ms') });

/**
 * Reply rules upstream, one `{type, flags, metadata}` per allowed group. GUESS: neither the public
 * clients nor the sandbox README give the platform's codes (public posts show type 0 with flags 2 and
 * 4 and metadata "" or JSON), so each group gets its own bit here, in this one table, and minimum
 * amounts travel as JSON metadata in mills like every other platform price.
 */
export const REPLY_RULES = {
  following: { type: 0, flags: 1 },
  subscribed: { type: 0, flags: 2 },
  tipped: { type: 0, flags: 4 },
  followedMe: { type: 0, flags: 8 },
  mediaPurchases: { type: 0, flags: 16 },
} as const;

/** Dollar inputs become whole cents on the platform; a fraction of a cent is the caller's typo. */
const wholeCents = (dollars: number): boolean => Math.abs(dollars * 100 - Math.round(dollars * 100)) < 1e-6;

export function replyRules(
  permissions: PostBody['replyPermissions'],
): { type: number; flags: number; metadata: string }[] {
  if (!permissions) return [];
  const rules: { type: number; flags: number; metadata: string }[] = [];
  const add = (rule: { type: number; flags: number }, minDollars?: number) =>
    rules.push({
      ...rule,
      metadata: minDollars === undefined ? '' : JSON.stringify({ minAmount: dollarsToMills(minDollars) }),
    });
  if (permissions.following) add(REPLY_RULES.following);
  if (permissions.subscribed) add(REPLY_RULES.subscribed);
  // The minimum amounts count only with their switch (contract: "used only when ... is true").
  if (permissions.tipped) add(REPLY_RULES.tipped, permissions.tippedMinAmount);
  if (permissions.followedMe) add(REPLY_RULES.followedMe);
  if (permissions.mediaPurchases) add(REPLY_RULES.mediaPurchases, permissions.mediaPurchasesMinAmount);
  return rules;
}

export function accessPermissions(body: PostBody): { type: number; price?: number }[] {
  return (body.access_type ?? []).map((access) => {
    const type = accessCodes.get(access);
    // The schema's pattern is built from the table, so only a bypassed schema gets here.
    if (type === undefined) throw new GatewayError('INTERNAL', `no upstream access code for ${access}`);
    // checkPost has made price present exactly when ppv is.
    return access === 'ppv' && body.price !== undefined
      ? { type, price: dollarsToMills(body.price) }
      : { type };
  });
}

/** The five rules of the contract, plus the unit checks the schema cannot express. */
export function checkPost(body: PostBody): string | undefined {
  const mediaCount = body.mediaIds?.length ?? 0;
  const hasText = (body.content ?? '').trim() !== '';
  const ppv = body.access_type?.includes('ppv') ?? false;
  if (!hasText && mediaCount === 0)
    return 'Rule 1: a post needs at least one of content (non-blank text) or mediaIds';
  if (body.postToFYP === true && mediaCount === 0)
    return 'Rule 2: postToFYP true requires mediaIds with at least one public video of 3 seconds or longer';
  if (ppv && mediaCount === 0) return 'Rule 3: access_type ppv requires mediaIds';
  if (ppv && body.price === undefined) return 'Rule 3: access_type ppv requires price (in dollars)';
  if (ppv && body.price === 0) return 'Rule 3: price of a ppv post must be more than 0 dollars';
  if (!ppv && body.price !== undefined)
    return 'Rule 4: price is only for access_type ppv; to attach media for free send only content and mediaIds, without access_type and price';
  if (body.price !== undefined && !wholeCents(body.price))
    return 'price is in dollars with at most two decimals (whole cents)';
  const permissions = body.replyPermissions;
  for (const field of ['tippedMinAmount', 'mediaPurchasesMinAmount'] as const) {
    const amount = permissions?.[field];
    if (amount !== undefined && !wholeCents(amount))
      return `replyPermissions.${field} is in dollars with at most two decimals (whole cents)`;
  }
  for (const field of ['scheduledFor', 'expiresAt'] as const) {
    const at = body[field];
    if (at !== undefined && at !== 0 && at < MIN_MS_TIMESTAMP)
      return `Rule 5: ${field} is a Unix timestamp in milliseconds; ${at} looks like seconds`;
  }
  if (body.scheduledFor && body.expiresAt && body.expiresAt <= body.scheduledFor)
    return 'expiresAt must be later than scheduledFor';
  if (body.expiresAt && body.expiresAt <= Date.now())
    return 'expiresAt is in the past: the post would be expired when it is published';
  return undefined;
}

/**
 * The platform's post body, for creation and for the edit: every field is written, so what the
 * caller leaves out is cleared (no text, no media, unrestricted replies, no expiry, the main wall).
 */
export function upstreamPost(body: PostBody): Record<string, unknown> {
  const pinWallIds = body.pinWallIds ?? [];
  return {
    content: body.content ?? '',
    fypFlags: body.postToFYP ? 1 : 0,
    inReplyTo: null,
    quotedPostId: null,
    attachments: (body.mediaIds ?? []).map((contentId, pos) => ({
      contentId,
      contentType: ATTACHMENT_MEDIA,
      pos,
    })),
    // Rule 5: the platform takes both in Unix ms as well (sandbox README), so they pass unchanged.
    scheduledFor: body.scheduledFor ?? 0,
    expiresAt: body.expiresAt ?? 0,
    postReplyPermissionFlags: replyRules(body.replyPermissions),
    pinned: pinWallIds.length > 0 ? 1 : 0,
    // Empty lets the platform pick the main wall, as its own web client does.
    wallIds: body.wallIds ?? [],
    pinWallIds,
    // GUESS fields (docs/upstream-decisions.md), sent only when asked for, so a free post's body
    // carries nothing invented.
    ...(body.access_type && body.access_type.length > 0
      ? { accessPermissions: accessPermissions(body) }
      : {}),
    ...(body.previewId !== undefined ? { previewId: body.previewId } : {}),
  };
}

/** The first of `wallIds` that is not one of the account's walls (one read of its walls), if any. */
export async function unknownWall(
  wallIds: readonly string[],
  call: OperationContext['call'],
): Promise<string | undefined> {
  if (wallIds.length === 0) return undefined;
  const known = new Set(arr(obj(await call('accountWalls')).walls).map((wall) => str(wall.id)));
  return wallIds.find((id) => !known.has(id));
}

/** Whether a read by id shows the post: published or scheduled, not deleted or cancelled. */
export async function postIsReadable(postId: string, call: OperationContext['call']): Promise<boolean> {
  const fetched = obj(await call('postsByIds', { query: { ids: postId } }));
  return arr(fetched.posts).some((post) => str(post.id) === postId);
}

/**
 * The platform answers an unknown post, media and wall alike (404), and refuses a deleted, cancelled
 * or already published post alike (403). After a failed create or edit, the reads this takes (the
 * account's walls, the post) tell the caller which; `postId` is the edited post.
 */
export async function postWriteFailure(
  error: unknown,
  body: PostBody,
  call: OperationContext['call'],
  postId?: string,
): Promise<unknown> {
  if (!(error instanceof PlatformError) || error.retry !== 'permanent') return error;
  if (error.kind === 'not_found') {
    const wall = await unknownWall([...(body.wallIds ?? []), ...(body.pinWallIds ?? [])], call);
    if (wall !== undefined)
      return new GatewayError(
        'NOT_FOUND',
        `wall ${wall} (in wallIds or pinWallIds) is not one of this account's walls`,
      );
    if (postId !== undefined && !(await postIsReadable(postId, call)))
      return new GatewayError('NOT_FOUND', `unknown post ${postId}: no such post on this account`);
    // The platform names no id in its 404, and previewId is a media id too.
    const where = body.previewId === undefined ? 'mediaIds' : 'mediaIds or previewId';
    return new GatewayError('NOT_FOUND', `a media id in ${where} is not one of this account's vault media`);
  }
  if (error.kind === 'forbidden' && postId !== undefined)
    return new GatewayError(
      'CONFLICT',
      (await postIsReadable(postId, call))
        ? 'the post is already published: scheduledFor can only move a post still scheduled (send back its current scheduledFor, or leave it out)'
        : 'the post was deleted or its schedule cancelled: it can no longer be changed',
    );
  // Everything else the platform validates in /post was checked before enqueueing; what is left is
  // the media-level half of rule 2, which needs the media the platform holds.
  if (error.kind === 'bad_request' && body.postToFYP === true)
    return new GatewayError(
      'BAD_REQUEST',
      'Rule 2: postToFYP true requires mediaIds to include at least one public video of 3 seconds or longer',
    );
  return error;
}

/** What a read of posts answers: the posts in read form, with the media and accounts they refer to. */
export const PostsAnswer = Type.Object({
  posts: Type.Array(PostRead.schema),
  accountMedia: Type.Array(AccountMedia.schema, { description: 'the media the posts attach' }),
  accountMediaBundles: Type.Array(Type.Unknown()),
  accounts: Type.Array(PlatformProfile.schema, { description: 'the posts’ authors' }),
});

/**
 * `posts` (platform records) in read form, with the account media and bundles they attach and the
 * profiles of their authors, picked from `aggregation` (a platform answer holding those lists).
 */
export function postsAnswer(aggregation: Raw, posts: Raw[]): Static<typeof PostsAnswer> {
  const read = posts.map(PostRead.from);
  const authors = new Set(read.map((post) => post.accountId));
  return {
    posts: read,
    ...attachedMedia(
      aggregation,
      read.flatMap((post) => post.attachments.map((a) => a.contentId)),
    ),
    accounts: arr(aggregation.accounts)
      .filter((account) => authors.has(str(account.id)))
      .map(PlatformProfile.from),
  };
}
