import { invalidField, notFound } from '../errors';
import { decodeId } from '../ids';
import {
  bodyObject,
  queryCursorMs,
  queryInt,
  queryLimit,
  queryOffset,
  queryString,
  requiredBodyId,
  requiredQueryString,
} from '../params';
import type { AccountMedia, AccountMediaBundle, ChatGroup, PlatformProfile } from '../records';
import { GROUP_FLAG_UNREAD, LOCATION_TYPE_DIRECT_MESSAGE } from '../world/chats';
import { fanProfile } from '../world/profiles';
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

/** Chats ordered by newest message; `flags=32` keeps only chats with unread messages. */
function messagingGroups(ctx: ApiContext): unknown {
  const flags = queryInt(ctx.query, 'flags', 0, 0);
  const limit = queryLimit(ctx.query);
  const offset = queryOffset(ctx.query);
  const world = ctx.core.world;
  const chats = world.chats(ctx.creator);
  const creatorWorld = world.creator(ctx.creator);
  const reactions = world.state(ctx.creator).reactions;
  const onlyUnread = (flags & GROUP_FLAG_UNREAD) !== 0;
  const data: unknown[] = [];
  const groups: ChatGroup[] = [];
  const accounts: PlatformProfile[] = [];
  let total = 0;
  for (const group of chats.groupOrder()) {
    if (onlyUnread && chats.unreadCount(group) === 0) continue;
    total += 1;
    if (total <= offset || data.length >= limit) continue;
    data.push(chats.summary(group));
    groups.push(chats.group(group, reactions));
    accounts.push(fanProfile(creatorWorld, chats.partnerFan(group)));
  }
  return { data, total, aggregationData: { groups, accounts } };
}

/** Unread message interactions across all chats, newest first; `before` is a message id. */
function unreadMessages(ctx: ApiContext): unknown {
  const beforeMs = queryCursorMs(ctx.query, 'before');
  const limit = queryLimit(ctx.query);
  const chats = ctx.core.world.chats(ctx.creator);
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
  const messageInteractions = [];
  for (let i = start; i < slots.length && messageInteractions.length < limit; i++) {
    messageInteractions.push(chats.unreadInteraction(slots[i] ?? 0));
  }
  return { total: slots.length, messageInteractions };
}

/** Messages of one chat, newest first (the platform's message list; shows the creator's reactions). */
function chatMessages(ctx: ApiContext): unknown {
  const groupId = requiredQueryString(ctx.query, 'groupId');
  const beforeMs = queryCursorMs(ctx.query, 'before');
  const limit = queryLimit(ctx.query);
  const chats = ctx.core.world.chats(ctx.creator);
  const group = chats.groupIndexOf(groupId);
  if (group < 0) throw notFound('chat');
  return { messages: chats.messages(group, beforeMs, limit, ctx.core.world.state(ctx.creator).reactions) };
}

/** GUESS endpoint (docs/upstream-decisions.md): react to a message in one of the creator's chats. */
function likeMessage(ctx: ApiContext): unknown {
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
  const chats = ctx.core.world.chats(ctx.creator);
  const ref = decodeId(messageId) ? chats.locateMessage(messageId) : null;
  if (!ref) throw notFound('message');
  return ctx.core.world.state(ctx.creator).like(messageId, chats.groupId(ref.group), type);
}

function scheduledBroadcasts(ctx: ApiContext): unknown {
  const state = ctx.core.world.state(ctx.creator);
  return { scheduledBroadcastMessages: state.broadcasts, groups: state.recipientGroups };
}

export const chatRoutes: ApiRoute[] = [
  { method: 'GET', path: '/mediaoffers/location', auth: 'session', mediaOffer: true, handler: mediaOffers },
  { method: 'GET', path: '/messaging/groups', auth: 'session', handler: messagingGroups },
  { method: 'GET', path: '/message/unread', auth: 'session', handler: unreadMessages },
  { method: 'GET', path: '/message', auth: 'session', handler: chatMessages },
  { method: 'POST', path: '/message/like', auth: 'session', write: true, handler: likeMessage },
  { method: 'GET', path: '/message/broadcast/scheduled', auth: 'session', handler: scheduledBroadcasts },
];
