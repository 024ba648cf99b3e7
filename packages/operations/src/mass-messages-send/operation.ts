import { GatewayError, Upstream } from '@cg/contract';
import { type Static, Type } from 'typebox';
import { coerce } from '../common/coerce';
import { offerAttachments } from '../common/media-offer';
import { checkMediaPermissions, mediaPermissionFields } from '../common/media-permissions';
import { Message, MessageText, outgoingMessage } from '../common/message';
import { AccountParams, accountExample, PlatformId, UnixMs } from '../common/schemas';
import { accountCreate, defineOperation, upstreamData } from '../define';
import { ScheduledMassMessage } from '../mass-messages-scheduled/operation';

/** How far ahead a mass message may be scheduled (the platform web app's own check). */
export const MAX_SCHEDULE_AHEAD_MS = 180 * 24 * 60 * 60 * 1000;

/**
 * The audience of a broadcast group (`POST /group`, `type` 3), as the platform's web client builds
 * it (upstream-extended.md 1.3, seen): `groupFlags` bits, the tier in `groupFlagsMetadata` under
 * key "4", lists in `recipients` (30000 add, 30001 remove), excluded accounts in `users` with
 * `permissionFlags` 0. The sandbox keeps the same table (`AUDIENCE_FLAGS`, world/broadcasts.ts).
 */
export const AUDIENCE_FLAGS = {
  includeFollowers: 2,
  includeSubscribersAutoRenewOn: 4,
  includeSubscribersAutoRenewOff: 8,
  includeExpiredSubscribers: 16,
  excludeCreators: 32,
  excludeOfflineUsers: 64,
} as const;
type AudienceFlag = keyof typeof AUDIENCE_FLAGS;
const FLAG_NAMES = Object.keys(AUDIENCE_FLAGS) as AudienceFlag[];
const INCLUDE_FLAGS: AudienceFlag[] = [
  'includeFollowers',
  'includeSubscribersAutoRenewOn',
  'includeSubscribersAutoRenewOff',
  'includeExpiredSubscribers',
];
const SUBSCRIBER_BITS =
  AUDIENCE_FLAGS.includeSubscribersAutoRenewOn |
  AUDIENCE_FLAGS.includeSubscribersAutoRenewOff |
  AUDIENCE_FLAGS.includeExpiredSubscribers;
const GROUP_TYPE_BROADCAST = 3;
const TIER_METADATA_KEY = String(AUDIENCE_FLAGS.includeSubscribersAutoRenewOn);
const RECIPIENT_INCLUDE_LIST = 30000;
const RECIPIENT_EXCLUDE_LIST = 30001;
const CREATOR_PERMISSION_FLAGS = 65535;
const EXCLUDED_USER_FLAGS = 0;

const Flag = (description: string) =>
  Type.Optional(Type.Boolean({ description: `${description}; default false` }));
const Ids = (description: string) =>
  Type.Optional(Type.Array(PlatformId('a platform id'), { maxItems: 100, uniqueItems: true, description }));

/** The audience fields of the contract: what `POST /mass-messaging` takes and the update refuses. */
export const audienceFields = {
  includeFollowers: Flag('fans who follow the creator'),
  includeSubscribersAutoRenewOn: Flag('subscribers whose renewal is on'),
  includeSubscribersAutoRenewOff: Flag('subscribers whose renewal is off'),
  includeExpiredSubscribers: Flag('fans whose subscription expired'),
  excludeCreators: Flag('leaves out recipients who are creators themselves'),
  excludeOfflineUsers: Flag('leaves out fans not online at send time'),
  includeSubscriptionTierId: Type.Optional(
    PlatformId('narrows the included subscribers to one tier; on its own, both renewal states of it'),
  ),
  includeListIds: Ids('adds the members of these fan lists'),
  excludeListIds: Ids('removes the members of these lists'),
  excludeUserIds: Ids('removes these platform account ids'),
};
export const AUDIENCE_FIELD_NAMES = Object.keys(audienceFields) as (keyof typeof audienceFields)[];
const Audience = Type.Object(audienceFields);
type Audience = Static<typeof Audience>;

const SendBody = Type.Object({
  content: MessageText,
  ...mediaPermissionFields,
  scheduledFor: Type.Optional(
    UnixMs('Unix ms; omitted or 0 sends at once, else in the future and at most 180 days ahead'),
  ),
  ...audienceFields,
});

/** The reason a scheduled time is refused when it is not in the future. */
export function checkNotPast(scheduledFor: number, now = Date.now()): string | undefined {
  return scheduledFor <= now ? 'scheduledFor must be in the future (Unix ms)' : undefined;
}

/** The reason a scheduled time is refused when it is more than 180 days ahead. */
export function checkHorizon(scheduledFor: number, now = Date.now()): string | undefined {
  return scheduledFor > now + MAX_SCHEDULE_AHEAD_MS
    ? 'scheduledFor must be at most 180 days ahead'
    : undefined;
}

function checkAudience(audience: Audience): string | undefined {
  const included =
    INCLUDE_FLAGS.some((name) => audience[name] === true) ||
    audience.includeSubscriptionTierId !== undefined ||
    (audience.includeListIds?.length ?? 0) > 0;
  if (!included)
    return 'the audience includes nobody: set includeFollowers, a subscriber flag, includeSubscriptionTierId or includeListIds';
  return undefined;
}

/** The upstream group body of an audience (see AUDIENCE_FLAGS). */
export function audienceGroup(audience: Audience, creatorId: string): Record<string, unknown> {
  let groupFlags = 0;
  for (const name of FLAG_NAMES) if (audience[name] === true) groupFlags |= AUDIENCE_FLAGS[name];
  const tierId = audience.includeSubscriptionTierId;
  // A tier on its own means its subscribers, whichever their renewal.
  if (tierId !== undefined && (groupFlags & SUBSCRIBER_BITS) === 0)
    groupFlags |=
      AUDIENCE_FLAGS.includeSubscribersAutoRenewOn | AUDIENCE_FLAGS.includeSubscribersAutoRenewOff;
  const lists = (ids: string[] | undefined, type: number) =>
    (ids ?? []).map((recipientId) => ({ recipientId, type }));
  return {
    type: GROUP_TYPE_BROADCAST,
    users: [
      { userId: creatorId, permissionFlags: CREATOR_PERMISSION_FLAGS },
      ...(audience.excludeUserIds ?? []).map((userId) => ({ userId, permissionFlags: EXCLUDED_USER_FLAGS })),
    ],
    recipients: [
      ...lists(audience.includeListIds, RECIPIENT_INCLUDE_LIST),
      ...lists(audience.excludeListIds, RECIPIENT_EXCLUDE_LIST),
    ],
    groupFlags,
    groupFlagsMetadata:
      tierId === undefined
        ? ''
        : JSON.stringify({ [TIER_METADATA_KEY]: JSON.stringify({ subscriptionTierId: tierId }) }),
    lastMessage: null,
    userSettings: null,
  };
}

export const massMessagesSend = defineOperation({
  name: 'mass-messages-send',
  method: 'POST',
  path: '/:accountId/mass-messaging',
  summary: 'Send one message to an audience of fans (flags, lists, exclusions), now or at a set time',
  tags: ['messages'],
  // Up to three platform writes (the audience group, the media offer, the broadcast): never repeated
  // once one may have been applied, so a lost answer can leave a group or offer unused, never two sends.
  ...accountCreate,
  notFoundMessage: 'a list, tier or media the message names is not this account’s',
  schemas: {
    params: AccountParams,
    body: SendBody,
    data: Upstream(
      Type.Union([Message.schema, ScheduledMassMessage.schema], {
        description: 'sent now: the broadcast Message; scheduled: the Scheduled mass message',
      }),
    ),
  },
  example: {
    params: accountExample,
    body: {
      content: 'Weekend sale: my new set is 30% off until Sunday 💕',
      includeFollowers: true,
      includeSubscribersAutoRenewOn: true,
      excludeListIds: ['788240311431884800'],
      mediaIds: ['820357346407481613'],
      access_type: 'ppv',
      price: 9.99,
    },
  },
  check: ({ body }) =>
    checkAudience(body) ??
    (body.scheduledFor ? (checkNotPast(body.scheduledFor) ?? checkHorizon(body.scheduledFor)) : undefined) ??
    checkMediaPermissions(body),
  run: async ({ body }, { call, account }) => {
    const creatorId = account?.platformAccountId ?? '';
    // The group first: an unknown list or tier is answered (404) before any media offer is made.
    const group = coerce.obj(await call('groupCreate', { body: audienceGroup(body, creatorId) }));
    const groupId = coerce.str(group.id);
    if (groupId === '')
      throw new GatewayError('UPSTREAM_ERROR', 'the platform answered the audience without its id');
    const attachments = await offerAttachments(body, creatorId, call);
    const scheduledFor = body.scheduledFor ?? 0;
    const sent = await call('broadcastSend', {
      body: outgoingMessage(groupId, body.content, attachments, scheduledFor),
    });
    return upstreamData(scheduledFor === 0 ? Message.from(sent) : ScheduledMassMessage.from(sent));
  },
});
