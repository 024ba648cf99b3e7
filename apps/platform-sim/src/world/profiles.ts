import { decodeId, encodeId, GLOBAL_NAMESPACE, Kind } from '../ids';
import { ADJECTIVES, CITIES, capitalize, NOUNS, Rand, Timeline } from '../rand';
import type { AvatarMedia, PlatformProfile, ProfileWall, SubscriptionTier } from '../records';
import type { CdnLinks } from './cdn-links';
import { type CreatorWorld, DAY_MS, MEDIA_VIDEO } from './creator';
import { Posts } from './posts';
import type { CreatorState } from './state';

interface ProfileParts {
  id: string;
  namespace: number;
  username: string;
  displayName: string;
  about: string;
  location: string;
  createdAt: number;
  lastSeenAt: number;
  followCount: number;
  subscriberCount: number;
  accountMediaLikes: number;
  postLikes: number;
  imageCount: number;
  videoCount: number;
  bundleCount: number;
  isCreator: boolean;
  subscriptionTiers: SubscriptionTier[];
  walls: ProfileWall[];
  pinnedPosts: PlatformProfile['pinnedPosts'];
  streamingLive: boolean;
  version: number;
  fetchedAt: number;
}

function avatar(cdn: CdnLinks, parts: ProfileParts): AvatarMedia {
  const id = encodeId(parts.createdAt + 1000, parts.namespace, Kind.avatar);
  const variantId = encodeId(parts.createdAt + 1000, parts.namespace, Kind.variantPreview);
  return {
    id,
    mimetype: 'image/jpeg',
    location: cdn.link(`/${parts.id}/${id}.jpeg`),
    width: 512,
    height: 512,
    variants: [
      {
        id: variantId,
        mimetype: 'image/jpeg',
        location: cdn.link(`/${parts.id}/${variantId}.jpeg`),
        width: 128,
        height: 128,
      },
    ],
  };
}

function buildProfile(cdn: CdnLinks, parts: ProfileParts): PlatformProfile {
  const bannerId = encodeId(parts.createdAt + 1000, parts.namespace, Kind.banner);
  return {
    id: parts.id,
    username: parts.username,
    displayName: parts.displayName,
    about: parts.about,
    location: parts.location,
    flags: parts.isCreator ? 1 : 0,
    version: parts.version,
    statusId: 1,
    profileAccessFlags: parts.isCreator ? 3 : 0,
    profileFlags: parts.isCreator ? 1 : 0,
    createdAt: parts.createdAt,
    lastSeenAt: parts.lastSeenAt,
    followCount: parts.followCount,
    subscriberCount: parts.subscriberCount,
    accountMediaLikes: parts.accountMediaLikes,
    postLikes: parts.postLikes,
    permissions: { accountPermissionFlags: { flags: parts.isCreator ? 6 : 0 } },
    mediaStoryState: { accountId: parts.id, status: 1, storyCount: 0, hasActiveStories: false },
    timelineStats: {
      accountId: parts.id,
      imageCount: parts.imageCount,
      videoCount: parts.videoCount,
      bundleCount: parts.bundleCount,
      fetchedAt: parts.fetchedAt,
    },
    profileSocials: parts.isCreator
      ? [
          { providerId: '1', handle: parts.username },
          { providerId: '3', handle: `${parts.username}.official` },
        ]
      : [],
    profileBadges: parts.isCreator
      ? [
          {
            badgeId: encodeId(parts.createdAt + 1000, parts.namespace, Kind.badge),
            badgeType: 1,
            badgeDescription: 'Verified creator',
            metadata: '{}',
          },
        ]
      : [],
    pinnedPosts: parts.pinnedPosts,
    subscriptionTiers: parts.subscriptionTiers,
    avatar: avatar(cdn, parts),
    banner: {
      id: bannerId,
      mimetype: 'image/jpeg',
      location: cdn.link(`/${parts.id}/${bannerId}.jpeg`),
      width: 1500,
      height: 500,
    },
    hasMainWall: parts.walls.some((wall) => wall.mainWall),
    walls: parts.walls,
    streaming: {
      accountId: parts.id,
      enabled: parts.isCreator,
      channel: {
        status: parts.streamingLive ? 2 : 1,
        // Empty when offline (the gateway's contract types it as a string).
        playbackUrl: parts.streamingLive ? cdn.link(`/live/${parts.id}/index.m3u8`) : '',
      },
    },
    profileAccess: true,
  };
}

export function creatorProfile(world: CreatorWorld, state: CreatorState): PlatformProfile {
  const r = world.rand;
  let videoCount = 0;
  for (let i = 0; i < world.mediaCount; i++) if (world.mediaInfo(i).type === MEDIA_VIDEO) videoCount += 1;
  return buildProfile(world.cdn, {
    id: world.accountId,
    namespace: world.namespace,
    username: world.identity.username,
    displayName: world.identity.displayName,
    about: 'Sandbox creator account of the platform simulator. Nothing here is real.',
    location: r.pick(CITIES, Kind.account, 0, 40),
    createdAt: world.identity.createdAt,
    lastSeenAt: Date.now(),
    followCount: world.fanCount,
    subscriberCount: world.subscriptionFacts().active,
    accountMediaLikes: r.int(2_000, 50_000, Kind.account, 0, 41),
    postLikes: r.int(1_000, 30_000, Kind.account, 0, 42),
    imageCount: world.mediaCount - videoCount,
    videoCount,
    bundleCount: r.int(3, 20, Kind.account, 0, 43),
    isCreator: true,
    subscriptionTiers: world.tiers,
    walls: [...state.walls],
    pinnedPosts: new Posts(world, state).publishDue(Date.now()).pinned(),
    streamingLive: false,
    version: 3 + state.posts.size,
    fetchedAt: world.anchorMs,
  });
}

export function fanProfile(world: CreatorWorld, fan: number): PlatformProfile {
  const r = world.rand;
  const createdAt = world.fans.at(fan);
  return buildProfile(world.cdn, {
    id: world.fanId(fan),
    namespace: world.namespace,
    username: world.fanUsername(fan),
    displayName: world.fanDisplayName(fan),
    about: '',
    location: r.pick(CITIES, Kind.fan, fan, 30),
    createdAt,
    lastSeenAt: world.anchorMs - r.int(0, 14 * DAY_MS, Kind.fan, fan, 31),
    followCount: r.int(0, 40, Kind.fan, fan, 32),
    subscriberCount: 0,
    accountMediaLikes: 0,
    postLikes: 0,
    imageCount: 0,
    videoCount: 0,
    bundleCount: 0,
    isCreator: false,
    subscriptionTiers: [],
    walls: [],
    pinnedPosts: [],
    streamingLive: false,
    version: r.int(1, 5, Kind.fan, fan, 33),
    fetchedAt: world.anchorMs,
  });
}

/** Other creators' public profiles (namespace 0), for by-ids lookups. */
export class GlobalProfiles {
  readonly count = 40;
  private readonly rand: Rand;
  private readonly timeline: Timeline;

  constructor(
    seed: number,
    private readonly anchorMs: number,
    private readonly cdn: CdnLinks,
  ) {
    this.rand = new Rand(seed, GLOBAL_NAMESPACE);
    this.timeline = new Timeline(this.rand, Kind.profile, anchorMs - 30 * DAY_MS, 9 * DAY_MS);
  }

  id(index: number): string {
    return encodeId(this.timeline.at(index), GLOBAL_NAMESPACE, Kind.profile);
  }

  indexOf(id: string): number {
    const decoded = decodeId(id);
    if (!decoded || decoded.namespace !== GLOBAL_NAMESPACE || decoded.kind !== Kind.profile) return -1;
    const index = this.timeline.indexOf(decoded.ms);
    return index >= 0 && index < this.count ? index : -1;
  }

  profile(index: number): PlatformProfile {
    const r = this.rand;
    const createdAt = this.timeline.at(index);
    const id = this.id(index);
    const adjective = ADJECTIVES[index % ADJECTIVES.length] ?? 'quiet';
    const noun = NOUNS[(index * 7 + 3) % NOUNS.length] ?? 'fox';
    const tierCount = r.int(1, 3, Kind.tier, index);
    const tiers: SubscriptionTier[] = Array.from({ length: tierCount }, (_, k) => {
      const price = [799, 1499, 2999][k] ?? 999;
      return {
        id: encodeId(createdAt + 10 + k, GLOBAL_NAMESPACE, Kind.tier),
        name: ['Fan', 'Supporter', 'VIP'][k] ?? 'Tier',
        color: ['#2699f7', '#e23d6d', '#9b51e0'][k] ?? '#2699f7',
        pos: k,
        price,
        plans: [
          {
            id: encodeId(createdAt + 10 + k * 3, GLOBAL_NAMESPACE, Kind.plan),
            billingCycle: 30,
            price,
            promos: [],
          },
          {
            id: encodeId(createdAt + 11 + k * 3, GLOBAL_NAMESPACE, Kind.plan),
            billingCycle: 90,
            price: price * 3 - 300,
            promos: [],
          },
        ],
      };
    });
    const walls: ProfileWall[] = Array.from({ length: r.int(1, 2, Kind.wall, index) }, (_, k) => ({
      id: encodeId(createdAt + 20 + k, GLOBAL_NAMESPACE, Kind.wall),
      accountId: id,
      pos: k,
      name: k === 0 ? 'Posts' : 'Extras',
      description: '',
      private: 0,
      metadata: '{}',
      mainWall: k === 0,
      defaultWall: k === 0,
    }));
    return buildProfile(this.cdn, {
      id,
      namespace: GLOBAL_NAMESPACE,
      username: `${adjective}_${noun}${index}`,
      displayName: `${capitalize(adjective)} ${capitalize(noun)}`,
      about: `Creator profile #${index + 1} of the sandbox.`,
      location: r.pick(CITIES, Kind.profile, index, 1),
      createdAt,
      lastSeenAt: this.anchorMs - r.int(0, 3 * DAY_MS, Kind.profile, index, 2),
      followCount: r.int(100, 90_000, Kind.profile, index, 3),
      subscriberCount: r.int(10, 5_000, Kind.profile, index, 4),
      accountMediaLikes: r.int(100, 200_000, Kind.profile, index, 5),
      postLikes: r.int(100, 100_000, Kind.profile, index, 6),
      imageCount: r.int(20, 900, Kind.profile, index, 7),
      videoCount: r.int(0, 300, Kind.profile, index, 8),
      bundleCount: r.int(0, 40, Kind.profile, index, 9),
      isCreator: true,
      subscriptionTiers: tiers,
      walls,
      pinnedPosts: [],
      streamingLive: r.chance(0.1, Kind.profile, index, 10),
      version: r.int(1, 9, Kind.profile, index, 11),
      fetchedAt: this.anchorMs,
    });
  }
}
