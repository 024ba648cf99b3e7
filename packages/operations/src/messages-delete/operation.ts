import { Upstream } from '@cg/contract';
import { Type } from 'typebox';
import { Message } from '../common/message';
import { refusedAs } from '../common/platform-refusal';
import { AccountParams, EXAMPLE_ACCOUNT_ID, PlatformId } from '../common/schemas';
import { accountUpdate, defineOperation, upstreamData } from '../define';

export const messagesDelete = defineOperation({
  name: 'messages-delete',
  method: 'DELETE',
  path: '/:accountId/messages/:messageId',
  summary: 'Delete a message the creator sent',
  tags: ['chats'],
  ...accountUpdate,
  // A repeat after an ambiguous failure answers this too: the first delete took effect.
  notFoundMessage: 'unknown or already deleted message',
  schemas: {
    params: Type.Object({
      ...AccountParams.properties,
      messageId: PlatformId('id of the message'),
    }),
    data: Upstream(Message.schema),
  },
  example: { params: { accountId: EXAMPLE_ACCOUNT_ID, messageId: '820980754317050124' } },
  run: async ({ params }, { call }) => {
    const deleted = await refusedAs(
      'the message was written by the fan: only the creator’s own messages can be deleted',
      () => call('messageDelete', { body: { messageId: params.messageId } }),
      'CONFLICT',
    );
    return upstreamData(Message.from(deleted));
  },
});
