import { type Static, Type } from 'typebox';
import { coerce } from './coerce';
import { Nullable } from './schemas';

const Media = Type.Object({
  id: Type.String(),
  mimetype: Type.String(),
  location: Type.String(),
  variants: Type.Optional(Type.Array(Type.Unknown())),
});

/** Platform profile: the contract's by-ids record (also the connected account's own profile). */
export const PlatformProfile = Type.Object({
  id: Type.String(),
  username: Type.String(),
  displayName: Type.String(),
  about: Type.String(),
  location: Type.String(),
  flags: Type.Number(),
  version: Type.Number(),
  statusId: Type.Number(),
  profileAccessFlags: Type.Number(),
  profileFlags: Type.Number(),
  createdAt: Type.Number(),
  lastSeenAt: Type.Number(),
  followCount: Type.Number(),
  subscriberCount: Type.Number(),
  accountMediaLikes: Type.Number(),
  postLikes: Type.Number(),
  permissions: Type.Object({ accountPermissionFlags: Type.Object({ flags: Type.Number() }) }),
  mediaStoryState: Type.Object({
    accountId: Type.String(),
    status: Type.Number(),
    storyCount: Type.Number(),
    hasActiveStories: Type.Boolean(),
  }),
  timelineStats: Type.Object({
    imageCount: Type.Number(),
    videoCount: Type.Number(),
    bundleCount: Type.Number(),
    fetchedAt: Type.Number(),
  }),
  profileSocials: Type.Array(Type.Object({ providerId: Type.String(), handle: Type.String() })),
  profileBadges: Type.Array(
    Type.Object({
      badgeId: Type.String(),
      badgeType: Type.Number(),
      badgeDescription: Type.String(),
      metadata: Type.String(),
    }),
  ),
  pinnedPosts: Type.Array(Type.Object({ postId: Type.String(), pos: Type.Number() })),
  subscriptionTiers: Type.Array(
    Type.Object({
      id: Type.String(),
      name: Type.String(),
      price: Type.Number(),
      plans: Type.Array(
        Type.Object({
          id: Type.String(),
          billingCycle: Type.Number(),
          price: Type.Number(),
          promos: Type.Array(
            Type.Object({ id: Type.String(), price: Type.Number(), description: Type.String() }),
          ),
        }),
      ),
    }),
  ),
  avatar: Nullable(Media),
  banner: Nullable(Media),
  hasMainWall: Type.Boolean(),
  walls: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), mainWall: Type.Boolean() })),
  streaming: Type.Object({
    enabled: Type.Boolean(),
    channel: Nullable(Type.Object({ status: Type.Number(), playbackUrl: Type.String() })),
  }),
  profileAccess: Type.Boolean(),
});
export type PlatformProfile = Static<typeof PlatformProfile>;

const { obj, arr, str, num, bool } = coerce;

function media(value: unknown): Static<typeof Media> | null {
  if (value === null || value === undefined) return null;
  const raw = obj(value);
  return {
    id: str(raw.id),
    mimetype: str(raw.mimetype),
    location: str(raw.location),
    ...(Array.isArray(raw.variants) ? { variants: raw.variants } : {}),
  };
}

/**
 * Platform account → contract profile. Every field is set with the contract's type even when the
 * platform leaves it out, so callers can rely on the shape. Timestamps are already ms upstream.
 */
export function toPlatformProfile(value: unknown): PlatformProfile {
  const raw = obj(value);
  const story = obj(raw.mediaStoryState);
  const stats = obj(raw.timelineStats);
  const streaming = obj(raw.streaming);
  const channel = raw.streaming && obj(streaming).channel ? obj(streaming.channel) : null;
  return {
    id: str(raw.id),
    username: str(raw.username),
    displayName: str(raw.displayName),
    about: str(raw.about),
    location: str(raw.location),
    flags: num(raw.flags),
    version: num(raw.version),
    statusId: num(raw.statusId),
    profileAccessFlags: num(raw.profileAccessFlags),
    profileFlags: num(raw.profileFlags),
    createdAt: num(raw.createdAt),
    lastSeenAt: num(raw.lastSeenAt),
    followCount: num(raw.followCount),
    subscriberCount: num(raw.subscriberCount),
    accountMediaLikes: num(raw.accountMediaLikes),
    postLikes: num(raw.postLikes),
    permissions: {
      accountPermissionFlags: { flags: num(obj(obj(raw.permissions).accountPermissionFlags).flags) },
    },
    mediaStoryState: {
      accountId: str(story.accountId ?? raw.id),
      status: num(story.status),
      storyCount: num(story.storyCount),
      hasActiveStories: bool(story.hasActiveStories),
    },
    timelineStats: {
      imageCount: num(stats.imageCount),
      videoCount: num(stats.videoCount),
      bundleCount: num(stats.bundleCount),
      fetchedAt: num(stats.fetchedAt),
    },
    profileSocials: arr(raw.profileSocials).map((s) => ({
      providerId: str(s.providerId),
      handle: str(s.handle),
    })),
    profileBadges: arr(raw.profileBadges).map((b) => ({
      badgeId: str(b.badgeId),
      badgeType: num(b.badgeType),
      badgeDescription: str(b.badgeDescription),
      metadata: str(b.metadata),
    })),
    pinnedPosts: arr(raw.pinnedPosts).map((p) => ({ postId: str(p.postId), pos: num(p.pos) })),
    subscriptionTiers: arr(raw.subscriptionTiers).map((tier) => ({
      id: str(tier.id),
      name: str(tier.name),
      price: num(tier.price),
      plans: arr(tier.plans).map((plan) => ({
        id: str(plan.id),
        billingCycle: num(plan.billingCycle),
        price: num(plan.price),
        promos: arr(plan.promos).map((promo) => ({
          id: str(promo.id),
          price: num(promo.price),
          description: str(promo.description),
        })),
      })),
    })),
    avatar: media(raw.avatar),
    banner: media(raw.banner),
    hasMainWall: bool(raw.hasMainWall) || arr(raw.walls).some((w) => bool(w.mainWall)),
    walls: arr(raw.walls).map((w) => ({ id: str(w.id), name: str(w.name), mainWall: bool(w.mainWall) })),
    streaming: {
      enabled: bool(streaming.enabled),
      channel: channel ? { status: num(channel.status), playbackUrl: str(channel.playbackUrl) } : null,
    },
    profileAccess: bool(raw.profileAccess),
  };
}
