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
  },
  accountsByIds: { method: 'GET', path: '/account', auth: true, write: false },
  accountMe: { method: 'GET', path: '/account/me', auth: true, write: false },
  accountWalls: { method: 'GET', path: '/account/walls', auth: true, write: false },
  listCreate: { method: 'POST', path: '/lists', auth: true, write: true },
  listItemsAdd: { method: 'POST', path: '/lists/items/add', auth: true, write: true },
  listItemsRead: { method: 'GET', path: '/lists/itemsnew', auth: true, write: false },
  mediaOffersByLocation: { method: 'GET', path: '/mediaoffers/location', auth: true, write: false },
  messagingGroups: { method: 'GET', path: '/messaging/groups', auth: true, write: false },
  messageUnread: { method: 'GET', path: '/message/unread', auth: true, write: false },
  messageLike: {
    method: 'POST',
    path: '/message/like',
    auth: true,
    write: true,
    guess: 'not in public code; body {messageId, type}, response the reaction: upstream-decisions.md',
  },
  postCreate: { method: 'POST', path: '/post', auth: true, write: true },
  subscribers: { method: 'GET', path: '/subscribers', auth: true, write: false },
  following: { method: 'GET', path: '/account/:accountId/following', auth: true, write: false },
  earningsTransactions: {
    method: 'GET',
    path: '/account/wallets/earnings/transactions',
    auth: true,
    write: false,
  },
  payoutMethodDelete: { method: 'POST', path: '/payments/payoutmethod/delete', auth: true, write: true },
  vaultAlbums: { method: 'GET', path: '/vault/albumsnew', auth: true, write: false },
  vaultAlbumDelete: { method: 'POST', path: '/vault/albums/delete', auth: true, write: true },
  trackingLinks: { method: 'GET', path: '/trackinglinks', auth: true, write: false },
  trackingLinkUpsert: {
    method: 'POST',
    path: '/trackinglinks',
    auth: true,
    write: true,
    guess: 'not in public code; {label, description} creates, an added id updates: upstream-decisions.md',
  },
  broadcastScheduled: { method: 'GET', path: '/message/broadcast/scheduled', auth: true, write: false },
} as const satisfies Record<string, EndpointDef>;

export type EndpointName = keyof typeof endpoints;

/** Endpoints reached through `PlatformClient.call` (the others have their own methods). */
export type AuthEndpointName = {
  [K in EndpointName]: (typeof endpoints)[K]['auth'] extends true ? K : never;
}[EndpointName];
