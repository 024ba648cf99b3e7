import { decodeId, encodeId, Kind } from '../ids';
import { CREATOR_LINES, coprimeStride, MESSAGE_LINES } from '../rand';
import type {
  AccountMedia,
  AccountMediaBundle,
  ChatGroup,
  ChatGroupSummary,
  MediaOfferItem,
  Message,
  MessageAttachment,
  Reaction,
  UnreadMessageInteraction,
} from '../records';
import type { CreatorWorld } from './creator';
import { MEDIA_VIDEO } from './creator';

/** `locationType` of a direct-message chat in media offers. */
export const LOCATION_TYPE_DIRECT_MESSAGE = 4001;
/** `flags` filter of /messaging/groups selecting chats with unread messages. */
export const GROUP_FLAG_UNREAD = 32;
export const MEDIA_OFFER_SINGLE = 1;
export const MEDIA_OFFER_BUNDLE = 2;
export const ATTACHMENT_ACCOUNT_MEDIA = 1;
export const ATTACHMENT_BUNDLE = 2;

/** Seeded chat tips: their amounts in mills (1/1000 USD). */
const TIP_AMOUNTS = [1000, 2000, 5000, 10000, 25000] as const;

/** A fan's tip in chat, as `GET /tips/account` answers it (GUESS, docs/upstream-decisions.md). */
export interface ChatTip {
  id: string;
  senderId: string;
  receiverId: string;
  /** Mills. */
  amount: number;
  messageId: string;
  /** Unix ms. */
  createdAt: number;
}

const OFFER_PRICES = [4990, 9990, 14990, 19990, 29990, 49990] as const;

export interface MessageRef {
  group: number;
  /** Position in the chat, 0 = newest. */
  position: number;
}

export interface OfferItemRef {
  group: number;
  position: number;
  pos: number;
  itemMs: number;
  mediaIndex: number;
}

interface OfferShape {
  size: number;
  paywalled: boolean;
  purchased: boolean;
  whitelisted: boolean;
  price: number;
}

/** The `media` of an account-media offer: the vault media's file and its variants. */
export function offerMedia(w: CreatorWorld, mediaIndex: number): AccountMedia['media'] {
  const info = w.mediaInfo(mediaIndex);
  return {
    id: info.id,
    type: info.type,
    mimetype: info.type === MEDIA_VIDEO ? 'video/mp4' : 'image/jpeg',
    filename: `${info.id}.${info.type === MEDIA_VIDEO ? 'mp4' : 'jpeg'}`,
    width: info.width,
    height: info.height,
    locations: w.mediaLocations(info),
    variants: w.mediaVariants(info).map((v) => ({
      id: v.id,
      type: v.type,
      mimetype: v.mimetype,
      width: v.width,
      height: v.height,
      locations: v.locations,
    })),
  };
}

/**
 * Chats (message groups) of one creator, all virtual. Message slot k = (position + start[g]) * G + g
 * gives every message of every chat a distinct place on one timeline, so the newest-first order
 * across chats is the slot order and a message id decodes straight back to (chat, position).
 */
export class ChatIndex {
  private unreadSlotsCache: Int32Array | null = null;
  private groupOrderCache: Int16Array | null = null;
  private readonly mediaStride: number;

  constructor(readonly world: CreatorWorld) {
    this.mediaStride = coprimeStride(world.mediaCount, 37);
  }

  get groupCount(): number {
    return this.world.groupCount;
  }

  groupId(group: number): string {
    return encodeId(this.world.groups.at(group), this.world.namespace, Kind.group);
  }

  groupIndexOf(id: string): number {
    const decoded = decodeId(id);
    if (!decoded || decoded.namespace !== this.world.namespace || decoded.kind !== Kind.group) return -1;
    const group = this.world.groups.indexOf(decoded.ms);
    return group >= 0 && group < this.world.groupCount ? group : -1;
  }

  length(group: number): number {
    return this.world.groupLength[group] ?? 0;
  }

  unreadCount(group: number): number {
    return this.world.groupUnread[group] ?? 0;
  }

  slot(group: number, position: number): number {
    return (position + (this.world.groupStart[group] ?? 0)) * this.world.groupCount + group;
  }

  messageMs(group: number, position: number): number {
    return this.world.messages.at(this.slot(group, position));
  }

  messageId(group: number, position: number): string {
    return encodeId(this.messageMs(group, position), this.world.namespace, Kind.message);
  }

  locateMessage(id: string): MessageRef | null {
    const decoded = decodeId(id);
    if (!decoded || decoded.namespace !== this.world.namespace || decoded.kind !== Kind.message) return null;
    const slot = this.world.messages.indexOf(decoded.ms);
    if (slot < 0) return null;
    const group = slot % this.world.groupCount;
    const position = Math.floor(slot / this.world.groupCount) - (this.world.groupStart[group] ?? 0);
    return position >= 0 && position < this.length(group) ? { group, position } : null;
  }

  partnerFan(group: number): number {
    return this.world.groupFan(group);
  }

  isUnread(group: number, position: number): boolean {
    return position < this.unreadCount(group);
  }

  /** Whether the fan (not the creator) sent the message. Unread messages are always the fan's. */
  isIncoming(group: number, position: number): boolean {
    return (
      this.isUnread(group, position) ||
      this.world.rand.chance(0.5, Kind.message, this.slot(group, position), 2)
    );
  }

  private offerShape(group: number, position: number): OfferShape {
    const r = this.world.rand;
    const slot = this.slot(group, position);
    if (this.isIncoming(group, position) || !r.chance(group < 3 ? 0.8 : 0.45, Kind.message, slot, 3)) {
      return { size: 0, paywalled: false, purchased: false, whitelisted: false, price: 0 };
    }
    const size = r.chance(0.3, Kind.mediaOffer, slot, 1) ? r.int(2, 4, Kind.mediaOffer, slot, 2) : 1;
    const paywalled = r.chance(0.55, Kind.mediaOffer, slot, 3);
    return {
      size,
      paywalled,
      purchased: paywalled && r.chance(0.4, Kind.mediaOffer, slot, 4),
      whitelisted: paywalled && r.chance(0.03, Kind.mediaOffer, slot, 5),
      price: paywalled ? r.pick(OFFER_PRICES, Kind.mediaOffer, slot, 6) : 0,
    };
  }

  /** Whether the chat holds at least one media offer. */
  hasOffers(group: number): boolean {
    for (let position = 0; position < this.length(group); position++) {
      if (this.offerShape(group, position).size > 0) return true;
    }
    return false;
  }

  /**
   * Offer items of one chat, newest first, filtered by item time bounds, then offset/limit.
   * Media are assigned along the chat so one chat never offers the same media twice.
   */
  offerItems(
    group: number,
    beforeMs: number | null,
    afterMs: number | null,
    offset: number,
    limit: number,
  ): OfferItemRef[] {
    const out: OfferItemRef[] = [];
    let counter = 0;
    let skipped = 0;
    const base = this.world.rand.int(0, this.world.mediaCount - 1, Kind.group, group, 8);
    for (let position = 0; position < this.length(group) && out.length < limit; position++) {
      const shape = this.offerShape(group, position);
      if (shape.size === 0) continue;
      const ms = this.messageMs(group, position);
      for (let pos = 0; pos < shape.size; pos++) {
        const mediaIndex = (base + counter * this.mediaStride) % this.world.mediaCount;
        counter += 1;
        const itemMs = ms - pos;
        if (afterMs !== null && itemMs <= afterMs) return out;
        if (beforeMs !== null && itemMs >= beforeMs) continue;
        if (skipped < offset) {
          skipped += 1;
          continue;
        }
        if (out.length < limit) out.push({ group, position, pos, itemMs, mediaIndex });
      }
    }
    return out;
  }

  /** Media of every item of one offer (for the bundle record). */
  private offerMediaIndexes(group: number, position: number): number[] {
    const base = this.world.rand.int(0, this.world.mediaCount - 1, Kind.group, group, 8);
    let counter = 0;
    for (let p = 0; p < position; p++) counter += this.offerShape(group, p).size;
    const size = this.offerShape(group, position).size;
    return Array.from(
      { length: size },
      (_, pos) => (base + (counter + pos) * this.mediaStride) % this.world.mediaCount,
    );
  }

  offerItemRecord(ref: OfferItemRef): {
    item: MediaOfferItem;
    accountMedia: AccountMedia;
    bundle: AccountMediaBundle | null;
  } {
    const w = this.world;
    const shape = this.offerShape(ref.group, ref.position);
    const ms = this.messageMs(ref.group, ref.position);
    const info = w.mediaInfo(ref.mediaIndex);
    const previewId = shape.paywalled ? w.mediaId((ref.mediaIndex + 1) % w.mediaCount) : null;
    const accountMediaId = encodeId(ref.itemMs, w.namespace, Kind.accountMedia);
    const bundleId = shape.size > 1 ? encodeId(ms, w.namespace, Kind.bundle) : null;
    const access = !shape.paywalled || shape.purchased || shape.whitelisted;
    // Mills, but always whole cents, so the gateway's conversion to cents stays exact.
    const itemPrice = shape.size > 1 ? Math.round(shape.price / shape.size / 10) * 10 : shape.price;
    const purchasedAt = shape.purchased
      ? ms + w.rand.int(60_000, 3 * 86_400_000, Kind.mediaOffer, this.slot(ref.group, ref.position), 7)
      : null;
    const accountMedia: AccountMedia = {
      id: accountMediaId,
      accountId: w.accountId,
      mediaId: info.id,
      previewId,
      price: itemPrice,
      deleted: false,
      likeCount: w.rand.int(0, 25, Kind.accountMedia, ref.mediaIndex, 1),
      purchased: shape.purchased,
      whitelisted: shape.whitelisted,
      access,
      createdAt: ref.itemMs,
      saleStats: {
        purchased: shape.purchased,
        purchasedAt,
        purchaseCount: shape.purchased ? 1 : 0,
        totalAmount: shape.purchased ? itemPrice : 0,
      },
      media: offerMedia(w, ref.mediaIndex),
    };
    let bundle: AccountMediaBundle | null = null;
    if (bundleId) {
      const ids = this.offerMediaIndexes(ref.group, ref.position).map((_, pos) =>
        encodeId(ms - pos, w.namespace, Kind.accountMedia),
      );
      bundle = {
        id: bundleId,
        accountId: w.accountId,
        previewId,
        price: shape.price,
        purchased: shape.purchased,
        whitelisted: shape.whitelisted,
        access,
        deleted: false,
        likeCount: w.rand.int(0, 25, Kind.bundle, this.slot(ref.group, ref.position), 1),
        createdAt: ms,
        accountMediaIds: ids,
        bundleContent: ids.map((accountMediaId, pos) => ({ accountMediaId, pos })),
      };
    }
    return {
      item: {
        id: encodeId(ref.itemMs, w.namespace, Kind.mediaOfferItem),
        mediaOfferId: encodeId(ms, w.namespace, Kind.mediaOffer),
        mediaOfferType: shape.size > 1 ? MEDIA_OFFER_BUNDLE : MEDIA_OFFER_SINGLE,
        mediaOfferBundleId: bundleId,
        mediaId: info.id,
        mediaType: info.type,
        previewId,
        accountId: w.accountId,
        locationId: this.groupId(ref.group),
        correlationId: this.messageId(ref.group, ref.position),
        locationType: LOCATION_TYPE_DIRECT_MESSAGE,
        accountMediaId,
        createdAt: ref.itemMs,
      },
      accountMedia,
      bundle,
    };
  }

  messageAttachments(group: number, position: number): MessageAttachment[] {
    const shape = this.offerShape(group, position);
    if (shape.size === 0) return [];
    const ms = this.messageMs(group, position);
    const messageId = this.messageId(group, position);
    const w = this.world;
    if (shape.size > 1) {
      return [
        {
          messageId,
          contentType: ATTACHMENT_BUNDLE,
          contentId: encodeId(ms, w.namespace, Kind.bundle),
          pos: 0,
        },
      ];
    }
    return [
      {
        messageId,
        contentType: ATTACHMENT_ACCOUNT_MEDIA,
        contentId: encodeId(ms, w.namespace, Kind.accountMedia),
        pos: 0,
      },
    ];
  }

  message(group: number, position: number, reactions: ReadonlyMap<string, Reaction>): Message {
    const w = this.world;
    const ms = this.messageMs(group, position);
    const id = encodeId(ms, w.namespace, Kind.message);
    const incoming = this.isIncoming(group, position);
    const fanId = w.fanId(this.partnerFan(group));
    const slot = this.slot(group, position);
    const reaction = reactions.get(id);
    return {
      id,
      type: 1,
      dataVersion: 1,
      groupId: this.groupId(group),
      senderId: incoming ? fanId : w.accountId,
      content: incoming
        ? w.rand.pick(MESSAGE_LINES, Kind.message, slot, 4)
        : w.rand.pick(CREATOR_LINES, Kind.message, slot, 4),
      correlationId: '0',
      createdAt: Math.floor(ms / 1000),
      deletedAt: null,
      inReplyTo: null,
      inReplyToRoot: null,
      attachments: this.messageAttachments(group, position),
      embeds: [],
      interactions: [
        {
          userId: incoming ? w.accountId : fanId,
          deliveredAt: ms + 800,
          readAt: this.isUnread(group, position)
            ? null
            : ms + w.rand.int(5_000, 3_600_000, Kind.message, slot, 5),
        },
      ],
      likes: reaction ? [reaction] : [],
      totalTipAmount: this.tipAmount(group, position),
    };
  }

  /** The tip a fan's seeded message carries, in mills: 0 for most, and for the creator's. */
  tipAmount(group: number, position: number): number {
    if (!this.isIncoming(group, position)) return 0;
    const slot = this.slot(group, position);
    const r = this.world.rand;
    return r.chance(0.12, Kind.message, slot, 20) ? r.pick(TIP_AMOUNTS, Kind.message, slot, 21) : 0;
  }

  /** The tips of one chat, newest first: one per tipped message, a second after it. */
  tips(group: number): ChatTip[] {
    const w = this.world;
    const tips: ChatTip[] = [];
    for (let position = 0; position < this.length(group); position++) {
      const amount = this.tipAmount(group, position);
      if (amount === 0) continue;
      const ms = this.messageMs(group, position);
      tips.push({
        id: encodeId(ms + 1000, w.namespace, Kind.tip),
        senderId: w.fanId(this.partnerFan(group)),
        receiverId: w.accountId,
        amount,
        messageId: encodeId(ms, w.namespace, Kind.message),
        createdAt: ms + 1000,
      });
    }
    return tips;
  }

  /** Messages of one chat, newest first, strictly older than beforeMs when given. */
  messages(
    group: number,
    beforeMs: number | null,
    limit: number,
    reactions: ReadonlyMap<string, Reaction>,
  ): Message[] {
    let lo = 0;
    const length = this.length(group);
    if (beforeMs !== null) {
      let hi = length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (this.messageMs(group, mid) >= beforeMs) lo = mid + 1;
        else hi = mid;
      }
    }
    const out: Message[] = [];
    for (let position = lo; position < length && out.length < limit; position++) {
      out.push(this.message(group, position, reactions));
    }
    return out;
  }

  /** Slots of all unread messages, ascending (newest first). */
  unreadSlots(): Int32Array {
    if (this.unreadSlotsCache) return this.unreadSlotsCache;
    const slots: number[] = [];
    for (let group = 0; group < this.groupCount; group++) {
      for (let position = 0; position < this.unreadCount(group); position++)
        slots.push(this.slot(group, position));
    }
    this.unreadSlotsCache = Int32Array.from(slots.sort((a, b) => a - b));
    return this.unreadSlotsCache;
  }

  unreadInteraction(slot: number): UnreadMessageInteraction {
    const w = this.world;
    const group = slot % this.groupCount;
    const ms = w.messages.at(slot);
    return {
      messageId: encodeId(ms, w.namespace, Kind.message),
      groupId: this.groupId(group),
      userId: w.fanId(this.partnerFan(group)),
      deliveredAt: ms + 800,
      readAt: null,
      deletedAt: null,
      attachments: [],
      validMessage: true,
    };
  }

  /** Chats ordered by their newest message, newest first. */
  groupOrder(): Int16Array {
    if (this.groupOrderCache) return this.groupOrderCache;
    const order = Array.from({ length: this.groupCount }, (_, g) => g);
    order.sort((a, b) => this.slot(a, 0) - this.slot(b, 0));
    this.groupOrderCache = Int16Array.from(order);
    return this.groupOrderCache;
  }

  summary(group: number): ChatGroupSummary {
    const w = this.world;
    const fan = this.partnerFan(group);
    const subscription = w.subscriptionOfFan(fan);
    const unread = this.unreadCount(group);
    return {
      account_id: w.accountId,
      groupId: this.groupId(group),
      partnerAccountId: w.fanId(fan),
      partnerUsername: w.fanUsername(fan),
      flags: unread > 0 ? GROUP_FLAG_UNREAD : 0,
      unreadCount: unread,
      lastMessageId: this.messageId(group, 0),
      lastUnreadMessageId: unread > 0 ? this.messageId(group, 0) : null,
      subscriptionTierId: subscription >= 0 ? w.subscription(subscription).subscriptionTierId : null,
    };
  }

  group(group: number, reactions: ReadonlyMap<string, Reaction>): ChatGroup {
    const w = this.world;
    const groupId = this.groupId(group);
    const fanId = w.fanId(this.partnerFan(group));
    const unread = this.unreadCount(group);
    const lastMessage = this.message(group, 0, reactions);
    return {
      id: groupId,
      type: 1,
      flags: unread > 0 ? GROUP_FLAG_UNREAD : 0,
      createdBy: fanId,
      createdAt: w.groups.at(group),
      users: [
        {
          groupId,
          userId: w.accountId,
          type: 1,
          permissionFlags: 0,
          lastReadMessageId: unread < this.length(group) ? this.messageId(group, unread) : null,
        },
        { groupId, userId: fanId, type: 1, permissionFlags: 0, lastReadMessageId: lastMessage.id },
      ],
      lastMessageId: lastMessage.id,
      lastMessage,
    };
  }
}
