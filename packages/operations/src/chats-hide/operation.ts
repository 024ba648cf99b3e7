import { Upstream } from '@cg/contract';
import { Type } from 'typebox';
import { AccountParams, EXAMPLE_ACCOUNT_ID, PlatformId } from '../common/schemas';
import { accountUpdate, defineOperation, upstreamData } from '../define';

/** The acknowledgement of a hidden chat. */
export const HideAck = Type.Object({
  chatId: Type.String({ description: 'the chat hidden' }),
  hidden: Type.Literal(true),
});

export const chatsHide = defineOperation({
  name: 'chats-hide',
  method: 'POST',
  path: '/:accountId/chats/:chatId/hide',
  summary: 'Hide a chat from the creator’s inbox (its messages are kept)',
  tags: ['chats'],
  ...accountUpdate,
  notFoundMessage: 'unknown chat',
  schemas: {
    params: Type.Object({ ...AccountParams.properties, chatId: PlatformId('the chat’s groupId') }),
    data: Upstream(HideAck),
  },
  example: { params: { accountId: EXAMPLE_ACCOUNT_ID, chatId: '788291264641499403' } },
  run: async ({ params }, { call }) => {
    await call('groupUserSettings', { body: { groupId: params.chatId, userSettings: { hidden: true } } });
    return upstreamData({ chatId: params.chatId, hidden: true as const });
  },
});
