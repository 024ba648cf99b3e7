import { GatewayError, inResponse, Upstream } from '@cg/contract';
import { Type } from 'typebox';
import { coerce } from '../common/coerce';
import { OffsetCursorQuery, offsetCursor } from '../common/cursor';
import { PlatformProfile } from '../common/profile';
import { f, type RecordValue, record } from '../common/record';
import { AccountParams, accountExample, Nullable } from '../common/schemas';
import { accountRead, defineOperation, upstreamData } from '../define';

const { obj, arr } = coerce;

export const FOLLOWERS_DEFAULT_LIMIT = 20;
export const FOLLOWERS_MAX_LIMIT = 100;

/** The contract's Follower: a follow relation of the creator's. */
export const Follower = record({
  id: f.id('id of the follow relation'),
  followerId: f.id('the follower’s platform account id'),
  accountId: f.id('the followed account'),
  createdAt: f.timestamp('Unix ms, when known'),
});

export type Follower = RecordValue<typeof Follower>;

/** A follower's profile, with whether the creator follows them back. */
export const FollowerProfile = PlatformProfile.extend({ followsYou: f.boolean('the creator follows them') });

const FollowersResponse = Type.Object({
  followers: Type.Array(Follower.schema),
  aggregationData: Type.Object({ accounts: Type.Array(FollowerProfile.schema) }),
  nextCursor: Nullable(Type.String({ description: 'the next page; null on the last' })),
});

export const followers = defineOperation({
  name: 'followers',
  paging: { cursor: inResponse('nextCursor'), items: inResponse('followers') },
  method: 'GET',
  path: '/:accountId/followers',
  summary: 'Accounts that follow the creator, newest first',
  tags: ['audience'],
  ...accountRead,
  schemas: {
    params: AccountParams,
    querystring: Type.Object({
      cursor: OffsetCursorQuery,
      limit: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: FOLLOWERS_MAX_LIMIT,
          default: FOLLOWERS_DEFAULT_LIMIT,
          description: `1 to ${FOLLOWERS_MAX_LIMIT}; default ${FOLLOWERS_DEFAULT_LIMIT}`,
        }),
      ),
    }),
    data: Upstream(FollowersResponse),
  },
  example: { params: accountExample, query: { limit: FOLLOWERS_DEFAULT_LIMIT } },
  check: ({ query }) => offsetCursor.check(query.cursor),
  run: async ({ query }, { call, account }) => {
    if (!account) throw new GatewayError('INTERNAL', 'followers needs the connected account');
    const limit = query.limit ?? FOLLOWERS_DEFAULT_LIMIT;
    const offset = offsetCursor.decode(query.cursor);
    // One more than asked: it only tells whether another page exists.
    const page = obj(
      await call('followers', {
        params: { accountId: account.platformAccountId },
        query: { limit: limit + 1, offset },
      }),
    );
    const rows = arr(page.followers);
    const kept = rows
      .slice(0, limit)
      .map((row) => Follower.from({ accountId: account.platformAccountId, ...row }));
    const ids = new Set(kept.map((row) => row.followerId));
    const accounts = arr(obj(page.aggregationData).accounts)
      .map(FollowerProfile.from)
      .filter((profile) => ids.has(profile.id));
    const nextCursor = rows.length > limit ? offsetCursor.encode(offset + limit) : null;
    return upstreamData({ followers: kept, aggregationData: { accounts }, nextCursor });
  },
});
