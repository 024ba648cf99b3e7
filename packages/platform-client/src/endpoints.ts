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
  /**
   * Set when neither public source shows the call: what was guessed, and what docs/upstream-decisions.md
   * decides for it (both printed in docs/upstream.md, where the endpoint is marked GUESS).
   */
  readonly guess?: { readonly summary: string; readonly decided: string };
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
    guess: {
      summary:
        'inferred from its /verify sibling: body {useEmailTwoFAFallback}, response {token, type, email}: upstream-decisions.md, step-up send',
      decided: `Behind \`POST /{accountId}/twofa/session\`. Only its \`/verify\` sibling is seen; the route follows from it and from APIFansly's own. Decided: the body is \`{useEmailTwoFAFallback}\` and the answer the challenge \`{token, type, email}\` (\`type\` 0 authenticator app, 2 e-mailed code with the masked \`email\`), shaped like the login challenge. An account without a second factor is refused (403 code 20), answered 409. Each call sends a code, so the gateway asks at most once per account per 60 s (429 with \`Retry-After\` otherwise).`,
    },
    response: 'object',
  },
  twofaSessionVerify: {
    method: 'POST',
    path: '/twofa/session/verify',
    auth: true,
    write: true,
    guess: {
      summary:
        'route and body {token, code} seen; response {token} usable as twofa.token once: upstream-decisions.md, step-up verify',
      decided: `Behind \`POST /{accountId}/twofa/session/verify\` and the step-up of \`DELETE /{accountId}/payout/delete\`. The route and its body \`{token, code}\` are seen (\`mode\` is passed through when given); the answer is decided: \`{token}\`, which the deletion takes once as \`twofa.token\` with the same code. An unknown challenge is 404, an expired one 400 code 3, a wrong code 400 code 2 (the challenge stays usable), an account without a second factor 403 code 20. The gateway answers the token as its Step-up grant (\`sug_\` + the token, 10 minutes, one use, the verifying account only). A deletion of an account that has a second factor, sent without \`twofa\`, is 400 code 4, which the gateway answers 409 naming the two steps; an unknown, spent or expired grant is 400 code 3, answered 409.`,
    },
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
    guess: {
      summary:
        'route and parameters seen; the filter/sort values (flags 2/4/1, sortOrder 1/2/3) inferred: upstream-decisions.md, chat list',
      decided: `Behind \`GET /{accountId}/chats\`. The route and its parameters are seen; the values of the contract's filter and sort are inferred. Decided: \`filter\` all → \`flags=0\`, followers → 2, subscribers → 4 (the broadcast audience bits), vips → 1 (no public bit; this gateway's choice); \`sort\` newest → \`sortOrder=1\`, oldest → 2, unread → 3. A row's \`flags\` carries the same bits for the fan's relation (32 = unread). One table each side: \`CHAT_FILTER_FLAGS\`/\`CHAT_SORT_ORDER\` in packages/operations/src/chats-list/operation.ts and \`GROUP_FILTER_FLAGS\`/\`GROUP_SORT\` in apps/platform-sim/src/world/conversations.ts.`,
    },
    response: 'object',
  },
  chatMessages: { method: 'GET', path: '/message', auth: true, write: false, response: 'object' },
  accountMediaCreate: {
    method: 'POST',
    path: '/account/media',
    auth: true,
    write: true,
    guess: {
      summary:
        'route and array body seen; access_type onto permissionFlags entries inferred: upstream-decisions.md, message media',
      decided: `The media offer of \`POST /{accountId}/chats/{chatId}/messages\` with one media (the message then attaches it as \`contentType\` 1). The route and the array body are seen; how the contract's media permissions become rules is inferred. Decided: \`permissions.permissionFlags\` holds one \`{type: 0, flags, price, metadata, validAfter?, validBefore?}\` per rule, ORed; a rule's conditions combine in \`flags\`: ppv 1 (with \`price\` in mills, round(dollars × 1000), and metadata \`{"1": "{\\"price\\":…}"}\`), follow 2, subscription 4 (metadata \`subscriptionTierId\` when given), list 128 (metadata \`listId\`, \`label\`), limited_time no bit, only the window. No rule: free. Offer-level \`permissionFlags\` and \`price\` are 0, and only the creator is whitelisted. The bits live in \`PERMISSION_BITS\` (packages/operations/src/common/media-permissions.ts) and \`OFFER_PERMISSION_BITS\` (apps/platform-sim/src/world/conversations.ts).`,
    },
    response: 'array',
  },
  accountMediaBundleCreate: {
    method: 'POST',
    path: '/account/media/bundle',
    auth: true,
    write: true,
    guess: {
      summary:
        'route and body seen; access_type onto permissionFlags entries inferred: upstream-decisions.md, message media',
      decided: `The media offer of a message with several media (attached as \`contentType\` 2, its id the bundle's). Body \`{previewId: null, permissionFlags: 0, price: 0, accountMediaModels: [{mediaId, previewId, permissionFlags: 0, price: 0, whitelist}], whitelist, permissions, tags: []}\`, answered \`{accountMediaBundles: [{id, …}], accountMedia}\`; the rules as for \`accountMediaCreate\`.`,
    },
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
    guess: {
      summary: 'not in public code; body {messageId, type}, response the reaction: upstream-decisions.md',
      decided: `Behind \`POST /{accountId}/messages/like\`. Decided: the body is \`{messageId, type}\` (type 1 is a standard like) and the answer is the reaction \`{id, accountId, messageId, type, groupId}\`. A message that is not in one of the creator's chats is 404.`,
    },
    response: 'object',
  },
  messageUnlike: {
    method: 'POST',
    path: '/message/like/remove',
    auth: true,
    write: true,
    guess: {
      summary:
        'not found anywhere; by analogy with /likes/remove: body {messageId, type}, response the removed reaction: upstream-decisions.md',
      decided: `Behind \`POST /{accountId}/messages/unlike\`. Not found in any public source; by analogy with post likes (\`POST /likes/remove\`). Decided: \`POST /message/like/remove\` with \`{messageId, type}\`, answered by the removed reaction \`{id, accountId, messageId, type, groupId}\`. A message that is not in one of the creator's chats, or that has no reaction of that type, is 404.`,
    },
    response: 'object',
  },
  groupUserSettings: {
    method: 'POST',
    path: '/groups/users/settings',
    auth: true,
    write: true,
    guess: {
      summary:
        'route and body keys {groupId, userSettings} seen; hidden inferred, readReceiptsEnabled not found: upstream-decisions.md, chat actions',
      decided: `Behind \`POST /{accountId}/chats/{chatId}/hide\` and \`POST /{accountId}/chats/{chatId}/readreceipts\`. The route and its body keys \`{groupId, userSettings}\` are seen; \`hidden\` is inferred, the read-receipt field is not found anywhere. Decided: the body carries only the settings to change (\`{hidden: true}\`, \`{readReceiptsEnabled: true|false}\`), merged into the chat's current settings, and the answer is \`{groupId, userSettings: {customName, hidden, readReceiptsEnabled}}\`. A hidden chat leaves \`/messaging/groups\`; an unknown chat is 404.`,
    },
    response: 'object',
  },
  ignoreList: { method: 'GET', path: '/ignore', auth: true, write: false, response: 'object' },
  accountIgnore: {
    method: 'POST',
    path: '/account/ignore',
    auth: true,
    write: true,
    guess: {
      summary:
        'route and body {ignoredId, ignoreFlags} seen; bits 1 mute, 4 VIP inferred: upstream-decisions.md, chat actions',
      decided: `Behind \`POST /{accountId}/chats/mute\`, \`/chats/unmute\` and \`/chats/{fanId}/vip\`. The route and its body \`{ignoredId, ignoreFlags}\` are seen; the bits are inferred. Decided: \`ignoreFlags\` is the fan's whole bitmask, 1 mute, 2 block, 4 VIP, so the gateway reads the current flags from \`GET /ignore?noAggregation=true\` (\`{ignoring: [{ignoredId, ignoreFlags}]}\`) and writes them back with only its bit changed; the answer is \`{ignoredId, ignoreFlags}\`. A VIP fan's chat row carries the list's VIP bit (\`flags\` 1). An unknown fan is 404. One table each side: \`IGNORE_FLAGS\` in packages/operations/src/common/ignore.ts and apps/platform-sim/src/world/conversations.ts.`,
    },
    response: 'object',
  },
  tipsByAccount: {
    method: 'GET',
    path: '/tips/account',
    auth: true,
    write: false,
    guess: {
      summary:
        'route seen as a probe (accountIds), shape not established: query and {tips, total, totalAmount} decided in upstream-decisions.md, chat tips',
      decided: `Behind \`GET /{accountId}/chats/{fanId}/tips\`. The route appears only as a probe with \`accountIds\`; its shape is not established. Decided: \`accountIds\` names one fan, paged by \`limit\`/\`offset\`, newest first; the answer is \`{tips: [{id, senderId, receiverId, amount, messageId, createdAt}], total, totalAmount}\`, \`amount\` and \`totalAmount\` in mills, \`createdAt\` in Unix ms, \`total\` the number of tips. The gateway answers \`totalAmount\` as the contract's \`total\`. A fan who is not the creator's is 404.`,
    },
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
    guess: {
      summary:
        'not found anywhere (only the wall move /wall/postedit is seen): the create body replaces the post, response the post: upstream-decisions.md, post edit',
      decided: `Behind \`POST /{accountId}/posts/{postId}\` (update). Only the wall move \`POST /wall/postedit {postId, wallIds}\` is seen; a full edit is not. Decided: \`POST /post/{postId}/edit\` with the body of \`POST /post\`, which replaces the post (a field left out is cleared), answered by the post with the same id, creation time and counts. A future \`scheduledFor\` moves a post still scheduled, 0 publishes it; an unknown post is 404; a deleted or cancelled post, or a new \`scheduledFor\` for a published post, is 403 code 20, which the gateway answers 409.`,
    },
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
    guess: {
      summary:
        'not found; by the /wall/postcreate {wallId, postId} family: body {postId, wallId}, response the post with wallId in pinWallIds: upstream-decisions.md, post pin',
      decided: `Behind \`POST /{accountId}/posts/{postId}/pin\`. Posts carry \`pinWallIds\` (seen in \`POST /post\`); no per-wall pin call is found. Decided: \`POST /wall/postpin {postId, wallId}\`, named after the seen \`/wall/postcreate {wallId, postId}\`, answered by the post with \`wallId\` in \`pinWallIds\` and \`pinned\` 1; pinning again changes nothing. An unknown post or wall is 404; a post not published on that wall is 403 code 20, which the gateway answers 409.`,
    },
    response: 'object',
  },
  subscribers: {
    method: 'GET',
    path: '/subscribers',
    auth: true,
    write: false,
    guess: {
      summary:
        'route and status=3 (active) seen; 4 for expired inferred: upstream-decisions.md, subscriber status',
      decided: `Behind \`GET /{accountId}/subscribers\`. \`status=3\` (active) is seen; the code of an ended subscription is not. Decided: \`status\` takes a csv of codes, 4 is expired, so the contract's \`active\` asks \`3\`, \`expired\` \`4\` and \`all\` \`3,4\`; \`stats\` count every subscription of the creator whatever the filter. One table: \`SUBSCRIPTION_STATUS_CODES\` in packages/operations/src/subscribers/operation.ts (the sandbox's \`SUBSCRIPTION_EXPIRED\` in apps/platform-sim/src/world/creator.ts).`,
    },
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
    guess: {
      summary:
        'route seen (S6 listFanPurchases); its cursor (the last transactionId) and its use for the split by source inferred: upstream-decisions.md, earnings by source',
      decided: `Behind \`GET /{accountId}/earnings/fans/{fanId}/stats\`. The route and its answer \`{data: [{transactionId, transactionType, transactionAmount, amount, status, createdAt}], hasMore}\` are seen (S6 \`listFanPurchases\`); the platform's own split by source is not established. Decided: \`cursor\` is the last \`transactionId\` read (0 for the newest), \`limit\` at most 100, and the gateway sums the fan's transactions per \`transactionType\` (gross \`transactionAmount\`, net \`amount\`, mills), labelled from one table, \`REVENUE_SOURCES\` in packages/operations/src/earnings-fan-stats/operation.ts: 15001 subscription, 2110 media, 2116 bundle, 7101 tip, anything else other.`,
    },
    response: 'object',
  },
  accountFollow: {
    method: 'POST',
    path: '/account/:accountId/followers',
    auth: true,
    write: true,
    guess: {
      summary:
        'route seen (no body); the answer (the relation, the standing one on a repeat) decided: upstream-decisions.md, follow',
      decided: `Behind \`POST /{accountId}/follow/{targetUserId}\`. The route (no body) is seen; its answer is not. Decided: the relation \`{id, followerId, accountId, createdAt}\`, and for an account already followed the standing relation unchanged. So the gateway reads the creator's following list (\`GET /account/{id}/following\`) before it follows, to answer 201 for a new relation and 200 for one that stood. An unknown account is 404; the creator itself 400 code 10 (the gateway refuses it first).`,
    },
    response: 'object',
  },
  accountUnfollow: {
    method: 'POST',
    path: '/account/:accountId/followers/remove',
    auth: true,
    write: true,
    guess: {
      summary:
        'route seen; the answer (the removed relation; not followed 403 code 20) decided: upstream-decisions.md, follow',
      decided: `Behind \`POST /{accountId}/unfollow/{targetUserId}\`. The route is seen; its answer is not. Decided: the removed relation \`{id, followerId, accountId, createdAt}\`; an account the creator does not follow is 403 code 20, which the gateway answers 409 \`CONFLICT\`; an unknown account is 404.`,
    },
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
    guess: {
      summary: 'route and body seen (S11); the response is not: upstream-decisions.md, vault filing',
      decided: `The last step of \`POST /{accountId}/media/upload\`: the uploaded media filed in the vault's All album (type 38000), since uploads can otherwise be missing from the vault (S11). The route and body \`{albumId, mediaIds}\` are seen; the answer is not. Decided: \`{albumId, mediaIds}\`; the album's \`itemCount\` grows and its \`lastItemId\` is the new media; an unknown album or media is 404.`,
    },
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
    guess: {
      summary: 'not in public code; {label, description} creates, an added id updates: upstream-decisions.md',
      decided: `Behind both \`POST\` (create) and \`PUT\` (update) \`/{accountId}/tracking-links\`. Decided: one endpoint, \`POST /trackinglinks\`; a body without \`id\` (\`{label, description}\`) creates a link and answers it, a body with \`id\` (\`{id, label?, description?}\`) updates that link and answers it in full, counters included. The default link (type 1) cannot be edited: 403.`,
    },
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
    guess: {
      summary:
        'route and its before/type query seen (S3 getNotificationsPage); the answer {notifications, aggregationData} decided: upstream-decisions.md, notifications',
      decided: `Read by the listener after any gap in a realtime connection, to find what its frames would have told (upstream-extended.md 2.4, note 6). The route and its \`before\` (a notification id) and \`type\` (csv) query are seen; the answer is not. Decided: \`{notifications: [{id, type, accountId, correlationId, correlationGroupId, createdAt}], aggregationData: {tips, subscriptions, follows, orders}}\`, newest first, \`type\` = service × 1000 + N (7001 tip, 15006 new subscriber, 15007 expired subscription, 3002 follow, 3003 unfollow, 2007/2008 media purchase), \`correlationId\` the id (an order's \`orderId\`) of the record in \`aggregationData\` that the realtime event carried.`,
    },
    response: 'object',
  },
  broadcastSend: { method: 'POST', path: '/message/broadcast', auth: true, write: true, response: 'object' },
  broadcastScheduledUpdate: {
    method: 'POST',
    path: '/message/broadcast/scheduled/:id/update',
    auth: true,
    write: true,
    guess: {
      summary:
        'not found anywhere; a sibling of the scheduled list: body {content, attachments, scheduledFor}, response the scheduled broadcast: upstream-decisions.md, mass-message update',
      decided: `Behind \`PUT /{accountId}/mass-messaging/scheduled/{scheduledMessageId}\`. Not found in any public source (the platform's own documentation says scheduled broadcasts can be edited). Decided: \`POST /message/broadcast/scheduled/{id}/update\` with \`{content, attachments, scheduledFor}\`, replacing the text, the media and the time (the audience group stays), answered by the scheduled broadcast with \`version\` increased. A scheduled time not in the future, or more than 180 days ahead, is 400 code 10; an unknown id is 404; one already sent is 403 code 20, which the gateway answers 409.`,
    },
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
    guess: {
      summary:
        'not found; body {triggerType, triggerMetadata, delay, cooldown, messageTemplate}, the trigger codes beyond 3 inferred, response the rule: upstream-decisions.md, automated messages',
      decided: `Behind \`POST /{accountId}/automated-messages\`. The list (\`GET /message/automated\`) and trigger code 3 (a new subscription) are seen; the create route and the other codes are not. Decided: body \`{triggerType, triggerMetadata, delay, cooldown, messageTemplate: {type: 1, content, attachments, senderId}}\`, answered by the new rule. \`triggerType\` disabled 0, new_follower 1, new_subscriber 3, subscriber_renew 4, new_gift_link_subscriber 5, new_gift_link_subscriber_renew 6, new_tip 7 (a code with no name here is answered as \`unknown\`); \`triggerMetadata\` JSON text \`{subscriptionStreak}\` (renewals) or \`{tipAmount (mills), keywords}\` (new_tip); \`delay\` and \`cooldown\` in seconds. Media are an offer made first (\`accountMediaCreate\`) and attached to the template. A second rule for a trigger other than disabled is refused (403 code 20), answered 409 \`CONFLICT\`. One table each side: \`AUTOMATION_TRIGGERS\` in packages/operations/src/common/automated-message.ts and \`AUTOMATION_TRIGGER_CODES\` in apps/platform-sim/src/world/automations.ts.`,
    },
    response: 'object',
  },
  automatedMessageDelete: {
    method: 'POST',
    path: '/message/automated/delete',
    auth: true,
    write: true,
    guess: {
      summary:
        'not found; by the …/delete pattern: body {id}, response the deleted rule: upstream-decisions.md',
      decided: `Behind \`DELETE /{accountId}/automated-messages/{automatedMessageId}\`. Not found in any public source; by the \`…/delete\` pattern of \`/message/delete\` and \`/vault/albums/delete\`. Decided: \`POST /message/automated/delete\` with \`{id}\`, answered by the deleted rule, which the gateway passes on as its record. An unknown rule, or one already deleted, is 404.`,
    },
    response: 'object',
  },
} as const satisfies Record<string, EndpointDef>;

export type EndpointName = keyof typeof endpoints;

/** Endpoints reached through `PlatformClient.call` (the others have their own methods). */
export type AuthEndpointName = {
  [K in EndpointName]: (typeof endpoints)[K]['auth'] extends true ? K : never;
}[EndpointName];
