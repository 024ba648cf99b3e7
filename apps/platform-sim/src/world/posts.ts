import { compareIds, encodeId, Kind } from '../ids';
import { CREATOR_LINES } from '../rand';
import type { AccountMedia, Post, PostSchedule, Wall } from '../records';
import { offerMedia } from './chats';
import { type CreatorWorld, DAY_MS, HOUR_MS } from './creator';
import type { CreatorState } from './state';

/** The platform's fixed page of `/timelinenew` (upstream-extended.md 1.5: pages hold 15 posts). */
export const TIMELINE_PAGE_SIZE = 15;

/** `status` of a GET /post/scheduled entry: 1 seen; 2 and 3 are the sandbox's (records.ts). */
export const SCHEDULE_STATUS = { scheduled: 1, published: 2, cancelled: 3 } as const;

/** Attachment contentType of a media id (the only kind of post attachment the sandbox takes). */
export const POST_ATTACHMENT_MEDIA = 1;
/**
 * `accessPermissions[].type` codes (GUESS, docs/upstream-decisions.md): who may open the post's
 * media. Only the ppv entry carries a `price` (mills), and it needs one.
 */
export const POST_ACCESS = { ppv: 1, subscription: 2, follow: 3, list: 4, limitedTime: 5 } as const;

export type PostStatus = 'scheduled' | 'published' | 'cancelled' | 'deleted';

// ---- seed

/** Published posts on the main wall: enough for several timeline pages of 15. */
const SEEDED_MAIN_WALL_POSTS = { min: 38, max: 52 } as const;
/** Posts still to be published, days after the anchor (so they stay scheduled through a run). */
const SEEDED_SCHEDULED_POSTS = 3;
/** Seeded posts are one every POST_SPACING_MS or so, newest first from the anchor. */
const POST_SPACING_MS = 2 * DAY_MS + 7 * HOUR_MS;

function seededPost(w: CreatorWorld, walls: readonly Wall[], k: number, createdAt: number): Post {
  const r = w.rand;
  const id = encodeId(createdAt, w.namespace, Kind.post);
  const mediaCount = r.chance(0.3, Kind.post, k, 1) ? 0 : r.int(1, 3, Kind.post, k, 2);
  const first = r.int(3, w.mediaCount - 4, Kind.post, k, 3);
  const attachments = Array.from({ length: mediaCount }, (_, pos) => ({
    contentType: POST_ATTACHMENT_MEDIA,
    contentId: w.mediaId(first + pos),
    pos,
    postId: id,
  }));
  // The main wall always; every fourth post is also on the second wall.
  const mainWall = walls[0];
  const second = walls[1];
  const wallIds = [mainWall?.id, k % 4 === 1 ? second?.id : undefined].filter((x): x is string => !!x);
  const ppv = mediaCount > 0 && r.chance(0.35, Kind.post, k, 4);
  const rules = r.chance(0.25, Kind.post, k, 5)
    ? [{ id: encodeId(createdAt, w.namespace, Kind.replyRule), postId: id, type: 0, flags: 2, metadata: '' }]
    : [];
  const likeCount = r.int(0, 400, Kind.post, k, 6);
  return {
    id,
    accountId: w.accountId,
    content: r.pick(CREATOR_LINES, Kind.post, k, 7),
    fypFlags: 0,
    inReplyTo: null,
    quotedPostId: null,
    replyPermissionFlags: rules.reduce((all, rule) => all | rule.flags, 0),
    postReplyPermissionFlags: rules,
    expiresAt: 0,
    scheduledFor: 0,
    attachments,
    // Whole cents in mills, like every seeded price.
    accessPermissions: ppv
      ? [{ type: POST_ACCESS.ppv, price: r.int(3, 30, Kind.post, k, 8) * 1000 - 10 }]
      : [],
    previewId: null,
    wallIds,
    pinWallIds: [],
    pinned: 0,
    mediaLikeCount: mediaCount > 0 ? Math.floor(likeCount / 2) : 0,
    totalTipAmount: r.chance(0.2, Kind.post, k, 9) ? r.int(1, 50, Kind.post, k, 10) * 1000 : 0,
    attachmentTipAmount: 0,
    accountMentions: [],
    likeCount,
    replyCount: r.int(0, 40, Kind.post, k, 11),
    createdAt: Math.floor(createdAt / 1000),
  };
}

/**
 * The seeded posts of a creator, oldest first (the order `posts` keeps): published ones on the
 * main wall (every fourth on the second wall too, the newest of those pinned there, the third
 * newest pinned on the main wall), and a few created lately but scheduled for the days after the
 * anchor, each with its GET /post/scheduled entry.
 */
export function seedPosts(
  w: CreatorWorld,
  walls: readonly Wall[],
): { posts: Post[]; schedules: PostSchedule[] } {
  const count = w.rand.int(SEEDED_MAIN_WALL_POSTS.min, SEEDED_MAIN_WALL_POSTS.max, Kind.post, 0);
  const total = count + SEEDED_SCHEDULED_POSTS;
  // k = 0 is the newest; the scheduled ones are the newest made.
  const created = Array.from(
    { length: total },
    (_, k) => w.anchorMs - (k + 1) * POST_SPACING_MS + w.rand.int(0, 6 * HOUR_MS, Kind.post, k, 12),
  );
  const posts = created.map((at, k) => seededPost(w, walls, k, at));
  const schedules: PostSchedule[] = [];
  posts.slice(0, SEEDED_SCHEDULED_POSTS).forEach((post, k) => {
    post.scheduledFor = w.anchorMs + (k + 2) * DAY_MS + w.rand.int(8, 22, Kind.post, k, 13) * HOUR_MS;
    schedules.push(scheduleOf(post, SCHEDULE_STATUS.scheduled, created[k] ?? 0));
  });
  const pin = (post: Post | undefined, wallId: string | undefined) => {
    if (!post || !wallId) return;
    post.pinWallIds.push(wallId);
    post.pinned = 1;
  };
  pin(posts[SEEDED_SCHEDULED_POSTS + 2], walls[0]?.id);
  pin(
    posts.find((post, k) => k >= SEEDED_SCHEDULED_POSTS && post.wallIds.length > 1),
    walls[1]?.id,
  );
  return { posts: posts.reverse(), schedules };
}

function scheduleOf(post: Post, status: number, createdAt: number): PostSchedule {
  return {
    id: post.id,
    postId: post.id,
    accountId: post.accountId,
    status,
    scheduledFor: post.scheduledFor,
    createdAt,
  };
}

// ---- the creator's posts as they stand

const newestFirst = (a: Post, b: Post) => compareIds(b.id, a.id);

/**
 * One creator's posts and their schedules, for the post routes: state and reads. Built per request
 * after `publishDue`, so a schedule whose time came reads as published.
 */
export class Posts {
  constructor(
    private readonly world: CreatorWorld,
    private readonly state: CreatorState,
  ) {}

  /** Schedules whose time has come are published (the platform does it at that time). */
  publishDue(now: number): this {
    for (const schedule of this.state.postSchedules.values())
      if (schedule.status === SCHEDULE_STATUS.scheduled && schedule.scheduledFor <= now)
        schedule.status = SCHEDULE_STATUS.published;
    return this;
  }

  get(id: string): Post | undefined {
    return this.state.posts.get(id);
  }

  status(post: Post): PostStatus {
    if (post.deletedAt !== undefined) return 'deleted';
    const schedule = this.state.postSchedules.get(post.id);
    if (schedule?.status === SCHEDULE_STATUS.scheduled) return 'scheduled';
    if (schedule?.status === SCHEDULE_STATUS.cancelled) return 'cancelled';
    return 'published';
  }

  /** What a read by id shows: published and scheduled posts (deleted and cancelled ones are gone). */
  readable(post: Post): boolean {
    const status = this.status(post);
    return status === 'published' || status === 'scheduled';
  }

  /**
   * Posts published on a wall (null: on any) and not expired, newest first, strictly older than
   * `before` and newer than `after` (post ids; null: no bound): one timeline page.
   */
  timeline(wallId: string | null, before: string | null, after: string | null, now: number): Post[] {
    return [...this.state.posts.values()]
      .filter(
        (post) =>
          (wallId === null || post.wallIds.includes(wallId)) &&
          this.status(post) === 'published' &&
          (post.expiresAt === 0 || post.expiresAt > now) &&
          (before === null || compareIds(post.id, before) < 0) &&
          (after === null || compareIds(post.id, after) > 0),
      )
      .sort(newestFirst)
      .slice(0, TIMELINE_PAGE_SIZE);
  }

  /** GET /post/scheduled entries whose post is still there, the soonest first. */
  schedules(): PostSchedule[] {
    return [...this.state.postSchedules.values()]
      .filter((schedule) => this.state.posts.get(schedule.postId)?.deletedAt === undefined)
      .sort((a, b) => a.scheduledFor - b.scheduledFor || compareIds(a.postId, b.postId));
  }

  /** The pinned posts a profile shows: only published ones, not one scheduled, cancelled or deleted. */
  pinned(): { postId: string; pos: number; createdAt: number }[] {
    const pinned: { postId: string; pos: number; createdAt: number }[] = [];
    for (const post of this.state.posts.values()) {
      if (post.pinned && this.status(post) === 'published')
        pinned.push({ postId: post.id, pos: pinned.length, createdAt: post.createdAt * 1000 });
    }
    return pinned;
  }

  // ---- writes

  /** Files a new post; a future `scheduledFor` makes it a scheduled one, published when due. */
  add(post: Post, now: number): void {
    this.state.putPost(post);
    if (post.scheduledFor > now) this.state.addPostSchedule(scheduleOf(post, SCHEDULE_STATUS.scheduled, now));
  }

  /**
   * Replaces a post's content and settings by `edited` (same id). A scheduled post follows its new
   * `scheduledFor`: later still, it stays scheduled; 0 or past, it is published now.
   */
  replace(edited: Post, now: number): Post {
    this.state.putPost(edited);
    const schedule = this.state.postSchedules.get(edited.id);
    if (schedule?.status === SCHEDULE_STATUS.scheduled) {
      schedule.scheduledFor = edited.scheduledFor;
      if (edited.scheduledFor <= now) schedule.status = SCHEDULE_STATUS.published;
    }
    return edited;
  }

  delete(post: Post, now: number): Post {
    post.deletedAt = now;
    return post;
  }

  cancel(post: Post): Post {
    const schedule = this.state.postSchedules.get(post.id);
    if (schedule) schedule.status = SCHEDULE_STATUS.cancelled;
    return post;
  }

  /** Pins a post on one of its walls; pinning it there again changes nothing. */
  pin(post: Post, wallId: string): Post {
    if (!post.pinWallIds.includes(wallId)) post.pinWallIds.push(wallId);
    post.pinned = 1;
    return post;
  }

  // ---- answers

  /**
   * The siblings a post read carries (GET /post, /timelinenew, aggregationData of /post/scheduled):
   * the account media the posts attach and their bundles (none: a post attaches media one by one
   * here). api/posts.ts adds the creator's profile.
   */
  aggregation(posts: Post[]): {
    accountMedia: AccountMedia[];
    accountMediaBundles: never[];
  } {
    const media = new Map<string, AccountMedia>();
    for (const post of posts)
      for (const attachment of post.attachments) {
        const item = this.accountMediaOf(post, attachment.contentId);
        if (item && !media.has(item.id)) media.set(item.id, item);
      }
    return {
      accountMedia: [...media.values()],
      accountMediaBundles: [],
    };
  }

  /**
   * A post's media as account media. A post here attaches vault media ids (`contentType` 1), so the
   * account media's id is that same id, which keeps `attachments[].contentId` → `accountMedia[].id`
   * working as on the platform. A ppv price is shared among the media, in whole cents.
   */
  private accountMediaOf(post: Post, mediaId: string): AccountMedia | undefined {
    const index = this.world.mediaIndexOf(mediaId);
    if (index < 0) return undefined;
    const share = post.attachments.length;
    const ppv = post.accessPermissions.find((entry) => entry.type === POST_ACCESS.ppv)?.price ?? 0;
    return {
      id: mediaId,
      accountId: post.accountId,
      mediaId,
      previewId: post.previewId,
      price: Math.round(ppv / share / 10) * 10,
      deleted: false,
      likeCount: Math.floor(post.mediaLikeCount / share),
      purchased: false,
      whitelisted: false,
      // The creator's own media: always open to them.
      access: true,
      createdAt: post.createdAt * 1000,
      saleStats: { purchased: false, purchasedAt: null, purchaseCount: 0, totalAmount: 0 },
      media: offerMedia(this.world, index),
    };
  }
}
