import { Upstream } from '@cg/contract';
import { Type } from 'typebox';
import {
  lastMonths,
  MonthlyStatsRow,
  monthlyRows,
  RangeQuery,
  rangeProblem,
  resolveRange,
} from '../common/earnings';
import { AccountParams, accountExample } from '../common/schemas';
import { accountRead, defineOperation, upstreamData } from '../define';

/** With no bounds, the last 12 calendar months, the current one included (contract: last 12 months). */
export const MONTHLY_DEFAULT_MONTHS = 12;
const defaults = lastMonths(MONTHLY_DEFAULT_MONTHS);

export const earningsMonthly = defineOperation({
  name: 'earnings-monthly',
  method: 'GET',
  path: '/:accountId/earnings/monthly',
  summary: 'Gross and net earnings per month, newest first, with the roll-up of the range last (mills)',
  tags: ['earnings'],
  ...accountRead,
  schemas: {
    params: AccountParams,
    querystring: Type.Object(RangeQuery),
    data: Upstream(Type.Array(MonthlyStatsRow.schema)),
  },
  // The year 2024.
  example: { params: accountExample, query: { after: 1704067200000, before: 1735689600000 } },
  check: ({ query }) => rangeProblem(resolveRange(query, defaults)),
  run: async ({ query }, { call }) => {
    const { after, before } = resolveRange(query, defaults);
    return upstreamData(monthlyRows(await call('earningsMonthlyStats', { query: { after, before } })));
  },
});
