import { Upstream } from '@cg/contract';
import { type Static, Type } from 'typebox';
import { coerce } from '../common/coerce';
import { NextOffsetCursor, OffsetCursorQuery, offsetCursor } from '../common/cursor';
import { fetchCursorPage, LimitQuery } from '../common/paging';
import { AccountParams, Nullable } from '../common/schemas';
import { defineOperation, upstreamData } from '../define';

const { obj, arr, str, num, nullableStr, nullableNum } = coerce;

/** Upstream status code of an active subscription (the contract: "3 means active"). */
const STATUS_ACTIVE = 3;

/** The contract's Subscription record. Prices in cents and times in Unix ms, as upstream. */
export const Subscription = Type.Object({
  id: Type.String(),
  historyId: Type.String(),
  subscriberId: Type.String(),
  subscriptionTierId: Type.String(),
  subscriptionTierName: Type.String(),
  subscriptionTierColor: Type.String(),
  planId: Type.String(),
  promoId: Type.String({ description: "'0' if none" }),
  giftCodeId: Nullable(Type.String()),
  paymentMethodId: Type.String({ description: "'0' if none" }),
  status: Type.Number({ description: '3 means active' }),
  price: Type.Number({ description: 'cents' }),
  renewPrice: Type.Number({ description: 'cents' }),
  renewCorrelationId: Type.String(),
  autoRenew: Type.Number({ description: '1 enabled, 0 not' }),
  billingCycle: Type.Number({ description: 'days' }),
  duration: Type.Number({ description: 'days' }),
  renewDate: Type.Number({ description: 'Unix ms' }),
  version: Type.Number(),
  createdAt: Type.Number(),
  updatedAt: Type.Number(),
  endsAt: Type.Number(),
  promoPrice: Nullable(Type.Number({ description: 'cents' })),
  promoDuration: Nullable(Type.Number({ description: 'days' })),
  promoStatus: Nullable(Type.Number()),
  promoStartsAt: Nullable(Type.Number()),
  promoEndsAt: Nullable(Type.Number()),
});
export type Subscription = Static<typeof Subscription>;

export const SubscriberStats = Type.Object({
  totalActive: Type.Number(),
  totalExpired: Type.Number(),
  total: Type.Number(),
});

export const SubscribersResponse = Type.Object({
  stats: SubscriberStats,
  subscriptions: Type.Array(Subscription),
  nextCursor: NextOffsetCursor,
});

const idOrZero = (value: unknown): string => (value === undefined || value === null ? '0' : str(value));

export function toSubscription(value: unknown): Subscription {
  const raw = obj(value);
  return {
    id: str(raw.id),
    historyId: str(raw.historyId),
    subscriberId: str(raw.subscriberId),
    subscriptionTierId: str(raw.subscriptionTierId),
    subscriptionTierName: str(raw.subscriptionTierName),
    subscriptionTierColor: str(raw.subscriptionTierColor),
    planId: str(raw.planId),
    promoId: idOrZero(raw.promoId),
    giftCodeId: nullableStr(raw.giftCodeId),
    paymentMethodId: idOrZero(raw.paymentMethodId),
    status: num(raw.status),
    // Subscription prices are the platform's one money field already in cents.
    price: num(raw.price),
    renewPrice: num(raw.renewPrice),
    renewCorrelationId: str(raw.renewCorrelationId),
    autoRenew: num(raw.autoRenew),
    billingCycle: num(raw.billingCycle),
    duration: num(raw.duration),
    renewDate: num(raw.renewDate),
    version: num(raw.version),
    createdAt: num(raw.createdAt),
    updatedAt: num(raw.updatedAt),
    endsAt: num(raw.endsAt),
    promoPrice: nullableNum(raw.promoPrice),
    promoDuration: nullableNum(raw.promoDuration),
    promoStatus: nullableNum(raw.promoStatus),
    promoStartsAt: nullableNum(raw.promoStartsAt),
    promoEndsAt: nullableNum(raw.promoEndsAt),
  };
}

export const subscribers = defineOperation({
  name: 'subscribers',
  method: 'GET',
  path: '/:accountId/subscribers',
  summary: 'Active subscribers of the creator, with subscription stats',
  tags: ['audience'],
  session: 'path',
  write: false,
  successStatus: 200,
  schemas: {
    params: AccountParams,
    querystring: Type.Object({
      // The validation message reads "must be <description>".
      status: Type.String({ pattern: '^active$', description: 'active' }),
      cursor: OffsetCursorQuery,
      limit: LimitQuery('results per page'),
      subscriptionTierIds: Type.Optional(
        Type.String({
          pattern: '^\\d{1,30}(,\\d{1,30}){0,99}$',
          description: 'a subscription tier id (or comma-separated ids)',
        }),
      ),
      search: Type.Optional(
        Type.String({ maxLength: 100, description: 'match on username or display name' }),
      ),
    }),
    data: Upstream(SubscribersResponse),
  },
  check: ({ query }) => offsetCursor.check(query.cursor),
  run: async ({ query }, { call }) => {
    const search = query.search?.trim();
    // Every page carries the same stats (they count all of the creator's subscriptions).
    let stats: Record<string, unknown> = {};
    const { items, nextCursor } = await fetchCursorPage(query, async (page) => {
      const answer = obj(
        await call('subscribers', {
          query: {
            status: STATUS_ACTIVE,
            limit: page.limit,
            offset: page.offset,
            ...(search ? { search } : {}),
            ...(query.subscriptionTierIds ? { subscriptionTierId: query.subscriptionTierIds } : {}),
          },
        }),
      );
      stats = obj(answer.stats);
      return arr(answer.subscriptions).map(toSubscription);
    });
    return upstreamData({
      stats: {
        totalActive: num(stats.totalActive),
        totalExpired: num(stats.totalExpired),
        total: num(stats.total),
      },
      subscriptions: items,
      nextCursor,
    });
  },
});
