import { Upstream } from '@cg/contract';
import { type Static, Type } from 'typebox';
import { coerce } from '../common/coerce';
import { AccountParams } from '../common/schemas';
import { defineOperation, upstreamData } from '../define';

/** Reaction: the record a like answers with. */
export const Reaction = Type.Object({
  id: Type.Union([Type.String(), Type.Number()], { description: 'id of the reaction record' }),
  accountId: Type.String({ description: 'account that reacted' }),
  messageId: Type.String(),
  type: Type.Number({ description: '1 to 7' }),
  groupId: Type.String({ description: 'chat or group of the message' }),
});
export type Reaction = Static<typeof Reaction>;

function toReaction(value: unknown): Reaction {
  const raw = coerce.obj(value);
  return {
    // The contract allows either type; a numeric id is kept a number rather than reformatted.
    id: typeof raw.id === 'number' ? raw.id : coerce.str(raw.id),
    accountId: coerce.str(raw.accountId),
    messageId: coerce.str(raw.messageId),
    type: coerce.num(raw.type),
    groupId: coerce.str(raw.groupId),
  };
}

export const messagesLike = defineOperation({
  name: 'messages-like',
  method: 'POST',
  path: '/:accountId/messages/like',
  summary: 'React to a message (type 1 is a standard like)',
  tags: ['chats'],
  session: 'path',
  write: true,
  successStatus: 201,
  notFoundMessage: 'the message does not exist or is not accessible to this account',
  schemas: {
    params: AccountParams,
    body: Type.Object({
      // At most 64 characters, the platform's bound on an id; an unknown id of any shape is a 404.
      messageId: Type.String({ minLength: 1, maxLength: 64, description: 'id of the message' }),
      type: Type.Integer({ minimum: 1, maximum: 7, description: 'reaction type, 1 to 7; 1 is a like' }),
    }),
    data: Upstream(Reaction),
  },
  check: ({ body }) =>
    body.messageId.trim() === '' ? 'messageId must not be blank: the id of a message' : undefined,
  run: async ({ body }, { call }) => {
    const reaction = await call('messageLike', { body: { messageId: body.messageId, type: body.type } });
    return upstreamData(toReaction(reaction));
  },
});
