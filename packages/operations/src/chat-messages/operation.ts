import { inResponse, Upstream } from '@cg/contract';
import { Type } from 'typebox';
import { AccountMedia } from '../chat-media-stats/operation';
import { coerce } from '../common/coerce';
import { idCursor, splitPage } from '../common/id-cursor';
import { attachedMedia } from '../common/media-offer';
import { Message } from '../common/message';
import { AccountParams, EXAMPLE_ACCOUNT_ID, Nullable, PlatformId, Text } from '../common/schemas';
import { accountRead, defineOperation, upstreamData } from '../define';

const { obj, arr, str } = coerce;

export const CHAT_MESSAGES_DEFAULT_LIMIT = 10;
export const CHAT_MESSAGES_MAX_LIMIT = 10;

const CURSOR_RULE = 'must be a cursor this endpoint answered (the id of the oldest message read)';

const ChatMessagesResponse = Type.Object({
  messages: Type.Array(Message.schema),
  accountMedia: Type.Array(AccountMedia.schema, { description: 'the offers attached on this page' }),
  accountMediaBundles: Type.Array(Type.Unknown()),
  tips: Type.Array(Type.Unknown()),
  cursor: Nullable(Type.String({ description: 'next (older) page; null at the oldest message' })),
});

export const chatMessages = defineOperation({
  name: 'chat-messages',
  paging: { cursor: inResponse('cursor'), items: inResponse('messages') },
  method: 'GET',
  path: '/:accountId/chats/:chatId/messages',
  summary: 'Read one page of a chat, newest message first',
  tags: ['chats'],
  ...accountRead,
  notFoundMessage: 'the chat does not exist on this account',
  schemas: {
    params: Type.Object({
      ...AccountParams.properties,
      chatId: PlatformId('the chat’s groupId'),
    }),
    querystring: Type.Object({
      cursor: Type.Optional(Text('response.cursor of the previous page')),
      limit: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: CHAT_MESSAGES_MAX_LIMIT,
          default: CHAT_MESSAGES_DEFAULT_LIMIT,
          description: `1 to ${CHAT_MESSAGES_MAX_LIMIT}; default ${CHAT_MESSAGES_DEFAULT_LIMIT}`,
        }),
      ),
    }),
    data: Upstream(ChatMessagesResponse),
  },
  example: {
    params: { accountId: EXAMPLE_ACCOUNT_ID, chatId: '788291264641499403' },
    query: { limit: 10 },
  },
  check: ({ query }) => idCursor.check(query.cursor, CURSOR_RULE),
  run: async ({ params, query }, { call }) => {
    const limit = query.limit ?? CHAT_MESSAGES_DEFAULT_LIMIT;
    const fetched = obj(
      await call('chatMessages', {
        query: {
          groupId: params.chatId,
          // `before` is the oldest message already read: strictly older ones, newest first.
          before: idCursor.toUpstream(query.cursor),
          // One more than asked: it only tells whether an older page exists.
          limit: limit + 1,
        },
      }),
    );
    const page = splitPage(arr(fetched.messages), limit, (message) => str(message.id));
    const messages = page.items.map(Message.from);
    // The sibling arrays describe what was fetched, the look-ahead message included: keep the
    // offers and bundles the page's messages carry.
    const { accountMedia, accountMediaBundles } = attachedMedia(
      fetched,
      messages.flatMap((m) => m.attachments.map((a) => a.contentId)),
    );
    const tips = arr(fetched.tips);
    return upstreamData({ messages, accountMedia, accountMediaBundles, tips, cursor: page.next ?? null });
  },
});
