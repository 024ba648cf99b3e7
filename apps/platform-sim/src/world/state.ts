import { compareIds, encodeId, Kind, type RuntimeIds } from '../ids';
import { coprimeStride, modularInverse } from '../rand';
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
import { type CreatorWorld, DAY_MS, HOUR_MS, MINUTE_MS } from './creator';
import { emptyFollowingChanges, Following } from './following';

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

/** The audience a broadcast group describes, in platform terms. */
export interface AudienceSpec {
  groupFlags: number;
  tierId: string | null;
  includeListIds: string[];
  excludeListIds: string[];
  excludeUserIds: string[];
}

/** Delivery counts of a sent broadcast. */
export interface BroadcastStats {
  total: number;
  delivered: number;
  read: number;
}

/** A broadcast that went out: its message, counts, and the fans it reached (seeded history: none). */
export interface SentBroadcast {
  message: Message;
  stats: BroadcastStats;
  recipientIds: string[];
}

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

/**
 * What can change in one creator's world: small collections, seeded on first use (world.ts
 * `seededState` adds the seeded broadcasts and posts) and then changed only through the methods
 * below. Reads get read-only views of them as they are (no copies), so the next read shows a write.
 */
export class CreatorState {
  readonly #walls: Wall[] = [];
  readonly #lists = new Map<string, ListEntry>();
  readonly #albums = new Map<string, VaultAlbum>();
  readonly #filedMedia = new Map<string, FiledMedia>();
  readonly #payoutMethods = new Map<string, PayoutMethod>();
  readonly #trackingLinks = new Map<string, TrackingLink>();
  readonly #broadcasts: ScheduledBroadcastMessage[] = [];
  readonly #recipientGroups: RecipientGroup[] = [];
  readonly #audiences = new Map<string, AudienceSpec>();
  readonly #sentBroadcasts: SentBroadcast[] = [];
  readonly #sentScheduled = new Set<string>();
  readonly #posts = new Map<string, Post>();
  readonly #postSchedules = new Map<string, PostSchedule>();
  readonly #reactions = new Map<string, Reaction>();
  readonly #sentMessages = new Map<number, Message[]>();
  readonly #sentById = new Map<string, Message>();
  readonly #deletedMessages = new Map<string, number>();
  readonly #offers = new Map<string, AccountMedia>();
  readonly #offerBundles = new Map<string, AccountMediaBundle>();
  readonly #hiddenGroups = new Set<number>();
  readonly #readReceipts = new Map<number, boolean>();
  readonly #directGroups = new Map<number, DirectGroup>();
  readonly #ignoreFlags = new Map<number, number>();
  readonly #receivedUnread = new Map<number, Message[]>();
  readonly #follows = new Map<number, { follow: FollowRecord; following: boolean }>();
  readonly #subscriptions = new Map<number, Subscription>();
  readonly #notifications: NotificationEntry[] = [];
  /** The accounts the creator follows: the seeded list with its own follows and unfollows. */
  readonly following: Following;
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
    this.following = new Following(world, emptyFollowingChanges(), ids);
  }

  // ---- reads: the collections as they stand, read-only (writes go through the methods below)

  get walls(): readonly Wall[] {
    return this.#walls;
  }
  get lists(): ReadonlyMap<string, ListEntry> {
    return this.#lists;
  }
  get albums(): ReadonlyMap<string, VaultAlbum> {
    return this.#albums;
  }
  /** Media filed into each album after the seed (uploads), by album id (`world/vault.ts`). */
  get filedMedia(): ReadonlyMap<string, FiledMedia> {
    return this.#filedMedia;
  }
  get payoutMethods(): ReadonlyMap<string, PayoutMethod> {
    return this.#payoutMethods;
  }
  get trackingLinks(): ReadonlyMap<string, TrackingLink> {
    return this.#trackingLinks;
  }
  /** Broadcasts still scheduled, in the order they were made. */
  get broadcasts(): readonly ScheduledBroadcastMessage[] {
    return this.#broadcasts;
  }
  get recipientGroups(): readonly RecipientGroup[] {
    return this.#recipientGroups;
  }
  /** The audience of each broadcast group, by group id (what a broadcast to it reaches). */
  get audiences(): ReadonlyMap<string, AudienceSpec> {
    return this.#audiences;
  }
  /** Broadcasts that went out, newest first (seeded history, then sent ones). */
  get sentBroadcasts(): readonly SentBroadcast[] {
    return this.#sentBroadcasts;
  }
  /** Scheduled broadcasts whose time came: they left `broadcasts`, an edit of them is refused. */
  get sentScheduled(): ReadonlySet<string> {
    return this.#sentScheduled;
  }
  /** Every post by id, oldest first: seeded, then created; a deleted one keeps its deletedAt. */
  get posts(): ReadonlyMap<string, Post> {
    return this.#posts;
  }
  /** The GET /post/scheduled entries, by post id (world/posts.ts). */
  get postSchedules(): ReadonlyMap<string, PostSchedule> {
    return this.#postSchedules;
  }
  /** The creator's reaction per message id. */
  get reactions(): ReadonlyMap<string, Reaction> {
    return this.#reactions;
  }
  /** Messages written at run time (sent, received), per chat (group index), oldest first. */
  get sentMessages(): ReadonlyMap<number, readonly Message[]> {
    return this.#sentMessages;
  }
  /** Every message written at run time and every broadcast sent, by id (a deleted one keeps its deletedAt). */
  get sentById(): ReadonlyMap<string, Message> {
    return this.#sentById;
  }
  /** Seeded messages deleted through POST /message/delete: id → deletedAt (Unix seconds). */
  get deletedMessages(): ReadonlyMap<string, number> {
    return this.#deletedMessages;
  }
  /** Media offers made through POST /account/media, by id. */
  get offers(): ReadonlyMap<string, AccountMedia> {
    return this.#offers;
  }
  /** Media bundles made through POST /account/media/bundle, by id. */
  get offerBundles(): ReadonlyMap<string, AccountMediaBundle> {
    return this.#offerBundles;
  }
  /** Chats hidden through POST /groups/users/settings `{hidden: true}` (group index). */
  get hiddenGroups(): ReadonlySet<number> {
    return this.#hiddenGroups;
  }
  /** Per-chat read-receipt setting through POST /groups/users/settings (group index → enabled). */
  get readReceipts(): ReadonlyMap<number, boolean> {
    return this.#readReceipts;
  }
  /** Direct chats opened through POST /group, by fan index (a fan without a seeded chat). */
  get directGroups(): ReadonlyMap<number, DirectGroup> {
    return this.#directGroups;
  }
  /** Ignore flags written through POST /account/ignore, by fan index (1 mute, 4 VIP); unset: seeded. */
  get ignoreFlags(): ReadonlyMap<number, number> {
    return this.#ignoreFlags;
  }
  /**
   * Fan messages received through POST /_sim/activity (also in sentMessages, the run-time overlay
   * of each chat) still unread, per chat (group index), oldest first.
   */
  get receivedUnread(): ReadonlyMap<number, readonly Message[]> {
    return this.#receivedUnread;
  }
  /** Follows through activity, by fan index: the record (an unfollow reuses its id) and whether it stands. */
  get follows(): ReadonlyMap<number, { follow: FollowRecord; following: boolean }> {
    return this.#follows;
  }
  /** The newest subscription made through activity, by fan index (what an expiry points at). */
  get subscriptions(): ReadonlyMap<number, Subscription> {
    return this.#subscriptions;
  }
  /** Notifications of activity, oldest first (ids minted at run time, so ascending). */
  get notifications(): readonly NotificationEntry[] {
    return this.#notifications;
  }

  private get accountId(): string {
    return this.world.accountId;
  }

  private seedWalls(): void {
    const w = this.world;
    const count = w.rand.int(3, 4, Kind.wall, 0);
    for (let k = 0; k < count; k++) {
      const name = WALL_NAMES[k] ?? `Wall ${k + 1}`;
      this.#walls.push({
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
      this.#lists.set(list.id, {
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
      this.#albums.set(encodeId(createdAt, w.namespace, Kind.album), {
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
      this.#albums.set(id, {
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
      this.#payoutMethods.set(id, {
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
    this.#trackingLinks.set(id, {
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
    this.#lists.set(id, {
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
    this.#trackingLinks.set(link.id, link);
    return link;
  }

  like(messageId: string, groupId: string, type: number): Reaction {
    const existing = this.#reactions.get(messageId);
    const reaction: Reaction = {
      id: existing?.id ?? this.ids.next(Kind.reaction),
      accountId: this.accountId,
      messageId,
      type,
      groupId,
      createdAt: existing?.createdAt ?? Date.now(),
    };
    this.#reactions.set(messageId, reaction);
    return reaction;
  }

  /** Removes the creator's reaction of `type` from a message; null when it has none of that type. */
  unlike(messageId: string, type: number): Reaction | null {
    const existing = this.#reactions.get(messageId);
    if (!existing || existing.type !== type) return null;
    this.#reactions.delete(messageId);
    return existing;
  }

  mainWall(): Wall | undefined {
    return this.#walls.find((wall) => wall.mainWall) ?? this.#walls[0];
  }

  // ---- broadcasts

  /** Files an audience group and what it reaches. */
  addRecipientGroup(group: RecipientGroup, spec: AudienceSpec): void {
    this.#recipientGroups.push(group);
    this.#audiences.set(group.id, spec);
  }

  scheduleBroadcast(scheduled: ScheduledBroadcastMessage): void {
    this.#broadcasts.push(scheduled);
  }

  /** Takes the scheduled broadcasts whose time came off the list; an edit of one is then refused. */
  takeDueBroadcasts(now: number): ScheduledBroadcastMessage[] {
    const due = this.#broadcasts.filter((b) => b.scheduledFor <= now);
    if (due.length === 0) return due;
    for (const scheduled of due) this.#sentScheduled.add(scheduled.id);
    const remaining = this.#broadcasts.filter((b) => b.scheduledFor > now);
    this.#broadcasts.splice(0, this.#broadcasts.length, ...remaining);
    return due;
  }

  /** A broadcast that went out goes first in the history; its message is deletable like any sent one. */
  recordSentBroadcast(sent: SentBroadcast): void {
    this.#sentBroadcasts.unshift(sent);
    this.#sentById.set(sent.message.id, sent.message);
  }

  /** Orders the history newest first again (a broadcast delivered late goes by its send time). */
  sortSentBroadcasts(): void {
    this.#sentBroadcasts.sort((a, b) => compareIds(b.message.id, a.message.id));
  }

  // ---- posts

  /** Files a post, or replaces the one of its id. */
  putPost(post: Post): void {
    this.#posts.set(post.id, post);
  }

  addPostSchedule(schedule: PostSchedule): void {
    this.#postSchedules.set(schedule.postId, schedule);
  }

  // ---- chats

  /** Lays a message written at run time (sent or received) over its chat. */
  addMessage(group: number, message: Message): void {
    const list = this.#sentMessages.get(group) ?? [];
    list.push(message);
    this.#sentMessages.set(group, list);
    this.#sentById.set(message.id, message);
  }

  /** A fan's message that arrived stays unread until the creator reads it. */
  addUnread(group: number, message: Message): void {
    const unread = this.#receivedUnread.get(group) ?? [];
    unread.push(message);
    this.#receivedUnread.set(group, unread);
  }

  /**
   * Marks a message deleted at `deletedAt` (Unix seconds): a message written at run time is answered
   * with its deletedAt set, a seeded one is remembered as deleted (undefined).
   */
  deleteMessage(id: string, deletedAt: number): Message | undefined {
    const sent = this.#sentById.get(id);
    if (sent) {
      sent.deletedAt = deletedAt;
      return sent;
    }
    this.#deletedMessages.set(id, deletedAt);
    return undefined;
  }

  addOffer(offer: AccountMedia): void {
    this.#offers.set(offer.id, offer);
  }

  addOfferBundle(bundle: AccountMediaBundle): void {
    this.#offerBundles.set(bundle.id, bundle);
  }

  openDirectChat(fan: number, group: DirectGroup): void {
    this.#directGroups.set(fan, group);
  }

  hideChat(group: number): void {
    this.#hiddenGroups.add(group);
  }

  showChat(group: number): void {
    this.#hiddenGroups.delete(group);
  }

  setReadReceipts(group: number, enabled: boolean): void {
    this.#readReceipts.set(group, enabled);
  }

  setIgnoreFlags(fan: number, flags: number): void {
    this.#ignoreFlags.set(fan, flags);
  }

  // ---- the fans' activity

  recordFollow(fan: number, follow: FollowRecord, following: boolean): void {
    this.#follows.set(fan, { follow, following });
  }

  recordSubscription(fan: number, subscription: Subscription): void {
    this.#subscriptions.set(fan, subscription);
  }

  addNotification(entry: NotificationEntry): void {
    this.#notifications.push(entry);
  }

  // ---- vault, links, payouts

  /** The media filed in an album at run time, started from its seeded part on first use. */
  filedMediaOf(album: VaultAlbum): FiledMedia {
    const filed = this.#filedMedia.get(album.id) ?? {
      seeded: { itemCount: album.itemCount, lastItemId: album.lastItemId },
      items: [],
    };
    this.#filedMedia.set(album.id, filed);
    return filed;
  }

  deleteAlbum(album: VaultAlbum, now: number): VaultAlbum {
    album.deletedAt = now;
    album.lastSyncAt = now;
    album.version += 1;
    return album;
  }

  editTrackingLink(
    link: TrackingLink,
    edit: { label: string | undefined; description: string | undefined },
    now: number,
  ): TrackingLink {
    if (edit.label !== undefined) link.label = edit.label;
    if (edit.description !== undefined) link.description = edit.description;
    link.updatedAt = now;
    return link;
  }

  deletePayoutMethod(method: PayoutMethod, now: number): PayoutMethod {
    method.status = PAYOUT_STATUS_DELETED;
    method.deletedAt = now;
    method.version += 1;
    return method;
  }
}
