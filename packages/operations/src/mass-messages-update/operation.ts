import { Upstream } from '@cg/contract';
import { Type } from 'typebox';
import { offerAttachments } from '../common/media-offer';
import { checkMediaPermissions, mediaPermissionFields } from '../common/media-permissions';
import { MessageText } from '../common/message';
import { refusedAs } from '../common/platform-refusal';
import { AccountParams, EXAMPLE_ACCOUNT_ID, exampleTimeAhead, PlatformId, UnixMs } from '../common/schemas';
import { accountUpdate, defineOperation, upstreamData } from '../define';
import { ScheduledMassMessage } from '../mass-messages-scheduled/operation';
import {
  AUDIENCE_FIELD_NAMES,
  audienceFields,
  checkHorizon,
  checkNotPast,
} from '../mass-messages-send/operation';

const UpdateBody = Type.Object({
  content: MessageText,
  scheduledFor: UnixMs('Unix ms; in the future, at most 180 days ahead'),
  ...mediaPermissionFields,
  // Declared only to be refused: the audience is fixed when the message is created.
  ...audienceFields,
});

export const massMessagesUpdate = defineOperation({
  name: 'mass-messages-update',
  method: 'PUT',
  path: '/:accountId/mass-messaging/scheduled/:scheduledMessageId',
  summary: 'Replace the text, media and time of a scheduled mass message (its version goes up)',
  tags: ['messages'],
  // Not retryable: after an ambiguous failure, read the scheduled list and compare the version.
  ...accountUpdate,
  notFoundMessage: 'the scheduled mass message, or a media it names, is not this account’s',
  schemas: {
    params: Type.Object({
      ...AccountParams.properties,
      scheduledMessageId: PlatformId('id of the scheduled mass message'),
    }),
    body: UpdateBody,
    data: Upstream(ScheduledMassMessage.schema),
  },
  // A getter: scheduledFor must lie within the next 180 days of whenever the example is read.
  get example() {
    return {
      params: { accountId: EXAMPLE_ACCOUNT_ID, scheduledMessageId: '820983177152561152' },
      body: { content: 'New set drops tonight at 9 💕', scheduledFor: exampleTimeAhead(7) },
    };
  },
  check: ({ body }) => {
    const audience = AUDIENCE_FIELD_NAMES.find((name) => body[name] !== undefined);
    if (audience !== undefined)
      return `${audience} cannot be changed: the audience is fixed when the mass message is created`;
    return checkNotPast(body.scheduledFor) ?? checkHorizon(body.scheduledFor) ?? checkMediaPermissions(body);
  },
  run: async ({ params, body }, { call, account }) => {
    // The offer is made before the update it goes with: an update of an unknown or sent message
    // that carries media leaves that offer unused (no fan sees an offer no message carries).
    const attachments = await offerAttachments(body, account?.platformAccountId ?? '', call);
    const updated = await refusedAs(
      'the mass message has been sent or is being sent: it can no longer change',
      () =>
        call('broadcastScheduledUpdate', {
          params: { id: params.scheduledMessageId },
          body: { content: body.content, attachments, scheduledFor: body.scheduledFor },
        }),
      'CONFLICT',
    );
    return upstreamData(ScheduledMassMessage.from(updated));
  },
});
