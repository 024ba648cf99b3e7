import { invalidField, notAllowed, notFound } from '../errors';
import { type Body, bodyObject, queryCursorId, queryInt, requiredBodyId } from '../params';
import {
  AUDIENCE_FLAGS,
  EXCLUDED_USER_FLAGS,
  INCLUDE_FLAGS,
  KNOWN_AUDIENCE_FLAGS,
  RECIPIENT_EXCLUDE_LIST,
  RECIPIENT_INCLUDE_LIST,
  TIER_METADATA_KEY,
} from '../world/broadcasts';
import type { AudienceSpec } from '../world/state';
import { messageBody } from './message-body';
import type { ApiContext, ApiRoute } from './types';

/** How far ahead a broadcast may be scheduled (the platform web app's own check). */
export const MAX_SCHEDULE_AHEAD_MS = 180 * 24 * 60 * 60 * 1000;
const STATS_DEFAULT_LIMIT = 24;
const STATS_MAX_LIMIT = 50;

function integer(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw invalidField(field);
  return value;
}

/** `groupFlagsMetadata`: "" or JSON text whose key "4" is JSON text `{subscriptionTierId}`. */
function tierOf(ctx: ApiContext, raw: unknown): string | null {
  if (raw === undefined || raw === null || raw === '') return null;
  if (typeof raw !== 'string') throw invalidField('groupFlagsMetadata');
  let tierId: unknown;
  try {
    const entry = (JSON.parse(raw) as Record<string, unknown>)[TIER_METADATA_KEY];
    if (entry === undefined) return null;
    tierId = (JSON.parse(String(entry)) as Record<string, unknown>).subscriptionTierId;
  } catch {
    throw invalidField('groupFlagsMetadata');
  }
  if (typeof tierId !== 'string') throw invalidField('groupFlagsMetadata');
  if (!ctx.core.world.creator(ctx.creator).tiers.some((tier) => tier.id === tierId))
    throw notFound('subscription tier');
  return tierId;
}

/** `recipients[{recipientId, type: 30000 | 30001}]`: the creator's lists added or removed. */
function listsOf(ctx: ApiContext, raw: unknown): { include: string[]; exclude: string[] } {
  if (raw === undefined || raw === null) return { include: [], exclude: [] };
  if (!Array.isArray(raw)) throw invalidField('recipients');
  const lists = ctx.core.world.state(ctx.creator).lists;
  const include: string[] = [];
  const exclude: string[] = [];
  for (const value of raw) {
    const recipient = bodyObject(value);
    const listId = requiredBodyId(recipient, 'recipientId');
    if (recipient.type !== RECIPIENT_INCLUDE_LIST && recipient.type !== RECIPIENT_EXCLUDE_LIST)
      throw invalidField('recipients');
    if (!lists.has(listId)) throw notFound('list');
    (recipient.type === RECIPIENT_INCLUDE_LIST ? include : exclude).push(listId);
  }
  return { include, exclude };
}

/** `users[{userId, permissionFlags}]`: the creator, and the accounts left out (flags 0). */
function excludedUsersOf(ctx: ApiContext, raw: unknown): string[] {
  if (!Array.isArray(raw)) throw invalidField('users');
  const creatorId = ctx.core.world.creator(ctx.creator).accountId;
  const users = raw.map((value) => {
    const user = bodyObject(value);
    return { userId: requiredBodyId(user, 'userId'), flags: integer(user.permissionFlags ?? 0, 'users') };
  });
  if (!users.some((user) => user.userId === creatorId)) throw invalidField('users');
  return users
    .filter((user) => user.userId !== creatorId && user.flags === EXCLUDED_USER_FLAGS)
    .map((user) => user.userId);
}

/**
 * `POST /group` with `type: 3`: a broadcast audience, `{users, recipients, groupFlags,
 * groupFlagsMetadata}`. It needs an include: a follower or subscriber bit, or a list to add.
 */
export function createBroadcastGroup(ctx: ApiContext, body: Body): unknown {
  const groupFlags = integer(body.groupFlags ?? 0, 'groupFlags');
  if ((groupFlags & ~KNOWN_AUDIENCE_FLAGS) !== 0) throw invalidField('groupFlags');
  const lists = listsOf(ctx, body.recipients);
  const spec: AudienceSpec = {
    groupFlags,
    tierId: tierOf(ctx, body.groupFlagsMetadata),
    includeListIds: lists.include,
    excludeListIds: lists.exclude,
    excludeUserIds: excludedUsersOf(ctx, body.users),
  };
  if ((groupFlags & INCLUDE_FLAGS) === 0 && spec.includeListIds.length === 0)
    throw invalidField('groupFlags');
  if (
    spec.tierId !== null &&
    (groupFlags & (AUDIENCE_FLAGS.renewOn | AUDIENCE_FLAGS.renewOff | AUDIENCE_FLAGS.expired)) === 0
  )
    throw invalidField('groupFlagsMetadata');
  return ctx.core.world.broadcasts(ctx.creator).createGroup(spec);
}

/** A time to send at: in the future, at most 180 days ahead. */
function futureTime(ctx: ApiContext, value: unknown): number {
  const at = integer(value, 'scheduledFor');
  if (at <= ctx.now || at > ctx.now + MAX_SCHEDULE_AHEAD_MS) throw invalidField('scheduledFor');
  return at;
}

/**
 * Sends a broadcast to an audience group: `{type: 1, groupId, content, attachments, scheduledFor}`.
 * `scheduledFor` 0 sends at once and answers the message; a future time answers the scheduled
 * broadcast, which goes out when its time comes.
 */
function sendBroadcast(ctx: ApiContext): unknown {
  const body = bodyObject(ctx.body);
  if ((body.type ?? 1) !== 1) throw invalidField('type');
  const groupId = requiredBodyId(body, 'groupId');
  const broadcasts = ctx.core.world.broadcasts(ctx.creator);
  if (!broadcasts.audienceOf(groupId)) throw notFound('group');
  const { content, attachments } = messageBody(ctx, body);
  const scheduledFor = body.scheduledFor ?? 0;
  if (scheduledFor === 0) return broadcasts.send(groupId, content, attachments, ctx.now);
  return broadcasts.schedule(groupId, content, attachments, futureTime(ctx, scheduledFor), ctx.now);
}

/** The broadcasts still to go out, and the audience groups they go to. */
function scheduledBroadcasts(ctx: ApiContext): unknown {
  ctx.core.world.broadcasts(ctx.creator).deliverDue(ctx.now);
  const state = ctx.core.world.state(ctx.creator);
  const groupIds = new Set(state.broadcasts.map((b) => b.groupId));
  return {
    scheduledBroadcastMessages: state.broadcasts,
    groups: state.recipientGroups.filter((group) => groupIds.has(group.id)),
  };
}

/**
 * GUESS endpoint (docs/upstream-decisions.md, mass-message update): replaces the text, media and time
 * of a scheduled broadcast, `{content, attachments, scheduledFor}`; answers it with its version up.
 * One already sent: 403 code 20.
 */
function updateScheduledBroadcast(ctx: ApiContext): unknown {
  const id = ctx.params.id ?? '';
  const broadcasts = ctx.core.world.broadcasts(ctx.creator);
  broadcasts.deliverDue(ctx.now);
  const scheduled = broadcasts.scheduled(id);
  if (!scheduled) {
    if (broadcasts.wasSent(id)) throw notAllowed('the broadcast has been sent');
    throw notFound('scheduled broadcast');
  }
  const body = bodyObject(ctx.body);
  const scheduledFor = futureTime(ctx, body.scheduledFor);
  const { content, attachments } = messageBody(ctx, body);
  return broadcasts.update(scheduled, content, attachments, scheduledFor, ctx.now);
}

/** Sent (or deleted) broadcasts with their counts, newest first; `before` the last id read. */
function statsPage(ctx: ApiContext, deleted: boolean): unknown {
  const before = queryCursorId(ctx.query, 'before');
  const limit = queryInt(ctx.query, 'limit', STATS_DEFAULT_LIMIT, 1, STATS_MAX_LIMIT);
  const broadcasts = ctx.core.world.broadcasts(ctx.creator);
  broadcasts.deliverDue(ctx.now);
  const page = broadcasts.history(deleted, before, limit);
  const messages = page.map(({ message, stats }) => ({ ...message, stats }));
  const media = ctx.core.world.conversations(ctx.creator).pageMedia(page.map((b) => b.message));
  return { messages, ...media };
}

export const broadcastRoutes: ApiRoute[] = [
  {
    method: 'POST',
    path: '/message/broadcast',
    summary:
      '`{type: 1, groupId, content, attachments, scheduledFor}` to an audience group. `scheduledFor` 0: sent now to exactly the fans the group selects (union of its includes, narrowed to the tier, minus its excludes) → the message (`createdAt` Unix seconds). A future time (at most 180 days ahead; else 400 code 10): → the scheduled broadcast, sent when its time comes. Unknown group: 404; attachments as `/message`.',
    auth: 'session',
    write: true,
    handler: sendBroadcast,
  },
  {
    method: 'GET',
    path: '/message/broadcast/scheduled',
    summary:
      '`{scheduledBroadcastMessages, groups}`: broadcasts still to go out and their audience groups. One whose time has come is sent and leaves the list.',
    auth: 'session',
    handler: scheduledBroadcasts,
  },
  {
    method: 'POST',
    path: '/message/broadcast/scheduled/:id/update',

    summary:
      "**GUESS.** `{content, attachments, scheduledFor}` replaces a scheduled broadcast's text, media and time → it, `version` + 1. Time not in the future or over 180 days ahead: 400 code 10; unknown: 404; already sent: 403 code 20.",
    auth: 'session',
    write: true,
    handler: updateScheduledBroadcast,
  },
  {
    method: 'GET',
    path: '/message/broadcast/stats',

    summary:
      '`{messages, accountMedia, accountMediaBundles}`: sent broadcasts not deleted, newest first, each the message plus `stats: {total, delivered, read}`; `before` = the last id read; `limit` default 24, at most 50. 30 seeded, a few of them deleted.',
    auth: 'session',
    handler: (ctx) => statsPage(ctx, false),
  },
  {
    method: 'GET',
    path: '/message/broadcast/stats/deleted',

    summary:
      'The same for sent broadcasts later deleted (`POST /message/delete` deletes a broadcast like a message); rows carry `deletedAt` (Unix seconds).',
    auth: 'session',
    handler: (ctx) => statsPage(ctx, true),
  },
];
