import { Upstream } from '@cg/contract';
import { type Static, Type } from 'typebox';
import { coerce, jsonText } from '../common/coerce';
import { AccountParams, Nullable } from '../common/schemas';
import { defineOperation, upstreamData } from '../define';

const { obj, arr, str, num, bool, nullableStr, nullableNum } = coerce;

/** Scheduled mass message (`response.scheduledBroadcastMessages[]`). */
export const ScheduledMassMessage = Type.Object({
  id: Type.String(),
  groupId: Type.String(),
  accountId: Type.String(),
  status: Type.Number(),
  messageTemplate: Type.String({ description: 'JSON text of the message to send' }),
  version: Type.Number(),
  scheduledFor: Type.Number({ description: 'Unix ms' }),
});
export type ScheduledMassMessage = Static<typeof ScheduledMassMessage>;

/** Recipient group (`response.groups[]`). */
export const RecipientGroup = Type.Object({
  id: Type.String(),
  type: Type.Number(),
  groupFlags: Type.Number(),
  groupFlagsMetadata: Type.String({ description: 'JSON text' }),
  createdBy: Type.String(),
  users: Type.Array(
    Type.Object({
      groupId: Type.String(),
      userId: Type.String(),
      type: Type.Number(),
      permissionFlags: Type.Number(),
      // customName is null on a group the creator never named.
      userSettings: Type.Object({ customName: Nullable(Type.String()), hidden: Type.Boolean() }),
    }),
  ),
  // The contract shows an array without its element type: passed on as the platform sends it.
  permissionFlags: Type.Array(Type.Unknown()),
  recipients: Type.Array(
    Type.Object({
      groupId: Type.String(),
      recipientId: Type.String(),
      type: Type.Number(),
      permissionFlags: Nullable(Type.Number()),
    }),
  ),
});
export type RecipientGroup = Static<typeof RecipientGroup>;

export const ScheduledMassMessagesResponse = Type.Object({
  scheduledBroadcastMessages: Type.Array(ScheduledMassMessage),
  groups: Type.Array(RecipientGroup),
});

export const massMessagesScheduled = defineOperation({
  name: 'mass-messages-scheduled',
  method: 'GET',
  path: '/:accountId/mass-messaging/scheduled',
  summary: 'Scheduled mass messages and their recipient groups',
  tags: ['messages'],
  session: 'path',
  write: false,
  successStatus: 200,
  schemas: {
    params: AccountParams,
    data: Upstream(ScheduledMassMessagesResponse),
  },
  // One upstream call answers everything (no paging upstream), so the gateway has no cursor here.
  run: async (_input, { call }) => {
    const raw = obj(await call('broadcastScheduled'));
    return upstreamData({
      scheduledBroadcastMessages: arr(raw.scheduledBroadcastMessages).map(toScheduledMassMessage),
      groups: arr(raw.groups).map(toRecipientGroup),
    });
  },
});

function toScheduledMassMessage(raw: Record<string, unknown>): ScheduledMassMessage {
  return {
    id: str(raw.id),
    groupId: str(raw.groupId),
    accountId: str(raw.accountId),
    status: num(raw.status),
    messageTemplate: jsonText(raw.messageTemplate),
    version: num(raw.version),
    // Already Unix ms upstream (docs/upstream-decisions.md: only post/message createdAt are seconds).
    scheduledFor: num(raw.scheduledFor),
  };
}

function toRecipientGroup(raw: Record<string, unknown>): RecipientGroup {
  return {
    id: str(raw.id),
    type: num(raw.type),
    groupFlags: num(raw.groupFlags),
    groupFlagsMetadata: jsonText(raw.groupFlagsMetadata),
    createdBy: str(raw.createdBy),
    users: arr(raw.users).map((user) => {
      const settings = obj(user.userSettings);
      return {
        groupId: str(user.groupId),
        userId: str(user.userId),
        type: num(user.type),
        permissionFlags: num(user.permissionFlags),
        userSettings: {
          customName: nullableStr(settings.customName),
          hidden: bool(settings.hidden),
        },
      };
    }),
    permissionFlags: Array.isArray(raw.permissionFlags) ? raw.permissionFlags : [],
    recipients: arr(raw.recipients).map((recipient) => ({
      groupId: str(recipient.groupId),
      recipientId: str(recipient.recipientId),
      type: num(recipient.type),
      permissionFlags: nullableNum(recipient.permissionFlags),
    })),
  };
}
