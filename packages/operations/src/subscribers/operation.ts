import { inResponse, Upstream } from '@cg/contract';
import { Type } from 'typebox';
import { coerce } from '../common/coerce';
import { NextOffsetCursor, OffsetCursorQuery, offsetCursor } from '../common/cursor';
import { fetchCursorPage, LimitQuery } from '../common/paging';
import { f, type RecordValue, record } from '../common/record';
import { AccountParams, accountExample, Text } from '../common/schemas';
import { accountRead, defineOperation, upstreamData } from '../define';

const { obj, arr } = coerce;

/**
 * The upstream status codes each contract status asks for: 3 active (the contract: "3 means
 * active"); 4 expired, the platform's non-active value, not stated anywhere (GUESS,
 * docs/upstream-decisions.md, subscriber status); all, both.
 */
export const SUBSCRIPTION_STATUS_CODES = { active: [3], expired: [4], all: [3, 4] } as const;
type SubscriberStatus = keyof typeof SUBSCRIPTION_STATUS_CODES;
const STATUSES = Object.keys(SUBSCRIPTION_STATUS_CODES) as SubscriberStatus[];
const isStatus = (value: string): value is SubscriberStatus => (STATUSES as string[]).includes(value);

/** The contract's Subscription record. Prices in cents and times in Unix ms, as upstream. */
export const Subscription = record({
  id: f.id(),
  historyId: f.id(),
  subscriberId: f.id(),
  subscriptionTierId: f.id(),
  subscriptionTierName: f.string(),
  subscriptionTierColor: f.string(),
  planId: f.id(),
  promoId: f.id("'0' if none", { fallback: '0' }),
  giftCodeId: f.nullableString(),
  paymentMethodId: f.id("'0' if none", { fallback: '0' }),
  status: f.number('3 means active'),
  // Subscription prices are the platform's one money field already in cents.
  price: f.number('cents'),
  renewPrice: f.number('cents'),
  renewCorrelationId: f.id(),
  autoRenew: f.number('1 enabled, 0 not'),
  billingCycle: f.number('days'),
  duration: f.number('days'),
  renewDate: f.timestamp(),
  version: f.number(),
  createdAt: f.timestamp(),
  updatedAt: f.timestamp(),
  endsAt: f.timestamp(),
  promoPrice: f.nullableNumber('cents'),
  promoDuration: f.nullableNumber('days'),
  promoStatus: f.nullableNumber(),
  promoStartsAt: f.nullable(f.timestamp()),
  promoEndsAt: f.nullable(f.timestamp()),
});
export type Subscription = RecordValue<typeof Subscription>;

export const SubscriberStats = record({
  totalActive: f.number(),
  totalExpired: f.number(),
  total: f.number(),
});

export const SubscribersResponse = Type.Object({
  stats: SubscriberStats.schema,
  subscriptions: Type.Array(Subscription.schema),
  nextCursor: NextOffsetCursor,
});

export const subscribers = defineOperation({
  name: 'subscribers',
  paging: { cursor: inResponse('nextCursor'), items: inResponse('subscriptions') },
  method: 'GET',
  path: '/:accountId/subscribers',
  summary: 'Subscribers of the creator (all, active or expired), with subscription stats',
  tags: ['audience'],
  ...accountRead,
  schemas: {
    params: AccountParams,
    querystring: Type.Object({
      // The validation message reads "must be <description>".
      status: Type.String({
        pattern: `^(${STATUSES.join('|')})$`,
        description: 'all, active or expired',
      }),
      cursor: OffsetCursorQuery,
      limit: LimitQuery('results per page'),
      subscriptionTierIds: Type.Optional(
        Type.String({
          pattern: '^\\d{1,30}(,\\d{1,30}){0,99}$',
          description: 'a subscription tier id (or comma-separated ids)',
        }),
      ),
      search: Type.Optional(Text('match on username or display name', { maxLength: 100 })),
    }),
    data: Upstream(SubscribersResponse),
  },
  example: {
    params: accountExample,
    query: { status: 'active', limit: 25, subscriptionTierIds: '522498831259009306', search: 'anna' },
  },
  check: ({ query }) => offsetCursor.check(query.cursor),
  run: async ({ query }, { call }) => {
    // The schema admits nothing else; the guard only narrows the type.
    const status = SUBSCRIPTION_STATUS_CODES[isStatus(query.status) ? query.status : 'active'].join(',');
    const search = query.search?.trim();
    // Every page carries the same stats (they count all of the creator's subscriptions).
    let stats: unknown = {};
    const { items, nextCursor } = await fetchCursorPage(query, async (page) => {
      const answer = obj(
        await call('subscribers', {
          query: {
            status,
            limit: page.limit,
            offset: page.offset,
            ...(search ? { search } : {}),
            ...(query.subscriptionTierIds ? { subscriptionTierId: query.subscriptionTierIds } : {}),
          },
        }),
      );
      stats = answer.stats;
      return arr(answer.subscriptions).map(Subscription.from);
    });
    return upstreamData({
      stats: SubscriberStats.from(stats),
      subscriptions: items,
      nextCursor,
    });
  },
});
