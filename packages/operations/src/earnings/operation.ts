import { Upstream } from '@cg/contract';
import { Type } from 'typebox';
import { coerce } from '../common/coerce';
import {
  EarningsStatsRow,
  fetchDailyRows,
  lastDays,
  RangeQuery,
  rangeProblem,
  resolveRange,
} from '../common/earnings';
import { AccountParams, accountExample } from '../common/schemas';
import { accountRead, defineOperation, upstreamData } from '../define';

const { obj, num } = coerce;

/** With no bounds, the earnings of the last 30 days (contract). */
export const EARNINGS_DEFAULT_DAYS = 30;
const defaults = lastDays(EARNINGS_DEFAULT_DAYS);

/**
 * Earnings statistics: the platform's balance summary (pendingBalance and its other balance fields,
 * by their platform names) joined with its daily per-type rows. Mills throughout.
 */
export const EarningsStatistics = Type.Object(
  {
    pendingBalance: Type.Number({ description: 'mills not yet available for payout' }),
    stats: Type.Array(EarningsStatsRow.schema, { description: 'per revenue type per day, newest day first' }),
  },
  {
    additionalProperties: Type.Number({
      description: 'the other balance fields, as the platform names them; mills',
    }),
  },
);

/** The summary's numeric fields: its balances, by the platform's names. */
function balancesOf(summary: unknown): Record<string, number> {
  return Object.fromEntries(
    Object.entries(obj(summary)).filter((entry): entry is [string, number] => typeof entry[1] === 'number'),
  );
}

export const earnings = defineOperation({
  name: 'earnings',
  method: 'GET',
  path: '/:accountId/earnings',
  summary: 'The account’s balance and its earnings per revenue type per day (mills)',
  tags: ['earnings'],
  ...accountRead,
  schemas: {
    params: AccountParams,
    querystring: Type.Object(RangeQuery),
    data: Upstream(EarningsStatistics),
  },
  // January 2025.
  example: { params: accountExample, query: { after: 1735689600000, before: 1738368000000 } },
  check: ({ query }) => rangeProblem(resolveRange(query, defaults)),
  run: async ({ query }, { call }) => {
    const range = resolveRange(query, defaults);
    const summary = await call('earningsSummary');
    const stats = await fetchDailyRows(call, 'earningsStats', range);
    const balances = balancesOf(summary);
    return upstreamData({ ...balances, pendingBalance: num(balances.pendingBalance), stats });
  },
});
