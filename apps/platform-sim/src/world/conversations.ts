import { compareIds, decodeId, Kind, type RuntimeIds } from '../ids';
import type {
  AccountMedia,
  AccountMediaBundle,
  ChatGroupSummary,
  Message,
  MessageAttachment,
  OfferPermissions,
  UnreadMessageInteraction,
} from '../records';
import {
  ATTACHMENT_ACCOUNT_MEDIA,
  ATTACHMENT_BUNDLE,
  type ChatIndex,
  GROUP_FLAG_UNREAD,
  offerMedia,
} from './chats';
import { SUBSCRIPTION_ACTIVE } from './creator';
import type { CreatorState, DirectGroup } from './state';

/**
 * `/messaging/groups` `flags` filter bits (GUESS, docs/upstream-decisions.md, chat list; the
 * gateway's CHAT_FILTER_FLAGS): only 32 (unread) is documented. A row's `flags` carries the same
 * bits for the fan's relation to the creator.
 */
export const GROUP_FILTER_FLAGS = { vip: 1, follower: 2, subscriber: 4, unread: GROUP_FLAG_UNREAD } as const;
const KNOWN_GROUP_FLAGS = Object.values(GROUP_FILTER_FLAGS).reduce((all, bit) => all | bit, 0);
/** `sortOrder` values (GUESS): 1 newest activity first, 2 oldest first, 3 unread chats first. */
export const GROUP_SORT = { newest: 1, oldest: 2, unread: 3 } as const;

/**
 * A message the creator sends (a chat message, a broadcast): `createdAt` Unix seconds with a
 * fraction, each attachment pointing back at it, nothing read, liked or tipped yet.
 */
export function creatorMessage(
  id: string,
  groupId: string,
  senderId: string,
  content: string,
  attachments: Omit<MessageAttachment, 'messageId'>[],
  at: number,
): Message {
  return {
    id,
    type: 1,
    dataVersion: 1,
    groupId,
    senderId,
    content,
    correlationId: '0',
    createdAt: at / 1000,
    deletedAt: null,
    inReplyTo: null,
    inReplyToRoot: null,
    attachments: attachments.map((attachment) => ({ ...attachment, messageId: id })),
    embeds: [],
    interactions: [],
    likes: [],
    totalTipAmount: 0,
  };
}

/**
 * Offer permission bits (GUESS, docs/upstream-decisions.md, message media; the gateway's
 * PERMISSION_BITS): 1 price (ppv), 2 following, 4 subscription tier, 128 private list. The other
 * bits of the public sources (8 tipped, 16 follow relation, 32 purchases, 64 subscription relation)
 * are accepted and stored.
 */
/**
 * `ignoreFlags` bits of `/account/ignore` (GUESS, docs/upstream-decisions.md, chat actions; the
 * gateway's IGNORE_FLAGS): 1 mute, 2 block, 4 VIP.
 */
export const IGNORE_FLAGS = { mute: 1, block: 2, vip: 4 } as const;
export const KNOWN_IGNORE_FLAGS = Object.values(IGNORE_FLAGS).reduce((all, bit) => all | bit, 0);

export const OFFER_PERMISSION_BITS = { ppv: 1, follow: 2, subscription: 4, list: 128 } as const;

export interface ChatQuery {
  flags: number;
  sortOrder: number;
  search: string | undefined;
  subscriptionTierId: string | undefined;
}

/** A message found by id: its chat and, for a seeded one, its place in the chat. */
export interface FoundMessage {
  group: number;
  message: Message;
  /** Deleted already (a sent one keeps its record). */
  deleted: boolean;
}

/**
 * The conversations of one creator: the seeded, virtual chats of ChatIndex with what was written
 * since (sent messages, deletions, media offers) laid over them, so every read shows the writes.
 */
export class Conversations {
  constructor(
    readonly chats: ChatIndex,
    readonly state: CreatorState,
    private readonly ids: RuntimeIds,
  ) {}

  private get world() {
    return this.chats.world;
  }

  // ---- fans on the other side

  isSubscriber(fan: number): boolean {
    const index = this.world.subscriptionOfFan(fan);
    return index >= 0 && this.world.subscriptionFacts().status[index] === SUBSCRIPTION_ACTIVE;
  }

  isFollower(fan: number): boolean {
    // A follow or unfollow through POST /_sim/activity overrides the seeded relation.
    const followed = this.state.follows.get(fan);
    if (followed) return followed.following;
    return this.isSubscriber(fan) || this.world.rand.chance(0.6, Kind.fan, fan, 40);
  }

  isVip(fan: number): boolean {
    return (this.ignoreFlags(fan) & IGNORE_FLAGS.vip) !== 0;
  }

  isMuted(fan: number): boolean {
    return (this.ignoreFlags(fan) & IGNORE_FLAGS.mute) !== 0;
  }

  /** The fan's ignore flags: as written through /account/ignore, else the seeded VIP bit. */
  ignoreFlags(fan: number): number {
    const written = this.state.ignoreFlags.get(fan);
    if (written !== undefined) return written;
    return this.world.rand.chance(0.15, Kind.fan, fan, 41) ? IGNORE_FLAGS.vip : 0;
  }

  /** Every fan with an ignore flag set, as `GET /ignore` lists them. */
  ignoring(): { ignoredId: string; ignoreFlags: number }[] {
    const rows: { ignoredId: string; ignoreFlags: number }[] = [];
    for (let fan = 0; fan < this.world.fanCount; fan++) {
      const ignoreFlags = this.ignoreFlags(fan);
      if (ignoreFlags !== 0) rows.push({ ignoredId: this.world.fanId(fan), ignoreFlags });
    }
    return rows;
  }

  /** The chat with a fan, or -1 when they have none. */
  groupOfFan(fan: number): number {
    for (let group = 0; group < this.chats.groupCount; group++) {
      if (this.chats.partnerFan(group) === fan) return group;
    }
    return -1;
  }

  /**
   * Opens a direct chat with a fan who has none (POST /group). Whether the fan may be messaged is
   * the caller's check (`acceptsMessages`).
   */
  openDirect(fan: number, customName: string | null, now: number): DirectGroup {
    const id = this.ids.next(Kind.group);
    const creatorId = this.world.accountId;
    const user = (userId: string) => ({
      groupId: id,
      userId,
      type: 1,
      permissionFlags: 0,
      userSettings: { customName: userId === creatorId ? customName : null, hidden: false },
    });
    const group: DirectGroup = {
      id,
      type: 1,
      groupFlags: 0,
      groupFlagsMetadata: '{}',
      createdBy: creatorId,
      createdAt: now,
      users: [user(creatorId), user(this.world.fanId(fan))],
      permissionFlags: [],
      recipients: [],
    };
    this.state.openDirectChat(fan, group);
    return group;
  }

  /** A direct chat opened through POST /group, by its id. */
  directById(groupId: string): DirectGroup | undefined {
    for (const group of this.state.directGroups.values()) if (group.id === groupId) return group;
    return undefined;
  }

  /** A fan may be messaged when they follow or subscribe (else the platform refuses, code 99). */
  acceptsMessages(fan: number): boolean {
    return this.isFollower(fan) || this.isSubscriber(fan);
  }

  /** The chat-list row of a direct chat opened through POST /group: no message yet. */
  directSummary(fan: number, group: DirectGroup): ChatGroupSummary {
    const index = this.world.subscriptionOfFan(fan);
    return {
      account_id: this.world.accountId,
      groupId: group.id,
      partnerAccountId: this.world.fanId(fan),
      partnerUsername: this.world.fanUsername(fan),
      flags: this.relationBits(fan),
      unreadCount: 0,
      lastMessageId: '',
      lastUnreadMessageId: null,
      subscriptionTierId: index >= 0 ? this.world.subscription(index).subscriptionTierId : null,
    };
  }

  /** The opened direct chats a query selects (newest first: they have the latest activity). */
  directOrder(query: ChatQuery): [number, DirectGroup][] {
    const needle = query.search?.toLowerCase();
    return [...this.state.directGroups]
      .filter(([fan]) => {
        if ((this.relationBits(fan) & query.flags) !== query.flags) return false;
        if (
          needle !== undefined &&
          !this.world.fanUsername(fan).toLowerCase().includes(needle) &&
          !this.world.fanDisplayName(fan).toLowerCase().includes(needle)
        )
          return false;
        if (query.subscriptionTierId !== undefined) {
          const index = this.world.subscriptionOfFan(fan);
          const tier = index >= 0 ? this.world.subscription(index).subscriptionTierId : null;
          if (tier !== query.subscriptionTierId) return false;
        }
        return true;
      })
      .reverse();
  }

  isHidden(group: number): boolean {
    return this.state.hiddenGroups.has(group);
  }

  /** The creator's settings for one chat (`userSettings` of the group). */
  userSettings(group: number): { customName: null; hidden: boolean; readReceiptsEnabled: boolean } {
    return {
      customName: null,
      hidden: this.isHidden(group),
      readReceiptsEnabled: this.state.readReceipts.get(group) ?? true,
    };
  }

  /** A fan's relation bits (VIP, follower, subscriber). */
  relationBits(fan: number): number {
    return (
      (this.isVip(fan) ? GROUP_FILTER_FLAGS.vip : 0) |
      (this.isFollower(fan) ? GROUP_FILTER_FLAGS.follower : 0) |
      (this.isSubscriber(fan) ? GROUP_FILTER_FLAGS.subscriber : 0)
    );
  }

  /** The row's relation bits plus 32 when something is unread. */
  relationFlags(group: number): number {
    return (
      this.relationBits(this.chats.partnerFan(group)) |
      (this.unreadCount(group) > 0 ? GROUP_FILTER_FLAGS.unread : 0)
    );
  }

  /** Unread messages of a chat: the seeded ones and those received at run time. */
  unreadCount(group: number): number {
    return this.chats.unreadCount(group) + (this.state.receivedUnread.get(group)?.length ?? 0);
  }

  /** Received messages still unread across all chats, newest first, older than `before` when given. */
  receivedUnread(before: string | null): UnreadMessageInteraction[] {
    const messages = [...this.state.receivedUnread.values()]
      .flat()
      .filter((m) => before === null || compareIds(m.id, before) < 0)
      .sort((a, b) => compareIds(b.id, a.id));
    return messages.map((m) => ({
      messageId: m.id,
      groupId: m.groupId,
      userId: m.senderId,
      deliveredAt: m.interactions[0]?.deliveredAt ?? Math.round(m.createdAt * 1000),
      readAt: null,
      deletedAt: null,
      attachments: m.attachments,
      validMessage: true,
    }));
  }

  get receivedUnreadTotal(): number {
    let total = 0;
    for (const list of this.state.receivedUnread.values()) total += list.length;
    return total;
  }

  static knownFlags(flags: number): boolean {
    return (flags & ~KNOWN_GROUP_FLAGS) === 0;
  }

  // ---- messages

  private isDeleted(id: string): boolean {
    return this.state.deletedMessages.has(id);
  }

  /** Messages of a chat, newest first, strictly older than `before` (a message id) when given. */
  messages(group: number, before: string | null, limit: number): Message[] {
    const sent = (this.state.sentMessages.get(group) ?? [])
      .filter((m) => m.deletedAt === null && (before === null || compareIds(m.id, before) < 0))
      .reverse();
    const beforeMs = before === null ? null : (decodeId(before)?.ms ?? null);
    const seeded = this.chats
      .messages(group, beforeMs, limit + this.state.deletedMessages.size, this.state.reactions)
      .filter((m) => !this.isDeleted(m.id));
    // Sent ids are minted at run time, so they sort after every seeded one.
    return [...sent, ...seeded].slice(0, limit);
  }

  latest(group: number): Message | undefined {
    return this.messages(group, null, 1)[0];
  }

  find(id: string): FoundMessage | null {
    const sent = this.state.sentById.get(id);
    if (sent) {
      const group = this.chats.groupIndexOf(sent.groupId);
      return { group, message: sent, deleted: sent.deletedAt !== null };
    }
    const ref = decodeId(id) ? this.chats.locateMessage(id) : null;
    if (!ref) return null;
    const message = this.chats.message(ref.group, ref.position, this.state.reactions);
    const deletedAt = this.state.deletedMessages.get(id);
    return {
      group: ref.group,
      message: deletedAt === undefined ? message : { ...message, deletedAt },
      deleted: deletedAt !== undefined,
    };
  }

  send(
    group: number,
    content: string,
    attachments: Omit<MessageAttachment, 'messageId'>[],
    now: number,
  ): Message {
    const message = this.overlay(group, this.world.accountId, content, attachments, now);
    message.interactions = [
      { userId: this.world.fanId(this.chats.partnerFan(group)), deliveredAt: now + 300, readAt: null },
    ];
    return message;
  }

  /**
   * A fan's message arriving (POST /_sim/activity): laid over the chat like a sent one, and unread
   * until the creator reads it.
   */
  receive(group: number, content: string, now: number): Message {
    const fanId = this.world.fanId(this.chats.partnerFan(group));
    const message = this.overlay(group, fanId, content, [], now);
    message.interactions = [{ userId: this.world.accountId, deliveredAt: now, readAt: null }];
    this.state.addUnread(group, message);
    return message;
  }

  /** A message written at run time: its id is minted now, so it sorts after every seeded one. */
  private overlay(
    group: number,
    senderId: string,
    content: string,
    attachments: Omit<MessageAttachment, 'messageId'>[],
    now: number,
  ): Message {
    const id = this.ids.next(Kind.message);
    const message = creatorMessage(id, this.chats.groupId(group), senderId, content, attachments, now);
    this.state.addMessage(group, message);
    return message;
  }

  /** Marks a found, undeleted message deleted; answers it with deletedAt (Unix seconds). */
  delete(found: FoundMessage, now: number): Message {
    const deletedAt = Math.floor(now / 1000);
    return this.state.deleteMessage(found.message.id, deletedAt) ?? { ...found.message, deletedAt };
  }

  // ---- the chat list

  summary(group: number): ChatGroupSummary {
    const row = this.chats.summary(group);
    const latest = this.latest(group);
    const received = this.state.receivedUnread.get(group);
    return {
      ...row,
      flags: this.relationFlags(group),
      lastMessageId: latest?.id ?? '',
      unreadCount: this.unreadCount(group),
      lastUnreadMessageId: received?.at(-1)?.id ?? row.lastUnreadMessageId,
    };
  }

  /** Latest activity of a chat: its newest message still there. */
  private activity(group: number): string {
    const touched = this.state.sentMessages.has(group) || this.state.deletedMessages.size > 0;
    return touched ? (this.latest(group)?.id ?? '0') : this.chats.messageId(group, 0);
  }

  /** The chats a query selects, in its order. */
  order(query: ChatQuery): number[] {
    const needle = query.search?.toLowerCase();
    const groups: number[] = [];
    for (let group = 0; group < this.chats.groupCount; group++) {
      const flags = this.relationFlags(group);
      if ((flags & query.flags) !== query.flags) continue;
      const fan = this.chats.partnerFan(group);
      if (
        needle !== undefined &&
        !this.world.fanUsername(fan).toLowerCase().includes(needle) &&
        !this.world.fanDisplayName(fan).toLowerCase().includes(needle)
      )
        continue;
      if (query.subscriptionTierId !== undefined) {
        const index = this.world.subscriptionOfFan(fan);
        const tier = index >= 0 ? this.world.subscription(index).subscriptionTierId : null;
        if (tier !== query.subscriptionTierId) continue;
      }
      groups.push(group);
    }
    const activity = new Map(groups.map((group) => [group, this.activity(group)]));
    const newestFirst = (a: number, b: number) => compareIds(activity.get(b) ?? '0', activity.get(a) ?? '0');
    if (query.sortOrder === GROUP_SORT.oldest) return groups.sort((a, b) => newestFirst(b, a));
    if (query.sortOrder === GROUP_SORT.unread)
      return groups.sort(
        (a, b) => Number(this.unreadCount(b) > 0) - Number(this.unreadCount(a) > 0) || newestFirst(a, b),
      );
    return groups.sort(newestFirst);
  }

  // ---- media offers

  createOffer(
    mediaIndex: number,
    previewId: string | null,
    permissions: OfferPermissions,
    now: number,
  ): AccountMedia {
    const w = this.world;
    const offer: AccountMedia = {
      id: this.ids.next(Kind.accountMedia),
      accountId: w.accountId,
      mediaId: w.mediaId(mediaIndex),
      previewId,
      price: offerPrice(permissions),
      deleted: false,
      likeCount: 0,
      purchased: false,
      whitelisted: false,
      access: true,
      createdAt: now,
      saleStats: { purchased: false, purchasedAt: null, purchaseCount: 0, totalAmount: 0 },
      media: offerMedia(w, mediaIndex),
      permissions,
      whitelist: [{ accountId: w.accountId, permissionFlags: 0 }],
    };
    this.state.addOffer(offer);
    return offer;
  }

  createBundle(
    items: AccountMedia[],
    previewId: string | null,
    permissions: OfferPermissions,
    now: number,
  ): AccountMediaBundle {
    const bundle: AccountMediaBundle = {
      id: this.ids.next(Kind.bundle),
      accountId: this.world.accountId,
      previewId,
      price: offerPrice(permissions),
      purchased: false,
      whitelisted: false,
      access: true,
      deleted: false,
      likeCount: 0,
      createdAt: now,
      accountMediaIds: items.map((item) => item.id),
      bundleContent: items.map((item, pos) => ({ accountMediaId: item.id, pos })),
      permissions,
    };
    this.state.addOfferBundle(bundle);
    return bundle;
  }

  /** The offers and bundles the messages carry (the message page's sibling arrays). */
  pageMedia(messages: Message[]): {
    accountMedia: AccountMedia[];
    accountMediaBundles: AccountMediaBundle[];
  } {
    const accountMedia: AccountMedia[] = [];
    const bundles: AccountMediaBundle[] = [];
    for (const message of messages) {
      for (const attachment of message.attachments) {
        if (attachment.contentType === ATTACHMENT_ACCOUNT_MEDIA) {
          const made = this.state.offers.get(attachment.contentId);
          if (made) accountMedia.push(made);
        } else if (attachment.contentType === ATTACHMENT_BUNDLE) {
          const made = this.state.offerBundles.get(attachment.contentId);
          if (made) {
            bundles.push(made);
            for (const id of made.accountMediaIds) {
              const item = this.state.offers.get(id);
              if (item) accountMedia.push(item);
            }
          }
        }
      }
      if (this.state.sentById.has(message.id) || message.attachments.length === 0) continue;
      // A seeded message's offer: its items are the chat's offer items at its time.
      const ref = this.chats.locateMessage(message.id);
      const ms = decodeId(message.id)?.ms;
      if (!ref || ms === undefined) continue;
      for (const item of this.chats.offerItems(ref.group, ms + 1, ms - 8, 0, 8)) {
        if (item.position !== ref.position) continue;
        const record = this.chats.offerItemRecord(item);
        accountMedia.push(record.accountMedia);
        if (record.bundle && !bundles.some((b) => b.id === record.bundle?.id)) bundles.push(record.bundle);
      }
    }
    return { accountMedia, accountMediaBundles: bundles };
  }

  /** An offer or bundle of this creator, by the id a message attachment names. */
  hasContent(contentType: number, contentId: string): boolean {
    if (contentType === ATTACHMENT_ACCOUNT_MEDIA) return this.state.offers.has(contentId);
    if (contentType === ATTACHMENT_BUNDLE) return this.state.offerBundles.has(contentId);
    return false;
  }
}

/** An offer's price: the ppv price (mills) of its first rule with the price bit; 0 when free. */
function offerPrice(permissions: OfferPermissions): number {
  return (
    permissions.permissionFlags.find((rule) => (rule.flags & OFFER_PERMISSION_BITS.ppv) !== 0)?.price ?? 0
  );
}
