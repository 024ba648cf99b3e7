import { Upstream } from '@cg/contract';
import { Type } from 'typebox';
import { coerce } from '../common/coerce';
import { f, type RecordValue, record } from '../common/record';
import { AccountParams, accountExample, NonBlank } from '../common/schemas';
import { accountCreate, defineOperation, upstreamData } from '../define';

/** Reaction: the record a like answers with. */
export const Reaction = record({
  // The contract allows either type; a numeric id is kept a number rather than reformatted.
  id: f.custom(
    Type.Union([Type.String(), Type.Number()], { description: 'id of the reaction record' }),
    (value) => (typeof value === 'number' ? value : coerce.str(value)),
  ),
  accountId: f.id('account that reacted'),
  messageId: f.id(),
  type: f.number('1 to 7'),
  groupId: f.id('chat or group of the message'),
});
export type Reaction = RecordValue<typeof Reaction>;

/** A reaction on a message, to add (like) or remove (unlike). */
export const ReactionBody = Type.Object({
  // At most 64 characters (the platform's bound on an id), not blank; any other unknown id is a 404.
  messageId: NonBlank('id of the message', { maxLength: 64 }),
  type: Type.Integer({ minimum: 1, maximum: 7, description: 'reaction type, 1 to 7; 1 is a like' }),
});

export const messagesLike = defineOperation({
  name: 'messages-like',
  method: 'POST',
  path: '/:accountId/messages/like',
  summary: 'React to a message (type 1 is a standard like)',
  tags: ['chats'],
  ...accountCreate,
  notFoundMessage: 'the message does not exist or is not accessible to this account',
  schemas: {
    params: AccountParams,
    body: ReactionBody,
    data: Upstream(Reaction.schema),
  },
  example: { params: accountExample, body: { messageId: '820980754317050124', type: 1 } },
  run: async ({ body }, { call }) => {
    const reaction = await call('messageLike', { body: { messageId: body.messageId, type: body.type } });
    return upstreamData(Reaction.from(reaction));
  },
});
