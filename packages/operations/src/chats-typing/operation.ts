import { Upstream } from '@cg/contract';
import { Type } from 'typebox';
import { AccountParams, accountExample, PlatformId } from '../common/schemas';
import { accountUpdate, defineOperation, upstreamData } from '../define';

/**
 * At most one typing call per chat reaches the platform in this window: the indicator lasts about
 * 3 s and the platform's web app re-announces it about as often. Calls within it answer success.
 */
export const TYPING_WINDOW_MS = 3000;

/** The acknowledgement of a typing indicator. */
export const TypingAck = Type.Object({
  chatId: Type.String({ description: 'the chat' }),
  typing: Type.Literal(true),
});

export const chatsTyping = defineOperation({
  name: 'chats-typing',
  method: 'POST',
  path: '/:accountId/chats/typing',
  summary: 'Show the typing indicator to the fan (at most one platform call per chat per 3 s)',
  tags: ['chats'],
  ...accountUpdate,
  notFoundMessage: 'unknown chat',
  schemas: {
    params: AccountParams,
    body: Type.Object({ chatId: PlatformId('the chat’s groupId') }),
    data: Upstream(TypingAck),
  },
  example: { params: accountExample, body: { chatId: '788291264641499403' } },
  run: async ({ body }, { call, claimWindow }) => {
    const ack = upstreamData({ chatId: body.chatId, typing: true as const });
    // The window is shared by every worker (Redis); a call inside it is answered without the platform.
    const release = await claimWindow(`typing:${body.chatId}`, TYPING_WINDOW_MS);
    if (release === null) return ack;
    try {
      await call('messageTyping', { body: { groupId: body.chatId } });
    } catch (error) {
      // A refused call (an unknown chat) shows nothing: the next call tries again.
      await release();
      throw error;
    }
    return ack;
  },
});
