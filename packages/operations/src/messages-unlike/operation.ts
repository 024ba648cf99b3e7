import { Upstream } from '@cg/contract';
import { Type } from 'typebox';
import { AccountParams, accountExample, NonBlank } from '../common/schemas';
import { defineOperation, upstreamData } from '../define';
import { Reaction } from '../messages-like/operation';

export const messagesUnlike = defineOperation({
  name: 'messages-unlike',
  method: 'POST',
  path: '/:accountId/messages/unlike',
  summary: 'Remove the creator’s reaction from a message (undoes messages/like)',
  tags: ['chats'],
  session: 'path',
  write: true,
  successStatus: 200,
  notFoundMessage: 'unknown message, or no reaction of that type on it',
  schemas: {
    params: AccountParams,
    body: Type.Object({
      // As for like: at most 64 characters, not blank; any other unknown id is a 404.
      messageId: NonBlank('id of the message', { maxLength: 64 }),
      type: Type.Integer({ minimum: 1, maximum: 7, description: 'the reaction to remove, 1 to 7' }),
    }),
    data: Upstream(Reaction.schema),
  },
  example: { params: accountExample, body: { messageId: '820980754317050124', type: 1 } },
  run: async ({ body }, { call }) => {
    const removed = await call('messageUnlike', { body: { messageId: body.messageId, type: body.type } });
    return upstreamData(Reaction.from(removed));
  },
});
