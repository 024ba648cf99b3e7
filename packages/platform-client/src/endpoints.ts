// Every upstream path and method the gateway uses, in ONE place: the protocol map in
// shared/spec/upstream-protocol.md was read from public client code, never checked against the live
// platform, so a correction must be a one-line change here (and the matching line in apps/platform-sim,
// which follows docs/upstream-decisions.md).

/** Every upstream path lives under this prefix; the request signature covers it (upstream-protocol.md). */
export const API_PREFIX = '/api/v1';

export interface EndpointDef {
  readonly method: 'GET' | 'POST';
  /** Path under {@link API_PREFIX}; `:name` segments are filled from `params`. */
  readonly path: string;
  /** Sends the session headers (`authorization`, `fansly-session-id`). */
  readonly auth: boolean;
  /**
   * Changes platform state, or consumes a one-time token, so repeating it after an unknown outcome could
   * apply it twice (or fail in a way that hides the first success). `classify` never calls a write
   * retryable once the request may have reached the platform.
   */
  readonly write: boolean;
  /** Set when neither public source shows the call; the text says what was guessed and where it is decided. */
  readonly guess?: string;
  /** Sent to the platform's media host (`mediav2`, the client's `mediaBaseUrl`) instead of its API. */
  readonly host?: 'media';
  /**
   * What a success's `response` is, for calls through `PlatformClient.call`: anything else (null, a
   * string) is an answer the client cannot read, never an empty result.
   */
  readonly response?: 'object' | 'array';
}

export const endpoints = {
  // Sent without any fansly-* header: the device id is what those headers are computed from.
  deviceId: { method: 'GET', path: '/device/id', auth: false, write: false },
  // A repeated login only opens a second session, so a login whose answer was lost may be sent again.
  login: { method: 'POST', path: '/login', auth: false, write: false },
  // The twofa token is single-use: a blind repeat of an applied verification fails with "token expired".
  loginTwofa: { method: 'POST', path: '/login/twofa', auth: false, write: true },
  // Sends a sensitive-action one-time code (or expects one from the app): a repeat sends another.
  twofaSession: {
    method: 'POST',
    path: '/twofa/session',
    auth: true,
    write: true,
    guess:
      'inferred from its /verify sibling: body {useEmailTwoFAFallback}, response {token, type, email}: upstream-decisions.md, step-up send',
    response: 'object',
  },
  twofaSessionVerify: {
    method: 'POST',
    path: '/twofa/session/verify',
    auth: true,
    write: true,
    guess:
      'route and body {token, code} seen; response {token} usable as twofa.token once: upstream-decisions.md, step-up verify',
    response: 'object',
  },
  accountsByIds: { method: 'GET', path: '/account', auth: true, write: false, response: 'array' },
  // The same route by usernames (csv): S14 `get_creator_account_info`, S9 `getAccount`.
  accountsByUsernames: { method: 'GET', path: '/account', auth: true, write: false, response: 'array' },
  accountMe: { method: 'GET', path: '/account/me', auth: true, write: false, response: 'object' },
  accountWalls: { method: 'GET', path: '/account/walls', auth: true, write: false, response: 'object' },
  listCreate: { method: 'POST', path: '/lists', auth: true, write: true, response: 'object' },
  listItemsAdd: { method: 'POST', path: '/lists/items/add', auth: true, write: true, response: 'array' },
  listItemsRead: { method: 'GET', path: '/lists/itemsnew', auth: true, write: false, response: 'array' },
  mediaOffersByLocation: {
    method: 'GET',
    path: '/mediaoffers/location',
    auth: true,
    write: false,
    response: 'object',
  },
  messagingGroups: {
    method: 'GET',
    path: '/messaging/groups',
    auth: true,
    write: false,
    guess:
      'route and parameters seen; the filter/sort values (flags 2/4/1, sortOrder 1/2/3) inferred: upstream-decisions.md, chat list',
    response: 'object',
  },
  chatMessages: { method: 'GET', path: '/message', auth: true, write: false, response: 'object' },
  accountMediaCreate: {
    method: 'POST',
    path: '/account/media',
    auth: true,
    write: true,
    guess:
      'route and array body seen; access_type onto permissionFlags entries inferred: upstream-decisions.md, message media',
    response: 'array',
  },
  accountMediaBundleCreate: {
    method: 'POST',
    path: '/account/media/bundle',
    auth: true,
    write: true,
    guess:
      'route and body seen; access_type onto permissionFlags entries inferred: upstream-decisions.md, message media',
    response: 'object',
  },
  messageSend: { method: 'POST', path: '/message', auth: true, write: true, response: 'object' },
  messageDelete: { method: 'POST', path: '/message/delete', auth: true, write: true, response: 'object' },
  messageUnread: { method: 'GET', path: '/message/unread', auth: true, write: false, response: 'object' },
  messageLike: {
    method: 'POST',
    path: '/message/like',
    auth: true,
    write: true,
    guess: 'not in public code; body {messageId, type}, response the reaction: upstream-decisions.md',
    response: 'object',
  },
  messageUnlike: {
    method: 'POST',
    path: '/message/like/remove',
    auth: true,
    write: true,
    guess:
      'not found anywhere; by analogy with /likes/remove: body {messageId, type}, response the removed reaction: upstream-decisions.md',
    response: 'object',
  },
  groupUserSettings: {
    method: 'POST',
    path: '/groups/users/settings',
    auth: true,
    write: true,
    guess:
      'route and body keys {groupId, userSettings} seen; hidden inferred, readReceiptsEnabled not found: upstream-decisions.md, chat actions',
    response: 'object',
  },
  ignoreList: { method: 'GET', path: '/ignore', auth: true, write: false, response: 'object' },
  accountIgnore: {
    method: 'POST',
    path: '/account/ignore',
    auth: true,
    write: true,
    guess:
      'route and body {ignoredId, ignoreFlags} seen; bits 1 mute, 4 VIP inferred: upstream-decisions.md, chat actions',
    response: 'object',
  },
  tipsByAccount: {
    method: 'GET',
    path: '/tips/account',
    auth: true,
    write: false,
    guess:
      'route seen as a probe (accountIds), shape not established: query and {tips, total, totalAmount} decided in upstream-decisions.md, chat tips',
    response: 'object',
  },
  groupCreate: { method: 'POST', path: '/group', auth: true, write: true, response: 'object' },
  messageTyping: { method: 'POST', path: '/message/typing', auth: true, write: true, response: 'object' },
  postCreate: { method: 'POST', path: '/post', auth: true, write: true, response: 'object' },
  // Posts by id (csv `ids`): the posts with their media and accounts (S13 `post()`, S3 `getPostsByIds`).
  postsByIds: { method: 'GET', path: '/post', auth: true, write: false, response: 'object' },
  postsScheduled: { method: 'GET', path: '/post/scheduled', auth: true, write: false, response: 'object' },
  // One wall's page of 15 posts, `before` the oldest post id read (S13 `timeline_new`, S6 `listWallPosts`).
  timeline: {
    method: 'GET',
    path: '/timelinenew/:accountId',
    auth: true,
    write: false,
    response: 'object',
  },
  postEdit: {
    method: 'POST',
    path: '/post/:postId/edit',
    auth: true,
    write: true,
    guess:
      'not found anywhere (only the wall move /wall/postedit is seen): the create body replaces the post, response the post: upstream-decisions.md, post edit',
    response: 'object',
  },
  postDelete: { method: 'POST', path: '/post/:postId/delete', auth: true, write: true, response: 'object' },
  postScheduledCancel: {
    method: 'POST',
    path: '/post/scheduled/:postId/cancel',
    auth: true,
    write: true,
    response: 'object',
  },
  postPin: {
    method: 'POST',
    path: '/wall/postpin',
    auth: true,
    write: true,
    guess:
      'not found; by the /wall/postcreate {wallId, postId} family: body {postId, wallId}, response the post with wallId in pinWallIds: upstream-decisions.md, post pin',
    response: 'object',
  },
  subscribers: {
    method: 'GET',
    path: '/subscribers',
    auth: true,
    write: false,
    guess:
      'route and status=3 (active) seen; 4 for expired inferred: upstream-decisions.md, subscriber status',
    response: 'object',
  },
  followers: {
    method: 'GET',
    path: '/account/:accountId/followersnew',
    auth: true,
    write: false,
    response: 'object',
  },
  following: {
    method: 'GET',
    path: '/account/:accountId/following',
    auth: true,
    write: false,
    response: 'array',
  },
  earningsTransactions: {
    method: 'GET',
    path: '/account/wallets/earnings/transactions',
    auth: true,
    write: false,
    response: 'object',
  },
  earningsSummary: {
    method: 'GET',
    path: '/account/wallets/earnings',
    auth: true,
    write: false,
    response: 'object',
  },
  earningsStats: {
    method: 'GET',
    path: '/account/wallets/earnings/stats',
    auth: true,
    write: false,
    response: 'array',
  },
  earningsStatsOfFan: {
    method: 'GET',
    path: '/account/wallets/earnings/stats/accounts',
    auth: true,
    write: false,
    response: 'array',
  },
  earningsMonthlyStats: {
    method: 'GET',
    path: '/account/wallets/earnings/monthlystats',
    auth: true,
    write: false,
    response: 'array',
  },
  earningsMonthlyStatsOfFan: {
    method: 'GET',
    path: '/account/wallets/earnings/monthlystats/accounts',
    auth: true,
    write: false,
    response: 'array',
  },
  earningsByFan: {
    method: 'GET',
    path: '/account/wallets/earnings/accounts',
    auth: true,
    write: false,
    response: 'array',
  },
  earningsTransactionsOfFan: {
    method: 'GET',
    path: '/account/wallets/earnings/transactions/accounts',
    auth: true,
    write: false,
    guess:
      'route seen (S6 listFanPurchases); its cursor (the last transactionId) and its use for the split by source inferred: upstream-decisions.md, earnings by source',
    response: 'object',
  },
  accountFollow: {
    method: 'POST',
    path: '/account/:accountId/followers',
    auth: true,
    write: true,
    guess:
      'route seen (no body); the answer (the relation, the standing one on a repeat) decided: upstream-decisions.md, follow',
    response: 'object',
  },
  accountUnfollow: {
    method: 'POST',
    path: '/account/:accountId/followers/remove',
    auth: true,
    write: true,
    guess:
      'route seen; the answer (the removed relation; not followed 403 code 20) decided: upstream-decisions.md, follow',
    response: 'object',
  },
  payoutMethodDelete: {
    method: 'POST',
    path: '/payments/payoutmethod/delete',
    auth: true,
    write: true,
    response: 'object',
  },
  vaultAlbums: { method: 'GET', path: '/vault/albumsnew', auth: true, write: false, response: 'object' },
  // The media host's upload (S6 `uploadMedia`, S11 `uploadMediaFile`): create, parts to the presigned
  // URLs it answers (`PlatformClient.putPart`), complete, then its status until the media exists.
  mediaUploadCreate: {
    method: 'POST',
    path: '/media/upload/create',
    auth: true,
    write: true,
    host: 'media',
    response: 'object',
  },
  mediaUploadComplete: {
    method: 'POST',
    path: '/media/upload/complete',
    auth: true,
    write: true,
    host: 'media',
    response: 'object',
  },
  mediaUpload: {
    method: 'GET',
    path: '/media/upload/:id',
    auth: true,
    write: false,
    host: 'media',
    response: 'object',
  },
  vaultAlbumMediaAdd: {
    method: 'POST',
    path: '/vault/albums/media',
    auth: true,
    write: true,
    guess: 'route and body seen (S11); the response is not: upstream-decisions.md, vault filing',
    response: 'object',
  },
  // One page (50) of an album's items, newest first; the All album by `type=38000`, not its id.
  vaultMedia: { method: 'GET', path: '/media/vaultnew', auth: true, write: false, response: 'object' },
  profileStats: { method: 'GET', path: '/it/amoie/stats', auth: true, write: false, response: 'object' },
  vaultAlbumDelete: {
    method: 'POST',
    path: '/vault/albums/delete',
    auth: true,
    write: true,
    response: 'object',
  },
  trackingLinks: { method: 'GET', path: '/trackinglinks', auth: true, write: false, response: 'array' },
  trackingLinkUpsert: {
    method: 'POST',
    path: '/trackinglinks',
    auth: true,
    write: true,
    guess: 'not in public code; {label, description} creates, an added id updates: upstream-decisions.md',
    response: 'object',
  },
  broadcastScheduled: {
    method: 'GET',
    path: '/message/broadcast/scheduled',
    auth: true,
    write: false,
    response: 'object',
  },
  notifications: {
    method: 'GET',
    path: '/notifications',
    auth: true,
    write: false,
    guess:
      'route and its before/type query seen (S3 getNotificationsPage); the answer {notifications, aggregationData} decided: upstream-decisions.md, notifications',
    response: 'object',
  },
  broadcastSend: { method: 'POST', path: '/message/broadcast', auth: true, write: true, response: 'object' },
  broadcastScheduledUpdate: {
    method: 'POST',
    path: '/message/broadcast/scheduled/:id/update',
    auth: true,
    write: true,
    guess:
      'not found anywhere; a sibling of the scheduled list: body {content, attachments, scheduledFor}, response the scheduled broadcast: upstream-decisions.md, mass-message update',
    response: 'object',
  },
  broadcastStats: {
    method: 'GET',
    path: '/message/broadcast/stats',
    auth: true,
    write: false,
    response: 'object',
  },
  broadcastStatsDeleted: {
    method: 'GET',
    path: '/message/broadcast/stats/deleted',
    auth: true,
    write: false,
    response: 'object',
  },
  automatedMessages: {
    method: 'GET',
    path: '/message/automated',
    auth: true,
    write: false,
    response: 'array',
  },
  automatedMessageCreate: {
    method: 'POST',
    path: '/message/automated',
    auth: true,
    write: true,
    guess:
      'not found; body {triggerType, triggerMetadata, delay, cooldown, messageTemplate}, the trigger codes beyond 3 inferred, response the rule: upstream-decisions.md, automated messages',
    response: 'object',
  },
  automatedMessageDelete: {
    method: 'POST',
    path: '/message/automated/delete',
    auth: true,
    write: true,
    guess: 'not found; by the …/delete pattern: body {id}, response the deleted rule: upstream-decisions.md',
    response: 'object',
  },
} as const satisfies Record<string, EndpointDef>;

export type EndpointName = keyof typeof endpoints;

/** Endpoints reached through `PlatformClient.call` (the others have their own methods). */
export type AuthEndpointName = {
  [K in EndpointName]: (typeof endpoints)[K]['auth'] extends true ? K : never;
}[EndpointName];
