/**
 * Wire records the sandbox serves, field for field the record tables of gateway-api.md, in the
 * platform's units (docs/upstream-decisions.md): money in mills except subscription prices in
 * cents; post/message createdAt in Unix seconds; every other time in Unix ms.
 */

export interface Session {
  id: string;
  token: string;
  accountId: string;
  deviceId: string | null;
  status: number;
  ip: string;
  metadata: null;
  checkToken: null;
  createdAt: number;
  lastUsedAt: number;
}

export interface MediaLocation {
  locationId: string;
  location: string;
}

export interface ProfileWall {
  id: string;
  accountId: string;
  pos: number;
  name: string;
  description: string;
  private: number;
  metadata: string;
  mainWall: boolean;
  defaultWall: boolean;
}
export type Wall = ProfileWall;

export interface TierPromo {
  id: string;
  price: number;
  description: string;
}
export interface TierPlan {
  id: string;
  billingCycle: number;
  price: number;
  promos: TierPromo[];
}
export interface SubscriptionTier {
  id: string;
  name: string;
  color: string;
  pos: number;
  price: number;
  plans: TierPlan[];
}

export interface AvatarMedia {
  id: string;
  mimetype: string;
  location: string;
  width: number;
  height: number;
  variants: { id: string; mimetype: string; location: string; width: number; height: number }[];
}

export interface PlatformProfile {
  id: string;
  username: string;
  displayName: string;
  about: string;
  location: string;
  flags: number;
  version: number;
  statusId: number;
  profileAccessFlags: number;
  profileFlags: number;
  createdAt: number;
  lastSeenAt: number;
  followCount: number;
  subscriberCount: number;
  accountMediaLikes: number;
  postLikes: number;
  permissions: { accountPermissionFlags: { flags: number } };
  mediaStoryState: { accountId: string; status: number; storyCount: number; hasActiveStories: boolean };
  timelineStats: {
    accountId: string;
    imageCount: number;
    videoCount: number;
    bundleCount: number;
    fetchedAt: number;
  };
  profileSocials: { providerId: string; handle: string }[];
  profileBadges: { badgeId: string; badgeType: number; badgeDescription: string; metadata: string }[];
  pinnedPosts: { postId: string; pos: number; createdAt: number }[];
  subscriptionTiers: SubscriptionTier[];
  avatar: AvatarMedia;
  banner: Omit<AvatarMedia, 'variants'>;
  hasMainWall: boolean;
  walls: ProfileWall[];
  streaming: { accountId: string; enabled: boolean; channel: { status: number; playbackUrl: string } };
  profileAccess: boolean;
}

export interface Subscription {
  id: string;
  historyId: string;
  subscriberId: string;
  subscriptionTierId: string;
  subscriptionTierName: string;
  subscriptionTierColor: string;
  planId: string;
  promoId: string;
  giftCodeId: string | null;
  paymentMethodId: string;
  status: number;
  price: number;
  renewPrice: number;
  renewCorrelationId: string;
  autoRenew: number;
  billingCycle: number;
  duration: number;
  renewDate: number;
  version: number;
  createdAt: number;
  updatedAt: number;
  endsAt: number;
  promoPrice: number | null;
  promoDuration: number | null;
  promoStatus: number | null;
  promoStartsAt: number | null;
  promoEndsAt: number | null;
}

export interface EarningsTransaction {
  walletId: string;
  transactionId: string;
  accountId: string;
  correlationId: string;
  correlationAccountId: string;
  type: number;
  destination: number;
  amount: number;
  destinationTax: number;
  destinationAmount: number;
  newBalance: number;
  newBalance64: number;
  createdAt: number;
  updatedAt: number | null;
  status: number;
  senderId: string | null;
  receiverId: string;
}

/** What a stored media file and each of its variants have alike. */
interface MediaFile {
  id: string;
  type: number;
  status: number;
  mimetype: string;
  flags: number;
  filename: string;
  location: string;
  width: number;
  height: number;
  metadata: string;
  updatedAt: number;
}

export interface MediaVariant extends MediaFile {
  locations: MediaLocation[];
}

export interface VaultMedia extends MediaFile {
  accountId: string;
  createdAt: number;
  variants: MediaVariant[];
  variantHash: Record<string, string>;
  locations: MediaLocation[];
}

export interface VaultAlbum {
  id: string;
  accountId: string;
  pos: number;
  title: string;
  description: string | null;
  type: number | null;
  status: number;
  itemCount: number;
  lastItemId: string;
  version: number;
  createdAt: number;
  lastSyncAt?: number;
  deletedAt?: number;
}

/** One media filed in a vault album (`/media/vaultnew` albumMedia[]); `createdAt` is when it was filed. */
export interface AlbumMediaItem {
  id: string;
  mediaId: string;
  mediaType: number;
  albumId: string;
  accountId: string;
  createdAt: number;
  customFilename: string | null;
}

export interface MediaOfferItem {
  id: string;
  mediaOfferId: string;
  mediaOfferType: number;
  mediaOfferBundleId: string | null;
  mediaId: string;
  mediaType: number;
  previewId: string | null;
  accountId: string;
  locationId: string;
  correlationId: string;
  locationType: number;
  accountMediaId: string;
  createdAt: number;
}

export interface AccountMedia {
  id: string;
  accountId: string;
  mediaId: string;
  previewId: string | null;
  price: number;
  deleted: boolean;
  likeCount: number;
  purchased: boolean;
  whitelisted: boolean;
  access: boolean;
  createdAt: number;
  saleStats: { purchased: boolean; purchasedAt: number | null; purchaseCount: number; totalAmount: number };
  /** The offer's access rules (offers made through POST /account/media). */
  permissions?: OfferPermissions;
  whitelist?: { accountId: string; permissionFlags: number }[];
  media: {
    id: string;
    type: number;
    mimetype: string;
    filename: string;
    width: number;
    height: number;
    locations: MediaLocation[];
    variants: {
      id: string;
      type: number;
      mimetype: string;
      width: number;
      height: number;
      locations: MediaLocation[];
    }[];
  };
}

export interface AccountMediaBundle {
  id: string;
  accountId: string;
  previewId: string | null;
  price: number;
  purchased: boolean;
  whitelisted: boolean;
  access: boolean;
  deleted: boolean;
  likeCount: number;
  createdAt: number;
  accountMediaIds: string[];
  bundleContent: { accountMediaId: string; pos: number }[];
  /** The offer's access rules (offers made through POST /account/media/bundle). */
  permissions?: OfferPermissions;
}

/**
 * One access rule of a media offer (GUESS: docs/upstream-decisions.md, message media): `flags`
 * combines its conditions (1 price, 2 following, 4 subscription tier, 128 list), `price` in mills on
 * a rule with bit 1, `metadata` JSON text keyed by bit, a time window in Unix ms. Rules are ORed.
 */
export interface OfferPermissionEntry {
  type: number;
  flags: number;
  price: number;
  metadata: string;
  validAfter?: number;
  validBefore?: number;
}

export interface OfferPermissions {
  permissionFlags: OfferPermissionEntry[];
}

export interface MessageAttachment {
  messageId: string;
  contentType: number;
  contentId: string;
  pos: number;
}

export interface Reaction {
  id: string;
  accountId: string;
  messageId: string;
  type: number;
  groupId: string;
  createdAt: number;
}

export interface UnreadMessageInteraction {
  messageId: string;
  groupId: string;
  userId: string;
  deliveredAt: number;
  readAt: number | null;
  deletedAt: number | null;
  attachments: MessageAttachment[];
  validMessage: boolean;
}

export interface Message {
  id: string;
  type: number;
  dataVersion: number;
  groupId: string;
  senderId: string;
  content: string;
  correlationId: string;
  /** Unix seconds; a sent message's has a fraction. */
  createdAt: number;
  /** Unix seconds, set once deleted. */
  deletedAt: number | null;
  inReplyTo: string | null;
  inReplyToRoot: string | null;
  attachments: MessageAttachment[];
  embeds: unknown[];
  interactions: { userId: string; deliveredAt: number; readAt: number | null }[];
  likes: Reaction[];
  /** Mills. */
  totalTipAmount: number;
}

export interface ChatList {
  id: string;
  accountId: string;
  type: number;
  label: string;
  description: string;
  itemCount: number;
  createdAt: number;
  version: number;
}

export interface ListMember {
  id: string;
  sortId: string;
  listId: string;
  type: number;
  metadata: string;
}

export interface PostReplyRule {
  id: string;
  postId: string;
  flags: number;
  type: number;
  metadata: string;
}

export interface PostAttachment {
  contentType: number;
  contentId: string;
  pos: number;
  postId: string;
}

/**
 * Who may open a post's media, one entry per access type (GUESS, docs/upstream-decisions.md: the
 * public sources do not show the platform's field names). `type`: 1 ppv, 2 subscription, 3 follow,
 * 4 list, 5 limited time; `price` in mills, only on the ppv entry.
 */
export interface PostAccessPermission {
  type: number;
  price?: number;
}

export interface Post {
  id: string;
  accountId: string;
  content: string;
  fypFlags: number;
  inReplyTo: string | null;
  quotedPostId: string | null;
  replyPermissionFlags: number;
  postReplyPermissionFlags: PostReplyRule[];
  expiresAt: number;
  scheduledFor: number;
  attachments: PostAttachment[];
  /** Empty: the media is free to everyone who sees the post. */
  accessPermissions: PostAccessPermission[];
  /** A vault media shown in place of restricted media; null when none. */
  previewId: string | null;
  wallIds: string[];
  pinWallIds: string[];
  pinned: number;
  mediaLikeCount: number;
  totalTipAmount: number;
  attachmentTipAmount: number;
  accountMentions: { accountId: string; handle: string }[];
  likeCount: number;
  replyCount: number;
  createdAt: number;
  /** Unix ms; set once the post is deleted (POST /post/{id}/delete), after which reads leave it out. */
  deletedAt?: number;
}

/**
 * An entry of GET /post/scheduled: a post created (or edited) with a future `scheduledFor`. `status`
 * 1 is still to be published (seen: FBuddy counts those); 2 published and 3 cancelled are the
 * sandbox's codes (docs/upstream-decisions.md, posts).
 */
export interface PostSchedule {
  id: string;
  postId: string;
  accountId: string;
  status: number;
  /** Unix ms. */
  scheduledFor: number;
  /** Unix ms. */
  createdAt: number;
}

export interface PayoutMethod {
  id: string;
  accountId: string;
  providerId: string;
  type: number;
  flags: number;
  status: number;
  metadata: string;
  version: number;
  createdAt: number;
  deletedAt: number | null;
}

export interface TrackingLink {
  id: string;
  accountId: string;
  internalId: number;
  type: number;
  status: number;
  label: string;
  description: string;
  metadata: string;
  createdAt: number;
  updatedAt: number;
  clicks: number;
  claims: number;
  follows: number;
  subscriptions: number;
  totalNet: number;
  totalGross: number;
}

export interface ScheduledBroadcastMessage {
  id: string;
  groupId: string;
  accountId: string;
  status: number;
  messageTemplate: string;
  version: number;
  scheduledFor: number;
  createdAt: number;
}

export interface RecipientGroup {
  id: string;
  type: number;
  groupFlags: number;
  groupFlagsMetadata: string;
  createdBy: string;
  users: {
    groupId: string;
    userId: string;
    type: number;
    permissionFlags: number;
    userSettings: { customName: string | null; hidden: boolean };
  }[];
  permissionFlags: { groupId: string; type: number; flags: number; metadata: string }[];
  recipients: { groupId: string; recipientId: string; type: number; permissionFlags: number | null }[];
}

export interface ChatGroupSummary {
  /** The creator whose inbox this is (their platform account id). */
  account_id: string;
  groupId: string;
  partnerAccountId: string;
  partnerUsername: string;
  flags: number;
  unreadCount: number;
  lastMessageId: string;
  lastUnreadMessageId: string | null;
  subscriptionTierId: string | null;
}

export interface ChatGroup {
  id: string;
  type: number;
  flags: number;
  createdBy: string;
  createdAt: number;
  users: {
    groupId: string;
    userId: string;
    type: number;
    permissionFlags: number;
    lastReadMessageId: string | null;
  }[];
  lastMessageId: string;
  lastMessage: Message;
}

/**
 * A notification (GUESS: `GET /notifications`, the (9,1) realtime event): `type` = service * 1000 +
 * N (7001 tip, 15006 new subscriber, 15007 expired subscription, 3002 follow, 3003 unfollow, 2007
 * media purchase); `correlationId` names the record, `accountId` the feed owner (the creator).
 */
export interface PlatformNotification {
  id: string;
  type: number;
  accountId: string;
  correlationId: string;
  correlationGroupId: string | null;
  /** Unix ms. */
  createdAt: number;
}

/** A follow (realtime (3,2)/(3,3)): the unfollow reuses the follow's id. */
export interface FollowRecord {
  id: string;
  followerId: string;
  accountId: string;
  /** Unix ms. */
  createdAt: number;
}

/** A media purchase (realtime (2,7) `order`): `accountMediaId` is the offer's attachment `contentId`. */
export interface MediaOrder {
  orderId: string;
  accountMediaId: string;
  /** The seller (the creator). */
  correlationAccountId: string;
  /** The buyer (the fan). */
  accountId: string;
  /** 1 one item, 2 a whole bundle. */
  type: number;
  orderMetadata: string | null;
  /** Unix ms. */
  createdAt: number;
}
