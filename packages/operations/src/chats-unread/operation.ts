import { inData, inResponse, Upstream } from '@cg/contract';
import { Type } from 'typebox';
import { coerce } from '../common/coerce';
import { idCursor, splitPage } from '../common/id-cursor';
import { f, type RecordValue, record } from '../common/record';
import { AccountParams, accountExample, Nullable, Text } from '../common/schemas';
import { accountRead, defineOperation, upstreamData } from '../define';

/** Interactions per page. The contract sets no page size; one extra is fetched to see if more exist. */
export const UNREAD_PAGE_SIZE = 50;

const CURSOR_RULE = 'must be the messageId of the last item of the previous page';

/** Unread message interaction (response.messageInteractions[]). */
export const UnreadMessageInteraction = record({
  messageId: f.id(),
  groupId: f.id('chat group id'),
  userId: f.id('partner user'),
  // Interaction times are Unix ms upstream already (docs/upstream-decisions.md: only post and
  // message createdAt are seconds), so they pass through unconverted.
  deliveredAt: f.timestamp(),
  readAt: f.nullable(f.timestamp()),
  deletedAt: f.nullable(f.timestamp()),
  attachments: f.array(f.unknown()),
  // Absent means the platform did not flag it: a message it lists as unread is taken as valid.
  validMessage: f.from((raw) => (raw.validMessage === undefined ? true : raw.validMessage), f.boolean()),
});
export type UnreadMessageInteraction = RecordValue<typeof UnreadMessageInteraction>;

const { obj, arr, num } = coerce;

export const chatsUnread = defineOperation({
  name: 'chats-unread',
  paging: { cursor: inData('nextCursor'), items: inResponse('messageInteractions') },
  method: 'GET',
  path: '/:accountId/chats/unread',
  summary: 'Unread message interactions across all chats, newest first',
  tags: ['chats'],
  ...accountRead,
  schemas: {
    params: AccountParams,
    querystring: Type.Object({
      cursor: Type.Optional(Text('the messageId of the last item of the previous response')),
    }),
    data: Upstream(
      Type.Object({
        total: Type.Number({ description: 'number of all unread messages, not of this page' }),
        messageInteractions: Type.Array(UnreadMessageInteraction.schema),
      }),
      { inner: { nextCursor: Nullable(Type.String()) } },
    ),
  },
  example: { params: accountExample, query: { cursor: '820974298989592844' } },
  check: ({ query }) => idCursor.check(query.cursor, CURSOR_RULE),
  run: async ({ query }, { call }) => {
    const fetched = obj(
      await call('messageUnread', {
        // `before` is a message id: interactions strictly older than it.
        query: { before: idCursor.toUpstream(query.cursor), limit: UNREAD_PAGE_SIZE + 1 },
      }),
    );
    const page = splitPage(
      arr(fetched.messageInteractions).map(UnreadMessageInteraction.from),
      UNREAD_PAGE_SIZE,
      (interaction) => interaction.messageId,
    );
    return upstreamData(
      { total: num(fetched.total), messageInteractions: page.items },
      { nextCursor: page.next ?? null },
    );
  },
});
