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
  twofaSessionVerify: {
    method: 'POST',
    path: '/twofa/session/verify',
    auth: true,
    write: true,
    guess: 'response {token} usable as twofa.token: upstream-decisions.md, step-up verify',
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
  subscribers: { method: 'GET', path: '/subscribers', auth: true, write: false, response: 'object' },
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
  payoutMethodDelete: {
    method: 'POST',
    path: '/payments/payoutmethod/delete',
    auth: true,
    write: true,
    response: 'object',
  },
  vaultAlbums: { method: 'GET', path: '/vault/albumsnew', auth: true, write: false, response: 'object' },
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
