import { invalidField, notAllowed, notFound } from '../errors';
import { decodeId } from '../ids';
import {
  bodyObject,
  queryCursorId,
  queryCursorMs,
  queryInt,
  queryLimit,
  queryOffset,
  queryString,
  requiredBodyId,
  requiredQueryString,
} from '../params';
import type { AccountMedia, AccountMediaBundle, OfferPermissions, PlatformProfile } from '../records';
import { GROUP_TYPE_BROADCAST } from '../world/broadcasts';
import { LOCATION_TYPE_DIRECT_MESSAGE } from '../world/chats';
import { Conversations, GROUP_SORT, KNOWN_IGNORE_FLAGS, OFFER_PERMISSION_BITS } from '../world/conversations';
import { fanProfile } from '../world/profiles';
import type { DirectGroup } from '../world/state';
import { createBroadcastGroup } from './broadcasts';
import { messageBody } from './message-body';
import type { ApiContext, ApiRoute } from './types';

const REACTION_TYPES = { min: 1, max: 7 } as const;

function emptyMediaOffers(): unknown {
  return { data: [], aggregationData: { accountMedia: [], accountMediaBundles: [], posts: [] } };
}

/**
 * Media the creator sent in one chat, newest first. The platform answers a second call from the
 * same account within mediaOfferGapMs with empty data ("may return no data at times").
 */
function mediaOffers(ctx: ApiContext): unknown {
  const locationId = requiredQueryString(ctx.query, 'locationId');
  const locationType = queryString(ctx.query, 'locationType');
  if (locationType !== undefined && locationType !== String(LOCATION_TYPE_DIRECT_MESSAGE))
    throw invalidField('locationType');
  const beforeMs = queryCursorMs(ctx.query, 'before');
  const afterMs = queryCursorMs(ctx.query, 'after');
  const limit = queryLimit(ctx.query);
  const offset = queryOffset(ctx.query);
  const chats = ctx.core.world.chats(ctx.creator);
  const group = chats.groupIndexOf(locationId);
  if (group < 0) throw notFound('chat');
  if (
    ctx.previousMediaOfferAt !== null &&
    ctx.now - ctx.previousMediaOfferAt < ctx.core.config.mediaOfferGapMs
  ) {
    return emptyMediaOffers();
  }
  const data: unknown[] = [];
  const accountMedia: AccountMedia[] = [];
  const bundles = new Map<string, AccountMediaBundle>();
  for (const ref of chats.offerItems(group, beforeMs, afterMs, offset, limit)) {
    const record = chats.offerItemRecord(ref);
    data.push(record.item);
    accountMedia.push(record.accountMedia);
    if (record.bundle) bundles.set(record.bundle.id, record.bundle);
  }
  return { data, aggregationData: { accountMedia, accountMediaBundles: [...bundles.values()], posts: [] } };
}

/**
 * The creator's chats, one row per fan. `flags` keeps the chats whose row has every bit asked for
 * (32 unread; GUESS: 1 VIP, 2 follower, 4 subscriber), `sortOrder` 1 newest activity first, 2 oldest,
 * 3 unread first (GUESS), `search` matches the fan's username or display name, `subscriptionTierId`
 * the fan's tier; offset paging, `total` counts every chat selected.
 */
function messagingGroups(ctx: ApiContext): unknown {
  const flags = queryInt(ctx.query, 'flags', 0, 0);
  if (!Conversations.knownFlags(flags)) throw invalidField('flags');
  const sortOrder = queryInt(ctx.query, 'sortOrder', GROUP_SORT.newest, 1);
  if (!(Object.values(GROUP_SORT) as number[]).includes(sortOrder)) throw invalidField('sortOrder');
  const limit = queryLimit(ctx.query);
  const offset = queryOffset(ctx.query);
  const world = ctx.core.world;
  const conversations = world.conversations(ctx.creator);
  const chats = conversations.chats;
  const creatorWorld = world.creator(ctx.creator);
  const reactions = world.state(ctx.creator).reactions;
  const query = {
    flags,
    sortOrder,
    search: queryString(ctx.query, 'search'),
    subscriptionTierId: queryString(ctx.query, 'subscriptionTierId'),
  };
  // A hidden chat leaves the list (its messages are kept and it is still readable by id).
  const seeded = conversations.order(query).filter((group) => !conversations.isHidden(group));
  // Chats opened through POST /group have the newest activity (unread first sorts them as read).
  const direct = conversations.directOrder(query);
  type Entry = { seeded: number } | { fan: number; group: DirectGroup };
  const seededEntries: Entry[] = seeded.map((group) => ({ seeded: group }));
  const directEntries: Entry[] = direct.map(([fan, group]) => ({ fan, group }));
  const entries =
    sortOrder === GROUP_SORT.oldest
      ? [...seededEntries, ...directEntries.reverse()]
      : sortOrder === GROUP_SORT.unread
        ? [
            ...seededEntries.filter((e) => 'seeded' in e && conversations.unreadCount(e.seeded) > 0),
            ...directEntries,
            ...seededEntries.filter((e) => 'seeded' in e && conversations.unreadCount(e.seeded) === 0),
          ]
        : [...directEntries, ...seededEntries];
  const data: unknown[] = [];
  const groups: unknown[] = [];
  const accounts: PlatformProfile[] = [];
  for (const entry of entries.slice(offset, offset + limit)) {
    if ('seeded' in entry) {
      data.push(conversations.summary(entry.seeded));
      groups.push(chats.group(entry.seeded, reactions));
      accounts.push(fanProfile(creatorWorld, chats.partnerFan(entry.seeded)));
    } else {
      data.push(conversations.directSummary(entry.fan, entry.group));
      groups.push(entry.group);
      accounts.push(fanProfile(creatorWorld, entry.fan));
    }
  }
  return { data, total: entries.length, aggregationData: { groups, accounts } };
}

/**
 * Unread message interactions across all chats, newest first; `before` is a message id, `offset`
 * skips that many after it (upstream-extended.md 2.4 note 6: `limit&offset&before`). Messages
 * received at run time are the newest, so they come first.
 */
function unreadMessages(ctx: ApiContext): unknown {
  const before = queryCursorId(ctx.query, 'before');
  const beforeMs = before === null ? null : (decodeId(before)?.ms ?? null);
  const limit = queryLimit(ctx.query);
  const conversations = ctx.core.world.conversations(ctx.creator);
  const chats = conversations.chats;
  const messages = ctx.core.world.creator(ctx.creator).messages;
  const slots = chats.unreadSlots();
  let start = 0;
  if (beforeMs !== null) {
    let hi = slots.length;
    while (start < hi) {
      const mid = (start + hi) >>> 1;
      if (messages.at(slots[mid] ?? 0) >= beforeMs) start = mid + 1;
      else hi = mid;
    }
  }
  const offset = queryOffset(ctx.query);
  const wanted = offset + limit;
  const interactions = conversations.receivedUnread(before).slice(0, wanted);
  for (let i = start; i < slots.length && interactions.length < wanted; i++) {
    interactions.push(chats.unreadInteraction(slots[i] ?? 0));
  }
  return {
    total: slots.length + conversations.receivedUnreadTotal,
    messageInteractions: interactions.slice(offset),
  };
}

/**
 * Messages of one chat, newest first, strictly older than `before` (a message id); with the offers
 * and bundles they carry (`accountMedia`, `accountMediaBundles`) and the page's tips.
 */
function chatMessages(ctx: ApiContext): unknown {
  const groupId = requiredQueryString(ctx.query, 'groupId');
  const before = queryCursorId(ctx.query, 'before');
  const limit = queryLimit(ctx.query);
  const conversations = ctx.core.world.conversations(ctx.creator);
  const group = conversations.chats.groupIndexOf(groupId);
  if (group < 0) {
    // A chat opened through POST /group holds no message yet.
    if (conversations.directById(groupId)) return emptyMessagePage();
    throw notFound('chat');
  }
  const messages = conversations.messages(group, before, limit);
  return { messages, ...conversations.pageMedia(messages), tips: [], tipGoals: [], accountMediaOrders: [] };
}

function emptyMessagePage(): unknown {
  return {
    messages: [],
    accountMedia: [],
    accountMediaBundles: [],
    tips: [],
    tipGoals: [],
    accountMediaOrders: [],
  };
}

/** Sends a message in one of the creator's chats: `{type: 1, groupId, content, attachments, ...}`. */
function sendMessage(ctx: ApiContext): unknown {
  const body = bodyObject(ctx.body);
  const groupId = requiredBodyId(body, 'groupId');
  if ((body.type ?? 1) !== 1) throw invalidField('type');
  const conversations = ctx.core.world.conversations(ctx.creator);
  const group = conversations.chats.groupIndexOf(groupId);
  // The chat is looked up first: an unknown chat is 404 whatever its body holds.
  if (group < 0) throw notFound('chat');
  const { content, attachments } = messageBody(ctx, body);
  return conversations.send(group, content, attachments, ctx.now);
}

/** Deletes a message the creator sent: `{messageId}` (FBuddy sends `id`). A fan's message is 403. */
function deleteMessage(ctx: ApiContext): unknown {
  const body = bodyObject(ctx.body);
  const messageId =
    body.messageId === undefined ? requiredBodyId(body, 'id') : requiredBodyId(body, 'messageId');
  const conversations = ctx.core.world.conversations(ctx.creator);
  const found = conversations.find(messageId);
  if (!found || found.deleted) throw notFound('message');
  if (found.message.senderId !== ctx.core.world.creator(ctx.creator).accountId)
    throw notAllowed('only your own messages can be deleted');
  return conversations.delete(found, ctx.now);
}

/** The vault media a body names, with its preview: unknown ids are 404s. */
function offerMediaOf(
  ctx: ApiContext,
  item: Record<string, unknown>,
  field: string,
): { mediaIndex: number; previewId: string | null } {
  const creatorWorld = ctx.core.world.creator(ctx.creator);
  const mediaId = item.mediaId;
  if (typeof mediaId !== 'string' || mediaId === '') throw invalidField(field);
  const previewId = item.previewId ?? null;
  if (previewId !== null && typeof previewId !== 'string') throw invalidField(field);
  const mediaIndex = creatorWorld.mediaIndexOf(mediaId);
  if (mediaIndex < 0) throw notFound('media');
  if (previewId !== null && previewId !== '' && creatorWorld.mediaIndexOf(previewId) < 0)
    throw notFound('media');
  return { mediaIndex, previewId: previewId === '' ? null : previewId };
}

const ANY_PERMISSION_BITS = 0xff;

/**
 * An offer's `permissions: {permissionFlags: [{type: 0, flags, price, metadata, validAfter?,
 * validBefore?}]}` (GUESS, docs/upstream-decisions.md, message media). A rule with the price bit
 * needs a whole positive price in mills; a tier or list its metadata names must be the creator's.
 */
function offerPermissions(ctx: ApiContext, raw: unknown): OfferPermissions {
  if (raw === undefined || raw === null) return { permissionFlags: [] };
  const rules = bodyObject(raw).permissionFlags ?? [];
  if (!Array.isArray(rules)) throw invalidField('permissions');
  const creatorWorld = ctx.core.world.creator(ctx.creator);
  const state = ctx.core.world.state(ctx.creator);
  return {
    permissionFlags: rules.map((value) => {
      const rule = bodyObject(value);
      const { type, flags } = rule;
      if (type !== 0) throw invalidField('permissions');
      if (
        typeof flags !== 'number' ||
        !Number.isInteger(flags) ||
        flags < 0 ||
        (flags & ~ANY_PERMISSION_BITS) !== 0
      )
        throw invalidField('permissions');
      const price = rule.price ?? 0;
      if (typeof price !== 'number' || !Number.isInteger(price) || price < 0)
        throw invalidField('permissions');
      if ((flags & OFFER_PERMISSION_BITS.ppv) !== 0 && price <= 0) throw invalidField('permissions');
      if ((flags & OFFER_PERMISSION_BITS.ppv) === 0 && price !== 0) throw invalidField('permissions');
      const metadataText = rule.metadata ?? '';
      if (typeof metadataText !== 'string') throw invalidField('permissions');
      let metadata: Record<string, unknown> = {};
      try {
        metadata = metadataText === '' ? {} : (JSON.parse(metadataText) as Record<string, unknown>);
      } catch {
        throw invalidField('permissions');
      }
      const meta = (bit: number): Record<string, unknown> => {
        const text = metadata[String(bit)];
        if (typeof text !== 'string') return {};
        try {
          return JSON.parse(text) as Record<string, unknown>;
        } catch {
          throw invalidField('permissions');
        }
      };
      const tierId = meta(OFFER_PERMISSION_BITS.subscription).subscriptionTierId;
      if ((flags & OFFER_PERMISSION_BITS.subscription) !== 0 && tierId !== undefined) {
        if (!creatorWorld.tiers.some((tier) => tier.id === tierId)) throw notFound('subscription tier');
      }
      if ((flags & OFFER_PERMISSION_BITS.list) !== 0) {
        const listId = meta(OFFER_PERMISSION_BITS.list).listId;
        if (typeof listId !== 'string') throw invalidField('permissions');
        if (!state.lists.has(listId)) throw notFound('list');
      }
      const window: { validAfter?: number; validBefore?: number } = {};
      for (const name of ['validAfter', 'validBefore'] as const) {
        const at = rule[name];
        if (at === undefined || at === null) continue;
        if (typeof at !== 'number' || !Number.isInteger(at) || at < 0) throw invalidField('permissions');
        window[name] = at;
      }
      return { type: 0, flags, price, metadata: metadataText, ...window };
    }),
  };
}

/** Makes account-media offers: a JSON array of `{mediaId, previewId, permissions, ...}`; answers an array. */
function createAccountMedia(ctx: ApiContext): unknown {
  const items = ctx.body;
  if (!Array.isArray(items) || items.length === 0) throw invalidField('body');
  const conversations = ctx.core.world.conversations(ctx.creator);
  // Everything is checked before anything is made, so a refused body makes nothing.
  const checked = items.map((raw) => {
    const item = bodyObject(raw);
    return { ...offerMediaOf(ctx, item, 'mediaId'), permissions: offerPermissions(ctx, item.permissions) };
  });
  return checked.map(({ mediaIndex, previewId, permissions }) =>
    conversations.createOffer(mediaIndex, previewId, permissions, ctx.now),
  );
}

/** Makes a bundle offer of several media: `{previewId, accountMediaModels[], permissions, ...}`. */
function createAccountMediaBundle(ctx: ApiContext): unknown {
  const body = bodyObject(ctx.body);
  const models = body.accountMediaModels;
  if (!Array.isArray(models) || models.length === 0) throw invalidField('accountMediaModels');
  const permissions = offerPermissions(ctx, body.permissions);
  const bundlePreview = body.previewId ?? null;
  if (bundlePreview !== null && typeof bundlePreview !== 'string') throw invalidField('previewId');
  if (bundlePreview && ctx.core.world.creator(ctx.creator).mediaIndexOf(bundlePreview) < 0)
    throw notFound('media');
  const checked = models.map((raw) => offerMediaOf(ctx, bodyObject(raw), 'accountMediaModels'));
  const conversations = ctx.core.world.conversations(ctx.creator);
  const accountMedia = checked.map(({ mediaIndex, previewId }) =>
    conversations.createOffer(mediaIndex, previewId, permissions, ctx.now),
  );
  const bundle = conversations.createBundle(accountMedia, bundlePreview || null, permissions, ctx.now);
  return { accountMediaBundles: [bundle], accountMedia };
}

/** The `{messageId, type}` of a like or an unlike: 400 code 10 naming a field that is not one. */
function reactionBody(ctx: ApiContext): { messageId: string; type: number } {
  const body = bodyObject(ctx.body);
  const messageId = requiredBodyId(body, 'messageId');
  const type = body.type;
  if (
    typeof type !== 'number' ||
    !Number.isInteger(type) ||
    type < REACTION_TYPES.min ||
    type > REACTION_TYPES.max
  ) {
    throw invalidField('type');
  }
  return { messageId, type };
}

/** GUESS endpoint (docs/upstream-decisions.md): react to a message in one of the creator's chats. */
function likeMessage(ctx: ApiContext): unknown {
  const { messageId, type } = reactionBody(ctx);
  const chats = ctx.core.world.chats(ctx.creator);
  const ref = decodeId(messageId) ? chats.locateMessage(messageId) : null;
  if (!ref) throw notFound('message');
  return ctx.core.world.state(ctx.creator).like(messageId, chats.groupId(ref.group), type);
}

/**
 * GUESS endpoint (docs/upstream-decisions.md, chat actions): the creator's settings for one chat,
 * `{groupId, userSettings: {hidden?, readReceiptsEnabled?, customName?}}`; the fields sent are merged
 * into the current ones. Answers `{groupId, userSettings}`. A hidden chat leaves `/messaging/groups`.
 */
function groupUserSettings(ctx: ApiContext): unknown {
  const body = bodyObject(ctx.body);
  const groupId = requiredBodyId(body, 'groupId');
  const settings = body.userSettings;
  if (settings === null || typeof settings !== 'object' || Array.isArray(settings))
    throw invalidField('userSettings');
  const { hidden, readReceiptsEnabled } = settings as Record<string, unknown>;
  if (hidden !== undefined && typeof hidden !== 'boolean') throw invalidField('userSettings');
  if (readReceiptsEnabled !== undefined && typeof readReceiptsEnabled !== 'boolean')
    throw invalidField('userSettings');
  const conversations = ctx.core.world.conversations(ctx.creator);
  const group = conversations.chats.groupIndexOf(groupId);
  if (group < 0) throw notFound('chat');
  const state = ctx.core.world.state(ctx.creator);
  if (hidden === true) state.hideChat(group);
  if (hidden === false) state.showChat(group);
  if (readReceiptsEnabled !== undefined) state.setReadReceipts(group, readReceiptsEnabled);
  return { groupId, userSettings: conversations.userSettings(group) };
}

/** The creator's ignore list: `{ignoring: [{ignoredId, ignoreFlags}]}`, every fan with a flag set. */
function ignoreList(ctx: ApiContext): unknown {
  return { ignoring: ctx.core.world.conversations(ctx.creator).ignoring() };
}

/**
 * GUESS endpoint (docs/upstream-decisions.md, chat actions): sets a fan's ignore flags, the whole
 * bitmask (1 mute, 2 block, 4 VIP; other bits 400 code 10). Answers `{ignoredId, ignoreFlags}`.
 */
function setIgnoreFlags(ctx: ApiContext): unknown {
  const body = bodyObject(ctx.body);
  const ignoredId = requiredBodyId(body, 'ignoredId');
  const flags = body.ignoreFlags;
  if (
    typeof flags !== 'number' ||
    !Number.isInteger(flags) ||
    flags < 0 ||
    (flags & ~KNOWN_IGNORE_FLAGS) !== 0
  )
    throw invalidField('ignoreFlags');
  const fan = ctx.core.world.creator(ctx.creator).fanIndexOf(ignoredId);
  if (fan < 0) throw notFound('account');
  ctx.core.world.state(ctx.creator).setIgnoreFlags(fan, flags);
  return { ignoredId, ignoreFlags: flags };
}

/**
 * GUESS endpoint (docs/upstream-decisions.md, chat tips): the tips one fan sent the creator in chat,
 * newest first, `accountIds` naming that one fan; `limit`/`offset`. `{tips, total, totalAmount}`:
 * the page, how many in all, and their sum in mills. A fan who is not the creator's: 404.
 */
function tipsOfAccount(ctx: ApiContext): unknown {
  const ids = requiredQueryString(ctx.query, 'accountIds').split(',');
  if (ids.length !== 1) throw invalidField('accountIds');
  const limit = queryLimit(ctx.query);
  const offset = queryOffset(ctx.query);
  const conversations = ctx.core.world.conversations(ctx.creator);
  const fan = ctx.core.world.creator(ctx.creator).fanIndexOf(ids[0] ?? '');
  if (fan < 0) throw notFound('account');
  const group = conversations.groupOfFan(fan);
  const tips = group < 0 ? [] : conversations.chats.tips(group);
  return {
    tips: tips.slice(offset, offset + limit),
    total: tips.length,
    totalAmount: tips.reduce((sum, tip) => sum + tip.amount, 0),
  };
}

/**
 * Opens a direct chat (`type` 1, the only type served): `{users: [{userId, permissionFlags: 0}] (the
 * creator and one fan), recipients: [], lastMessage: null, userSettings: null | {customName?}}` →
 * the group. The platform's code 99 ("DM permissions denied", also for a chat that already exists)
 * is answered as its forbidden action: 403 code 20. A fan who is not the creator's: 404.
 */
function createGroup(ctx: ApiContext): unknown {
  const body = bodyObject(ctx.body);
  if (body.type === GROUP_TYPE_BROADCAST) return createBroadcastGroup(ctx, body);
  if ((body.type ?? 1) !== 1) throw invalidField('type');
  const users = body.users;
  if (!Array.isArray(users) || users.length !== 2) throw invalidField('users');
  const creatorId = ctx.core.world.creator(ctx.creator).accountId;
  const ids = users.map((raw) => {
    const user = bodyObject(raw);
    if ((user.permissionFlags ?? 0) !== 0) throw invalidField('users');
    return requiredBodyId(user, 'userId');
  });
  const fanId = ids.find((id) => id !== creatorId);
  if (!ids.includes(creatorId) || fanId === undefined || ids.filter((id) => id === fanId).length !== 1)
    throw invalidField('users');
  const recipients = body.recipients ?? [];
  if (!Array.isArray(recipients) || recipients.length > 0) throw invalidField('recipients');
  const settings = body.userSettings ?? null;
  if (settings !== null && (typeof settings !== 'object' || Array.isArray(settings)))
    throw invalidField('userSettings');
  const customName = settings === null ? null : ((settings as Record<string, unknown>).customName ?? null);
  if (customName !== null && typeof customName !== 'string') throw invalidField('userSettings');
  const conversations = ctx.core.world.conversations(ctx.creator);
  const fan = ctx.core.world.creator(ctx.creator).fanIndexOf(fanId);
  if (fan < 0) throw notFound('account');
  const exists =
    conversations.groupOfFan(fan) >= 0 || ctx.core.world.state(ctx.creator).directGroups.has(fan);
  if (exists || !conversations.acceptsMessages(fan)) throw notAllowed('DM permissions denied');
  return conversations.openDirect(fan, customName, ctx.now);
}

/** Shows the typing indicator in one of the creator's chats: `{groupId}` → `{groupId}`. */
function typing(ctx: ApiContext): unknown {
  const groupId = requiredBodyId(bodyObject(ctx.body), 'groupId');
  if (ctx.core.world.chats(ctx.creator).groupIndexOf(groupId) < 0) throw notFound('chat');
  return { groupId };
}

/**
 * GUESS endpoint (docs/upstream-decisions.md): removes the creator's reaction `{messageId, type}`
 * from a message in one of their chats; answers the removed reaction. No reaction of that type: 404.
 */
function unlikeMessage(ctx: ApiContext): unknown {
  const { messageId, type } = reactionBody(ctx);
  const chats = ctx.core.world.chats(ctx.creator);
  const ref = decodeId(messageId) ? chats.locateMessage(messageId) : null;
  const state = ctx.core.world.state(ctx.creator);
  if (!ref && !state.sentById.has(messageId)) throw notFound('message');
  const removed = state.unlike(messageId, type);
  if (!removed) throw notFound('reaction');
  return removed;
}

export const chatRoutes: ApiRoute[] = [
  {
    method: 'GET',
    path: '/mediaoffers/location',
    summary:
      "Media the creator sent in one chat, newest first: `locationId` (the chat, required; not one of the creator's: 404 `chat not found`), `locationType` (`4001` if given), `before`/`after` (item ids), `limit`, `offset`; `accountId` ignored. Subject to the media-offer gap. `{data, aggregationData: {accountMedia, accountMediaBundles, posts: []}}`.",
    auth: 'session',
    mediaOffer: true,
    handler: mediaOffers,
  },
  {
    method: 'GET',
    path: '/messaging/groups',
    summary:
      "Chats, one row per fan: `flags` keeps the chats whose row has every bit asked (32 unread; **GUESS** 1 VIP, 2 follower, 4 subscriber; other bits 400 code 10), `sortOrder` 1 newest activity first (default), 2 oldest, 3 unread first (**GUESS**; else 400), `search` (part of the fan's username or display name, any case), `subscriptionTierId` (the fan's tier), `listIds` ignored; hidden chats left out; `limit`/`offset`. `{data, total, aggregationData: {groups, accounts}}`: rows (`account_id`, `flags` the fan's relation bits, `lastMessageId` the newest message still there), the number selected, the chat records and the partners' profiles, in the same order. A sent message moves its chat first; chats opened through `POST /group` come before the seeded ones (after the unread ones for `sortOrder` 3, last for 2).",
    auth: 'session',
    handler: messagingGroups,
  },
  {
    method: 'GET',
    path: '/message/unread',
    summary:
      "`{total, messageInteractions}`: unread messages across all chats, newest first; `before` = the `messageId` of the previous page's last item, `offset` skips that many more (0 by default); `total` counts every unread message.",
    auth: 'session',
    handler: unreadMessages,
  },
  {
    method: 'GET',
    path: '/message',
    summary:
      "`{messages, accountMedia, accountMediaBundles, tips, tipGoals, accountMediaOrders}` of one chat, newest first (sent messages included, deleted ones gone), the creator's reactions in `likes`; `before` = the oldest message id already read; the offers and bundles the page's messages carry; a chat opened through `POST /group` reads empty. Unknown chat: 404.",
    auth: 'session',
    handler: chatMessages,
  },
  {
    method: 'POST',
    path: '/message',
    summary:
      '`{type: 1, groupId, content, attachments: [{contentId, contentType, pos}], ...}` → the new message (`createdAt` Unix seconds with a fraction). An attachment names an offer (`contentType` 1) or a bundle (2) the creator made; unknown: 404 `media offer not found`; unknown chat: 404; blank content without attachments: 400 code 10. The chat then lists it first.',
    auth: 'session',
    write: true,
    handler: sendMessage,
  },
  {
    method: 'POST',
    path: '/message/delete',
    summary:
      "`{messageId}` (or `{id}`) → the message with `deletedAt` (Unix seconds); later reads leave it out. Unknown or already deleted: 404; a fan's message: 403 code 20.",
    auth: 'session',
    write: true,
    handler: deleteMessage,
  },
  {
    method: 'POST',
    path: '/account/media',
    summary:
      '**GUESS** (the permission rules). A JSON array of offers `[{mediaId, previewId, permissionFlags, price, whitelist, permissions: {permissionFlags: [{type: 0, flags, price, metadata, validAfter?, validBefore?}]}, tags}]` → the account media made (`id` = the offer id, `price` = the ppv rule\'s price in mills, `permissions` as sent). Rules ORed; bits 1 price (needs a whole `price` > 0 in mills; without bit 1 price must be 0), 2 following, 4 tier (`metadata` `{"4": "{\\"subscriptionTierId\\":…}"}`; unknown tier 404), 128 list (`listId` in metadata required; unknown list 404). Unknown media or preview: 404. All checked before anything is made.',
    auth: 'session',
    write: true,
    handler: createAccountMedia,
  },
  {
    method: 'POST',
    path: '/account/media/bundle',

    summary:
      '**GUESS** (the permission rules). `{previewId, accountMediaModels: [{mediaId, previewId, ...}], permissions, ...}` → `{accountMediaBundles: [bundle], accountMedia}`: one offer per media and the bundle (`id` = the bundle offer id, `accountMediaIds`, `price` in mills), rules as `/account/media`.',
    auth: 'session',
    write: true,
    handler: createAccountMediaBundle,
  },
  {
    method: 'POST',
    path: '/message/like',
    summary:
      "**GUESS.** `{messageId, type}` (`type` an integer 1-7, 1 = like; else 400 code 10) → the reaction. A message not in the creator's chats: 404. Liking again replaces the type (same reaction id).",
    auth: 'session',
    write: true,
    handler: likeMessage,
  },
  {
    method: 'POST',
    path: '/message/like/remove',
    summary:
      '**GUESS.** `{messageId, type}` (`type` an integer 1-7; else 400 code 10) → the removed reaction; later reads show the message without it. Unknown message: 404 `message not found`; no reaction of that type on it: 404 `reaction not found`.',
    auth: 'session',
    write: true,
    handler: unlikeMessage,
  },
  {
    method: 'POST',
    path: '/groups/users/settings',

    summary:
      "**GUESS.** `{groupId, userSettings: {hidden?, readReceiptsEnabled?}}` (booleans; else 400 code 10), merged into the chat's settings → `{groupId, userSettings: {customName, hidden, readReceiptsEnabled}}`. A hidden chat leaves `/messaging/groups` (its messages stay readable). Unknown chat: 404.",
    auth: 'session',
    write: true,
    handler: groupUserSettings,
  },
  {
    method: 'POST',
    path: '/group',
    summary:
      '`{users: [{userId, permissionFlags: 0}] (the creator and one fan), recipients: [], lastMessage: null, userSettings: null | {customName?}, type: 1}` (only type 1; else 400 code 10) → the new direct chat `{id, type, groupFlags, groupFlagsMetadata, createdBy, users (with userSettings), permissionFlags, recipients}`. It then heads `/messaging/groups` and reads as an empty chat in `/message`. A fan who already has a chat, or who neither follows nor subscribes: 403 code 20 `DM permissions denied` (the platform\'s code 99). A fan not the creator\'s: 404. With `type: 3`: a broadcast audience: `{type: 3, users: [{userId: <creator>, permissionFlags: 65535}, {userId, permissionFlags: 0} (excluded)…], recipients: [{recipientId: <listId>, type: 30000 (add) | 30001 (remove)}], groupFlags, groupFlagsMetadata: "" | "{\\"4\\":\\"{\\\\\\"subscriptionTierId\\\\\\":…}\\"}"}` → the group. `groupFlags`: 2 followers, 4 subscribers renewing, 8 not renewing, 16 expired, 32 leave out creators, 64 leave out offline fans (other bits 400 code 10). It needs an include (2/4/8/16 or a list to add; else 400 code 10); a tier needs a subscriber bit. Unknown list or tier: 404.',
    auth: 'session',
    write: true,
    handler: createGroup,
  },
  {
    method: 'GET',
    path: '/ignore',
    summary:
      '`{ignoring: [{ignoredId, ignoreFlags}]}`: every fan with an ignore flag set (1 mute, 2 block, 4 VIP; seeded VIPs carry 4). `noAggregation` ignored.',
    auth: 'session',
    handler: ignoreList,
  },
  {
    method: 'POST',
    path: '/account/ignore',
    summary:
      "**GUESS** (the bits). `{ignoredId, ignoreFlags}` sets the fan's whole bitmask (1 mute, 2 block, 4 VIP; other bits 400 code 10) → `{ignoredId, ignoreFlags}`. Bit 4 is the chat row's VIP bit (`flags` 1). Unknown fan: 404 `account not found`.",
    auth: 'session',
    write: true,
    handler: setIgnoreFlags,
  },
  {
    method: 'GET',
    path: '/tips/account',
    summary:
      "**GUESS.** The tips one fan (`accountIds`: exactly one fan id; else 400 code 10) sent the creator in chat, newest first: `{tips: [{id, senderId, receiverId, amount, messageId, createdAt}], total, totalAmount}` (`amount`, `totalAmount` in mills; `createdAt` Unix ms; `total` counts them all). Each tip rides on one of the fan's messages (whose `totalTipAmount` is that amount). A fan without a chat: no tips; not the creator's fan: 404.",
    auth: 'session',
    handler: tipsOfAccount,
  },
  {
    method: 'POST',
    path: '/message/typing',
    summary: '`{groupId}` → `{groupId}`: the typing indicator. Unknown chat: 404.',
    auth: 'session',
    write: true,
    handler: typing,
  },
];
