// `@cg/operations/testing`: what the operations' answers are checked against, for the end-to-end
// tests: the records the answers are made of, the definitions whose whole answer schema is checked,
// and the contract's paging sizes and post rules.
export { automatedMessagesList } from './automated-messages-list/operation';
export { AccountMedia, MEDIA_STATS_PAGE_SIZE, MediaOfferItem } from './chat-media-stats/operation';
export {
  CHAT_MESSAGES_DEFAULT_LIMIT,
  CHAT_MESSAGES_MAX_LIMIT,
  chatMessages,
} from './chat-messages/operation';
export { chatsHide, HideAck } from './chats-hide/operation';
export {
  CHAT_FILTER_FLAGS,
  CHAT_SORT_ORDER,
  CHATS_DEFAULT_LIMIT,
  Chat,
  chatsList,
} from './chats-list/operation';
export { chatsMute, chatsUnmute, MuteAck } from './chats-mute/operation';
export { chatsReadReceipts, ReadReceiptsAck } from './chats-read-receipts/operation';
export { ChatTip, chatsTips, TIPS_DEFAULT_LIMIT } from './chats-tips/operation';
export { chatsTyping, TYPING_WINDOW_MS, TypingAck } from './chats-typing/operation';
export { UNREAD_PAGE_SIZE, UnreadMessageInteraction } from './chats-unread/operation';
export { chatsVip, VipAck } from './chats-vip/operation';
export {
  AUTOMATION_TRIGGERS,
  AutomatedMessage,
  UNKNOWN_TRIGGER,
} from './common/automated-message';
export { ConnectionSession } from './common/connect-result';
export { EarningsStatsRow, MonthlyStatsRow } from './common/earnings';
export { ListMember, ListMemberWithSortId } from './common/list-member';
export { ATTACHMENT_ACCOUNT_MEDIA, ATTACHMENT_BUNDLE } from './common/media-offer';
export { PERMISSION_BITS } from './common/media-permissions';
export { Message, MessageAttachment } from './common/message';
export { dollarsToMills } from './common/money';
export {
  ACCESS_PERMISSION_TYPES,
  DeletedPost,
  Post,
  PostRead,
  PostsAnswer,
  REPLY_RULES,
} from './common/post';
export { STEP_UP_GRANT_TTL_MS, StepUpGrant } from './common/step-up';
export { CreatedTrackingLink, TrackingLink } from './common/tracking-link';
export { DeletedVaultAlbum, VaultAlbum, VaultMedia } from './common/vault-album';
export { EARNINGS_DEFAULT_DAYS, EarningsStatistics, earnings } from './earnings/operation';
export { earningsFan, FanEarnings } from './earnings-fan/operation';
export { EarningsBySourceRow, earningsFanStats, REVENUE_SOURCES } from './earnings-fan-stats/operation';
export { earningsMonthly, MONTHLY_DEFAULT_MONTHS } from './earnings-monthly/operation';
export { EarningsTransaction } from './earnings-transactions/operation';
export { follow, unfollow } from './follow/operation';
export { Follower, FollowerProfile, followers } from './followers/operation';
export { FollowingEntry } from './following/operation';
export { groupCreate } from './group-create/operation';
export { List } from './lists-create/operation';
export { LIST_PAGE_SIZE } from './lists-read/operation';
export {
  massMessagesScheduled,
  RecipientGroup,
  ScheduledMassMessage,
} from './mass-messages-scheduled/operation';
export { AUDIENCE_FLAGS, massMessagesSend } from './mass-messages-send/operation';
export {
  BroadcastStatsRow,
  massMessagesStatsDeleted,
  massMessagesStatsSent,
  STATS_DEFAULT_LIMIT,
} from './mass-messages-stats/operation';
export { massMessagesUpdate } from './mass-messages-update/operation';
export { messagesUnlike, Reaction } from './messages-like/operation';

export { PayoutMethod, payoutDelete } from './payout-delete/operation';
export { postsDelete } from './posts-delete/operation';
export { postsPin } from './posts-pin/operation';
export { postsRead } from './posts-read/operation';
export { postsScheduled } from './posts-scheduled/operation';
export { postsScheduledCancel } from './posts-scheduled-cancel/operation';
export { postsUpdate } from './posts-update/operation';
export { postsWall, WALL_PAGE_SIZE } from './posts-wall/operation';
export { Wall } from './posts-walls/operation';
export { profileByUsername } from './profile-by-username/operation';
export {
  PROFILE_STATS_MAX_BUCKETS,
  ProfileStats,
  profileStats,
  StatEntry,
} from './profile-stats/operation';
export {
  SUBSCRIPTION_STATUS_CODES,
  SubscriberStats,
  Subscription,
  subscribers,
} from './subscribers/operation';
export { Supporter, TOP_SUPPORTERS_MAX, topSupporters } from './top-supporters/operation';
export { trackingLinksCreate } from './tracking-links-create/operation';
export { trackingLinksUpdate } from './tracking-links-update/operation';
export {
  OtpChallenge,
  TWOFA_SEND_SPACING_MS,
  twofaSession,
  twofaSessionVerify,
} from './twofa-session/operation';
export { vaultAlbumDelete } from './vault-album-delete/operation';
export { ALBUM_MEDIA_PAGE_SIZE, AlbumMediaItem, vaultAlbumMedia } from './vault-album-media/operation';
export { vaultAlbums } from './vault-albums/operation';
