import { inData, inResponse, Upstream } from '@cg/contract';
import { Type } from 'typebox';
import { coerce } from '../common/coerce';
import { OffsetCursorQuery, offsetCursor } from '../common/cursor';
import { PlatformProfile } from '../common/profile';
import { f, type RecordValue, record } from '../common/record';
import { AccountParams, accountExample, Nullable, PlatformId, Text } from '../common/schemas';
import { accountRead, defineOperation, upstreamData } from '../define';

const { obj, arr, str } = coerce;

export const CHATS_DEFAULT_LIMIT = 20;
export const CHATS_MAX_LIMIT = 100;

/**
 * The contract's filter values onto `/messaging/groups` `flags`. GUESS (docs/upstream-decisions.md,
 * chat list): only 0 (all) and 32 (unread) are documented; followers 2 and subscribers 4 are the
 * broadcast audience bits, and VIP has no known bit, so 1 is this gateway's choice. The sandbox keeps
 * the same table (`GROUP_FILTER_FLAGS`).
 */
export const CHAT_FILTER_FLAGS = { all: 0, vips: 1, followers: 2, subscribers: 4 } as const;
/** The contract's sort values onto `sortOrder`. GUESS: 1 and 2 inferred, 3 the remaining candidate. */
export const CHAT_SORT_ORDER = { newest: 1, oldest: 2, unread: 3 } as const;

const oneOf = (values: object, description: string) =>
  Type.String({ pattern: `^(${Object.keys(values).join('|')})$`, description });

/** Chat: one row of the chat list (response.data[]), the platform's row passed through. */
export const Chat = record({
  account_id: f.from((raw) => raw.account_id ?? raw.accountId, f.id('the creator whose inbox this is')),
  groupId: f.id('the chat id: use it as {chat_id}'),
  partnerAccountId: f.id('the fan’s platform account id: use it as {fan_id}'),
  partnerUsername: f.string(),
  flags: f.number('bitmask of the fan’s relation to the creator'),
  unreadCount: f.number(),
  subscriptionTierId: f.nullableString('the fan’s current tier', { emptyIsNull: true }),
  lastMessageId: f.nullableString(undefined, { emptyIsNull: true }),
  lastUnreadMessageId: f.nullableString("null, or '0', when nothing is unread"),
});
export type Chat = RecordValue<typeof Chat>;

const ChatsResponse = Type.Object({
  data: Type.Array(Chat.schema),
  aggregationData: Type.Object({ accounts: Type.Array(PlatformProfile.schema) }),
});

export const chatsList = defineOperation({
  name: 'chats-list',
  paging: { cursor: inData('nextCursor'), items: inResponse('data') },
  method: 'GET',
  path: '/:accountId/chats',
  summary: 'List the creator’s chats, one row per fan conversation',
  tags: ['chats'],
  ...accountRead,
  schemas: {
    params: AccountParams,
    querystring: Type.Object({
      filter: Type.Optional(oneOf(CHAT_FILTER_FLAGS, 'all (default), vips, followers, subscribers')),
      subscriptionTierId: Type.Optional(PlatformId('only fans on this subscription tier')),
      search: Type.Optional(Text('match on the fan’s username or display name', { maxLength: 100 })),
      sort: Type.Optional(oneOf(CHAT_SORT_ORDER, 'newest (default), oldest, unread')),
      cursor: OffsetCursorQuery,
      limit: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: CHATS_MAX_LIMIT,
          default: CHATS_DEFAULT_LIMIT,
          description: `1 to ${CHATS_MAX_LIMIT}; default ${CHATS_DEFAULT_LIMIT}`,
        }),
      ),
    }),
    // The next cursor sits beside response (data.data.nextCursor), null on the last page.
    data: Upstream(ChatsResponse, { inner: { nextCursor: Nullable(Type.String()) } }),
  },
  example: {
    params: accountExample,
    query: { filter: 'subscribers', sort: 'newest', search: 'luna', limit: 20 },
  },
  check: ({ query }) => offsetCursor.check(query.cursor),
  run: async ({ query }, { call, account }) => {
    const offset = offsetCursor.decode(query.cursor);
    const limit = query.limit ?? CHATS_DEFAULT_LIMIT;
    const search = query.search?.trim();
    const fetched = obj(
      await call('messagingGroups', {
        query: {
          sortOrder: CHAT_SORT_ORDER[(query.sort ?? 'newest') as keyof typeof CHAT_SORT_ORDER],
          flags: CHAT_FILTER_FLAGS[(query.filter ?? 'all') as keyof typeof CHAT_FILTER_FLAGS],
          subscriptionTierId: query.subscriptionTierId,
          search: search === '' ? undefined : search,
          // One more than asked: it only tells whether another page follows.
          limit: limit + 1,
          offset,
        },
      }),
    );
    const rows = arr(fetched.data);
    const kept = rows.slice(0, limit);
    const creatorId = account?.platformAccountId ?? '';
    const data = kept.map((row) => {
      const chat = Chat.from(row);
      return chat.account_id === '' ? { ...chat, account_id: creatorId } : chat;
    });
    // The aggregation may describe more accounts than the page shows: keep the page's fans.
    const partners = new Set(data.map((chat) => chat.partnerAccountId));
    const accounts = arr(obj(fetched.aggregationData).accounts)
      .filter((profile) => partners.has(str(profile.id)))
      .map(PlatformProfile.from);
    const nextCursor = rows.length > limit ? offsetCursor.encode(offset + limit) : null;
    return upstreamData({ data, aggregationData: { accounts } }, { nextCursor });
  },
});
