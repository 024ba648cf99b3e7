import { Upstream } from '@cg/contract';
import { Type } from 'typebox';
import { coerce } from '../common/coerce';
import { f, type RecordValue, record } from '../common/record';
import { AccountParams, accountExample } from '../common/schemas';
import { accountRead, defineOperation, upstreamData } from '../define';

/** Scheduled mass message (`response.scheduledBroadcastMessages[]`). */
export const ScheduledMassMessage = record({
  id: f.id(),
  groupId: f.id(),
  accountId: f.id(),
  status: f.number(),
  messageTemplate: f.jsonText('JSON text of the message to send'),
  version: f.number(),
  // Already Unix ms upstream (docs/upstream-decisions.md: only post/message createdAt are seconds).
  scheduledFor: f.timestamp(),
});
export type ScheduledMassMessage = RecordValue<typeof ScheduledMassMessage>;

const GroupUser = record({
  groupId: f.id(),
  userId: f.id(),
  type: f.number(),
  permissionFlags: f.number(),
  // customName is null on a group the creator never named.
  userSettings: f.record(record({ customName: f.nullableString(), hidden: f.boolean() })),
});

const GroupRecipient = record({
  groupId: f.id(),
  recipientId: f.id(),
  type: f.number(),
  permissionFlags: f.nullableNumber(),
});

/** Recipient group (`response.groups[]`). */
export const RecipientGroup = record({
  id: f.id(),
  type: f.number(),
  groupFlags: f.number(),
  groupFlagsMetadata: f.jsonText(),
  createdBy: f.id(),
  users: f.array(GroupUser),
  // The contract shows an array without its element type: passed on as the platform sends it.
  permissionFlags: f.array(f.unknown()),
  recipients: f.array(GroupRecipient),
});
export type RecipientGroup = RecordValue<typeof RecipientGroup>;

export const ScheduledMassMessagesResponse = Type.Object({
  scheduledBroadcastMessages: Type.Array(ScheduledMassMessage.schema),
  groups: Type.Array(RecipientGroup.schema),
});

export const massMessagesScheduled = defineOperation({
  name: 'mass-messages-scheduled',
  method: 'GET',
  path: '/:accountId/mass-messaging/scheduled',
  summary: 'Scheduled mass messages and their recipient groups',
  tags: ['messages'],
  ...accountRead,
  schemas: {
    params: AccountParams,
    data: Upstream(ScheduledMassMessagesResponse),
  },
  example: { params: accountExample },
  // One upstream call answers everything (no paging upstream), so the gateway has no cursor here.
  run: async (_input, { call }) => {
    const raw = coerce.obj(await call('broadcastScheduled'));
    return upstreamData({
      scheduledBroadcastMessages: coerce.arr(raw.scheduledBroadcastMessages).map(ScheduledMassMessage.from),
      groups: coerce.arr(raw.groups).map(RecipientGroup.from),
    });
  },
});
