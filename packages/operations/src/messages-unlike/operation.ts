import { Upstream } from '@cg/contract';
import { AccountParams, accountExample } from '../common/schemas';
import { accountUpdate, defineOperation, upstreamData } from '../define';
import { Reaction, ReactionBody } from '../messages-like/operation';

export const messagesUnlike = defineOperation({
  name: 'messages-unlike',
  method: 'POST',
  path: '/:accountId/messages/unlike',
  summary: 'Remove the creator’s reaction from a message (undoes messages/like)',
  tags: ['chats'],
  ...accountUpdate,
  notFoundMessage: 'unknown message, or no reaction of that type on it',
  schemas: {
    params: AccountParams,
    body: ReactionBody,
    data: Upstream(Reaction.schema),
  },
  example: { params: accountExample, body: { messageId: '820980754317050124', type: 1 } },
  run: async ({ body }, { call }) => {
    const removed = await call('messageUnlike', { body: { messageId: body.messageId, type: body.type } });
    return upstreamData(Reaction.from(removed));
  },
});
