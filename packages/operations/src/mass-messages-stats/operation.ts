import { inData, inResponse, Upstream } from '@cg/contract';
import { Type } from 'typebox';
import { AccountMedia } from '../chat-media-stats/operation';
import { coerce } from '../common/coerce';
import { idCursor, splitPage } from '../common/id-cursor';
import { Message } from '../common/message';
import { f, type RecordValue, record } from '../common/record';
import { AccountParams, accountExample, Nullable, Text } from '../common/schemas';
import { accountRead, defineOperation, type OperationContext, upstreamData } from '../define';

const { obj, arr, str } = coerce;

export const STATS_DEFAULT_LIMIT = 24;
/** The platform's page cap of `/message/broadcast/stats`. */
export const STATS_MAX_LIMIT = 50;

const CURSOR_RULE = 'must be a cursor this endpoint answered (the id of the oldest message read)';

/** Broadcast stats row: the broadcast Message and its recipient counts. */
export const BroadcastStatsRow = Message.extend({
  stats: f.record(
    record({
      total: f.number('recipients'),
      delivered: f.number('recipients it reached'),
      read: f.number('recipients who read it'),
    }),
  ),
});

export type BroadcastStatsRow = RecordValue<typeof BroadcastStatsRow>;

const StatsResponse = Type.Object({
  messages: Type.Array(BroadcastStatsRow.schema),
  accountMedia: Type.Array(AccountMedia.schema, { description: 'the offers the page’s messages carry' }),
  accountMediaBundles: Type.Array(Type.Unknown()),
});

/**
 * One page of broadcast statistics, newest first. `before` is the oldest message read. One more row
 * than asked tells whether an older page exists, unless that would pass the platform's cap: then a
 * full page gets a cursor, and the page after it may be empty.
 */
async function statsPage(
  endpoint: 'broadcastStats' | 'broadcastStatsDeleted',
  query: { cursor?: string; limit?: number },
  call: OperationContext['call'],
) {
  const limit = query.limit ?? STATS_DEFAULT_LIMIT;
  const fetchCount = Math.min(limit + 1, STATS_MAX_LIMIT);
  const fetched = obj(
    await call(endpoint, { query: { before: idCursor.toUpstream(query.cursor) ?? '0', limit: fetchCount } }),
  );
  const rows = arr(fetched.messages);
  const page = splitPage(rows, limit, (row) => str(row.id));
  const last = page.items.at(-1);
  const next =
    page.next ?? (fetchCount === limit && rows.length === limit && last ? str(last.id) : undefined);
  return upstreamData(
    {
      messages: page.items.map(BroadcastStatsRow.from),
      accountMedia: arr(fetched.accountMedia).map(AccountMedia.from),
      accountMediaBundles: arr(fetched.accountMediaBundles),
    },
    { nextCursor: next ?? null },
  );
}

const statsSchemas = {
  params: AccountParams,
  querystring: Type.Object({
    cursor: Type.Optional(Text('data.data.nextCursor of the previous page')),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: STATS_MAX_LIMIT,
        default: STATS_DEFAULT_LIMIT,
        description: `1 to ${STATS_MAX_LIMIT}; default ${STATS_DEFAULT_LIMIT}`,
      }),
    ),
  }),
  // The next cursor sits beside response (data.data.nextCursor), null on the last page.
  data: Upstream(StatsResponse, { inner: { nextCursor: Nullable(Type.String()) } }),
};

function statsOperation(deleted: boolean) {
  return defineOperation({
    name: deleted ? 'mass-messages-stats-deleted' : 'mass-messages-stats-sent',
    paging: { cursor: inData('nextCursor'), items: inResponse('messages') },
    method: 'GET',
    path: deleted ? '/:accountId/mass-messaging/stats/deleted' : '/:accountId/mass-messaging/stats/sent',
    summary: deleted
      ? 'Delivery statistics of mass messages sent and later deleted, newest first'
      : 'Delivery statistics of mass messages sent, newest first',
    tags: ['messages'],
    ...accountRead,
    schemas: statsSchemas,
    example: { params: accountExample, query: { limit: STATS_DEFAULT_LIMIT } },
    check: ({ query }) => idCursor.check(query.cursor, CURSOR_RULE),
    run: ({ query }, { call }) =>
      statsPage(deleted ? 'broadcastStatsDeleted' : 'broadcastStats', query, call),
  });
}

export const massMessagesStatsSent = statsOperation(false);
export const massMessagesStatsDeleted = statsOperation(true);
