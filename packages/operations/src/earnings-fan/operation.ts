import { GatewayError, Upstream } from '@cg/contract';
import { Type } from 'typebox';
import {
  allTime,
  FanParams,
  fanExample,
  fetchDailyRows,
  MonthlyStatsRow,
  monthlyRows,
  RangeQuery,
  rangeProblem,
  resolveRange,
  totalsOf,
} from '../common/earnings';
import { f, type RecordValue, record } from '../common/record';
import { accountRead, defineOperation, upstreamData } from '../define';

/** Fan earnings: what one fan spent with the creator over the range, in total and per month. */
export const FanEarnings = record({
  accountId: f.id('the creator'),
  correlationAccountId: f.id('the fan'),
  totalGross: f.number('mills over the range'),
  totalNet: f.number('mills over the range'),
  months: f.array(MonthlyStatsRow, 'this fan’s months, newest first, the roll-up last'),
});
export type FanEarnings = RecordValue<typeof FanEarnings>;

export const earningsFan = defineOperation({
  name: 'earnings-fan',
  method: 'GET',
  path: '/:accountId/earnings/fans/:fanId',
  summary: 'What one fan has spent with the creator: totals and months (mills; all time by default)',
  tags: ['earnings'],
  ...accountRead,
  notFoundMessage: 'unknown fan: not one of the creator’s fans',
  schemas: {
    params: FanParams,
    querystring: Type.Object(RangeQuery),
    data: Upstream(FanEarnings.schema),
  },
  example: { params: fanExample, query: { after: 1704067200000, before: 1735689600000 } },
  check: ({ query }) => rangeProblem(resolveRange(query, allTime)),
  run: async ({ params, query }, { call, account }) => {
    if (!account) throw new GatewayError('INTERNAL', 'earnings-fan needs the connected account');
    const range = resolveRange(query, allTime);
    const fan = { correlationAccountId: params.fanId };
    // Totals from the fan's daily rows, months from the fan's monthly rows (upstream-extended 1.10).
    const days = await fetchDailyRows(call, 'earningsStatsOfFan', range, fan);
    const months = await call('earningsMonthlyStatsOfFan', { query: { ...fan, ...range } });
    return upstreamData({
      accountId: account.platformAccountId,
      correlationAccountId: params.fanId,
      ...totalsOf(days),
      months: monthlyRows(months),
    });
  },
});
