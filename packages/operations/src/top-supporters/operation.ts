import { Upstream } from '@cg/contract';
import { Type } from 'typebox';
import { coerce } from '../common/coerce';
import { allTime, RangeQuery, rangeProblem, resolveRange } from '../common/earnings';
import { f, type RecordValue, record } from '../common/record';
import { AccountParams, accountExample } from '../common/schemas';
import { accountRead, defineOperation, upstreamData } from '../define';

const { arr } = coerce;

/** The platform's cap on the ranking. */
export const TOP_SUPPORTERS_MAX = 100;

/** Supporter: what one fan spent with the creator over the range. */
export const Supporter = record({
  accountId: f.id('the creator’s platform account id'),
  correlationAccountId: f.id('the fan’s platform account id'),
  totalGross: f.number('mills spent in the range'),
  totalNet: f.number('mills after the platform’s share'),
});
export type Supporter = RecordValue<typeof Supporter>;

export const topSupporters = defineOperation({
  name: 'top-supporters',
  method: 'GET',
  path: '/:accountId/top-supporters',
  summary: 'Fans ranked by what they spent with the creator, highest first (mills; all time by default)',
  tags: ['audience'],
  ...accountRead,
  schemas: {
    params: AccountParams,
    querystring: Type.Object(RangeQuery),
    data: Upstream(Type.Array(Supporter.schema, { maxItems: TOP_SUPPORTERS_MAX })),
  },
  // January 2025.
  example: { params: accountExample, query: { after: 1735689600000, before: 1738368000000 } },
  check: ({ query }) => rangeProblem(resolveRange(query, allTime)),
  run: async ({ query }, { call }) => {
    const { after, before } = resolveRange(query, allTime);
    const rows = arr(await call('earningsByFan', { query: { after, before } })).map(Supporter.from);
    // The platform ranks them already; the contract's order is kept whatever it sends.
    rows.sort((a, b) => b.totalGross - a.totalGross);
    return upstreamData(rows.slice(0, TOP_SUPPORTERS_MAX));
  },
});
