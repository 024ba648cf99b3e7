import { inData, inResponse, Upstream } from '@cg/contract';
import { Type } from 'typebox';
import { coerce } from '../common/coerce';
import { OffsetCursorQuery, offsetCursor } from '../common/cursor';
import { f, type RecordValue, record } from '../common/record';
import { AccountParams, EXAMPLE_ACCOUNT_ID, Nullable, PlatformId } from '../common/schemas';
import { accountRead, defineOperation, upstreamData } from '../define';

const { obj, arr, num } = coerce;

export const TIPS_DEFAULT_LIMIT = 20;
export const TIPS_MAX_LIMIT = 100;

/** Chat tip: one tip a fan sent in chat; amount in mills, as the platform keeps it. */
export const ChatTip = record({
  id: f.id(),
  senderId: f.id('the fan'),
  receiverId: f.id('the creator'),
  amount: f.number('mills (1/1000 USD)'),
  messageId: f.nullableString('the chat message that carried the tip', { emptyIsNull: true }),
  createdAt: f.number('Unix ms'),
});
export type ChatTip = RecordValue<typeof ChatTip>;

const TipsResponse = Type.Object({
  total: Type.Number({ description: 'mills: every chat tip of the fan, not only this page' }),
  tips: Type.Array(ChatTip.schema),
});

export const chatsTips = defineOperation({
  name: 'chats-tips',
  paging: { cursor: inData('nextCursor'), items: inResponse('tips') },
  method: 'GET',
  path: '/:accountId/chats/:fanId/tips',
  summary: 'Tips one fan sent the creator in chat, newest first, with their total (mills)',
  tags: ['chats'],
  ...accountRead,
  notFoundMessage: 'unknown fan',
  schemas: {
    params: Type.Object({
      ...AccountParams.properties,
      fanId: PlatformId('the fan’s platform account id (not a chat id)'),
    }),
    querystring: Type.Object({
      cursor: OffsetCursorQuery,
      limit: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: TIPS_MAX_LIMIT,
          default: TIPS_DEFAULT_LIMIT,
          description: `1 to ${TIPS_MAX_LIMIT}; default ${TIPS_DEFAULT_LIMIT}`,
        }),
      ),
    }),
    // The next cursor sits beside response (data.data.nextCursor), null on the last page.
    data: Upstream(TipsResponse, { inner: { nextCursor: Nullable(Type.String()) } }),
  },
  example: { params: { accountId: EXAMPLE_ACCOUNT_ID, fanId: '788291264641499137' }, query: { limit: 20 } },
  check: ({ query }) => offsetCursor.check(query.cursor),
  run: async ({ params, query }, { call }) => {
    const offset = offsetCursor.decode(query.cursor);
    const limit = query.limit ?? TIPS_DEFAULT_LIMIT;
    const fetched = obj(
      // One more than asked: it only tells whether another page follows.
      await call('tipsByAccount', { query: { accountIds: params.fanId, limit: limit + 1, offset } }),
    );
    const rows = arr(fetched.tips);
    const tips = rows.slice(0, limit).map(ChatTip.from);
    // Another page follows when the platform gave more than asked, or counts more (it caps a page at 100).
    const more = rows.length > limit || offset + tips.length < num(fetched.total);
    const nextCursor = more && tips.length > 0 ? offsetCursor.encode(offset + tips.length) : null;
    return upstreamData({ total: num(fetched.totalAmount), tips }, { nextCursor });
  },
});
