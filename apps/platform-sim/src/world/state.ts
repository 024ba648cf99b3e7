import { compareIds, encodeId, Kind, type RuntimeIds } from '../ids';
import { CREATOR_LINES, coprimeStride, modularInverse } from '../rand';
import type {
  AccountMedia,
  AccountMediaBundle,
  ChatList,
  FollowRecord,
  ListMember,
  Message,
  PayoutMethod,
  PlatformNotification,
  Post,
  PostSchedule,
  Reaction,
  RecipientGroup,
  ScheduledBroadcastMessage,
  Subscription,
  TrackingLink,
  VaultAlbum,
  Wall,
} from '../records';
import {
  AUDIENCE_FLAGS,
  type AudienceSpec,
  BROADCAST_STATUS_SCHEDULED,
  broadcastGroup,
  type SentBroadcast,
  seedSentBroadcasts,
} from './broadcasts';
import { type CreatorWorld, DAY_MS, HOUR_MS, MINUTE_MS } from './creator';
import { emptyFollowingChanges } from './following';
import { Posts, seedPosts } from './posts';

export const ALBUM_TYPE_ALL = 38000;
export const ALBUM_TYPE_POSTS = 1000;
export const ALBUM_TYPE_MESSAGES = 5000;
export const STANDARD_ALBUM_TYPES: readonly number[] = [
  ALBUM_TYPE_ALL,
  ALBUM_TYPE_POSTS,
  ALBUM_TYPE_MESSAGES,
];
export const LIST_TYPE_CUSTOM = 1;
export const LIST_ITEM_TYPE_ACCOUNT = 1;
export const TRACKING_LINK_DEFAULT = 1;
export const TRACKING_LINK_CUSTOM = 2;
export const PAYOUT_STATUS_ACTIVE = 1;
export const PAYOUT_STATUS_DELETED = 3;

const WALL_NAMES = ['Posts', 'Exclusive', 'Behind the Scenes', 'Archive'] as const;
const LIST_LABELS = ['VIP', 'Big tippers', 'New this month', 'Custom requests'] as const;
const ALBUM_TITLES = [
  'Beach trip',
  'Behind the scenes',
  'Cosplay',
  'Gym',
  'Studio shoot',
  'Travel',
  'Throwbacks',
] as const;
const LINK_LABELS = ['Twitter bio', 'Reddit promo', 'Instagram story', 'TikTok', 'Newsletter'] as const;
const BROADCAST_NAMES = [
  'Weekend promo',
  'New set teaser',
  'Renewal reminder',
  'Stream announcement',
  'Bundle sale',
] as const;

/**
 * A list and its members. Seeded members are virtual (member q is fan `(base + q*stride) % fans`,
 * its sortId on a seeded timeline), so a creator's lists cost a few numbers until something is
 * added; added members follow, with later runtime sortIds, so the whole list stays sorted by sortId.
 */
export interface ListEntry {
  list: ChatList;
  seeded: { count: number; base: number; stride: number; inverse: number; firstSortIndex: number };
  added: ListMember[];
  addedIds: Set<string>;
}

const LIST_SORT_UNIT_MS = 20 * MINUTE_MS;

/**
 * What can change in one creator's world: small collections, built from the seed on first use and
 * then mutated by writes. Reads return these objects as they are (no copies); writes replace or
 * append, so the next read shows them.
 */
/** A direct chat opened through POST /group: the group record it answered. */
export interface DirectGroup {
  id: string;
  type: number;
  groupFlags: number;
  groupFlagsMetadata: string;
  createdBy: string;
  createdAt: number;
  users: {
    groupId: string;
    userId: string;
    type: number;
    permissionFlags: number;
    userSettings: { customName: string | null; hidden: boolean };
  }[];
  permissionFlags: number[];
  recipients: never[];
}

/** A notification of activity and the record it points at (what `aggregationData` carries). */
export interface NotificationEntry {
  notification: PlatformNotification;
  /** Where the record goes in `aggregationData`: tips, subscriptions, follows or orders. */
  collection: 'tips' | 'subscriptions' | 'follows' | 'orders';
  record: unknown;
}

/** An album's media filed at run time, and what its seeded part was before the first. */
export interface FiledMedia {
  seeded: { itemCount: number; lastItemId: string };
  /** Oldest first. */
  items: { mediaId: string; filedAt: number }[];
}

export class CreatorState {
  readonly walls: Wall[] = [];
  readonly lists = new Map<string, ListEntry>();
  readonly albums = new Map<string, VaultAlbum>();
  /** Media filed into each album after the seed (uploads), by album id (`world/vault.ts`). */
  readonly filedMedia = new Map<string, FiledMedia>();
  readonly payoutMethods = new Map<string, PayoutMethod>();
  readonly trackingLinks = new Map<string, TrackingLink>();
  readonly broadcasts: ScheduledBroadcastMessage[] = [];
  readonly recipientGroups: RecipientGroup[] = [];
  /** The audience of each broadcast group, by group id (what a broadcast to it reaches). */
  readonly audiences = new Map<string, AudienceSpec>();
  /** Broadcasts that went out, newest first (seeded history, then sent ones). */
  readonly sentBroadcasts: SentBroadcast[] = [];
  /** Scheduled broadcasts whose time came: they left `broadcasts`, an edit of them is refused. */
  readonly sentScheduled = new Set<string>();
  /** Every post by id, oldest first: seeded, then created; a deleted one keeps its deletedAt. */
  readonly posts = new Map<string, Post>();
  /** The GET /post/scheduled entries, by post id (world/posts.ts). */
  readonly postSchedules = new Map<string, PostSchedule>();
  /** The creator's reaction per message id. */
  readonly reactions = new Map<string, Reaction>();
  /** Messages sent through POST /message, per chat (group index), oldest first. */
  readonly sentMessages = new Map<number, Message[]>();
  /** Every sent message by id (a deleted one keeps its deletedAt). */
  readonly sentById = new Map<string, Message>();
  /** Seeded messages deleted through POST /message/delete: id → deletedAt (Unix seconds). */
  readonly deletedMessages = new Map<string, number>();
  /** Media offers made through POST /account/media and /account/media/bundle, by id. */
  readonly offers = new Map<string, AccountMedia>();
  readonly offerBundles = new Map<string, AccountMediaBundle>();
  /** Chats hidden through POST /groups/users/settings `{hidden: true}` (group index). */
  readonly hiddenGroups = new Set<number>();
  /** Per-chat read-receipt setting through POST /groups/users/settings (group index → enabled). */
  readonly readReceipts = new Map<number, boolean>();
  /** Direct chats opened through POST /group, by fan index (a fan without a seeded chat). */
  readonly directGroups = new Map<number, DirectGroup>();
  /** Ignore flags written through POST /account/ignore, by fan index (1 mute, 4 VIP); unset: seeded. */
  readonly ignoreFlags = new Map<number, number>();
  /**
   * Fan messages received through POST /_sim/activity (also in sentMessages, the run-time overlay
   * of each chat) still unread, per chat (group index), oldest first.
   */
  readonly receivedUnread = new Map<number, Message[]>();
  /** Follows through activity, by fan index: the record (an unfollow reuses its id) and whether it stands. */
  readonly follows = new Map<number, { follow: FollowRecord; following: boolean }>();
  /** The creator's own follows and unfollows (world/following.ts), over the seeded following list. */
  readonly following = emptyFollowingChanges();
  /** The newest subscription made through activity, by fan index (what an expiry points at). */
  readonly subscriptions = new Map<number, Subscription>();
  /** Notifications of activity, oldest first (ids minted at run time, so ascending). */
  readonly notifications: NotificationEntry[] = [];
  private nextInternalId = 1;

  constructor(
    readonly world: CreatorWorld,
    private readonly ids: RuntimeIds,
  ) {
    this.seedWalls();
    this.seedLists();
    this.seedAlbums();
    this.seedPayoutMethods();
    this.seedTrackingLinks();
    this.seedBroadcasts();
    const seededPosts = seedPosts(this.world, this.walls);
    for (const post of seededPosts.posts) this.posts.set(post.id, post);
    for (const schedule of seededPosts.schedules) this.postSchedules.set(schedule.postId, schedule);
    for (const sent of seedSentBroadcasts(this)) {
      this.sentBroadcasts.push(sent);
      this.sentById.set(sent.message.id, sent.message);
    }
  }

  private get accountId(): string {
    return this.world.accountId;
  }

  private seedWalls(): void {
    const w = this.world;
    const count = w.rand.int(3, 4, Kind.wall, 0);
    for (let k = 0; k < count; k++) {
      const name = WALL_NAMES[k] ?? `Wall ${k + 1}`;
      this.walls.push({
        id: encodeId(w.identity.createdAt + (k + 1) * 1000, w.namespace, Kind.wall),
        accountId: this.accountId,
        pos: k,
        name,
        description: k === 0 ? 'Everything I post' : `${name} content`,
        private: k === 3 ? 1 : 0,
        metadata: '{}',
        mainWall: k === 0,
        defaultWall: k === 0,
      });
    }
  }

  private seedLists(): void {
    const w = this.world;
    const count = w.rand.int(3, 4, Kind.list, 0);
    let firstSortIndex = 0;
    for (let k = 0; k < count; k++) {
      const createdAt = w.anchorMs - (120 - k) * DAY_MS;
      // The first list is long enough that reading it pages.
      const size = Math.min(
        w.fanCount,
        k === 0 ? w.rand.int(60, 90, Kind.list, k, 1) : w.rand.int(10, 40, Kind.list, k, 1),
      );
      const stride = coprimeStride(w.fanCount, 7 + k);
      const list: ChatList = {
        id: encodeId(createdAt, w.namespace, Kind.list),
        accountId: this.accountId,
        type: LIST_TYPE_CUSTOM,
        label: LIST_LABELS[k] ?? `List ${k + 1}`,
        description: '',
        itemCount: size,
        createdAt,
        version: 1,
      };
      this.lists.set(list.id, {
        list,
        seeded: {
          count: size,
          base: w.rand.int(0, w.fanCount - 1, Kind.list, k, 2),
          stride,
          inverse: modularInverse(stride, w.fanCount),
          firstSortIndex,
        },
        added: [],
        addedIds: new Set(),
      });
      firstSortIndex += size;
    }
  }

  private seedAlbums(): void {
    const w = this.world;
    const standard = [
      { title: 'All', type: ALBUM_TYPE_ALL, itemCount: w.mediaCount, last: 0 },
      {
        title: 'Posts',
        type: ALBUM_TYPE_POSTS,
        itemCount: Math.round(w.mediaCount * 0.6),
        last: w.rand.int(0, 5, Kind.album, 0),
      },
      {
        title: 'Messages',
        type: ALBUM_TYPE_MESSAGES,
        itemCount: Math.round(w.mediaCount * 0.45),
        last: w.rand.int(0, 8, Kind.album, 1),
      },
    ];
    standard.forEach((album, k) => {
      const createdAt = w.identity.createdAt + (k + 1) * 1000;
      this.albums.set(encodeId(createdAt, w.namespace, Kind.album), {
        id: encodeId(createdAt, w.namespace, Kind.album),
        accountId: this.accountId,
        pos: k,
        title: album.title,
        description: null,
        type: album.type,
        status: 1,
        itemCount: album.itemCount,
        lastItemId: w.mediaId(album.last),
        version: 1,
        createdAt,
      });
    });
    const userCount = w.rand.int(4, 7, Kind.album, 2);
    for (let u = 0; u < userCount; u++) {
      const createdAt = w.anchorMs - (60 - 7 * u) * DAY_MS - w.rand.int(0, HOUR_MS, Kind.album, u, 3);
      const title = ALBUM_TITLES[u] ?? `Album ${u + 1}`;
      const id = encodeId(createdAt, w.namespace, Kind.album);
      this.albums.set(id, {
        id,
        accountId: this.accountId,
        pos: 3 + u,
        title,
        description: w.rand.chance(0.5, Kind.album, u, 4) ? `${title} collection` : null,
        type: null,
        status: 1,
        itemCount: w.rand.int(5, 40, Kind.album, u, 5),
        lastItemId: w.mediaId(w.rand.int(0, w.mediaCount - 1, Kind.album, u, 6)),
        version: w.rand.int(1, 4, Kind.album, u, 7),
        createdAt,
      });
    }
  }

  private seedPayoutMethods(): void {
    const w = this.world;
    const count = w.rand.int(2, 3, Kind.payoutMethod, 0);
    const kinds = [
      {
        type: 1,
        details: { kind: 'bank', bankName: 'Sandbox Bank', last4: '4242', country: 'US', currency: 'USD' },
      },
      {
        type: 2,
        details: { kind: 'ewallet', provider: 'Paxum', email: `${w.identity.username}@example.com` },
      },
      {
        type: 3,
        details: { kind: 'crypto', network: 'USDC', address: '0xSANDBOX000000000000000000000000000000' },
      },
    ];
    for (let p = 0; p < count; p++) {
      const createdAt = w.identity.createdAt + (30 + p * 40) * DAY_MS;
      const kind = kinds[p] ?? kinds[0];
      if (!kind) continue;
      const id = encodeId(createdAt, w.namespace, Kind.payoutMethod);
      this.payoutMethods.set(id, {
        id,
        accountId: this.accountId,
        providerId: encodeId(createdAt, w.namespace, Kind.payoutProvider),
        type: kind.type,
        flags: p === 0 ? 1 : 0,
        status: PAYOUT_STATUS_ACTIVE,
        metadata: JSON.stringify({ ...kind.details, holderName: w.identity.displayName }),
        version: 1,
        createdAt,
        deletedAt: null,
      });
    }
  }

  private seedTrackingLinks(): void {
    const w = this.world;
    const defaultCreatedAt = w.identity.createdAt + 2000;
    this.addSeededLink(
      defaultCreatedAt,
      TRACKING_LINK_DEFAULT,
      'Fansly search',
      'Default platform search link',
      0,
    );
    const count = w.rand.int(3, 5, Kind.trackingLink, 0);
    for (let l = 0; l < count; l++) {
      const createdAt = w.anchorMs - (90 - 15 * l) * DAY_MS - w.rand.int(0, HOUR_MS, Kind.trackingLink, l, 1);
      this.addSeededLink(
        createdAt,
        TRACKING_LINK_CUSTOM,
        LINK_LABELS[l] ?? `Link ${l + 1}`,
        `Traffic from ${LINK_LABELS[l] ?? 'elsewhere'}`,
        l + 1,
      );
    }
  }

  private addSeededLink(
    createdAt: number,
    type: number,
    label: string,
    description: string,
    salt: number,
  ): void {
    const w = this.world;
    const id = encodeId(createdAt, w.namespace, Kind.trackingLink);
    const clicks = w.rand.int(100, 20_000, Kind.trackingLink, salt, 2);
    const follows = Math.floor(clicks * w.rand.float(Kind.trackingLink, salt, 3) * 0.2);
    const subscriptions = Math.floor(follows * w.rand.float(Kind.trackingLink, salt, 4) * 0.5);
    const totalGross = subscriptions * 9990 + w.rand.int(0, 200, Kind.trackingLink, salt, 5) * 1000;
    this.trackingLinks.set(id, {
      id,
      accountId: this.accountId,
      internalId: this.nextInternalId++,
      type,
      status: 1,
      label,
      description,
      metadata: '{}',
      createdAt,
      updatedAt: createdAt,
      clicks,
      claims: Math.floor(follows * 0.8),
      follows,
      subscriptions,
      totalNet: Math.round(totalGross * 0.8),
      totalGross,
    });
  }

  private seedBroadcasts(): void {
    const w = this.world;
    const count = w.rand.int(3, 5, Kind.broadcast, 0);
    const lists = [...this.lists.values()];
    for (let b = 0; b < count; b++) {
      const createdAt = w.anchorMs - (5 - b) * DAY_MS + w.rand.int(0, HOUR_MS, Kind.broadcast, b, 1);
      const scheduledFor = w.anchorMs + (b + 1) * DAY_MS + w.rand.int(8, 22, Kind.broadcast, b, 2) * HOUR_MS;
      const groupId = encodeId(createdAt, w.namespace, Kind.broadcastGroup);
      const tier = w.tiers[b % w.tiers.length];
      const list = lists[b % Math.max(1, lists.length)];
      const spec: AudienceSpec = {
        groupFlags: tier ? AUDIENCE_FLAGS.renewOn | AUDIENCE_FLAGS.renewOff : AUDIENCE_FLAGS.followers,
        tierId: tier?.id ?? null,
        includeListIds: list && b % 2 === 1 ? [list.list.id] : [],
        excludeListIds: [],
        excludeUserIds: [],
      };
      this.recipientGroups.push(broadcastGroup(groupId, this.accountId, spec, BROADCAST_NAMES[b] ?? null));
      this.audiences.set(groupId, spec);
      const withMedia = b % 2 === 0;
      const template = {
        type: 1,
        attachments: withMedia ? [{ contentType: 1, contentId: w.mediaId(3 + b), pos: 0 }] : [],
        content: w.rand.pick(CREATOR_LINES, Kind.broadcast, b, 3),
        groupId,
        senderId: this.accountId,
        scheduledFor,
        clientCreatedAt: createdAt,
        gatewayMetadata: null,
      };
      this.broadcasts.push({
        id: encodeId(createdAt, w.namespace, Kind.broadcast),
        groupId,
        accountId: this.accountId,
        status: BROADCAST_STATUS_SCHEDULED,
        messageTemplate: JSON.stringify(template),
        version: 1,
        scheduledFor,
        createdAt,
      });
    }
  }

  // ---- writes

  createList(label: string, description: string): ChatList {
    const id = this.ids.next(Kind.list);
    const list: ChatList = {
      id,
      accountId: this.accountId,
      type: LIST_TYPE_CUSTOM,
      label,
      description,
      itemCount: 0,
      createdAt: Date.now(),
      version: 1,
    };
    this.lists.set(id, {
      list,
      seeded: { count: 0, base: 0, stride: 1, inverse: 1, firstSortIndex: 0 },
      added: [],
      addedIds: new Set(),
    });
    return list;
  }

  listSize(entry: ListEntry): number {
    return entry.seeded.count + entry.added.length;
  }

  listMember(entry: ListEntry, index: number): ListMember | undefined {
    const seeded = entry.seeded;
    if (index >= seeded.count) return entry.added[index - seeded.count];
    const w = this.world;
    return {
      id: w.fanId((seeded.base + index * seeded.stride) % w.fanCount),
      sortId: encodeId(
        w.anchorMs - 30 * DAY_MS + (seeded.firstSortIndex + index) * LIST_SORT_UNIT_MS,
        w.namespace,
        Kind.listItem,
      ),
      listId: entry.list.id,
      type: entry.list.type,
      metadata: '{}',
    };
  }

  /** Index of an account in a list, or -1. */
  private listIndexOf(entry: ListEntry, accountId: string): number {
    const fan = this.world.fanIndexOf(accountId);
    if (fan >= 0) {
      const n = this.world.fanCount;
      const q = Number(
        (BigInt(((fan - entry.seeded.base) % n) + n) * BigInt(entry.seeded.inverse)) % BigInt(n),
      );
      if (q < entry.seeded.count) return q;
    }
    if (!entry.addedIds.has(accountId)) return -1;
    return entry.seeded.count + entry.added.findIndex((member) => member.id === accountId);
  }

  /** Members with a sortId after `afterSortId` (exclusive), ascending. */
  listItems(entry: ListEntry, afterSortId: string | null, limit: number): ListMember[] {
    const size = this.listSize(entry);
    let start = 0;
    if (afterSortId !== null) {
      let hi = size;
      while (start < hi) {
        const mid = (start + hi) >>> 1;
        const member = this.listMember(entry, mid);
        if (member && compareIds(member.sortId, afterSortId) <= 0) start = mid + 1;
        else hi = mid;
      }
    }
    const out: ListMember[] = [];
    for (let i = start; i < size && out.length < limit; i++) {
      const member = this.listMember(entry, i);
      if (member) out.push(member);
    }
    return out;
  }

  /** Adds an account to a list; adding a member again returns the existing item. */
  addListItem(entry: ListEntry, accountId: string): ListMember {
    const existing = this.listIndexOf(entry, accountId);
    if (existing >= 0) {
      const member = this.listMember(entry, existing);
      if (member) return member;
    }
    const member: ListMember = {
      id: accountId,
      sortId: this.ids.next(Kind.listItem),
      listId: entry.list.id,
      type: entry.list.type,
      metadata: '{}',
    };
    entry.added.push(member);
    entry.addedIds.add(accountId);
    entry.list.itemCount = this.listSize(entry);
    entry.list.version += 1;
    return member;
  }

  createTrackingLink(label: string, description: string): TrackingLink {
    const now = Date.now();
    const link: TrackingLink = {
      id: this.ids.next(Kind.trackingLink),
      accountId: this.accountId,
      internalId: this.nextInternalId++,
      type: TRACKING_LINK_CUSTOM,
      status: 1,
      label,
      description,
      metadata: '{}',
      createdAt: now,
      updatedAt: now,
      clicks: 0,
      claims: 0,
      follows: 0,
      subscriptions: 0,
      totalNet: 0,
      totalGross: 0,
    };
    this.trackingLinks.set(link.id, link);
    return link;
  }

  like(messageId: string, groupId: string, type: number): Reaction {
    const existing = this.reactions.get(messageId);
    const reaction: Reaction = {
      id: existing?.id ?? this.ids.next(Kind.reaction),
      accountId: this.accountId,
      messageId,
      type,
      groupId,
      createdAt: existing?.createdAt ?? Date.now(),
    };
    this.reactions.set(messageId, reaction);
    return reaction;
  }

  /** Removes the creator's reaction of `type` from a message; null when it has none of that type. */
  unlike(messageId: string, type: number): Reaction | null {
    const existing = this.reactions.get(messageId);
    if (!existing || existing.type !== type) return null;
    this.reactions.delete(messageId);
    return existing;
  }

  mainWall(): Wall | undefined {
    return this.walls.find((wall) => wall.mainWall) ?? this.walls[0];
  }

  pinnedPosts(): { postId: string; pos: number; createdAt: number }[] {
    const pinned: { postId: string; pos: number; createdAt: number }[] = [];
    // Only published posts show on the profile: not one still scheduled, cancelled or deleted.
    const posts = new Posts(this.world, this).publishDue(Date.now());
    for (const post of this.posts.values()) {
      if (post.pinned && posts.status(post) === 'published')
        pinned.push({ postId: post.id, pos: pinned.length, createdAt: post.createdAt * 1000 });
    }
    return pinned;
  }
}
