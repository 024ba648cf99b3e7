import { GatewayError, Upstream } from '@cg/contract';
import { Type } from 'typebox';
import { offsetCursor } from '../common/cursor';
import { coerce } from '../common/profile';
import { AccountParams } from '../common/schemas';
import { defineOperation, upstreamData } from '../define';

const { arr, str } = coerce;

/** The platform's page size bounds (default 25, at most 100); a larger limit is refused, not clamped. */
const DEFAULT_LIMIT = 25;
const MAX_LIMIT = 100;

/** The contract's Following entry. */
export const FollowingEntry = Type.Object({
  accountId: Type.String({ description: 'platform account id of a followed account' }),
});

export const FollowingResponse = Type.Object({
  following: Type.Array(FollowingEntry),
  nextCursor: Type.String({ description: 'pass back as cursor; "" when there are no more' }),
});

export const following = defineOperation({
  name: 'following',
  method: 'GET',
  path: '/:accountId/following',
  summary: 'Accounts the creator follows',
  tags: ['audience'],
  session: 'path',
  write: false,
  successStatus: 200,
  schemas: {
    params: AccountParams,
    querystring: Type.Object({
      cursor: Type.Optional(Type.String({ maxLength: 64, description: 'nextCursor of the previous page' })),
      limit: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: MAX_LIMIT,
          default: DEFAULT_LIMIT,
          description: 'results per page',
        }),
      ),
    }),
    data: Upstream(FollowingResponse),
  },
  check: ({ query }) => offsetCursor.check(query.cursor),
  run: async ({ query }, { call, account }) => {
    if (!account) throw new GatewayError('INTERNAL', 'following needs the connected account');
    const offset = offsetCursor.decode(query.cursor);
    const limit = query.limit ?? DEFAULT_LIMIT;
    const page = await call('following', {
      params: { accountId: account.platformAccountId },
      // before/after are the platform's own bounds, unused here: paging is by offset.
      query: { before: 0, after: 0, limit, offset },
    });
    const entries = arr(page).map((entry) => ({ accountId: str(entry.accountId) }));
    return upstreamData({
      following: entries,
      // Offset paging upstream: a page shorter than asked is the last one.
      nextCursor: entries.length < limit ? '' : offsetCursor.encode(offset + entries.length),
    });
  },
});
