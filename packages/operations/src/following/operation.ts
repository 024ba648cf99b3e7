import { GatewayError, inResponse, Upstream } from '@cg/contract';
import { Type } from 'typebox';
import { coerce } from '../common/coerce';
import { NextOffsetCursor, OffsetCursorQuery, offsetCursor } from '../common/cursor';
import { fetchCursorPage, LimitQuery } from '../common/paging';
import { f, record } from '../common/record';
import { AccountParams, accountExample } from '../common/schemas';
import { accountRead, defineOperation, upstreamData } from '../define';

const { arr } = coerce;

/** The contract's Following entry. */
export const FollowingEntry = record({ accountId: f.id('platform account id of a followed account') });

export const FollowingResponse = Type.Object({
  following: Type.Array(FollowingEntry.schema),
  nextCursor: NextOffsetCursor,
});

export const following = defineOperation({
  name: 'following',
  paging: { cursor: inResponse('nextCursor'), items: inResponse('following') },
  method: 'GET',
  path: '/:accountId/following',
  summary: 'Accounts the creator follows',
  tags: ['audience'],
  ...accountRead,
  schemas: {
    params: AccountParams,
    querystring: Type.Object({
      cursor: OffsetCursorQuery,
      limit: LimitQuery('results per page'),
    }),
    data: Upstream(FollowingResponse),
  },
  example: { params: accountExample, query: { cursor: 'o50', limit: 50 } },
  check: ({ query }) => offsetCursor.check(query.cursor),
  run: async ({ query }, { call, account }) => {
    if (!account) throw new GatewayError('INTERNAL', 'following needs the connected account');
    const { items, nextCursor } = await fetchCursorPage(query, async (page) =>
      arr(
        await call('following', {
          params: { accountId: account.platformAccountId },
          // before/after are the platform's own bounds, unused here: paging is by offset.
          query: { before: 0, after: 0, limit: page.limit, offset: page.offset },
        }),
      ).map(FollowingEntry.from),
    );
    return upstreamData({ following: items, nextCursor });
  },
});
