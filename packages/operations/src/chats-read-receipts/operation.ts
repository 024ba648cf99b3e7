import { Upstream } from '@cg/contract';
import { Type } from 'typebox';
import { AccountParams, EXAMPLE_ACCOUNT_ID, PlatformId } from '../common/schemas';
import { accountUpdate, defineOperation, upstreamData } from '../define';

/** The acknowledgement of a read-receipt setting. */
export const ReadReceiptsAck = Type.Object({
  chatId: Type.String({ description: 'the chat' }),
  readReceipts: Type.Union([Type.Literal('enabled'), Type.Literal('disabled')]),
});

export const chatsReadReceipts = defineOperation({
  name: 'chats-read-receipts',
  method: 'POST',
  path: '/:accountId/chats/:chatId/readreceipts',
  summary: 'Turn the creator’s read receipts on or off in one chat',
  tags: ['chats'],
  ...accountUpdate,
  notFoundMessage: 'unknown chat',
  schemas: {
    params: Type.Object({ ...AccountParams.properties, chatId: PlatformId('the chat’s groupId') }),
    body: Type.Object({
      action: Type.String({ pattern: '^(enable|disable)$', description: 'enable or disable' }),
    }),
    data: Upstream(ReadReceiptsAck),
  },
  example: {
    params: { accountId: EXAMPLE_ACCOUNT_ID, chatId: '788291264641499403' },
    body: { action: 'enable' },
  },
  run: async ({ params, body }, { call }) => {
    const enabled = body.action === 'enable';
    await call('groupUserSettings', {
      body: { groupId: params.chatId, userSettings: { readReceiptsEnabled: enabled } },
    });
    return upstreamData({
      chatId: params.chatId,
      readReceipts: enabled ? ('enabled' as const) : ('disabled' as const),
    });
  },
});
