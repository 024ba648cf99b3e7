import { Upstream } from '@cg/contract';
import { Type } from 'typebox';
import { coerce } from '../common/coerce';
import { f, type RecordValue, record } from '../common/record';
import { AccountParams, accountExample, NonBlank } from '../common/schemas';
import { accountCreate, accountUpdate, defineOperation, upstreamData } from '../define';

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

/** A reaction's addition or removal: one body, one answer, one platform call each. */
function reactionOperation(spec: {
  name: 'messages-like' | 'messages-unlike';
  verb: 'like' | 'unlike';
  summary: string;
  notFoundMessage: string;
  endpoint: 'messageLike' | 'messageUnlike';
  kind: typeof accountCreate | typeof accountUpdate;
}) {
  return defineOperation({
    name: spec.name,
    method: 'POST',
    path: `/:accountId/messages/${spec.verb}`,
    summary: spec.summary,
    tags: ['chats'],
    ...spec.kind,
    notFoundMessage: spec.notFoundMessage,
    schemas: {
      params: AccountParams,
      body: ReactionBody,
      data: Upstream(Reaction.schema),
    },
    example: { params: accountExample, body: { messageId: '820980754317050124', type: 1 } },
    run: async ({ body }, { call }) => {
      const reaction = await call(spec.endpoint, { body: { messageId: body.messageId, type: body.type } });
      return upstreamData(Reaction.from(reaction));
    },
  });
}

export const messagesLike = reactionOperation({
  name: 'messages-like',
  verb: 'like',
  summary: 'React to a message (type 1 is a standard like)',
  notFoundMessage: 'the message does not exist or is not accessible to this account',
  endpoint: 'messageLike',
  kind: accountCreate,
});

export const messagesUnlike = reactionOperation({
  name: 'messages-unlike',
  verb: 'unlike',
  summary: 'Remove the creator’s reaction from a message (undoes messages/like)',
  notFoundMessage: 'unknown message, or no reaction of that type on it',
  endpoint: 'messageUnlike',
  kind: accountUpdate,
});
