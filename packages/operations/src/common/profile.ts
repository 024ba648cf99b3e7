import { coerce } from './coerce';
import { f, type RecordValue, record } from './record';

const { arr, bool } = coerce;

const Media = record({
  id: f.id(),
  mimetype: f.string(),
  location: f.string(),
  variants: f.optional(f.array(f.unknown()), Array.isArray),
});

const SubscriptionPlan = record({
  id: f.id(),
  billingCycle: f.number(),
  price: f.number(),
  promos: f.array(record({ id: f.id(), price: f.number(), description: f.string() })),
});

/**
 * Platform profile: the contract's by-ids record (also the connected account's own profile). Every
 * field is set with the contract's type even when the platform leaves it out, so callers can rely on
 * the shape. Timestamps are already ms upstream.
 */
export const PlatformProfile = record({
  id: f.id(),
  username: f.string(),
  displayName: f.string(),
  about: f.string(),
  location: f.string(),
  flags: f.number(),
  version: f.number(),
  statusId: f.number(),
  profileAccessFlags: f.number(),
  profileFlags: f.number(),
  createdAt: f.timestamp(),
  lastSeenAt: f.timestamp(),
  followCount: f.number(),
  subscriberCount: f.number(),
  accountMediaLikes: f.number(),
  postLikes: f.number(),
  permissions: f.record(record({ accountPermissionFlags: f.record(record({ flags: f.number() })) })),
  mediaStoryState: f.record(
    record({
      accountId: f.from((story, profile) => story.accountId ?? profile.id, f.id()),
      status: f.number(),
      storyCount: f.number(),
      hasActiveStories: f.boolean(),
    }),
  ),
  timelineStats: f.record(
    record({
      imageCount: f.number(),
      videoCount: f.number(),
      bundleCount: f.number(),
      fetchedAt: f.timestamp(),
    }),
  ),
  profileSocials: f.array(record({ providerId: f.id(), handle: f.string() })),
  profileBadges: f.array(
    record({ badgeId: f.id(), badgeType: f.number(), badgeDescription: f.string(), metadata: f.string() }),
  ),
  pinnedPosts: f.array(record({ postId: f.id(), pos: f.number() })),
  subscriptionTiers: f.array(
    record({ id: f.id(), name: f.string(), price: f.number(), plans: f.array(SubscriptionPlan) }),
  ),
  avatar: f.nullable(f.record(Media)),
  banner: f.nullable(f.record(Media)),
  hasMainWall: f.from(
    (raw) => bool(raw.hasMainWall) || arr(raw.walls).some((wall) => bool(wall.mainWall)),
    f.boolean(),
  ),
  walls: f.array(record({ id: f.id(), name: f.string(), mainWall: f.boolean() })),
  streaming: f.record(
    record({
      enabled: f.boolean(),
      // No channel when the platform leaves it out or sends it empty (null, "", 0, false).
      channel: f.from(
        (streaming) => streaming.channel || null,
        f.nullable(f.record(record({ status: f.number(), playbackUrl: f.string() }))),
      ),
    }),
  ),
  profileAccess: f.boolean(),
});
export type PlatformProfile = RecordValue<typeof PlatformProfile>;
